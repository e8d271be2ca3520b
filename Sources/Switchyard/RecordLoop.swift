import Foundation
import SwitchyardKafka

/// The consuming loop: one record at a time, in order, each to a durable outcome before its offset is
/// stored. Owns the codecs (reusable decode buffers), so it is a value used by one task.
struct RecordLoop {
    let worker: Worker
    let consumer: KafkaConsumer
    let producer: KafkaProducer
    /// Partition counts from metadata at start, to keep republished records in their partition.
    let partitionCounts: [String: Int]
    var codecs: [String: TopicCodec] = [:]

    init(worker: Worker, consumer: KafkaConsumer, producer: KafkaProducer, partitionCounts: [String: Int]) {
        self.worker = worker
        self.consumer = consumer
        self.producer = producer
        self.partitionCounts = partitionCounts
        for (name, topic) in worker.configuration.topics {
            codecs[name] = TopicCodec(
                catalog: topic.catalog, policy: topic.policy,
                readerOptions: JSONReader.Options(maxBytes: worker.configuration.maxRecordBytes, rejectDuplicateKeys: true))
        }
    }

    var logger: Logger { worker.logger }
    var metrics: WorkerMetrics { worker.metrics }

    /// What became of one record.
    enum Outcome {
        /// Stored, halted or skipped as its policy says.
        case done
        /// Its outcome is not durable and never will be in this run (shutdown, cancellation): nothing after
        /// it may be stored, so the loop ends.
        case abandoned
    }

    mutating func run() async throws {
        for try await record in consumer.records {
            let proceed = worker.stopSignal.withLock { s -> Bool in
                if s.requested || Task.isCancelled { return false }
                s.busy = true
                return true
            }
            guard proceed else { break }
            let outcome = try await handle(record)
            let stop = worker.stopSignal.withLock { s -> Bool in
                s.busy = false
                return s.requested
            }
            if outcome == .abandoned {
                logger.notice("record abandoned: it and everything after it will be read again", position(record))
                break
            }
            if stop || Task.isCancelled { break }
        }
    }

    // MARK: - One record

    mutating func handle(_ record: KafkaRecord) async throws -> Outcome {
        let tp = record.topicPartition
        // A halted partition is paused; records fetched before the pause wait for the release (which
        // seeks past the halted offset), so they are neither processed nor stored here.
        if worker.state.withLock({ $0.halted[tp] != nil }) { return .done }
        guard let topic = worker.configuration.topics[record.topic] else {
            logger.warning("record from a topic that is not configured", ["kafka.topic": record.topic])
            return .done
        }
        let start = ContinuousClock.now
        metrics.records.labels(record.topic).increment()
        let decoded = codecs[record.topic]!.decode(record.value)
        let context = RecordContext(
            topic: record.topic, partition: record.partition, offset: record.offset, key: record.key,
            headers: record.headers, timestampMilliseconds: record.timestampMilliseconds)

        switch decoded.outcome {
        case .tombstone:
            metrics.tombstones.labels(record.topic).increment()
            store(record)

        case .decoded(let type), .unknown(let type):
            let isUnknown: Bool
            if case .unknown = decoded.outcome {
                isUnknown = true
                metrics.unknownEvents.labels(record.topic, type).increment()
            } else {
                isUnknown = false
                metrics.decoded.labels(record.topic, type).increment()
                if decoded.unknownFields > 0 {
                    metrics.unknownFields.labels(record.topic, type).increment(by: Int64(decoded.unknownFields))
                }
            }
            guard let event = decoded.event else { return .done }
            if let handler = worker.handlers.handler(for: event) {
                let handlerErrors = metrics.handlerErrors.labels(record.topic, type)
                guard try await retrying("handler", record, onFailure: { handlerErrors.increment() }, {
                    try await handler(context)
                }) != nil else { return .abandoned }
            }
            if let target = topic.republishTo {
                // Unknown events are handed on untouched; known ones as configured.
                let value: [UInt8]
                if isUnknown || topic.republishMode == .passthrough {
                    value = record.value ?? []
                } else {
                    do {
                        value = try TopicCodec.canonicalBytes(of: event)
                    } catch {
                        worker.noteError("canonical encoding failed", position(record).merging(["error": "\(error)"]) { a, _ in a })
                        throw WorkerError.fatal("canonical encoding failed at \(record.topic)[\(record.partition)]@\(record.offset): \(error)")
                    }
                }
                var headers = record.headers
                headers.append(KafkaHeader(name: "switchyard.republished.from", string: "\(record.topic)/\(record.partition)/\(record.offset)"))
                let partition = (partitionCounts[target] ?? 0) > Int(record.partition) ? record.partition : nil
                let out = KafkaProducerRecord(topic: target, partition: partition, key: record.key, value: value, headers: headers)
                let producer = self.producer
                let republishErrors = metrics.republishErrors.labels(record.topic)
                guard try await retrying("republish", record, onFailure: { republishErrors.increment() }, {
                    try await producer.send(out)
                }) != nil else { return .abandoned }
                metrics.republished.labels(record.topic, target).increment()
            }
            store(record)

        case .failed(let failure):
            metrics.failures.labels(record.topic, failure.kind.rawValue, failure.type ?? "").increment()
            let failedAt = Timestamp(Date())
            let key = Worker.ReleaseKey(topic: record.topic, partition: record.partition, offset: record.offset)
            // A record is skipped (lenient) or released (strict) only after a dead letter of it was acknowledged
            // in this process's lifetime; a release never replaces the dead letter.
            var coordinates = topic.onFailure == .halt ? worker.control.withLock { $0.deadLettered[key] } : nil
            if coordinates == nil {
                let dead = deadLetter(record, failure: failure, topic: topic)
                let producer = self.producer
                let deadLetterErrors = metrics.deadLetterErrors.labels(record.topic)
                guard let report = try await retrying("dead letter", record, onFailure: { deadLetterErrors.increment() }, {
                    try await producer.send(dead)
                }) else { return .abandoned }
                metrics.deadLetters.labels(record.topic, failure.kind.rawValue).increment()
                coordinates = DeadLetterCoordinates(topic: report.topic, partition: report.partition, offset: report.offset)
            }
            logger.warning("record dead-lettered", position(record).merging(failureMetadata(failure)) { a, _ in a })
            if topic.onFailure == .halt {
                worker.control.withLock { $0.deadLettered[key] = coordinates }
                halt(record, failure: failure, since: failedAt, deadLetter: coordinates)
            } else {
                store(record)
            }
        }
        metrics.processing.labels().observe(ContinuousClock.now - start)
        worker.state.withLock { $0.processed += 1 }
        return .done
    }

    // MARK: - Outcomes

    /// Stores the record's offset + 1: its outcome is durable.
    func store(_ record: KafkaRecord) {
        do {
            try consumer.storeOffset(record)
        } catch {
            // The partition was revoked meanwhile: its new owner reads the record again (at-least-once).
            logger.info("offset not stored: partition no longer assigned", position(record))
        }
    }

    /// Halts the record's partition at the record (its dead letter was acknowledged): stores its own offset
    /// (so the group resumes there), pauses the partition and reports it — unless a release of exactly this
    /// record was already read (it arrived while the record was being dead-lettered, or before a restart):
    /// then the record is skipped at once.
    func halt(_ record: KafkaRecord, failure: DecodeFailure, since: Timestamp, deadLetter: DeadLetterCoordinates?) {
        let tp = record.topicPartition
        do {
            try consumer.storeOffset(tp, nextOffset: record.offset)
            try consumer.pause([tp])
        } catch {
            logger.info("halt not applied: partition no longer assigned", position(record))
            return
        }
        let info = HaltInfo(
            offset: record.offset, failure: failure, since: since, timestampMilliseconds: record.timestampMilliseconds,
            deadLetter: deadLetter)
        switch worker.haltOrTakeRelease(tp, info, consumer: consumer) {
        case .notAssigned:
            logger.info("halt not applied: partition no longer assigned", position(record))
        case .halted:
            metrics.halted.labels(record.topic, String(record.partition)).set(1)
            worker.noteError("partition halted", position(record).merging(failureMetadata(failure)) { a, _ in a })
        case .released(let release):
            do {
                try consumer.storeOffset(record)
                try consumer.resume([tp])
            } catch {
                logger.info("release not applied: partition no longer assigned", position(record))
                return
            }
            metrics.releases.labels(record.topic).increment()
            logger.notice("halted offset released", release.audit)
        }
    }

    /// The dead letter for `record`: original key, value and headers, with the diagnosis added. Earlier
    /// `switchyard.*` headers are replaced (not stacked), except the redrive count, which is kept.
    func deadLetter(_ record: KafkaRecord, failure: DecodeFailure, topic: TopicConfiguration) -> KafkaProducerRecord {
        var redriveCount = "0"
        var headers: [KafkaHeader] = []
        for header in record.headers {
            if header.name == DeadLetterHeaders.redriveCount {
                redriveCount = header.value.map { String(decoding: $0, as: UTF8.self) } ?? "0"
            } else if !header.name.hasPrefix("switchyard.") {
                headers.append(header)
            }
        }
        func add(_ name: String, _ value: String) { headers.append(KafkaHeader(name: name, string: value)) }
        add(DeadLetterHeaders.originalTopic, record.topic)
        add(DeadLetterHeaders.originalPartition, String(record.partition))
        add(DeadLetterHeaders.originalOffset, String(record.offset))
        if let ts = record.timestampMilliseconds { add(DeadLetterHeaders.originalTimestamp, String(ts)) }
        add(DeadLetterHeaders.errorKind, failure.kind.rawValue)
        add(DeadLetterHeaders.errorPath, failure.path)
        if let type = failure.type { add(DeadLetterHeaders.errorType, type) }
        add(DeadLetterHeaders.errorMessage, failure.message)
        add(DeadLetterHeaders.consumerGroup, worker.configuration.groupId)
        add(DeadLetterHeaders.failedAt, Timestamp(Date()).text)
        add(DeadLetterHeaders.redriveCount, redriveCount)
        return KafkaProducerRecord(topic: topic.deadLetterTopic, key: record.key, value: record.value, headers: headers)
    }

    /// Runs `body` until it succeeds, backing off. Returns nil when it gives up: at shutdown (an attempt
    /// still running when the shutdown deadline nears is abandoned, a handler is cancelled) or on
    /// cancellation; then the offset is not stored and the record is read again by the next owner.
    ///
    /// - Throws: ``WorkerError`` `.fatal` for an error that retrying cannot fix: a fatal librdkafka error, or a
    ///   permanent produce error (a record too large for `message.max.bytes`); the worker ends (exit 70).
    func retrying<T: Sendable>(
        _ what: String, _ record: KafkaRecord, onFailure: () -> Void, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T? {
        var delay = Duration.milliseconds(100)
        let worker = self.worker
        while true {
            do {
                guard let result = try await race(until: { worker.stopSignal.withLock { $0.abandonAt } }, body) else {
                    logger.warning("\(what) abandoned at shutdown; the record will be read again", position(record))
                    return nil
                }
                return result
            } catch {
                if Task.isCancelled { return nil }
                onFailure()
                if let permanent = Self.permanentFailure(what, record, error) {
                    worker.noteError("\(what) failed permanently", position(record).merging(["error": "\(error)", "fix": permanent]) { a, _ in a })
                    throw WorkerError.fatal("\(what) of \(record.topic)/\(record.partition)@\(record.offset) failed permanently: \(error). \(permanent)")
                }
                worker.noteError("\(what) failed; retrying", position(record).merging(["error": "\(error)"]) { a, _ in a })
                let abandonAt = worker.stopSignal.withLock { $0.abandonAt }
                if let abandonAt, ContinuousClock.now + delay > abandonAt {
                    logger.warning("\(what) abandoned at shutdown; the record will be read again", position(record))
                    return nil
                }
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    return nil  // cancelled: the worker is going away; the offset stays unstored
                }
                delay = min(delay * 2, .seconds(5))
            }
        }
    }

    /// librdkafka errors that no retry can fix, with what to fix instead; nil for the others.
    static func permanentFailure(_ what: String, _ record: KafkaRecord, _ error: any Error) -> String? {
        guard let error = error as? KafkaError else { return nil }
        if error.isFatal {
            return "librdkafka raised a fatal error (the producer's idempotence state is lost, or the client is unusable); restart the worker"
        }
        switch error.rdKafkaName {
        case "MSG_SIZE_TOO_LARGE", "_MSG_SIZE_TOO_LARGE", "RECORD_LIST_TOO_LARGE":
            return "the record (\(record.value?.count ?? 0) bytes) with its headers is larger than the producer's message.max.bytes "
                + "or the target topic's max.message.bytes: raise message.max.bytes in the kafka map (and the topic's "
                + "max.message.bytes), or lower maxRecordBytes"
        case "INVALID_RECORD", "_INVALID_ARG":
            return "the broker refuses this record as invalid for the target topic (e.g. a compacted topic needs a key); fix the topic's configuration"
        default:
            return nil
        }
    }

    func position(_ record: KafkaRecord) -> [String: String] {
        ["kafka.topic": record.topic, "kafka.partition": String(record.partition), "kafka.offset": String(record.offset)]
    }

    func failureMetadata(_ failure: DecodeFailure) -> [String: String] {
        var m = ["error.kind": failure.kind.rawValue, "error.path": failure.path, "error.message": failure.message]
        if let type = failure.type { m["event.type"] = type }
        return m
    }
}

/// The dead-letter header names (PRODUCT.md, "Dead-letter records").
public enum DeadLetterHeaders {
    public static let originalTopic = "switchyard.original.topic"
    public static let originalPartition = "switchyard.original.partition"
    public static let originalOffset = "switchyard.original.offset"
    public static let originalTimestamp = "switchyard.original.timestamp"
    public static let errorKind = "switchyard.error.kind"
    public static let errorPath = "switchyard.error.path"
    public static let errorType = "switchyard.error.type"
    public static let errorMessage = "switchyard.error.message"
    public static let consumerGroup = "switchyard.consumer.group"
    public static let failedAt = "switchyard.failed.at"
    public static let redriveCount = "switchyard.redrive.count"
    public static let republishedFrom = "switchyard.republished.from"
}
