import Foundation
import Switchyard
import SwitchyardKafka
import Synchronization

/// Where `switchyard dlq` reads dead letters: a dump file (kcat `-J`, which carries headers) or a live
/// topic read once from the beginning to its current end.
enum DeadLetterSource {
    case file(String)
    case live(brokers: String, topic: String, properties: [String: String])

    /// The DLQ topic name, when known before reading.
    var topicName: String? {
        switch self {
        case .file: nil
        case .live(_, let topic, _): topic
        }
    }

    /// Reads every dead letter, sorted by partition and offset.
    ///
    /// A live read is bounded: the end is each partition's high watermark taken when the read starts
    /// (records written later are not read); a partition whose last offsets are not records (transaction
    /// markers) ends `idleTimeout` after the last record; the whole read fails after `timeout` (exit 69).
    func read(connectTimeout: Duration, timeout: Duration, idleTimeout: Duration = .seconds(3)) async throws -> [DeadLetter] {
        switch self {
        case .file(let path):
            var reader = DumpReader(paths: [path], format: .kcat)
            var letters: [DeadLetter] = []
            do {
                while let r = try reader.next() {
                    letters.append(
                        DeadLetter(
                            topic: r.topic, partition: r.partition ?? 0, offset: r.offset ?? Int64(r.index),
                            timestampMilliseconds: r.timestampMilliseconds.flatMap { $0 >= 0 ? $0 : nil }, key: r.key, value: r.value,
                            headers: r.headers.map { KafkaHeader(name: $0.name, value: $0.value) }))
                }
            } catch {
                throw CommandError(.dataError, "unreadable dump: \(error)")
            }
            return letters.sorted { ($0.partition, $0.offset) < ($1.partition, $1.offset) }
        case .live(let brokers, let topic, let properties):
            return try await readLive(
                brokers: brokers, topic: topic, properties: properties, connectTimeout: connectTimeout, timeout: timeout,
                idleTimeout: idleTimeout)
        }
    }

    private func readLive(
        brokers: String, topic: String, properties: [String: String], connectTimeout: Duration, timeout: Duration,
        idleTimeout: Duration
    ) async throws -> [DeadLetter] {
        let kafka = KafkaConfiguration(
            bootstrapServers: brokers.split(separator: ",").map(String.init), clientID: "switchyard-dlq", properties: properties,
            logLevel: .error)
        // Metadata of all topics (naming none, so a broker that auto-creates topics does not create this one).
        let partitions: [KafkaTopicPartition]
        let marks: [KafkaTopicPartition: KafkaWatermarks]
        do {
            let probe = try KafkaProducer.make(configuration: KafkaProducerConfiguration(kafka: kafka), logger: NoOpKafkaLogger())
            let metadata: KafkaClusterMetadata
            do {
                metadata = try await probe.metadata(timeout: connectTimeout)
            } catch {
                await probe.close(timeout: .zero)
                throw error
            }
            await probe.close(timeout: .zero)
            guard let entry = metadata.topics.first(where: { $0.name == topic }), entry.errorName == nil, entry.partitionCount > 0 else {
                throw CommandError(.dataError, "topic '\(topic)' does not exist on \(brokers)")
            }
            partitions = (0..<entry.partitionCount).map { KafkaTopicPartition(topic: topic, partition: Int32($0)) }
            marks = try await KafkaConsumer.watermarks(partitions, kafka: kafka, timeout: connectTimeout)
        } catch let error as KafkaError {
            throw CommandError(error)
        }
        var remaining = Set(partitions.filter { !(marks[$0]?.isEmpty ?? true) })
        guard !remaining.isEmpty else { return [] }
        let expected = remaining.reduce(Int64(0)) { $0 + (marks[$1]!.high - marks[$1]!.low) }

        let consumer: KafkaConsumer
        do {
            // A private group that never stores an offset: nothing is committed, nobody else is disturbed.
            consumer = try KafkaConsumer.make(
                configuration: KafkaConsumerConfiguration(
                    groupID: "switchyard-dlq-\(UUID().uuidString.prefix(8).lowercased())", topics: [topic], kafka: kafka,
                    offsetReset: .earliest, statisticsInterval: nil),
                logger: NoOpKafkaLogger())
        } catch let error as KafkaError {
            throw CommandError(error)
        }
        let lastProgress = Mutex<ContinuousClock.Instant?>(nil)
        let finished = Mutex(false)
        let reader = Task { () throws -> (letters: [DeadLetter], complete: Bool) in
            var letters: [DeadLetter] = []
            defer { finished.withLock { $0 = true } }
            for try await record in consumer.records {
                let tp = record.topicPartition
                // Records written after the read started are beyond the end taken at the start.
                guard let mark = marks[tp], record.offset < mark.high else { continue }
                letters.append(DeadLetter(record))
                lastProgress.withLock { $0 = .now }
                if record.offset + 1 >= mark.high { remaining.remove(tp) }
                if remaining.isEmpty { return (letters, true) }
            }
            return (letters, false)
        }
        let deadline = ContinuousClock.now + timeout
        var idled = false
        var timedOut = false
        while !finished.withLock({ $0 }) {
            try? await Task.sleep(for: .milliseconds(50))
            if ContinuousClock.now >= deadline {
                timedOut = true
                reader.cancel()
                break
            }
            if let last = lastProgress.withLock({ $0 }), ContinuousClock.now - last >= idleTimeout {
                idled = true
                reader.cancel()
                break
            }
        }
        let result: (letters: [DeadLetter], complete: Bool)
        do {
            result = try await reader.value
        } catch let error as KafkaError {
            await consumer.close()
            throw CommandError(error)
        }
        await consumer.close()
        if !result.complete {
            if timedOut {
                throw CommandError(
                    .unavailable,
                    "read \(result.letters.count) of \(expected) dead letters from \(topic) before the timeout (\(timeout)); try a longer --timeout")
            }
            if idled {
                printError("warning: no record for \(idleTimeout) before the end of \(topic) (transaction markers or deleted records?): read \(result.letters.count)")
            }
        }
        return result.letters.sorted { ($0.partition, $0.offset) < ($1.partition, $1.offset) }
    }
}
