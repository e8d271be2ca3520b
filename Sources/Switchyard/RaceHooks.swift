import SwitchyardKafka
import Synchronization

/// Points where a test holds the worker, to put two of its steps that race in a chosen order. Nothing is set
/// outside tests: each point then costs one atomic load.
final class RaceHooks: Sendable {
    enum Point: Hashable, Sendable {
        /// The record loop handed over one run of a partition's records (the next run of the batch waits).
        case afterRun
        /// A release matched its halt and is about to move the partition past the record.
        case beforeReleaseApplies
    }

    private let armed = Atomic<Bool>(false)
    private let bodies = Mutex<[Point: @Sendable (KafkaTopicPartition) async -> Void]>([:])

    /// Runs `body` at `point`, with the partition it concerns, until replaced.
    func set(_ point: Point, _ body: @escaping @Sendable (KafkaTopicPartition) async -> Void) {
        bodies.withLock { $0[point] = body }
        armed.store(true, ordering: .releasing)
    }

    /// Whether any point was set: the record loop asks this before it calls ``run(_:_:)`` once per run, so an
    /// unset hook costs no call.
    var isArmed: Bool { armed.load(ordering: .acquiring) }

    func run(_ point: Point, _ partition: KafkaTopicPartition) async {
        guard isArmed, let body = bodies.withLock({ $0[point] }) else { return }
        await body(partition)
    }
}
