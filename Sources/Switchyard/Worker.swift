import Foundation
import SwitchyardKafka
import Synchronization

// MARK: - Handlers (the library API)

/// Where a record came from, for handlers. Holds no payload values beyond what the handler receives.
public struct RecordContext: Sendable {
    public var topic: String
    public var partition: Int32
    public var offset: Int64
    public var key: [UInt8]?
    public var headers: [KafkaHeader]
    public var timestampMilliseconds: Int64?
}

/// The handlers a Swift developer registers, per event type, on the worker's runtime.
///
/// ```swift
/// var handlers = EventHandlers()
/// handlers.on(PaymentCaptured.self) { event, context in try await ledger.book(event.amount) }
/// try await Worker(configuration: config, handlers: handlers).run()
/// ```
/// A handler that throws is retried with backoff, and its partition waits (nothing is skipped);
/// `switchyard_handler_errors_total` counts the attempts.
public struct EventHandlers: Sendable {
    typealias Handler = @Sendable (any EventCatalog, RecordContext) async throws -> Void
    var byType: [String: Handler] = [:]
    var unknownHandler: (@Sendable (String, RawJSON, RecordContext) async throws -> Void)?

    public init() {}

    /// Runs `handler` for every decoded event of type `E`.
    public mutating func on<E: Event>(_ type: E.Type, _ handler: @escaping @Sendable (E, RecordContext) async throws -> Void) {
        byType[E.type] = { event, context in
            guard case .known(let payload) = event.content, let typed = payload as? E else { return }
            try await handler(typed, context)
        }
    }

    /// Runs `handler` for every event with an unrecognised tag on a lenient topic.
    public mutating func onUnknown(_ handler: @escaping @Sendable (_ type: String, _ raw: RawJSON, RecordContext) async throws -> Void) {
        unknownHandler = handler
    }

    /// Whether any handler applies to this event.
    func handler(for event: any EventCatalog) -> (@Sendable (RecordContext) async throws -> Void)? {
        switch event.content {
        case .known:
            guard let h = byType[event.type] else { return nil }
            return { context in try await h(event, context) }
        case .unknown(let type, let raw):
            guard let h = unknownHandler else { return nil }
            return { context in try await h(type, raw, context) }
        }
    }
}

// MARK: - Errors

/// Why the worker could not start or had to stop.
public struct WorkerError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// No broker answered (exit 69).
        case unavailable
        /// The configuration was rejected by librdkafka or the HTTP server could not bind (exit 78).
        case configuration
        /// Kafka reported a fatal error (exit 70).
        case fatal
    }

    public var code: Code
    public var reason: String
    public var file: String
    public var line: Int

    public static func unavailable(_ reason: String, file: String = #fileID, line: Int = #line) -> WorkerError {
        WorkerError(code: .unavailable, reason: reason, file: file, line: line)
    }

    public static func configuration(_ reason: String, file: String = #fileID, line: Int = #line) -> WorkerError {
        WorkerError(code: .configuration, reason: reason, file: file, line: line)
    }

    public static func fatal(_ reason: String, file: String = #fileID, line: Int = #line) -> WorkerError {
        WorkerError(code: .fatal, reason: reason, file: file, line: line)
    }

    public var description: String { "\(code.rawValue): \(reason)" }
}

// MARK: - Status

/// Why a partition is halted.
public struct HaltInfo: Sendable {
    public var offset: Int64
    public var failure: DecodeFailure
    public var since: Timestamp
}

/// A recent problem, for `/status` (no record values).
public struct RecentError: Sendable {
    public var at: Timestamp
    public var message: String
    public var metadata: [String: String]
}

/// What the worker is doing: what `/status`, `/readyz` and tests read.
public struct WorkerStatus: Sendable {
    public var phase: Phase = .starting
    public var assignment: [KafkaTopicPartition] = []
    public var halted: [KafkaTopicPartition: HaltInfo] = [:]
    public var lag: [KafkaTopicPartition: Int64] = [:]
    public var recentErrors: [RecentError] = []
    public var processed = 0
    /// Whether a rebalance has completed since start (the member joined its group).
    public var joined = false

    public enum Phase: String, Sendable {
        case starting, running, stopping, stopped, failed
    }

    /// The `/status` document.
    public func json(configuration: WorkerConfiguration) -> JSONObject {
        var o = JSONObject()
        o.set("phase", phase.rawValue)
        o.set("group", configuration.groupId)
        o.set("topics", configuration.topicNames.map { name -> JSONObject in
            var t = JSONObject()
            let topic = configuration.topics[name]!
            t.set("topic", name)
            t.set("catalog", topic.catalog.name)
            t.set("policy", topic.policy.rawValue)
            t.set("onFailure", topic.onFailure.rawValue)
            t.set("deadLetterTopic", topic.deadLetterTopic)
            t.setIfPresent("republishTo", topic.republishTo)
            return t
        })
        o.set("assignment", assignment.sorted().map { tp -> JSONObject in
            var p = JSONObject()
            p.set("topic", tp.topic)
            p.set("partition", Int(tp.partition))
            p.setIfPresent("lag", lag[tp])
            return p
        })
        o.set("halted", halted.sorted { $0.key < $1.key }.map { tp, info -> JSONObject in
            var h = JSONObject()
            h.set("topic", tp.topic)
            h.set("partition", Int(tp.partition))
            h.set("offset", info.offset)
            h.set("kind", info.failure.kind.rawValue)
            h.set("path", info.failure.path)
            h.set("type", info.failure.type)
            h.set("message", info.failure.message)
            h.set("since", info.since.text)
            return h
        })
        o.set("processed", processed)
        o.set("recentErrors", recentErrors.map { e -> JSONObject in
            var r = JSONObject()
            r.set("at", e.at.text)
            r.set("message", e.message)
            for (k, v) in e.metadata.sorted(by: { $0.key < $1.key }) { r.set(k, v) }
            return r
        })
        return o
    }
}

// MARK: - The worker

/// The deployed job: consumes the configured topics in a group, decodes, applies each topic's policy,
/// dead-letters, republishes, and stores offsets only once a record's outcome is durable.
public final class Worker: Sendable {
    public let configuration: WorkerConfiguration
    public let metrics: WorkerMetrics
    let handlers: EventHandlers
    public let logger: Logger
    let kafkaLogLevel: KafkaLogLevel
    let state = Mutex(WorkerStatus())
    let control = Mutex(ControlState())
    /// Set once; `stop()` wakes the loop through it.
    let stopSignal = Mutex<StopState>(StopState())

    struct ControlState {
        /// Offsets an operator released: (topic, partition, offset).
        var released: Set<ReleaseKey> = []
        /// Offsets this process already dead-lettered while halting (no second copy on a re-halt).
        var deadLettered: Set<ReleaseKey> = []
    }

    struct ReleaseKey: Hashable, Sendable {
        var topic: String
        var partition: Int32
        var offset: Int64
    }

    struct StopState {
        var requested = false
        var busy = false
        var consumer: KafkaConsumer?
        var deadline: ContinuousClock.Instant?
    }

    public init(
        configuration: WorkerConfiguration, handlers: EventHandlers = EventHandlers(), logger: Logger = Logger(),
        metrics: WorkerMetrics? = nil, kafkaLogLevel: KafkaLogLevel = .warning
    ) throws {
        self.configuration = configuration
        self.handlers = handlers
        self.logger = logger
        self.kafkaLogLevel = kafkaLogLevel
        do {
            self.metrics = try metrics ?? WorkerMetrics(maxTypeLabels: configuration.metrics.maxTypeLabels)
        } catch {
            throw WorkerError.configuration("metrics: \(error)")
        }
        self.metrics.prime(topics: configuration.topicNames, targets: configuration.topics.compactMapValues(\.republishTo))
    }

    /// A copy of the current status.
    public var status: WorkerStatus { state.withLock { $0 } }

    /// Asks the worker to drain and stop (what SIGTERM does). `run()` returns once offsets are committed.
    public func stop() {
        let consumer: KafkaConsumer? = stopSignal.withLock { s in
            guard !s.requested else { return nil }
            s.requested = true
            s.deadline = .now + .seconds(configuration.shutdownTimeoutSeconds)
            // An idle loop waits for records: closing the consumer ends that wait. A busy loop finishes
            // its record first and closes the consumer itself.
            return s.busy ? nil : s.consumer
        }
        state.withLock { if $0.phase == .running || $0.phase == .starting { $0.phase = .stopping } }
        logger.notice("shutdown requested", ["shutdown.timeout_seconds": String(configuration.shutdownTimeoutSeconds)])
        if let consumer { Task { await consumer.close() } }
    }

    var stopRequested: Bool { stopSignal.withLock { $0.requested } }

    var kafkaConfiguration: KafkaConfiguration {
        KafkaConfiguration(
            bootstrapServers: configuration.brokers.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) },
            clientID: configuration.clientId, properties: configuration.kafka, logLevel: kafkaLogLevel)
    }

    /// Connects, consumes until ``stop()``, then drains and commits.
    ///
    /// - Throws: ``WorkerError`` `.unavailable` when no broker answers at start, `.configuration` for a
    ///   property librdkafka rejects, `.fatal` for a fatal Kafka error.
    public func run() async throws {
        let kafka = kafkaConfiguration
        let kafkaLogger = WorkerKafkaLogger(logger: logger)
        let producer: KafkaProducer
        do {
            producer = try KafkaProducer.make(configuration: KafkaProducerConfiguration(kafka: kafka), logger: kafkaLogger)
        } catch let error as KafkaError {
            throw WorkerError.configuration(error.reason)
        }
        // Fail fast on unreachable brokers instead of waiting for the first record forever.
        let metadata: KafkaClusterMetadata
        do {
            metadata = try await producer.metadata(timeout: .seconds(10))
        } catch {
            await producer.close(timeout: .seconds(1))
            throw WorkerError.unavailable("no broker answered at \(configuration.brokers): \(error)")
        }
        let partitionCounts = Dictionary(metadata.topics.map { ($0.name, $0.partitionCount) }, uniquingKeysWith: { a, _ in a })

        let consumer: KafkaConsumer
        do {
            consumer = try KafkaConsumer.make(
                configuration: KafkaConsumerConfiguration(groupID: configuration.groupId, topics: configuration.topicNames, kafka: kafka),
                logger: kafkaLogger)
        } catch let error as KafkaError {
            await producer.close(timeout: .seconds(1))
            throw WorkerError.configuration(error.reason)
        }
        let proceed = stopSignal.withLock { s -> Bool in
            s.consumer = consumer
            return !s.requested
        }
        state.withLock { if $0.phase == .starting { $0.phase = .running } }
        logger.notice("worker started", [
            "kafka.group": configuration.groupId, "kafka.topics": configuration.topicNames.joined(separator: ","),
            "kafka.brokers": configuration.brokers,
        ])

        let background = Task { await withDiscardingTaskGroup { group in
            group.addTask { await self.watchEvents(consumer) }
            group.addTask { await self.watchLag(consumer) }
            group.addTask { await self.watchControlTopic(kafka: kafka, consumer: consumer, logger: kafkaLogger) }
        } }

        var loop = RecordLoop(worker: self, consumer: consumer, producer: producer, partitionCounts: partitionCounts)
        var failure: (any Error)?
        if proceed {
            do {
                try await loop.run()
            } catch let error as KafkaError where error.isFatal {
                failure = WorkerError.fatal(error.description)
            } catch {
                failure = error
            }
        }

        // Drain: the loop finished its in-flight record; commit what was stored, leave the group,
        // and let outstanding produces finish, within the shutdown deadline.
        let deadline = stopSignal.withLock { $0.deadline } ?? .now + .seconds(configuration.shutdownTimeoutSeconds)
        do {
            try await consumer.commit()
        } catch {
            logger.debug("final commit", ["error": "\(error)"])
        }
        await consumer.close()
        await producer.close(timeout: max(.zero, ContinuousClock.now.duration(to: deadline)))
        background.cancel()
        await background.value
        state.withLock { $0.phase = failure == nil ? .stopped : .failed }
        logger.notice("worker stopped", ["records.processed": String(status.processed)])
        if let failure { throw failure }
    }

    // MARK: Background watchers

    func watchEvents(_ consumer: KafkaConsumer) async {
        for await event in consumer.events {
            switch event {
            case .assigned(let partitions):
                state.withLock {
                    $0.joined = true
                    $0.assignment = Array(consumer.assignment)
                }
                logger.info("partitions assigned", ["kafka.partitions": partitions.map(\.description).joined(separator: ",")])
            case .revoked(let partitions, let lost):
                let cleared = state.withLock { s -> [KafkaTopicPartition] in
                    s.joined = true
                    s.assignment = Array(consumer.assignment)
                    let halted = partitions.filter { s.halted[$0] != nil }
                    for p in partitions { s.halted[p] = nil; s.lag[p] = nil }
                    return halted
                }
                for p in cleared { metrics.halted.labels(p.topic, String(p.partition)).set(0) }
                logger.info("partitions revoked", ["kafka.partitions": partitions.map(\.description).joined(separator: ","), "kafka.lost": String(lost)])
            case .error(let error):
                noteError("kafka error", ["error": error.description])
            }
        }
    }

    func watchLag(_ consumer: KafkaConsumer) async {
        while !Task.isCancelled {
            let lag = consumer.lag
            let assignment = consumer.assignment
            state.withLock {
                $0.lag = lag
                $0.assignment = Array(assignment)
            }
            for (tp, value) in lag { metrics.lag.labels(tp.topic, String(tp.partition)).set(Double(value)) }
            do { try await Task.sleep(for: .seconds(1)) } catch { return }
        }
    }

    /// Records a problem in the log and in `/status`.
    func noteError(_ message: String, _ metadata: [String: String]) {
        logger.error(message, metadata)
        state.withLock {
            $0.recentErrors.append(RecentError(at: Timestamp(Date()), message: message, metadata: metadata))
            if $0.recentErrors.count > 20 { $0.recentErrors.removeFirst($0.recentErrors.count - 20) }
        }
    }
}

/// Routes librdkafka's log lines into the worker's logger.
struct WorkerKafkaLogger: KafkaLogger {
    public let logger: Logger

    func log(level: KafkaLogLevel, message: String, metadata: [String: String]) {
        let mapped: LogLevel
        switch level {
        case .critical, .error: mapped = .error
        case .warning: mapped = .warning
        case .notice: mapped = .notice
        case .info: mapped = .info
        case .debug: mapped = .debug
        }
        var m = metadata
        m["kafka.log"] = message
        logger.log(mapped, "librdkafka", m)
    }
}
