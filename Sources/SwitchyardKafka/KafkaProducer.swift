import Dispatch
import Foundation
import Synchronization

/// Produces records; every ``send(_:)`` waits for the broker's acknowledgement.
///
/// A dedicated thread polls librdkafka for delivery reports; each report resumes the `send` that enqueued the
/// record. Idempotence is on by default (no duplicates or reordering from librdkafka's retries).
///
/// - Important: Call ``close(timeout:)`` before dropping the last reference, so pending sends get their
///   outcome; records still unacknowledged at the deadline fail with a purge error.
public final class KafkaProducer: Sendable {
    private let client: RDKafkaClient
    private let state: Mutex<StateMachine>
    private let configuration: KafkaProducerConfiguration
    /// The first fatal error librdkafka reported through its error callback: later sends fail with it.
    private let fatal: FatalErrorBox

    private init(client: RDKafkaClient, configuration: KafkaProducerConfiguration, fatal: FatalErrorBox) {
        self.client = client
        self.configuration = configuration
        self.state = Mutex(StateMachine())
        self.fatal = fatal
    }

    /// The fatal error librdkafka reported, if any: the producer is unusable (idempotence state lost, …).
    public var fatalError: KafkaError? { fatal.error }

    deinit {
        // Without close(): stop the poll thread, which fails what is still pending, then frees the client.
        if case .stopThread(let signal) = state.withLock({ $0.close() }) {
            // The poll thread fails what is still pending, then frees the client; deinit does not wait for it.
            signal.requestStop()
        }
    }

    /// Creates a producer and starts its poll thread. A rejected property throws ``KafkaError/Code/configuration``.
    /// Does not contact the cluster (see ``metadata(timeout:)``).
    public static func make(
        configuration: KafkaProducerConfiguration = KafkaProducerConfiguration(),
        logger: any KafkaLogger = StandardErrorKafkaLogger()
    ) throws -> KafkaProducer {
        let fatal = FatalErrorBox()
        // The error callback is served by the poll thread: a fatal error (idempotence) is kept, so every later
        // send fails at once instead of waiting for a delivery that cannot happen; the others are logged.
        let callbacks = RDKafkaCallbacks(
            logger: logger, secrets: configuration.kafka.secretValues,
            onError: { error in
                if error.isFatal { fatal.set(error) }
                logger.log(
                    level: error.isFatal ? .critical : .warning, message: "producer error",
                    metadata: ["error": error.description, "kafka.error": error.rdKafkaName ?? ""])
            })
        let client = try RDKafkaClient.make(
            kind: .producer,
            properties: configuration.rdKafkaProperties,
            callbacks: callbacks
        )
        let producer = KafkaProducer(client: client, configuration: configuration, fatal: fatal)
        producer.startPollThread()
        return producer
    }

    private func startPollThread() {
        let client = self.client
        let signal = PollThreadSignal()
        state.withLock { $0.started(signal: signal) }
        startDedicatedThread(name: "kafka-producer") {
            while !signal.isStopRequested {
                client.poll(timeoutMilliseconds: 100)
            }
            // Fail what is left so no `send` waits forever, then serve those delivery reports.
            client.purge()
            _ = client.flush(timeoutMilliseconds: 5_000)
            signal.markFinished()
        }
    }

    /// Produces one record and waits for its delivery report.
    ///
    /// - Returns: Where the broker wrote it.
    /// - Throws: ``KafkaError`` with code ``KafkaError/Code/delivery`` when the broker rejected the record or the
    ///   delivery timeout passed (its `rdKafkaName` says why, `isRetriable` whether sending again may work);
    ///   ``KafkaError/Code/state`` after ``close(timeout:)``.
    public func send(_ record: KafkaProducerRecord) async throws -> KafkaDeliveryReport {
        let client = self.client
        return try await withCheckedThrowingContinuation { continuation in
            let box = RDKafkaDeliveryBox { result in continuation.resume(with: result) }
            do {
                // Enqueue under the lock (rd_kafka_produceva does not block): a close that starts later flushes
                // this record, and no record is enqueued after the poll thread stopped serving delivery reports.
                try state.withLock { state in
                    guard state.isOpen else { throw KafkaError.state(reason: "send after close") }
                    if let error = fatal.error { throw error }
                    try client.produce(record, box: box)
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// Enqueues one record without waiting: `completion` gets its delivery report (or failure) on the producer's
    /// poll thread, exactly once. Keep `completion` short; it must not block.
    ///
    /// - Throws: What ``send(_:)`` throws before the record is enqueued (after close, a fatal error, a full
    ///   queue); then `completion` is not called.
    public func send(
        _ record: KafkaProducerRecord,
        completion: @escaping @Sendable (Result<KafkaDeliveryReport, KafkaError>) -> Void
    ) throws {
        let client = self.client
        let box = RDKafkaDeliveryBox(completion)
        try state.withLock { state in
            guard state.isOpen else { throw KafkaError.state(reason: "send after close") }
            if let error = fatal.error { throw error }
            try client.produce(record, box: box)
        }
    }

    /// Waits until every record sent so far was acknowledged or failed, or the deadline passes.
    ///
    /// - Throws: ``KafkaError/Code/timedOut`` when records are still pending at the deadline.
    public func flush(deadline: ContinuousClock.Instant) async throws {
        let client = self.client
        let remaining = ContinuousClock.now.duration(to: deadline)
        let milliseconds = Int32(clamping: max(0, remaining.milliseconds))
        let flushed = await runBlocking { client.flush(timeoutMilliseconds: milliseconds) }
        guard flushed else {
            throw KafkaError.timedOut(reason: "\(client.outstanding) records still unacknowledged at the flush deadline")
        }
    }

    /// Flushes up to `timeout`, then stops: records still pending fail, later sends throw.
    public func close(timeout: Duration = .seconds(10)) async {
        guard state.withLock({ $0.beginClose() }) else { return }
        do {
            try await flush(deadline: .now + timeout)
        } catch {
            // Records still pending at the deadline are not lost silently: stopping the poll thread
            // purges them, and each one's `send` throws its purge error to its caller.
        }
        let action = state.withLock { $0.close() }
        if case .stopThread(let signal) = action {
            signal.requestStop()
            await runBlocking { signal.waitFinished() }
        }
    }

    /// Fetches cluster metadata (brokers, topics), waiting up to `timeout`.
    ///
    /// - Throws: ``KafkaError/Code/unavailable`` when no broker answers in time: use it to fail fast at startup.
    public func metadata(timeout: Duration = .seconds(10)) async throws -> KafkaClusterMetadata {
        let client = self.client
        let milliseconds = Int32(clamping: timeout.milliseconds)
        return try await runBlocking { try client.metadata(timeoutMilliseconds: milliseconds) }
    }

    // MARK: - State machine

    struct StateMachine {
        enum State {
            case initial
            case running(PollThreadSignal)
            case closing(PollThreadSignal)
            case closed
        }

        enum CloseAction {
            case stopThread(PollThreadSignal)
            case none
        }

        private var state: State = .initial

        mutating func started(signal: PollThreadSignal) {
            state = .running(signal)
        }

        var isOpen: Bool {
            if case .running = state { return true }
            return false
        }

        /// True when this call begins the close (later calls return false).
        mutating func beginClose() -> Bool {
            guard case .running(let signal) = state else { return false }
            state = .closing(signal)
            return true
        }

        mutating func close() -> CloseAction {
            switch state {
            case .running(let signal), .closing(let signal):
                state = .closed
                return .stopThread(signal)
            case .initial, .closed:
                state = .closed
                return .none
            }
        }
    }
}

/// The first fatal error of a producer, set from librdkafka's error callback.
final class FatalErrorBox: Sendable {
    private let value = Mutex<KafkaError?>(nil)

    var error: KafkaError? { value.withLock { $0 } }

    func set(_ error: KafkaError) {
        value.withLock { if $0 == nil { $0 = error } }
    }
}
