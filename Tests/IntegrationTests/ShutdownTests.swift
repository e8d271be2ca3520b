import Foundation
@testable import Switchyard
import SwitchyardCatalog
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// How the worker's run ends when something other than `stop()` ends its loop.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ShutdownTests {
    @Test func aFatalConsumerErrorBoundsTheShutdownAndCancelsHandlersStillRunning() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1])
        try await harness.produce("feeds", partition: 0, value: try Harness.fixture("post-liked-v2.json"))
        let started = Locked(false)
        let cancelled = Locked(false)
        var handlers = EventHandlers()
        handlers.on(PostLiked.self) { _, _ in
            started.withLock { $0 = true }
            do {
                try await Task.sleep(for: .seconds(60))
            } catch {
                cancelled.withLock { $0 = true }
                throw error
            }
        }
        var configuration = harness.configuration(["feeds": TopicConfiguration(catalog: .feeds, deadLetterTopic: "feeds.dlq")])
        configuration.shutdownTimeout = .seconds(3)
        let worker = try RunningWorker(configuration, handlers: handlers)
        try await eventually(.seconds(30), "the handler running") { started.withLock { $0 } }
        let consumer = try #require(worker.worker.stopSignal.withLock { $0.consumer })
        let start = ContinuousClock.now
        consumer.raiseFatalErrorForTesting(reason: "fenced by a test")
        let task = worker.task
        let ended: Result<Void, any Error> = await Result(catching: {
            try await withDeadline(.seconds(20), "run() after a fatal error") { try await task.value }
        })
        let took = ContinuousClock.now - start
        guard case .failure(let error) = ended, let workerError = error as? WorkerError else {
            Issue.record("run() did not throw a WorkerError: \(ended)")
            return
        }
        #expect(workerError.code == .fatal, "\(workerError)")
        #expect(took < .seconds(8), "shutdownTimeoutSeconds 3, took \(took)")
        #expect(cancelled.withLock { $0 }, "the handler still running is cancelled at the deadline for work in flight")
        #expect(worker.logs.entries.contains { $0.message == "handler abandoned at shutdown; the record will be read again" })
        let tp = KafkaTopicPartition(topic: "feeds", partition: 0)
        #expect((try await harness.committed([tp])[tp] ?? 0) == 0, "the record whose handler was cancelled is not committed")
    }
}
