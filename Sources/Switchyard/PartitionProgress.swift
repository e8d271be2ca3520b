import Foundation
import SwitchyardKafka
import Synchronization

/// One assigned partition's completion watermark: which records' outcomes are durable, and the offset stored
/// for the next commit, which is the highest offset below which every outcome is durable.
///
/// The record loop hands records over in offset order. A record that completes at once (decoded, no handler,
/// no republish) only moves ``State/processedThrough``; one whose outcome is on its way (a dead letter or a
/// republish waiting for the broker, a handler running) is registered as pending and completed later, from any
/// thread (a delivery report, a handler's task). Offsets are stored under the lock, so two completions never
/// store out of order.
///
/// A halting record is pending like the others but is never passed: once every record before it is durable
/// and its own dead letter is acknowledged, the watermark stores its offset (the group resumes *at* it) and
/// ``waitForHalt()`` returns. A release moves past it (``release(at:)``).
final class PartitionProgress: Sendable {
    let partition: KafkaTopicPartition
    private let consumer: KafkaConsumer
    private let state: Mutex<State>

    struct Entry {
        var offset: Int64
        /// The record's size (value and key), counted in ``State/pendingBytes`` until it is done.
        var bytes: Int
        var done: Bool
        var halts: Bool
    }

    /// How much a partition may have pending before it is paused (``handOver(pending:processedThrough:haltAt:haltDone:limits:)``);
    /// it is resumed once both are below half.
    struct Limits {
        /// Pending entries: records whose outcome is on its way, and those done behind one that is not.
        var records: Int
        /// Sizes of the records whose outcome is on its way.
        var bytes: Int
    }

    struct State {
        var open = true
        /// Pending records in offset order (from `head`).
        var pending: [Entry] = []
        var head = 0
        /// Every record below this offset was handed over (completed, or registered as pending).
        var processedThrough: Int64?
        /// The next offset last stored.
        var stored: Int64 = -1
        /// The offset the partition halts (or is halted) at: records from it on are held, not processed.
        var haltAt: Int64?
        /// Whether the halting record is durable with everything before it (the halt is in effect).
        var haltReached = false
        var haltWaiter: CheckedContinuation<Bool, Never>?
        /// Sends handed to the producer whose delivery report has not come yet.
        var produces = 0
        /// Handler lanes whose task has not ended.
        var lanes = 0
        /// Cancels a handler lane's task (on revocation).
        var stoppers: [@Sendable () -> Void] = []
        /// Sizes of the pending records not done yet.
        var pendingBytes = 0
        /// Paused because ``Limits`` were exceeded; resumed below half of them (unless halted).
        var backPressured = false
        var limits = Limits(records: .max, bytes: .max)
        /// The consumer's generation after this partition's last release's seek: records of a batch of an earlier
        /// generation were read before the seek, and are neither processed nor stored.
        var releasedAt: UInt64 = 0

        var pendingCount: Int { pending.count - head }
    }

    init(partition: KafkaTopicPartition, consumer: KafkaConsumer) {
        self.partition = partition
        self.consumer = consumer
        self.state = Mutex(State())
    }

    /// Whether the partition is still this lane's (false after a revocation).
    var isOpen: Bool { state.withLock { $0.open } }

    /// The offset the partition is halted or halting at, if any.
    var haltOffset: Int64? { state.withLock { $0.haltAt } }

    /// Whether records of a batch of `batchStamp` (its ``KafkaRecordBatch/generation``) are processed: the
    /// partition is still this lane's, not halted, and not released since the batch was taken (a release seeks
    /// past the halted record, and what was read before the seek is read again after it).
    func admitsRun(batchStamp: UInt64) -> Bool {
        state.withLock { $0.open && $0.haltAt == nil && $0.releasedAt <= batchStamp }
    }

    /// Whether a handler lane runs the record at `offset` of a batch of `batchStamp`: the partition is
    /// still this lane's, it is not halted at an earlier record, and it was not released since the batch was
    /// taken (the record is read again after the release's seek).
    func admitsHandler(offset: Int64, batchStamp: UInt64) -> Bool {
        state.withLock { s in
            guard s.open, s.releasedAt <= batchStamp else { return false }
            return s.haltAt.map { offset <= $0 } ?? true
        }
    }

    /// A record whose outcome is on its way, and its size.
    struct PendingRecord {
        var offset: Int64
        var bytes: Int
    }

    /// Hands over the records of one run: `pending` (in offset order, all below `processedThrough`) wait for
    /// their outcome; every other record below `processedThrough` is complete. `haltAt`: the run stopped at a
    /// halting record, registered pending (`haltDone`: its dead letter is already durable).
    ///
    /// False, and nothing handed over, when the partition was revoked or released since the run's batch (of
    /// generation `batchStamp`) was taken: its records are read again (by the next owner, or after the release's seek), so
    /// nothing of the run may be stored or carried out.
    ///
    /// Past `limits` the partition is paused (its records wait in the broker, other partitions go on) until
    /// what is pending falls below half of them: the memory of records in flight, and of the pending list
    /// behind one that does not finish (a stuck handler, a key that keeps failing), stays bounded.
    @discardableResult
    func handOver(
        pending: [PendingRecord], processedThrough: Int64, haltAt: Int64? = nil, haltDone: Bool = false,
        limits: Limits = Limits(records: .max, bytes: .max), batchStamp: UInt64 = .max
    ) -> Bool {
        let (accepted, waiter) = state.withLock { s -> (Bool, CheckedContinuation<Bool, Never>?) in
            guard s.open, s.releasedAt <= batchStamp else { return (false, nil) }
            s.limits = limits
            for record in pending {
                s.pending.append(Entry(offset: record.offset, bytes: record.bytes, done: false, halts: false))
                s.pendingBytes += record.bytes
            }
            if let haltAt {
                s.pending.append(Entry(offset: haltAt, bytes: 0, done: haltDone, halts: true))
                s.haltAt = haltAt
                s.haltReached = false
            }
            s.processedThrough = processedThrough
            if !s.backPressured, s.pendingCount > limits.records || s.pendingBytes > limits.bytes {
                do {
                    try consumer.pause([partition])
                    s.backPressured = true
                } catch {
                    // Revoked meanwhile (`pause` refuses a partition that is not assigned): nothing to pause.
                }
            }
            return (true, advance(&s))
        }
        waiter?.resume(returning: true)
        return accepted
    }

    /// Records pending (on their way, or done behind one that is not) and the bytes of those on their way.
    var pendingLoad: (records: Int, bytes: Int) { state.withLock { ($0.pendingCount, $0.pendingBytes) } }

    /// Marks a pending record complete (its dead letter or republish was acknowledged, its handler is done).
    func complete(_ offset: Int64) {
        let waiter = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            guard s.open else { return nil }
            // Pending offsets are sorted: binary search from the head.
            var low = s.head
            var high = s.pending.count
            while low < high {
                let mid = (low + high) / 2
                if s.pending[mid].offset < offset { low = mid + 1 } else { high = mid }
            }
            guard low < s.pending.count, s.pending[low].offset == offset, !s.pending[low].done else { return nil }
            s.pending[low].done = true
            s.pendingBytes -= s.pending[low].bytes
            return advance(&s)
        }
        waiter?.resume(returning: true)
    }

    /// Makes the pending record at `offset` a halting one (its handler failed on a topic that halts): nothing
    /// after it is stored, and once its dead letter is acknowledged with everything before it, ``waitForHalt()``
    /// returns. False, and nothing changes, when the partition was revoked, the record is not pending, or the
    /// partition already halts (at another record).
    func haltForHandler(at offset: Int64) -> Bool {
        state.withLock { s in
            guard s.open, s.haltAt == nil else { return false }
            guard let index = s.pending[s.head...].firstIndex(where: { $0.offset == offset }), !s.pending[index].done else { return false }
            s.pending[index].halts = true
            s.haltAt = offset
            s.haltReached = false
            return true
        }
    }

    /// Waits until the halting record is durable with everything before it (true), or the partition was revoked
    /// (false).
    func waitForHalt() async -> Bool {
        await withCheckedContinuation { continuation in
            let now: Bool? = state.withLock { s in
                if !s.open { return false }
                if s.haltReached { return true }
                s.haltWaiter = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// A release of the halted record at `offset`: the lane goes on from `offset + 1` (the caller seeks there).
    /// `stamp` (the consumer's generation once the seek was asked for, which made the partition's earlier
    /// batches stale) invalidates every record read before: a run of an earlier batch, still in the record loop
    /// or queued in a handler lane, is dropped, never stored (it is read again after the seek). False when the
    /// partition is not halted at `offset`.
    @discardableResult
    func release(at offset: Int64, stamp: UInt64) -> Bool {
        state.withLock { s in
            guard s.open, s.haltAt == offset else { return false }
            s.releasedAt = max(s.releasedAt, stamp)
            s.haltAt = nil
            s.haltReached = false
            s.pending.removeAll()
            s.head = 0
            s.pendingBytes = 0
            // The release resumes the partition (its caller).
            s.backPressured = false
            s.processedThrough = offset + 1
            s.stored = max(s.stored, offset + 1)
            return true
        }
    }

    /// The partition was revoked: nothing more is stored or produced, a halt waiter gets false, and its handler
    /// lanes are cancelled (``waitUntilStopped(until:)`` waits for them).
    func close() {
        let (waiter, stoppers) = state.withLock { s -> (CheckedContinuation<Bool, Never>?, [@Sendable () -> Void]) in
            s.open = false
            defer {
                s.haltWaiter = nil
                s.stoppers = []
            }
            return (s.haltWaiter, s.stoppers)
        }
        waiter?.resume(returning: false)
        for stop in stoppers { stop() }
    }

    // MARK: - Work in flight

    /// A send is about to be handed to the producer: false once the partition is closed (nothing of a revoked
    /// partition is produced). Each true is matched by one ``endProduce()``, when its delivery report comes.
    func beginProduce() -> Bool {
        state.withLock { s in
            guard s.open else { return false }
            s.produces += 1
            return true
        }
    }

    func endProduce() {
        state.withLock { $0.produces -= 1 }
    }

    /// A handler lane's task started; `stop` cancels it. Each call is matched by one ``laneEnded()``, when the
    /// task ends.
    func laneStarted(stop: @escaping @Sendable () -> Void) {
        let closed = state.withLock { s -> Bool in
            s.lanes += 1
            if s.open { s.stoppers.append(stop) }
            return !s.open
        }
        if closed { stop() }
    }

    func laneEnded() {
        state.withLock { $0.lanes -= 1 }
    }

    /// Blocks the calling thread (the consumer's, in its rebalance callback) until a closed partition's handler
    /// lanes have ended and its sends have their delivery reports, or `deadline`: false at the deadline.
    func waitUntilStopped(until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            if state.withLock({ $0.lanes == 0 && $0.produces == 0 }) { return true }
            if ContinuousClock.now >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.002)
        }
    }

    /// Pops completed records, stores the watermark if it moved; returns the halt waiter to resume when the
    /// halting record became the watermark.
    private func advance(_ s: inout State) -> CheckedContinuation<Bool, Never>? {
        while s.head < s.pending.count, s.pending[s.head].done, !s.pending[s.head].halts {
            s.head += 1
        }
        if s.head == s.pending.count {
            s.pending.removeAll(keepingCapacity: true)
            s.head = 0
        } else if s.head > 1024, s.head * 2 > s.pending.count {
            s.pending.removeFirst(s.head)
            s.head = 0
        }
        let front = s.head < s.pending.count ? s.pending[s.head] : nil
        guard let watermark = front?.offset ?? s.processedThrough else { return nil }
        if watermark > s.stored {
            do {
                try consumer.storeOffset(partition, nextOffset: watermark)
                s.stored = watermark
            } catch {
                // The partition was revoked meanwhile (`storeOffset` refuses an unassigned one): its new owner
                // reads these records again (at-least-once).
            }
        }
        if s.backPressured, s.haltAt == nil, s.pendingCount <= s.limits.records / 2, s.pendingBytes <= s.limits.bytes / 2 {
            s.backPressured = false
            do {
                try consumer.resume([partition])
            } catch {
                // Revoked meanwhile: nothing to resume.
            }
        }
        if let front, front.halts, front.done, !s.haltReached {
            s.haltReached = true
            defer { s.haltWaiter = nil }
            return s.haltWaiter
        }
        return nil
    }
}
