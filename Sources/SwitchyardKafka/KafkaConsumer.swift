import Dispatch
import Foundation
import Synchronization

/// A consumer in a consumer group: records arrive on ``records``, offsets are stored by the caller once each
/// record's outcome is durable (at-least-once).
///
/// A dedicated thread runs `rd_kafka_consumer_poll`, serves rebalances (committing stored offsets before
/// partitions are revoked), statistics (``lag``) and errors (``events``), and buffers up to
/// ``KafkaConsumerConfiguration/maxBufferedRecords`` records ahead of the reader.
///
/// librdkafka commits stored offsets every ``KafkaConsumerConfiguration/commitInterval``, on revocation and on
/// ``close()``. Nothing is committed past an offset that was not stored with ``storeOffset(_:)``.
///
/// - Important: ``records`` supports one iterator at a time. Call ``close()`` before dropping the consumer so
///   the group rebalances at once and stored offsets are committed.
public final class KafkaConsumer: Sendable {
    private let client: RDKafkaClient
    private let shared: Shared
    private let signal: PollThreadSignal

    /// The records of the assigned partitions, in order per partition. Ends after ``close()``; throws a
    /// ``KafkaError`` with ``KafkaError/isFatal`` when librdkafka hits a fatal error.
    public let records: Records
    /// Assignment changes and non-fatal errors, for observability (buffers the newest 1024 when not read).
    public let events: AsyncStream<KafkaConsumerEvent>
    /// The configuration the consumer was made with.
    public let configuration: KafkaConsumerConfiguration

    private init(
        client: RDKafkaClient,
        shared: Shared,
        events: AsyncStream<KafkaConsumerEvent>,
        configuration: KafkaConsumerConfiguration
    ) {
        self.client = client
        self.shared = shared
        self.signal = PollThreadSignal()
        self.records = Records(shared: shared)
        self.events = events
        self.configuration = configuration
    }

    deinit {
        // The poll thread closes the consumer (commit, leave the group) and then frees the client.
        signal.requestStop()
    }

    /// Creates a consumer, subscribes it to ``KafkaConsumerConfiguration/topics`` and starts its poll thread.
    ///
    /// `rebalanceListener` is called on the poll thread, inside librdkafka's rebalance callback: before any
    /// record of a newly assigned partition is delivered, and before a revoked partition's stored offsets are
    /// committed. A rebalance error that drops the assignment is reported as a revocation of every partition
    /// (`lost: true`). Keep it short; it must not call back into the consumer.
    ///
    /// - Throws: ``KafkaError/Code/configuration`` for a rejected property or an empty group or topic list.
    ///   Does not contact the cluster (use ``metadata(timeout:)`` to fail fast on unreachable brokers).
    public static func make(
        configuration: KafkaConsumerConfiguration,
        logger: any KafkaLogger = StandardErrorKafkaLogger(),
        rebalanceListener: (@Sendable (KafkaConsumerEvent) -> Void)? = nil
    ) throws -> KafkaConsumer {
        guard !configuration.groupID.isEmpty else {
            throw KafkaError.configuration(reason: "the consumer needs a group id")
        }
        guard !configuration.topics.isEmpty, !configuration.topics.contains("") else {
            throw KafkaError.configuration(reason: "the consumer needs at least one topic")
        }
        guard configuration.maxBufferedRecords > 0, configuration.maxBatchRecords > 0 else {
            throw KafkaError.configuration(reason: "maxBufferedRecords and maxBatchRecords must be positive")
        }
        let (events, eventsContinuation) = AsyncStream.makeStream(
            of: KafkaConsumerEvent.self,
            bufferingPolicy: .bufferingNewest(1024)
        )
        let shared = Shared(maxBuffered: configuration.maxBufferedRecords, events: eventsContinuation, listener: rebalanceListener)
        let callbacks = RDKafkaCallbacks(
            logger: logger,
            secrets: configuration.kafka.secretValues,
            onRebalance: { [shared] rebalance in shared.rebalanced(rebalance) },
            onStatistics: { [shared] statistics in shared.state.withLock { $0.updateLag(statistics.consumerLag) } },
            onError: { [shared] error in shared.reportError(error) }
        )
        let client = try RDKafkaClient.make(
            kind: .consumer,
            properties: configuration.rdKafkaProperties,
            callbacks: callbacks
        )
        try client.subscribe(topics: configuration.topics)
        let consumer = KafkaConsumer(
            client: client,
            shared: shared,
            events: events,
            configuration: configuration
        )
        consumer.startPollThread(logger: logger)
        return consumer
    }

    private func startPollThread(logger: any KafkaLogger) {
        let client = self.client
        let shared = self.shared
        let signal = self.signal
        let maxBatch = configuration.maxBatchRecords
        let keepingMessages = configuration.keepsMessages
        let limits = configuration.effectivePrefetchLimits
        let waker = FetchWaker(client: client, logger: logger) { shared.state.withLock { Array($0.assignment) } }
        startDedicatedThread(name: "kafka-consumer") {
            var fullSince: ContinuousClock.Instant?
            var topicNames = RDKafkaTopicNames()
            var prefetch = PrefetchWatch(maxRecords: limits.records, maxBytes: limits.bytes)
            // The next batch call's slots: a batch's records keep theirs (with keepsMessages), so each batch
            // that kept a message gets new ones.
            var messages = RDKafkaMessages(capacity: maxBatch, client: client)
            while !signal.isStopRequested {
                // Pauses, resumes and seeks run here, between batches (see RDKafkaClient.consumeBatch), so no
                // record fetched before one of them is in flight. Batches the reader handed back (recycle) are
                // freed here, where their records were allocated, when `retired` goes out of scope.
                let (requests, retired) = shared.state.withLock { ($0.takeRequests(), $0.takeRetired()) }
                for request in requests {
                    shared.perform(request, client: client)
                }
                withExtendedLifetime(retired) {}
                if shared.state.withLock({ $0.isStopping }) { break }
                if shared.holdsPolls.load(ordering: .acquiring) {
                    usleep(1_000)
                    continue
                }
                // Backpressure. A full buffer first waits for the reader, without polling: a pause inside
                // librdkafka drops what it prefetched, and the fetches after the resume cost far more than a
                // reader a few milliseconds behind. A reader behind for longer (a slow handler) gets the
                // assigned partitions paused inside librdkafka (not in the reader's view) while polling goes
                // on, so rebalances, errors and the group's max.poll.interval.ms are still served. They resume
                // once the buffer is half empty.
                if shared.state.withLock({ $0.isBufferFull }) {
                    let since = fullSince ?? .now
                    fullSince = since
                    if since.duration(to: .now) < Self.bufferFullGrace {
                        usleep(1_000)
                        continue
                    }
                } else {
                    fullSince = nil
                }
                if let request = shared.state.withLock({ $0.flowControl() }) {
                    shared.perform(request, client: client)
                }
                if prefetch.shouldWake(queued: client.consumerQueueLength) { waker.wake() }
                // What librdkafka has queued, in one call; when nothing is, one wait for the first record (up to
                // 100 ms, or a wakeConsumer) and then whatever came with it. The batch call waits for a whole
                // batch, so it waits only for one record. Handed over under one lock: the reader wakes once per
                // batch, not once per record.
                shared.poll.begin(messages)
                var count = client.consumeBatch(timeoutMilliseconds: 0, into: messages, from: 0, count: maxBatch)
                if count == 0 {
                    count = client.consumeBatch(timeoutMilliseconds: 100, into: messages, from: 0, count: 1)
                    if count == 1 {
                        count += client.consumeBatch(timeoutMilliseconds: 0, into: messages, from: 1, count: maxBatch - 1)
                    }
                }
                let revocations = shared.poll.end()
                var batch: [KafkaRecord] = []
                batch.reserveCapacity(count)
                var batchBytes = 0
                var errors: [KafkaError] = []
                var droppedStale = false
                for index in 0..<count {
                    switch client.take(messages, at: index, topicNames: &topicNames, keepingMessages: keepingMessages) {
                    case .record(let record):
                        // Taken before a revocation served inside these calls: read from the revoked assignment,
                        // whatever assignment follows (the partition may be assigned again at once, and its next
                        // records come from its committed offset).
                        if !revocations.isEmpty, revocations.contains(where: { index < $0.taken && ($0.partitions?.contains(record.topicPartition) ?? true) }) {
                            droppedStale = true
                            continue
                        }
                        batchBytes &+= record.valueCount ?? 0
                        batch.append(record)
                    case .error(let error):
                        errors.append(error)
                    case nil:
                        break
                    }
                }
                // A dropped record may keep its message in its slot: the next calls get new slots.
                if droppedStale && batch.isEmpty && keepingMessages { messages = RDKafkaMessages(capacity: maxBatch, client: client) }
                if !batch.isEmpty {
                    if keepingMessages { messages = RDKafkaMessages(capacity: maxBatch, client: client) }
                    prefetch.observe(records: batch.count, bytes: batchBytes)
                    shared.state.withLock { $0.polled(batch) }?.run()
                }
                // librdkafka 2.0 does not fetch again on its own until up to a second after its queue was full.
                if prefetch.shouldWake(queued: client.consumerQueueLength) { waker.wake() }
                for error in errors { shared.reportError(error) }
            }
            waker.stop()
            // Revokes the assignment (the rebalance callback commits stored offsets), leaves the group.
            if let error = client.consumerClose() {
                shared.events.yield(.error(error))
            }
            for case .seek(let request) in shared.state.withLock({ $0.takeRequests() }) {
                request.continuation.resume(throwing: KafkaError.state(reason: "the consumer closed before the seek"))
            }
            shared.finish()
            signal.markFinished()
        }
    }

    /// How long a full buffer waits for the reader before the partitions are paused inside librdkafka.
    static let bufferFullGrace = Duration.seconds(1)

    /// Hands a processed batch back (leaving `batch` empty) so that its records are freed on the poll thread,
    /// which allocated them: a free on the allocating thread costs less than one across threads. Optional;
    /// records still referenced elsewhere live on as usual.
    public func recycle(_ batch: inout KafkaRecordBatch) {
        let records = batch.records
        batch.records = []
        guard !records.isEmpty else { return }
        shared.state.withLock { $0.retire(records) }
    }

    /// Makes librdkafka raise a fatal error on this consumer, as a fenced static member would (its
    /// `rd_kafka_test_fatal_error`): for tests of what a fatal error does. The next batch throws it.
    public func raiseFatalErrorForTesting(reason: String) {
        client.raiseFatalErrorForTesting(reason: reason)
    }

    // MARK: - Offsets

    /// Stores `record.offset + 1` for the next commit: call it once the record's outcome is durable.
    ///
    /// - Throws: ``KafkaError/Code/state`` when the record's partition is no longer assigned (another member
    ///   will consume the record again; that is at-least-once).
    public func storeOffset(_ record: KafkaRecord) throws {
        try storeOffset(record.topicPartition, nextOffset: record.offset + 1)
    }

    /// Stores `nextOffset` (the offset of the next record to read) for a partition.
    public func storeOffset(_ partition: KafkaTopicPartition, nextOffset: Int64) throws {
        try client.storeOffsets([(partition, nextOffset)])
        shared.state.withLock { $0.stored(partition, nextOffset) }
    }

    /// The offsets stored for the next commit (the next offset to read), per assigned partition: what a
    /// commit would write. For logs when a commit fails.
    public var storedOffsets: [KafkaTopicPartition: Int64] {
        shared.state.withLock { $0.storedOffsets }
    }

    /// Commits the stored offsets now and waits for the coordinator's answer (librdkafka also commits them
    /// periodically, on revocation and on close).
    public func commit() async throws {
        let client = self.client
        try await runBlocking { try client.commitStored() }
    }

    /// The group's committed offsets (the next offset to read) for these partitions; partitions without a
    /// commit are absent.
    public func committedOffsets(
        _ partitions: [KafkaTopicPartition],
        timeout: Duration = .seconds(10)
    ) async throws -> [KafkaTopicPartition: Int64] {
        let client = self.client
        let milliseconds = Int32(clamping: timeout.milliseconds)
        let offsets = try await runBlocking { try client.committed(partitions, timeoutMilliseconds: milliseconds) }
        return offsets.filter { $0.value >= 0 }
    }

    /// The committed offsets (the next offset to read) of `group` for these partitions, read without
    /// joining the group: no rebalance disturbs its members. Partitions without a commit are absent.
    public static func committedOffsets(
        group: String,
        partitions: [KafkaTopicPartition],
        kafka: KafkaConfiguration,
        timeout: Duration = .seconds(10),
        logger: any KafkaLogger = NoOpKafkaLogger()
    ) async throws -> [KafkaTopicPartition: Int64] {
        // A consumer handle that never subscribes: it talks to the group coordinator only.
        let properties = KafkaConsumerConfiguration(groupID: group, topics: [], kafka: kafka, statisticsInterval: nil).rdKafkaProperties
        let client = try RDKafkaClient.make(
            kind: .consumer, properties: properties, callbacks: RDKafkaCallbacks(logger: logger, secrets: kafka.secretValues))
        let milliseconds = Int32(clamping: timeout.milliseconds)
        let offsets = try await runBlocking { try client.committed(partitions, timeoutMilliseconds: milliseconds) }
        return offsets.filter { $0.value >= 0 }
    }

    // MARK: - Flow control

    /// Stops delivering records of these partitions until ``resume(_:)``; records already buffered are held back,
    /// not dropped.
    ///
    /// The reader's view changes at once; librdkafka stops fetching them when the poll thread next turns.
    ///
    /// - Throws: ``KafkaError/Code/state`` for a partition that is not assigned to this member.
    public func pause(_ partitions: [KafkaTopicPartition]) throws {
        try shared.state.withLock { state throws(KafkaError) in try state.requestPause(partitions) }
        client.wakeConsumer()
    }

    /// Resumes partitions paused with ``pause(_:)``; held-back records come first.
    ///
    /// - Throws: ``KafkaError/Code/state`` for a partition that is not assigned to this member.
    public func resume(_ partitions: [KafkaTopicPartition]) throws {
        try shared.state.withLock { state throws(KafkaError) in try state.requestResume(partitions) }?.run()
        client.wakeConsumer()
    }

    /// Moves an assigned partition to `offset`: the next record of that partition is the one at `offset`.
    /// Buffered records of the partition are dropped, and records of it in batches already handed over are
    /// stale from the call on (``isStale(_:generation:)``): they were read before the seek.
    ///
    /// - Throws: ``KafkaError/Code/state`` after ``close()``, or for a partition that is not assigned to this
    ///   member.
    /// - Returns: The generation the seek began: a batch of an earlier one holds the partition's records from
    ///   before the seek.
    @discardableResult
    public func seek(_ partition: KafkaTopicPartition, to offset: Int64) async throws -> UInt64 {
        guard !signal.isStopRequested else { throw KafkaError.state(reason: "seek after close") }
        let shared = self.shared
        let generation = Mutex<UInt64>(0)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let refused = shared.state.withLock { state -> KafkaError? in
                do throws(KafkaError) {
                    let began = try state.requestSeek(.init(partition: partition, offset: offset, continuation: continuation))
                    generation.withLock { $0 = began }
                    return nil
                } catch {
                    return error
                }
            }
            if let refused { continuation.resume(throwing: refused) }
        }
        client.wakeConsumer()
        return generation.withLock { $0 }
    }

    /// For tests: while held, the poll thread polls nothing, so librdkafka queues what it fetches and the
    /// rebalances it starts for the first turn after the hold ends.
    func holdPolls(_ hold: Bool) {
        shared.holdsPolls.store(hold, ordering: .releasing)
    }

    /// Whether `partition`'s records in a batch of `generation` are stale: the partition was revoked or sought
    /// since (or is not assigned). Such records must be neither processed nor stored.
    public func isStale(_ partition: KafkaTopicPartition, generation: UInt64) -> Bool {
        shared.state.withLock { $0.isStale(partition, generation: generation) }
    }

    // MARK: - Observability

    /// The partitions currently assigned to this member.
    public var assignment: Set<KafkaTopicPartition> {
        shared.state.withLock { $0.assignment }
    }

    /// Consumer lag per assigned partition from the latest librdkafka statistics (high watermark minus position);
    /// empty when statistics are disabled or not yet reported.
    public var lag: [KafkaTopicPartition: Int64] {
        shared.state.withLock { state in state.lag.filter { state.assignment.contains($0.key) } }
    }

    /// Fetches cluster metadata (brokers, topics), waiting up to `timeout`.
    ///
    /// - Throws: ``KafkaError/Code/unavailable`` when no broker answers in time.
    public func metadata(timeout: Duration = .seconds(10)) async throws -> KafkaClusterMetadata {
        let client = self.client
        let milliseconds = Int32(clamping: timeout.milliseconds)
        return try await runBlocking { try client.metadata(timeoutMilliseconds: milliseconds) }
    }

    // MARK: - Closing

    /// Ends ``records`` and ``batches`` for their reader (a waiting one at once) without closing: the consumer
    /// stays in its group, keeps its assignment and commits what is stored until ``close()``. For a reader that
    /// must stop reading but still finish work whose offsets it stores later.
    public func stopDelivering() {
        shared.state.withLock { $0.stopDelivering() }?.continuation.resume(returning: KafkaRecordBatch(records: [], generation: 0))
    }

    /// Leaves the group: commits stored offsets, revokes the assignment, ends ``records`` and ``events``.
    /// Records still buffered are dropped (not stored, so they are consumed again later).
    public func close() async {
        shared.state.withLock { $0.beginStop() }
        signal.requestStop()
        let signal = self.signal
        await runBlocking { signal.waitFinished() }
    }

    // MARK: - Records

    /// The consumer's records as an `AsyncSequence`.
    public struct Records: AsyncSequence, Sendable {
        public typealias Element = KafkaRecord

        fileprivate let shared: Shared

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(shared: shared)
        }

        /// Iterates ``KafkaConsumer/records``.
        public struct AsyncIterator: AsyncIteratorProtocol {
            fileprivate let shared: Shared

            public mutating func next() async throws -> KafkaRecord? {
                let shared = self.shared
                return try await shared.next(max: 1).records.first
            }
        }
    }

    /// The consumer's records in batches: each element is every record buffered when the reader asked, up to
    /// ``KafkaConsumerConfiguration/maxBatchRecords``, in order per partition (partitions interleave). Never
    /// empty; ends after ``close()``. Pause, resume and seek apply to what is still buffered, as for ``records``.
    ///
    /// - Important: Use either ``records`` or ``batches``, one iterator at a time.
    public var batches: Batches { Batches(shared: shared, max: configuration.maxBatchRecords) }

    /// ``KafkaConsumer/batches`` as an `AsyncSequence`.
    public struct Batches: AsyncSequence, Sendable {
        public typealias Element = KafkaRecordBatch

        fileprivate let shared: Shared
        fileprivate let max: Int

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(shared: shared, max: max)
        }

        /// Iterates ``KafkaConsumer/batches``.
        public struct AsyncIterator: AsyncIteratorProtocol {
            fileprivate let shared: Shared
            fileprivate let max: Int

            public mutating func next() async throws -> KafkaRecordBatch? {
                let batch = try await shared.next(max: max)
                return batch.records.isEmpty ? nil : batch
            }
        }
    }

    // MARK: - Shared state

    /// What the poll thread, the C callbacks and the public API share.
    fileprivate final class Shared: Sendable {
        let state: Mutex<StateMachine>
        /// The poll thread's batch calls in progress, for a revocation served inside them.
        let poll = PollInProgress()
        /// For tests: while set, the poll thread polls nothing (librdkafka queues fetched records and
        /// rebalances for the next call). Internal; one atomic load per turn.
        let holdsPolls = Atomic<Bool>(false)
        let events: AsyncStream<KafkaConsumerEvent>.Continuation
        let listener: (@Sendable (KafkaConsumerEvent) -> Void)?

        init(
            maxBuffered: Int, events: AsyncStream<KafkaConsumerEvent>.Continuation,
            listener: (@Sendable (KafkaConsumerEvent) -> Void)?
        ) {
            self.state = Mutex(StateMachine(maxBuffered: maxBuffered))
            self.events = events
            self.listener = listener
        }

        func rebalanced(_ rebalance: RDKafkaCallbacks.Rebalance) {
            switch rebalance {
            case .assigned(let partitions):
                state.withLock { $0.assigned(partitions) }
                listener?(.assigned(partitions.sorted()))
                events.yield(.assigned(partitions.sorted()))
            case .revoked(let partitions, let lost):
                poll.revoked(Set(partitions))
                state.withLock { $0.revoked(partitions) }
                listener?(.revoked(partitions.sorted(), lost: lost))
                events.yield(.revoked(partitions.sorted(), lost: lost))
            case .failed(let error):
                // librdkafka dropped the whole assignment: a revocation of every partition, as far as the
                // application is concerned.
                poll.revoked(nil)
                let dropped = state.withLock { s -> [KafkaTopicPartition] in
                    let all = s.assignment.sorted()
                    s.revoked(nil)
                    return all
                }
                listener?(.revoked(dropped, lost: true))
                events.yield(.error(error))
                if !dropped.isEmpty { events.yield(.revoked(dropped, lost: true)) }
            }
        }

        /// Up to `max` buffered records, waiting for the first; empty at the end.
        func next(max: Int) async throws -> KafkaRecordBatch {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let action = state.withLock {
                        $0.next(StateMachine.Waiter(continuation: continuation, max: max), isCancelled: Task.isCancelled)
                    }
                    switch action {
                    case .suspended:
                        break
                    case .deliver(let batch):
                        continuation.resume(returning: batch)
                    case .end:
                        continuation.resume(returning: KafkaRecordBatch(records: [], generation: 0))
                    case .fail(let error):
                        continuation.resume(throwing: error)
                    }
                }
            } onCancel: {
                state.withLock { $0.cancelWaiter() }?.continuation.resume(returning: KafkaRecordBatch(records: [], generation: 0))
            }
        }

        func reportError(_ error: KafkaError) {
            if error.isFatal {
                state.withLock { $0.fatal(error) }
            }
            events.yield(.error(error))
        }

        /// Runs a pause, resume or seek inside librdkafka (on the poll thread, between two batches): the reader's
        /// or flow control's.
        func perform(_ request: StateMachine.LibraryRequest, client: RDKafkaClient) {
            do {
                switch request {
                case .pause(let partitions):
                    try client.pause(partitions)
                case .resume(let partitions):
                    try client.resume(partitions)
                case .seek(let seek):
                    performSeek(seek, client: client)
                }
            } catch {
                // Revoked since it was asked for: the reader's view already has it.
                events.yield(.error(error as? KafkaError ?? .state(reason: "\(error)")))
            }
        }

        func performSeek(_ request: StateMachine.SeekRequest, client: RDKafkaClient) {
            do {
                try client.seek(request.partition, to: request.offset)
                state.withLock { $0.dropBuffered(request.partition) }
                request.continuation.resume()
            } catch {
                request.continuation.resume(throwing: error)
            }
        }

        func finish() {
            state.withLock { $0.finish() }?.run()
            events.finish()
        }
    }

    /// The batch calls of one poll-thread turn, while they run: a rebalance callback served inside one of them
    /// notes how many records the calls had taken when it revoked partitions. librdkafka 2.0 returns those with
    /// the batch (its purge of records read before a rebalance came later), and they belong to the revoked
    /// assignment even when the same partitions are assigned again within the same calls. Touched on the poll
    /// thread only (the callbacks run there, inside the calls).
    fileprivate final class PollInProgress: @unchecked Sendable {
        struct Revocation {
            /// nil: every partition.
            var partitions: Set<KafkaTopicPartition>?
            /// Slots filled when it was served: the records taken before it.
            var taken: Int
        }

        private var messages: RDKafkaMessages?
        private var revocations: [Revocation] = []

        func begin(_ messages: RDKafkaMessages) {
            self.messages = messages
            revocations.removeAll(keepingCapacity: true)
        }

        /// The revocations served since ``begin(_:)``.
        func end() -> [Revocation] {
            messages = nil
            return revocations
        }

        func revoked(_ partitions: Set<KafkaTopicPartition>?) {
            // The calls fill slots from the first on, and every slot is empty before them.
            guard let messages else { return }
            var taken = 0
            while taken < messages.capacity, messages.slots[taken] != nil { taken += 1 }
            revocations.append(Revocation(partitions: partitions, taken: taken))
        }
    }

    // MARK: - State machine

    /// The consumer's state: the record buffer, the waiting reader, the assignment, paused partitions.
    /// Methods return the continuation to resume, which the caller resumes outside the lock.
    fileprivate struct StateMachine {
        /// The reader waiting for records, and how many it takes at once.
        struct Waiter {
            var continuation: CheckedContinuation<KafkaRecordBatch, any Error>
            var max: Int
        }

        struct SeekRequest {
            var partition: KafkaTopicPartition
            var offset: Int64
            var continuation: CheckedContinuation<Void, any Error>
        }

        /// What the poll thread does inside librdkafka between two batches, in the order asked: librdkafka 2.0's
        /// batch call is safe beside pause, resume and seek only when they run in sequence with it.
        enum LibraryRequest {
            case pause([KafkaTopicPartition])
            case resume([KafkaTopicPartition])
            case seek(SeekRequest)
        }

        enum Lifecycle {
            case running
            /// close() was called or a fatal error happened: the poll thread is closing the client.
            case stopping(KafkaError?)
            /// The poll thread is done; a fatal error is reported once, then the sequence ends.
            case finished(KafkaError?)
        }

        enum NextAction {
            case deliver(KafkaRecordBatch)
            case suspended
            case end
            case fail(KafkaError)
        }

        struct ResumeAction {
            let waiter: Waiter
            let result: Result<KafkaRecordBatch, KafkaError>

            func run() { waiter.continuation.resume(with: result.mapError { $0 as any Error }) }
        }

        private(set) var lifecycle: Lifecycle = .running
        private var buffer: RecordQueue = RecordQueue()
        private var waiter: Waiter?
        private var paused: Set<KafkaTopicPartition> = []
        /// Partitions paused inside librdkafka because the buffer is full (not paused for the reader).
        private var flowPaused: Set<KafkaTopicPartition> = []
        private(set) var storedOffsets: [KafkaTopicPartition: Int64] = [:]
        private var heldBack: [KafkaTopicPartition: [KafkaRecord]] = [:]
        private var requests: [LibraryRequest] = []
        /// Batches the reader is done with, for the poll thread to free.
        private var retired: [[KafkaRecord]] = []
        private(set) var assignment: Set<KafkaTopicPartition> = []
        private(set) var lag: [KafkaTopicPartition: Int64] = [:]
        /// Counts revocations and seeks; a batch carries the count at its hand-over.
        private(set) var generation: UInt64 = 0
        private var deliveryStopped = false
        /// The generation each partition was last revoked or sought in.
        private var revokedIn: [KafkaTopicPartition: UInt64] = [:]
        let maxBuffered: Int

        private mutating func take(_ max: Int) -> KafkaRecordBatch {
            KafkaRecordBatch(records: buffer.popFirst(max), generation: generation)
        }

        /// Whether `partition` was revoked or sought after a batch of `generation` was handed over (its records
        /// are stale: the partition's next owner, maybe this member again, reads them from the committed offset;
        /// after a seek, this member reads from the seek's offset).
        func isStale(_ partition: KafkaTopicPartition, generation: UInt64) -> Bool {
            if let revoked = revokedIn[partition], revoked > generation { return true }
            return !assignment.contains(partition)
        }

        init(maxBuffered: Int) {
            self.maxBuffered = maxBuffered
        }

        var isBufferFull: Bool { buffer.count >= maxBuffered }

        /// What the poll thread does before polling: pause the assigned partitions inside librdkafka while the
        /// buffer is full, resume them once it is half empty. Partitions the reader paused stay paused.
        mutating func flowControl() -> LibraryRequest? {
            if buffer.count >= maxBuffered {
                let more = assignment.subtracting(flowPaused)
                guard !more.isEmpty else { return nil }
                flowPaused.formUnion(more)
                return .pause(more.sorted())
            }
            if !flowPaused.isEmpty && buffer.count <= maxBuffered / 2 {
                let resumable = flowPaused.intersection(assignment).subtracting(paused)
                flowPaused = []
                return resumable.isEmpty ? nil : .resume(resumable.sorted())
            }
            return nil
        }

        mutating func stored(_ partition: KafkaTopicPartition, _ nextOffset: Int64) {
            if assignment.contains(partition) { storedOffsets[partition] = nextOffset }
        }

        var isStopping: Bool {
            if case .running = lifecycle { return false }
            return true
        }

        /// Records from the poll thread: into the buffer (held back if their partition is paused); the waiting
        /// reader, if any, gets the first of them.
        mutating func polled(_ records: [KafkaRecord]) -> ResumeAction? {
            guard case .running = lifecycle else { return nil }
            if paused.isEmpty {
                buffer.append(contentsOf: records)
            } else {
                // One chunk for what is delivered, as without a pause (a chunk per record would make every
                // hand-over a single record while any partition is halted).
                var delivered: [KafkaRecord] = []
                delivered.reserveCapacity(records.count)
                for record in records {
                    if paused.contains(record.topicPartition) {
                        holdBack(record)
                    } else {
                        delivered.append(record)
                    }
                }
                buffer.append(contentsOf: delivered)
            }
            return wakeWaiter()
        }

        /// The waiting reader with what is buffered, if both are there.
        private mutating func wakeWaiter() -> ResumeAction? {
            guard let waiter, case .running = lifecycle, !buffer.isEmpty, !deliveryStopped else { return nil }
            self.waiter = nil
            return ResumeAction(waiter: waiter, result: .success(take(waiter.max)))
        }

        mutating func next(_ waiter: Waiter, isCancelled: Bool) -> NextAction {
            switch lifecycle {
            case .finished(let error):
                if let error {
                    lifecycle = .finished(nil)
                    return .fail(error)
                }
                return .end
            case .stopping:
                return .end
            case .running:
                if deliveryStopped { return .end }
                if !buffer.isEmpty { return .deliver(take(waiter.max)) }
                if isCancelled { return .end }
                precondition(self.waiter == nil, "KafkaConsumer.records and batches support one iterator at a time")
                self.waiter = waiter
                return .suspended
            }
        }

        /// The reader gets no more records (``KafkaConsumer/stopDelivering()``); returns the waiting one.
        mutating func stopDelivering() -> Waiter? {
            deliveryStopped = true
            return cancelWaiter()
        }

        mutating func cancelWaiter() -> Waiter? {
            defer { waiter = nil }
            return waiter
        }

        mutating func pause(_ partitions: [KafkaTopicPartition]) {
            let set = Set(partitions)
            paused.formUnion(set)
            for record in buffer.removeAll(where: { set.contains($0.topicPartition) }) {
                holdBack(record)
            }
        }

        /// Keeps a record of a paused partition until its resume, detached: a partition may stay paused for
        /// long (a halt), and a kept message would keep its whole fetch response in memory until then.
        private mutating func holdBack(_ record: KafkaRecord) {
            heldBack[record.topicPartition, default: []].append(record.detached())
        }

        mutating func resume(_ partitions: [KafkaTopicPartition]) -> ResumeAction? {
            for partition in partitions {
                paused.remove(partition)
                // Resumed inside librdkafka by the caller: no longer paused for backpressure either.
                flowPaused.remove(partition)
                buffer.append(contentsOf: heldBack.removeValue(forKey: partition) ?? [])
            }
            return wakeWaiter()
        }

        /// Queues a seek for the poll thread; the partition's records handed over until now are stale at once.
        /// Returns the generation it began. Throws once closing, or for a partition that is not assigned.
        mutating func requestSeek(_ request: SeekRequest) throws(KafkaError) -> UInt64 {
            guard case .running = lifecycle else { throw KafkaError.state(reason: "seek after close") }
            try checkAssigned([request.partition], "seek")
            requests.append(.seek(request))
            generation += 1
            revokedIn[request.partition] = generation
            return generation
        }

        /// Pauses (or resumes) assigned partitions for the reader at once, and inside librdkafka from the poll
        /// thread's next turn. Throws for a partition that is not assigned (revoked meanwhile).
        mutating func requestPause(_ partitions: [KafkaTopicPartition]) throws(KafkaError) {
            try checkAssigned(partitions, "pause")
            pause(partitions)
            requests.append(.pause(partitions))
        }

        mutating func requestResume(_ partitions: [KafkaTopicPartition]) throws(KafkaError) -> ResumeAction? {
            try checkAssigned(partitions, "resume")
            requests.append(.resume(partitions))
            return resume(partitions)
        }

        private func checkAssigned(_ partitions: [KafkaTopicPartition], _ verb: String) throws(KafkaError) {
            if let missing = partitions.first(where: { !assignment.contains($0) }) {
                throw KafkaError.state(reason: "cannot \(verb) \(missing): not assigned to this member")
            }
        }

        mutating func retire(_ records: [KafkaRecord]) {
            // Bounded: the poll thread takes them at least every poll timeout; after the end nobody does.
            guard case .running = lifecycle else { return }
            retired.append(records)
        }

        mutating func takeRetired() -> [[KafkaRecord]] {
            defer { retired = [] }
            return retired
        }

        mutating func takeRequests() -> [LibraryRequest] {
            defer { requests = [] }
            return requests
        }

        /// Drops buffered and held-back records of a partition (after a seek or a revocation).
        mutating func dropBuffered(_ partition: KafkaTopicPartition) {
            _ = buffer.removeAll { $0.topicPartition == partition }
            heldBack[partition] = nil
        }

        mutating func assigned(_ partitions: [KafkaTopicPartition]) {
            assignment.formUnion(partitions)
        }

        /// `nil`: the whole assignment.
        mutating func revoked(_ partitions: [KafkaTopicPartition]?) {
            let revoked = partitions.map(Set.init) ?? assignment
            generation += 1
            for partition in revoked { revokedIn[partition] = generation }
            assignment.subtract(revoked)
            paused.subtract(revoked)
            flowPaused.subtract(revoked)
            for partition in revoked { storedOffsets[partition] = nil }
            _ = buffer.removeAll { revoked.contains($0.topicPartition) }
            for partition in revoked {
                heldBack[partition] = nil
                lag[partition] = nil
            }
        }

        mutating func updateLag(_ lag: [KafkaTopicPartition: Int64]) {
            self.lag = lag
        }

        mutating func beginStop() {
            if case .running = lifecycle { lifecycle = .stopping(nil) }
        }

        mutating func fatal(_ error: KafkaError) {
            if case .running = lifecycle { lifecycle = .stopping(error) }
        }

        /// The poll thread is done: the reader gets the fatal error (if any) or the end.
        mutating func finish() -> ResumeAction? {
            var error: KafkaError?
            switch lifecycle {
            case .running: error = nil
            case .stopping(let e): error = e
            case .finished: return nil
            }
            buffer = RecordQueue()
            heldBack = [:]
            assignment = []
            guard let waiter else {
                lifecycle = .finished(error)
                return nil
            }
            self.waiter = nil
            lifecycle = .finished(nil)
            return ResumeAction(waiter: waiter, result: error.map { .failure($0) } ?? .success(KafkaRecordBatch(records: [], generation: generation)))
        }
    }
}

/// Records handed over together by ``KafkaConsumer/batches``.
public struct KafkaRecordBatch: Sendable {
    /// The records, in order per partition.
    public var records: [KafkaRecord]
    /// The consumer's count of revocations and seeks at the hand-over, for ``KafkaConsumer/isStale(_:generation:)``.
    public var generation: UInt64
}

/// A FIFO of records, kept as the chunks the poll thread handed over: a reader that takes a whole chunk gets
/// the same array back, without copying a record.
struct RecordQueue {
    private var chunks: [[KafkaRecord]] = []
    /// Where the first chunk's unread records start.
    private var head = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func append(contentsOf records: [KafkaRecord]) {
        guard !records.isEmpty else { return }
        chunks.append(records)
        count += records.count
    }

    /// Up to `max` records from the front, in order: the first chunk's unread records (at most `max`).
    mutating func popFirst(_ max: Int) -> [KafkaRecord] {
        guard !chunks.isEmpty else { return [] }
        let first = chunks[0]
        let available = first.count - head
        let taken: [KafkaRecord]
        if head == 0 && available <= max {
            taken = first
            chunks.removeFirst()
        } else {
            let n = Swift.min(max, available)
            taken = Array(first[head..<(head + n)])
            head += n
            if head == first.count {
                chunks.removeFirst()
                head = 0
            }
        }
        count -= taken.count
        return taken
    }

    /// Removes the records matching `predicate`, keeping the others in order; returns the removed ones.
    mutating func removeAll(where predicate: (KafkaRecord) -> Bool) -> [KafkaRecord] {
        var kept: [KafkaRecord] = []
        var removed: [KafkaRecord] = []
        for (k, chunk) in chunks.enumerated() {
            for record in chunk[(k == 0 ? head : 0)...] {
                if predicate(record) { removed.append(record) } else { kept.append(record) }
            }
        }
        if !removed.isEmpty {
            chunks = kept.isEmpty ? [] : [kept]
            head = 0
            count = kept.count
        }
        return removed
    }
}
