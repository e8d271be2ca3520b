import Foundation
import SwitchyardKafka
import Synchronization

// MARK: - Errors

/// Why the worker could not start or had to stop.
public struct WorkerError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure, which the command line maps to its exit code.
    public enum Code: String, Sendable {
        /// No broker answered (exit 69).
        case unavailable
        /// The configuration was rejected by librdkafka or the HTTP server could not bind (exit 78).
        case configuration
        /// Kafka reported a fatal error (exit 70).
        case fatal
    }

    /// The kind of failure.
    public var code: Code
    /// What happened, for a person (no secrets, no record values).
    public var reason: String
    /// Where it was raised.
    public var file: String
    /// Where it was raised.
    public var line: Int

    /// No broker answered.
    public static func unavailable(_ reason: String, file: String = #fileID, line: Int = #line) -> WorkerError {
        WorkerError(code: .unavailable, reason: reason, file: file, line: line)
    }

    /// The configuration was refused.
    public static func configuration(_ reason: String, file: String = #fileID, line: Int = #line) -> WorkerError {
        WorkerError(code: .configuration, reason: reason, file: file, line: line)
    }

    /// Kafka reported a fatal error, or an outcome can never become durable.
    public static func fatal(_ reason: String, file: String = #fileID, line: Int = #line) -> WorkerError {
        WorkerError(code: .fatal, reason: reason, file: file, line: line)
    }

    /// `code: reason`, as the command line prints it.
    public var description: String { "\(code.rawValue): \(reason)" }
}

// MARK: - Status

/// Why a partition is halted.
public struct HaltInfo: Sendable {
    /// The halted record's offset: the group resumes at it.
    public var offset: Int64
    /// The decode failure; for a record whose handler failed, its ``kind`` and the handler's error (in `message`).
    public var failure: DecodeFailure
    /// A handler's failure kind (a ``HandlerOutcome/deadLetter(kind:reason:)`` kind, or `handlerFailed`) when
    /// the handler halted the partition; nil for a decode failure.
    public var handlerKind: DeadLetterKind?
    /// The dead letter's `switchyard.error.kind`: the handler's kind, else the decode failure's.
    public var kind: String { handlerKind?.rawValue ?? failure.kind.rawValue }
    /// When the record failed (before its dead letter was produced).
    public var since: Timestamp
    /// The halted record's timestamp (ms since the epoch): with the offset, its identity for releases.
    public var timestampMilliseconds: Int64?
    /// Where this process dead-lettered the record.
    public var deadLetter: DeadLetterCoordinates?

    /// A halt at `offset` for `failure`.
    public init(
        offset: Int64, failure: DecodeFailure, handlerKind: DeadLetterKind? = nil, since: Timestamp, timestampMilliseconds: Int64? = nil,
        deadLetter: DeadLetterCoordinates? = nil
    ) {
        self.offset = offset
        self.failure = failure
        self.handlerKind = handlerKind
        self.since = since
        self.timestampMilliseconds = timestampMilliseconds
        self.deadLetter = deadLetter
    }
}

/// A record whose handler is being retried: what `/status` lists under `retrying`.
public struct RetryInfo: Sendable {
    /// The attempt that failed last (1: the first).
    public var attempt: Int
    /// When its first attempt failed.
    public var since: ContinuousClock.Instant
    /// When the first attempt failed, for `/status`.
    public var sinceTimestamp: Timestamp
    /// The last error (its description; handlers should not put record values in errors).
    public var error: String
}

/// Where a dead letter was written: a record's location (in JSON `{"topic", "partition", "offset"}`).
public typealias DeadLetterCoordinates = RecordLocation

/// A recent problem, for `/status` (no record values).
public struct RecentError: Sendable {
    /// When it happened.
    public var at: Timestamp
    /// What happened (constant text).
    public var message: String
    /// Where (`kafka.record`, …) and the error, without record values.
    public var metadata: [String: String]
}

/// What the worker is doing: what `/status`, `/readyz` and tests read.
public struct WorkerStatus: Sendable {
    /// Where the worker is in its life.
    public var phase: Phase = .starting
    /// The partitions this member owns.
    public var assignment: [KafkaTopicPartition] = []
    /// Halted partitions and why.
    public var halted: [KafkaTopicPartition: HaltInfo] = [:]
    /// Partitions held because a dead-letter or republish topic cannot be written (missing or forbidden).
    public var targetUnavailable: [KafkaTopicPartition: TargetUnavailable] = [:]
    /// Records whose handler failed and is being retried (or waits for its next attempt).
    public var retrying: [RecordLocation: RetryInfo] = [:]
    /// Records behind the high watermark, per owned partition.
    public var lag: [KafkaTopicPartition: Int64] = [:]
    /// The last 20 problems.
    public var recentErrors: [RecentError] = []
    /// Records whose outcome is durable: handled, dead-lettered, republished or skipped (tombstones, releases).
    public var processed = 0
    /// Whether a rebalance has completed since start (the member joined its group).
    public var joined = false

    /// Starting (connecting), running, stopping (draining), stopped, or failed (`run()` threw).
    public enum Phase: String, Sendable {
        case starting, running, stopping, stopped, failed
    }

    /// A record's place in the `/status` document: topic, partition, offset and `topic/partition@offset`.
    private static func located(_ location: RecordLocation) -> JSONObject {
        var o = JSONObject()
        o.set("topic", location.topic)
        o.set("partition", Int(location.partition))
        o.set("offset", location.offset)
        o.set("record", location.description)
        return o
    }

    /// The `/status` document.
    public func json(configuration: WorkerConfiguration) -> JSONObject {
        var o = JSONObject()
        o.set("phase", phase.rawValue)
        o.set("group", configuration.groupID)
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
            var h = Self.located(RecordLocation(topic: tp.topic, partition: tp.partition, offset: info.offset))
            h.set("kind", info.kind)
            h.set("path", info.failure.path)
            h.set("type", info.failure.type)
            h.set("message", info.failure.message)
            h.set("since", info.since.text)
            h.setIfPresent("timestamp", info.timestampMilliseconds)
            if let d = info.deadLetter {
                h.set("deadLetter", Self.located(d))
            }
            return h
        })
        o.set("targetUnavailable", targetUnavailable.sorted { $0.key < $1.key }.map { tp, info -> JSONObject in
            var t = Self.located(RecordLocation(topic: tp.topic, partition: tp.partition, offset: info.offset))
            t.set("target", info.target)
            t.set("configKey", info.configurationKey)
            t.set("error", info.error)
            t.set("since", info.since.text)
            t.set("failures", info.failures)
            return t
        })
        o.set("retrying", retrying.sorted { ($0.key.topic, $0.key.partition, $0.key.offset) < ($1.key.topic, $1.key.partition, $1.key.offset) }.map { location, info -> JSONObject in
            var r = Self.located(location)
            r.set("attempt", info.attempt)
            r.set("since", info.sinceTimestamp.text)
            r.set("error", info.error)
            return r
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
    /// The configuration it runs (validated; dead-letter topics filled in).
    public let configuration: WorkerConfiguration
    /// Its metric families (what `/metrics` renders).
    public let metrics: WorkerMetrics
    let handlers: EventHandlers
    /// Where the worker logs (and the handlers' contexts, with each record's metadata).
    public let logger: SwitchyardLogger
    let kafkaLogLevel: KafkaLogLevel
    let state = Mutex(WorkerStatus())
    let control = Mutex(ControlState())
    /// Set once; `stop()` wakes the loop through it.
    let stopSignal = Mutex<StopState>(StopState())
    /// Where tests hold the worker to order a race (``RaceHooks``).
    let raceHooks = RaceHooks()
    /// Each assigned partition's completion watermark, for revocations and releases.
    let progress = Mutex<[KafkaTopicPartition: PartitionProgress]>([:])
    /// `record dead-lettered` warnings: rate-limited, the rest summed up once a second (``watchLag(_:)``).
    let deadLetterLogs: Mutex<LogRateLimit>

    /// Writes a dead letter's warning, unless the rate limit holds it back (counted for the summary).
    func logDeadLetter(_ failure: DecodeFailure, kind: String? = nil, at location: RecordLocation) {
        let kind = kind ?? failure.kind.rawValue
        guard deadLetterLogs.withLock({ $0.admit(kind) }) else { return }
        var metadata = Effects.failureMetadata(failure, adding: location.position)
        metadata["error.kind"] = kind
        logger.warning("record dead-lettered", metadata)
    }

    /// Writes one line for the dead-letter warnings held back since the last one, if any were.
    func logSuppressedDeadLetters() {
        let (suppressed, perSecond) = deadLetterLogs.withLock { ($0.takeSuppressed(), $0.perSecond) }
        guard !suppressed.isEmpty else { return }
        logger.warning("dead-letter warnings suppressed", LogRateLimit.summary(suppressed, perSecond: perSecond))
    }

    /// Registers a new lane's watermark, unless its partition was revoked since `generation` (false): the
    /// check and the registration are one step against ``rebalanced(_:)``, so a lane is either stale or closed
    /// by the revocation.
    func register(_ partitionProgress: PartitionProgress, generation: UInt64, consumer: KafkaConsumer) -> Bool {
        let (registered, old) = progress.withLock { p -> (Bool, PartitionProgress?) in
            if consumer.isStale(partitionProgress.partition, generation: generation) { return (false, nil) }
            return (true, p.updateValue(partitionProgress, forKey: partitionProgress.partition))
        }
        old?.close()
        return registered
    }

    /// Releases and dead letters of halted records. Lock order: `control`, then `state`.
    struct ControlState {
        /// Releases read from the control topic that did not match a halt when they arrived; a halt looks
        /// them up (a release may arrive while its record is being dead-lettered, or before a restart).
        var pending: [ReleaseKey: [PendingRelease]] = [:]
        /// Records this process dead-lettered while halting (no second copy on a re-halt), and where.
        var deadLettered: [ReleaseKey: DeadLetterCoordinates] = [:]
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
        /// When the whole shutdown must be over. (When work in flight is abandoned, a little before it, is
        /// ``Worker/abandonWatch``'s deadline.)
        var deadline: ContinuousClock.Instant?
    }

    /// A worker for `configuration`, running `handlers`. Nothing connects before ``run()``.
    ///
    /// - Parameters:
    ///   - configuration: What to consume and how (``WorkerConfiguration``). A topic without a dead-letter topic
    ///     gets `<topic>.dlq`.
    ///   - handlers: The team's handlers, by event type. Default: none (records are decoded, dead-lettered and
    ///     republished per their topic's policy, and their offsets stored).
    ///   - logger: Where the worker and the handlers' contexts log. Default: JSON lines on standard error, from
    ///     `info`.
    ///   - metrics: The metric families to record into (``WorkerMetrics``). Default (nil): new ones, with the
    ///     configuration's `metrics.maxTypeLabels`.
    ///   - kafkaLogLevel: The most verbose librdkafka log line passed to `logger`. Default: `.warning`.
    /// - Throws: ``WorkerError`` `.configuration` for a configuration that cannot work (a `kafka` property the
    ///   delivery guarantees depend on, a retry policy without attempts, …), a handler registered twice, or a
    ///   handler that no configured topic can reach.
    public init(
        configuration: WorkerConfiguration, handlers: EventHandlers = EventHandlers(), logger: SwitchyardLogger = SwitchyardLogger(),
        metrics: WorkerMetrics? = nil, kafkaLogLevel: KafkaLogLevel = .warning
    ) throws {
        var configuration = configuration
        for (name, topic) in configuration.topics where topic.deadLetterTopic.isEmpty {
            configuration.topics[name]?.deadLetterTopic = "\(name).dlq"
        }
        do {
            try configuration.validateDeliveryGuarantees()
            for name in configuration.topicNames { try configuration.topics[name]!.retry.validate(path: "topics.\(name).retry") }
            try handlers.validate(for: configuration)
        } catch {
            throw WorkerError.configuration(error.description)
        }
        self.configuration = configuration
        self.handlers = handlers
        self.logger = logger
        self.kafkaLogLevel = kafkaLogLevel
        deadLetterLogs = Mutex(LogRateLimit(perSecond: configuration.deadLetterLogsPerSecond))
        do {
            self.metrics = try metrics ?? WorkerMetrics(maxTypeLabels: configuration.metrics.maxTypeLabels)
        } catch {
            throw WorkerError.configuration("metrics: \(error)")
        }
        self.metrics.prime(topics: configuration.topicNames, targets: configuration.topics.compactMapValues(\.republishTo))
    }

    /// A copy of the current status.
    public var status: WorkerStatus {
        var status = state.withLock { $0 }
        status.processed = handled.load(ordering: .relaxed)
        return status
    }

    /// Records whose outcome became durable (``WorkerStatus/processed``), counted where it became so.
    let handled = Atomic<Int>(0)

    /// How many partitions ``WorkerStatus/targetUnavailable`` holds: an acknowledged send looks there only
    /// when some are.
    let targetsUnavailable = Atomic<Int>(0)

    /// When work in flight (a handler, a send) is abandoned: a little before ``StopState/deadline``, so the
    /// final commit and the close fit in the shutdown timeout. Armed by ``stop()``; handler lanes still running
    /// then are cancelled, and sends are not retried past it.
    let abandonWatch = DeadlineWatch()

    /// Asks the worker to drain and stop (what SIGTERM does). `run()` returns once offsets are committed.
    public func stop() {
        stop(because: nil)
    }

    /// ``stop()``, also when the loop ended on an error (`reason`): the shutdown deadline is set and work in
    /// flight is abandoned shortly before it, whatever ended the loop.
    func stop(because reason: String?) {
        let (isFirst, consumer) = stopSignal.withLock { s -> (Bool, KafkaConsumer?) in
            guard !s.requested else { return (false, nil) }
            s.requested = true
            let timeout = Duration.seconds(configuration.shutdownTimeoutSeconds)
            s.deadline = .now + timeout
            // Under the same lock, so that whoever sees the request sees the deadline for work in flight too.
            abandonWatch.arm(at: .now + timeout - min(timeout / 5, .seconds(5)))
            // An idle loop waits for records: ending the delivery ends that wait (the consumer stays open, so
            // outcomes still on their way store their offsets and the final commit writes them). A busy loop
            // sees the request after its batch.
            return (true, s.consumer)
        }
        guard isFirst else { return }
        state.withLock { if $0.phase == .running || $0.phase == .starting { $0.phase = .stopping } }
        var metadata = ["shutdown.timeout_seconds": String(configuration.shutdownTimeoutSeconds)]
        if let reason { metadata["reason"] = reason }
        logger.notice("shutdown requested", metadata)
        consumer?.stopDelivering()
    }

    var stopRequested: Bool { stopSignal.withLock { $0.requested } }

    /// The settings shared by the consumer and the producer (the `kafka` map).
    var kafkaConfiguration: KafkaConfiguration {
        KafkaConfiguration(
            bootstrapServers: configuration.bootstrapServers,
            clientID: configuration.clientID, properties: configuration.kafka, logLevel: kafkaLogLevel)
    }

    /// The consumer's settings: the shared map with `kafkaConsumer` on top.
    var consumerKafkaConfiguration: KafkaConfiguration {
        var kafka = kafkaConfiguration
        kafka.properties.merge(configuration.kafkaConsumer) { _, own in own }
        return kafka
    }

    /// The producer's settings: the shared map with `kafkaProducer` on top, and room for a dead letter of a
    /// record of `maxRecordBytes` with its headers.
    var producerKafkaConfiguration: KafkaConfiguration {
        var kafka = kafkaConfiguration
        kafka.properties.merge(configuration.kafkaProducer) { _, own in own }
        kafka.properties["message.max.bytes"] = String(configuration.producerMessageMaxBytes)
        return kafka
    }

    /// Connects, consumes until ``stop()`` or until the calling task is cancelled, then drains and commits.
    ///
    /// Cancelling the task that runs it is a graceful stop, as ``stop()`` is: no new work starts, outcomes on
    /// their way get until the shutdown deadline (``WorkerConfiguration/shutdownTimeout``), the offsets of
    /// durable outcomes are committed, then it returns without an error.
    ///
    /// - Throws: ``WorkerError`` `.unavailable` when no broker answers at start, `.configuration` for a
    ///   property librdkafka rejects, `.fatal` for a fatal Kafka error.
    public func run() async throws {
        do {
            try configuration.validateDeliveryGuarantees()
        } catch {
            throw WorkerError.configuration(error.description)
        }
        let kafka = consumerKafkaConfiguration
        let kafkaLogger = WorkerKafkaLogger(logger: logger)
        let producer: KafkaProducer
        do {
            producer = try KafkaProducer.make(configuration: KafkaProducerConfiguration(kafka: producerKafkaConfiguration), logger: kafkaLogger)
        } catch let error as KafkaError {
            throw WorkerError.configuration(error.reason)
        }
        // Fail fast on unreachable brokers instead of waiting for the first record forever.
        let metadata: KafkaClusterMetadata
        do {
            metadata = try await producer.metadata(timeout: .seconds(10))
        } catch {
            await producer.close(timeout: .seconds(1))
            throw WorkerError.unavailable("no broker answered at \(configuration.brokersText): \(error)")
        }
        // A dead-letter or republish topic that cannot be written would hold its partitions at the first
        // record that needs it: refused now, naming the topic and its key.
        do {
            try checkTargetTopics(in: metadata)
        } catch {
            await producer.close(timeout: .seconds(1))
            throw error
        }
        let partitionCounts = Dictionary(metadata.topics.map { ($0.name, $0.partitionCount) }, uniquingKeysWith: { a, _ in a })

        let consumer: KafkaConsumer
        do {
            consumer = try KafkaConsumer.make(
                // Records keep librdkafka's messages: the loop is done with a batch before it asks for the next,
                // and what outlives the batch (a handler's record) is detached.
                configuration: KafkaConsumerConfiguration(
                    groupID: configuration.groupID, topics: configuration.topicNames, kafka: kafka, keepsMessages: true),
                logger: kafkaLogger, rebalanceListener: { [self] event in rebalanced(event) })
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
            "kafka.group": configuration.groupID, "kafka.topics": configuration.topicNames.joined(separator: ","),
            "kafka.brokers": configuration.brokersText,
        ])
        for topic in handlers.topicsWithoutEffect(in: configuration) {
            logger.warning("topic has no handler and no republish target: its records are only decoded, counted and committed", [
                "kafka.topic": topic, "catalog": configuration.topics[topic]!.catalog.name,
                "handlers": handlers.registeredTypes.map { $0.type }.sorted().joined(separator: ","),
            ])
        }

        // A release applies only to a halted partition. Without a topic that halts, the control topic holds
        // nothing for this worker, and reading it would cost a consumer (a group of its own per replica, its
        // threads and connections) that never does anything.
        let readsControlTopic = configuration.topics.values.contains { $0.onFailure == .halt }
        if !readsControlTopic {
            logger.info("control topic not read: no topic halts on a decode failure, so no release can apply", [
                "kafka.topic": configuration.controlTopic,
            ])
        }
        let background = Task { await withDiscardingTaskGroup { group in
            group.addTask { await self.watchEvents(consumer) }
            group.addTask { await self.watchLag(consumer) }
            if readsControlTopic {
                group.addTask { await self.watchControlTopic(kafka: kafka, consumer: consumer, logger: kafkaLogger) }
            }
        } }

        var loop = RecordLoop(worker: self, consumer: consumer, producer: producer, partitionCounts: partitionCounts)
        let effects = loop.effects
        var failure: (any Error)?
        if proceed {
            // Cancelling run() is a stop(): nothing more is stored past a record whose outcome is not
            // durable, and the drain below is bounded by the shutdown timeout.
            await withTaskCancellationHandler {
                do {
                    try await loop.run()
                } catch let error as KafkaError where error.isFatal {
                    failure = WorkerError.fatal(error.description)
                } catch {
                    failure = error
                }
                // Ended by an error: the shutdown is bounded like a requested one (handlers still running are
                // cancelled shortly before the deadline, sends are not retried past it).
                if let failure { self.stop(because: "\(failure)") }
            } onCancel: {
                self.stop()
            }
        }
        // Outcomes on their way (dead letters and republishes waiting for the broker, handlers running) get
        // until shortly before the shutdown deadline to become durable and move the watermarks.
        let abandonAt = abandonWatch.deadline ?? .now + .seconds(max(0, configuration.shutdownTimeoutSeconds - 1))
        await effects.drain(until: abandonAt)
        if failure == nil {
            do { try effects.throwIfFailed() } catch { failure = error }
        }
        if let failure { noteError("worker failed", ["error": "\(failure)"]) }

        // Drain: the loop finished (or abandoned) its batch and the outcomes on their way had their time;
        // commit what was stored, leave the group, and let outstanding produces finish, all within the
        // shutdown deadline. A step still running at the deadline is abandoned: what it did not commit is
        // read again by the next owner.
        let deadline = stopSignal.withLock { s -> ContinuousClock.Instant in
            if s.deadline == nil { s.deadline = .now + .seconds(configuration.shutdownTimeoutSeconds) }
            return s.deadline!
        }
        let committed = await bounded(by: deadline, "final commit") { [logger] in
            do {
                try await consumer.commit()
            } catch {
                let stored = consumer.storedOffsets
                for (tp, offset) in stored.sorted(by: { $0.key < $1.key }) {
                    logger.warning("final commit failed", [
                        "kafka.topic": tp.topic, "kafka.partition": String(tp.partition), "kafka.offset": String(offset),
                        "error": "\(error)",
                    ])
                }
                if stored.isEmpty { logger.warning("final commit failed", ["error": "\(error)"]) }
            }
        }
        if committed { _ = await bounded(by: deadline, "consumer close") { await consumer.close() } }
        await producer.close(timeout: max(.zero, ContinuousClock.now.duration(to: deadline)))
        background.cancel()
        _ = await bounded(by: deadline, "background tasks") { await background.value }
        state.withLock { $0.phase = failure == nil ? .stopped : .failed }
        logSuppressedDeadLetters()
        logger.notice("worker stopped", ["records.processed": String(status.processed)])
        if let failure { throw failure }
    }

    // MARK: Background watchers

    func watchEvents(_ consumer: KafkaConsumer) async {
        for await event in consumer.events {
            switch event {
            case .assigned(let partitions):
                logger.info("partitions assigned", ["kafka.partitions": partitions.map(\.description).joined(separator: ",")])
            case .revoked(let partitions, let lost):
                logger.info("partitions revoked", ["kafka.partitions": partitions.map(\.description).joined(separator: ","), "kafka.lost": String(lost)])
            case .error(let error):
                noteError("kafka error", ["error": error.description])
            }
        }
    }

    /// Called by the consumer's poll thread inside the rebalance callback, before a revoked partition's
    /// offsets are committed and before any record of an assigned one is delivered: the worker's view of
    /// halts, lag and the assignment follows librdkafka's at once (a partition that comes back starts from
    /// its committed offset, unpaused, and halts again at the same record if it still fails).
    func rebalanced(_ event: KafkaConsumerEvent) {
        switch event {
        case .assigned(let partitions):
            state.withLock {
                $0.joined = true
                $0.assignment = Array(Set($0.assignment).union(partitions))
            }
        case .revoked(let partitions, _):
            // Nothing more is stored for these partitions by this member's outstanding work.
            let closed = progress.withLock { p in partitions.compactMap { p.removeValue(forKey: $0) } }
            for c in closed { c.close() }
            // The revocation completes (and the partition may go to another member, or come back to this one)
            // only once its handlers have stopped and its sends have their delivery reports: no record runs
            // twice at once, nothing of it is produced afterwards. Bounded by the shutdown timeout.
            let deadline = stopSignal.withLock { $0.deadline } ?? .now + .seconds(configuration.shutdownTimeoutSeconds)
            for c in closed where !c.waitUntilStopped(until: deadline) {
                logger.warning("revoked partition's work still running at the deadline", [
                    "kafka.topic": c.partition.topic, "kafka.partition": String(c.partition.partition),
                    "shutdown.timeout_seconds": String(configuration.shutdownTimeoutSeconds),
                ])
            }
            let revoked = Set(partitions)
            control.withLock { _ in
                state.withLock { s in
                    s.joined = true
                    s.assignment = s.assignment.filter { !revoked.contains($0) }
                    for p in partitions {
                        let wasHalted = s.halted.removeValue(forKey: p) != nil
                        let wasHeld = s.targetUnavailable.removeValue(forKey: p) != nil
                        if wasHeld { targetsUnavailable.subtract(1, ordering: .relaxed) }
                        s.lag[p] = nil
                        // Under the lock: a halt being applied at the same time cannot leave 1 behind.
                        if wasHalted || wasHeld { setHaltedGauge(p, in: s) }
                    }
                }
            }
            for p in partitions { metrics.lag.remove(p.topic, String(p.partition)) }
        case .error:
            break
        }
    }

    func watchLag(_ consumer: KafkaConsumer) async {
        var reported: Set<KafkaTopicPartition> = []
        while !Task.isCancelled {
            let lag = consumer.lag
            let assignment = consumer.assignment
            state.withLock {
                $0.lag = lag
                $0.assignment = Array(assignment)
            }
            for (tp, value) in lag { metrics.lag.labels(tp.topic, String(tp.partition)).set(Double(value)) }
            // Gauges follow the assignment: no lag series for a partition this member no longer owns.
            for tp in reported.subtracting(assignment) { metrics.lag.remove(tp.topic, String(tp.partition)) }
            reported = Set(lag.keys)
            logSuppressedDeadLetters()
            do { try await Task.sleep(for: .seconds(1)) } catch { return }
        }
    }

    /// Runs `body` until `deadline`; past it, abandons it (logged) and returns false.
    func bounded(
        by deadline: ContinuousClock.Instant, _ what: String, _ body: @escaping @Sendable () async -> Void
    ) async -> Bool {
        let finished: Void? = await raceDeadline(deadline) { await body() }
        if finished == nil {
            logger.warning("shutdown step abandoned at the deadline", ["step": what, "shutdown.timeout_seconds": String(configuration.shutdownTimeoutSeconds)])
            return false
        }
        return true
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
    let logger: SwitchyardLogger

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
