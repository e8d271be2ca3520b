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
        var done: Bool
        var halts: Bool
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

    /// Hands over the records of one run: `pending` (in offset order, all below `processedThrough`) wait for
    /// their outcome; every other record below `processedThrough` is complete. `haltAt`: the run stopped at a
    /// halting record, registered pending (`haltDone`: its dead letter is already durable).
    func handOver(pending: [Int64], processedThrough: Int64, haltAt: Int64? = nil, haltDone: Bool = false) {
        let waiter = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            guard s.open else { return nil }
            for offset in pending { s.pending.append(Entry(offset: offset, done: false, halts: false)) }
            if let haltAt {
                s.pending.append(Entry(offset: haltAt, done: haltDone, halts: true))
                s.haltAt = haltAt
                s.haltReached = false
            }
            s.processedThrough = processedThrough
            return advance(&s)
        }
        waiter?.resume(returning: true)
    }

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
            guard low < s.pending.count, s.pending[low].offset == offset else { return nil }
            s.pending[low].done = true
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
    /// False when the partition is not halted at `offset`.
    @discardableResult
    func release(at offset: Int64) -> Bool {
        state.withLock { s in
            guard s.open, s.haltAt == offset else { return false }
            s.haltAt = nil
            s.haltReached = false
            s.pending.removeAll()
            s.head = 0
            s.processedThrough = offset + 1
            s.stored = max(s.stored, offset + 1)
            return true
        }
    }

    /// The partition was revoked: nothing more is stored, a halt waiter gets false.
    func close() {
        let waiter = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            s.open = false
            defer { s.haltWaiter = nil }
            return s.haltWaiter
        }
        waiter?.resume(returning: false)
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
        if let front, front.halts, front.done, !s.haltReached {
            s.haltReached = true
            defer { s.haltWaiter = nil }
            return s.haltWaiter
        }
        return nil
    }
}
