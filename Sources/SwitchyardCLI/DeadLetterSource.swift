import Foundation
import Switchyard
import SwitchyardKafka

/// Where `switchyard dlq` reads dead letters: a dump file (kcat `-J`, which carries headers) or a live
/// topic, read-only (partitions assigned directly: no group is joined, nothing is committed).
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

    /// How a read goes.
    struct ReadOptions {
        /// How long reaching the brokers may take (exit 69 after it, at once for a refused or unresolvable
        /// address). Default: 10 seconds.
        var connectTimeout: Duration = .seconds(10)
        /// No new record for this long ends the read with what was read (a warning on stderr). Default: 10 seconds.
        var idleTimeout: Duration = .seconds(10)
        /// Read records written after the read started too, until `shouldStop` says so.
        var follow = false
        /// Only this partition, from this offset (a live `dlq show` reads one record, not the topic).
        var only: (partition: Int32, offset: Int64)?
        /// Asked between batches while following (a signal arrived).
        var shouldStop: @Sendable () -> Bool = { false }
        /// Progress on stderr (only when stderr is a terminal).
        var progress = false
        /// Called after each batch of a live read (a follower flushes what it printed).
        var afterBatch: () -> Void = {}
        /// Called when a live read opens with each partition whose log no longer starts at offset 0 (its
        /// earlier records expired: retention), with the partition's first offset.
        var expired: (_ partition: Int32, _ low: Int64) -> Void = { _, _ in }
        /// A live topic that does not exist reads as empty instead of an error (a topic created on first
        /// write, like the control topic, that nothing was written to yet).
        var missingTopicIsEmpty = false
    }

    /// What a read saw.
    struct ReadSummary {
        /// Dead letters read.
        var read = 0
        /// Offsets in the range read (live, not following): the records to expect, markers aside.
        var expected: Int64?
        /// Whether the read reached the end it was set (false after an idle timeout or an early stop).
        var complete = true
        /// Set when the read was cut short before its end (no new record for the idle timeout: a broker that
        /// hangs or went away): what was read is partial, and says so.
        var cutShort: String?
        /// Whether the read stopped because `shouldStop` said so before its end (not following: a signal).
        var interrupted = false
        /// The DLQ's partition count (live), for how a DLQ offset is printed.
        var partitionCount: Int?
        /// Each partition's watermarks when a live read opened (the offsets it holds).
        var watermarks: [Int32: KafkaWatermarks] = [:]
    }

    /// Reads dead letters in the order they come (per partition by offset), handing each to `body` and
    /// keeping none: constant memory. `body` returns false to stop the read.
    ///
    /// A live read ends at each partition's high watermark taken when it starts (records written later are
    /// not read), or, with `follow`, when `shouldStop` says so; no new record for `idleTimeout` ends it with
    /// what was read and a warning.
    @discardableResult
    func read(_ options: ReadOptions, _ body: (DeadLetter) async throws -> Bool) async throws -> ReadSummary {
        switch self {
        case .file(let path):
            var reader = DumpReader(paths: [path], format: .kcat)
            var summary = ReadSummary()
            let progress = ProgressLine(enabled: options.progress, noun: "dead letters")
            defer { progress.finish() }
            do {
                while let r = try reader.next() {
                    let letter = DeadLetter(
                        topic: r.topic, partition: r.partition ?? 0, offset: r.offset ?? Int64(r.index),
                        timestampMilliseconds: r.timestampMilliseconds.flatMap { $0 >= 0 ? $0 : nil }, key: r.key, value: r.value,
                        headers: r.headers.map { KafkaHeader(name: $0.name, value: $0.value) })
                    if let only = options.only, letter.partition != only.partition || letter.offset != only.offset { continue }
                    if options.shouldStop() {
                        summary.interrupted = true
                        summary.complete = false
                        break
                    }
                    summary.read += 1
                    progress.update(summary.read, of: nil)
                    if try await !body(letter) {
                        summary.complete = false
                        break
                    }
                }
            } catch let error as DumpError {
                throw CommandError(.dataError, "unreadable dump: \(error)")
            }
            // A signal while a read from a pipe waited for more: what was read is not the whole input.
            if options.shouldStop() && !summary.interrupted {
                summary.interrupted = true
                summary.complete = false
            }
            return summary
        case .live(let brokers, let topic, let properties):
            return try await readLive(brokers: brokers, topic: topic, properties: properties, options: options, body)
        }
    }

    /// Every dead letter, sorted by partition and offset: for the commands that need them all at once
    /// (`redrive`, `release`, the demo).
    func readAll(connectTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(10)) async throws -> [DeadLetter] {
        var letters: [DeadLetter] = []
        try await read(ReadOptions(connectTimeout: connectTimeout, idleTimeout: idleTimeout)) {
            letters.append($0)
            return true
        }
        return letters.sorted { ($0.partition, $0.offset) < ($1.partition, $1.offset) }
    }

    private func readLive(
        brokers: String, topic: String, properties: [String: String], options: ReadOptions, _ body: (DeadLetter) async throws -> Bool
    ) async throws -> ReadSummary {
        let kafka = KafkaConfiguration(
            bootstrapServers: brokers.split(separator: ",").map(String.init), clientID: "switchyard-dlq", properties: properties,
            logLevel: .error)
        var configuration = KafkaTopicReader.Configuration(
            kafka: kafka, topic: topic, end: options.follow ? .never : .highWatermark, connectTimeout: options.connectTimeout)
        if let only = options.only {
            configuration.partitions = [only.partition]
            configuration.start = .offset(only.offset)
            configuration.end = .offset(only.offset)
        }
        let reader: KafkaTopicReader
        do {
            reader = try await KafkaTopicReader.open(configuration)
        } catch let error as KafkaError {
            if error.code == .state { throw CommandError(.dataError, error.reason) }
            guard error.code == .unknownTopic else { throw CommandError(error) }
            if options.missingTopicIsEmpty { return ReadSummary() }
            // A misspelt topic: name the nearest one the brokers have.
            let names: [String]
            do {
                names = try await KafkaCluster.metadata(kafka: kafka, timeout: options.connectTimeout).topics.map(\.name)
            } catch let listing as KafkaError {
                // The topic list is only for a suggestion: without it, the missing topic is still the error.
                throw CommandError(.dataError, "\(error.reason) (the brokers' topics could not be listed: \(listing.reason))")
            }
            throw CommandError(.dataError, error.reason + didYouMean(topic, among: names.filter { !$0.hasPrefix("__") }.sorted()))
        }
        if options.only == nil {
            for range in reader.ranges where range.watermarks.low > 0 { options.expired(range.partition.partition, range.watermarks.low) }
        }
        var summary = ReadSummary(partitionCount: reader.ranges.count)
        for range in reader.ranges { summary.watermarks[range.partition.partition] = range.watermarks }
        if !options.follow { summary.expected = reader.ranges.reduce(0) { $0 + ($1.count ?? 0) } }
        let progress = ProgressLine(enabled: options.progress, noun: "dead letters from \(topic)")
        defer { progress.finish() }
        do {
            reading: while true {
                if options.shouldStop() {
                    if !options.follow {
                        summary.interrupted = true
                        summary.complete = false
                    }
                    break
                }
                let batch = try await reader.next(timeout: options.follow ? .milliseconds(250) : options.idleTimeout)
                for record in batch.records {
                    if !options.follow && options.shouldStop() {
                        summary.interrupted = true
                        summary.complete = false
                        break reading
                    }
                    summary.read += 1
                    if try await !body(DeadLetter(record)) {
                        summary.complete = false
                        break reading
                    }
                }
                progress.update(summary.read, of: summary.expected)
                options.afterBatch()
                if batch.isFinished { break }
                if batch.records.isEmpty && !options.follow {
                    summary.complete = false
                    summary.cutShort =
                        "read \(summary.read) of \(summary.expected ?? 0) offsets of \(topic): no new record for \(options.idleTimeout) before its end "
                        + "(a broker that stopped answering?); --timeout S waits longer"
                    progress.finish()
                    break
                }
            }
        } catch let error as KafkaError {
            await reader.close()
            throw CommandError(error)
        } catch {
            await reader.close()
            throw error
        }
        await reader.close()
        return summary
    }
}
