import Dispatch
import Synchronization

/// When the poll thread wakes librdkafka's fetchers (``RDKafkaClient/wakeFetchers(_:timeoutMilliseconds:)``): once
/// the consumer queue, after coming within half of a prefetch limit, has drained to a quarter of both.
///
/// librdkafka 2.0 stops fetching while the queue is at a limit and decides again only when its broker thread next
/// wakes, up to a second later; a consumer catching up on a backlog drains the queue long before that. A quarter
/// of the limit is still queued when the wake goes out, so the next fetch lands before the queue runs dry. The
/// byte count is estimated from the values polled so far (librdkafka's own count is not public).
struct PrefetchWatch {
    /// `queued.min.messages`.
    let maxRecords: Int
    /// `queued.max.messages.kbytes` in bytes.
    let maxBytes: Int
    /// Whether the queue came within half of a limit since the last wake.
    private(set) var isArmed = false
    private var polledRecords = 0
    private var polledBytes = 0

    init(maxRecords: Int, maxBytes: Int) {
        self.maxRecords = max(maxRecords, 1)
        self.maxBytes = max(maxBytes, 1)
    }

    /// Counts a polled batch towards the average record size.
    mutating func observe(records: Int, bytes: Int) {
        // Halved once large, so the average follows the records of the moment without overflowing.
        if polledRecords > 1 << 20 {
            polledRecords /= 2
            polledBytes /= 2
        }
        polledRecords += records
        polledBytes += bytes
    }

    /// The queue's estimated size in bytes: `queued` records of the average size polled so far.
    func estimatedBytes(queued: Int) -> Int {
        polledRecords == 0 ? 0 : queued * (polledBytes / polledRecords)
    }

    /// Whether to wake the fetchers now, with `queued` records in the consumer queue.
    mutating func shouldWake(queued: Int) -> Bool {
        let bytes = estimatedBytes(queued: queued)
        if queued * 2 >= maxRecords || bytes * 2 >= maxBytes {
            isArmed = true
            return false
        }
        guard isArmed, queued * 4 <= maxRecords, bytes * 4 <= maxBytes else { return false }
        isArmed = false
        return true
    }
}

/// Sends ``RDKafkaClient/wakeFetchers(_:timeoutMilliseconds:)`` for the assigned partitions on a thread of its
/// own, so that the poll thread never waits for the answers. Wakes asked for while one is under way fold into the
/// next one.
final class FetchWaker: Sendable {
    private let pending = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)
    private let signal = DispatchSemaphore(value: 0)

    /// `assignment` gives the partitions to wake the leaders of.
    init(client: RDKafkaClient, logger: any KafkaLogger, assignment: @escaping @Sendable () -> [KafkaTopicPartition]) {
        // The thread keeps the waker until stop().
        startDedicatedThread(name: "kafka-fetch-wake") { [self] in
            while true {
                signal.wait()
                if stopping.load(ordering: .acquiring) { return }
                pending.store(false, ordering: .releasing)
                do {
                    try client.wakeFetchers(assignment(), timeoutMilliseconds: 1_000)
                } catch {
                    // Nothing is lost: librdkafka decides again on its own within a second.
                    logger.log(level: .debug, message: "\(error)", metadata: ["kafka.client": client.name])
                }
            }
        }
    }

    /// Asks for a wake; returns at once.
    func wake() {
        if !pending.exchange(true, ordering: .acquiringAndReleasing) {
            signal.signal()
        }
    }

    /// Ends the thread (after the wake under way, if any).
    func stop() {
        stopping.store(true, ordering: .releasing)
        signal.signal()
    }
}
