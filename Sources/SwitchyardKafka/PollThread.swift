import Dispatch
import Foundation
import Synchronization

/// Starts a dedicated OS thread for blocking librdkafka polls (never the cooperative pool).
func startDedicatedThread(name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread(block: body)
    thread.name = name
    thread.start()
}

/// Runs a blocking call on a Dispatch worker thread, off the cooperative pool, and awaits its result.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try body() })
        }
    }
}

/// Runs a blocking call on a Dispatch worker thread, off the cooperative pool, and awaits its result.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(returning: body())
        }
    }
}

/// Tells a poll thread to stop and lets others wait until it has.
final class PollThreadSignal: Sendable {
    private let stopRequested = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let finishedFlag = Atomic<Bool>(false)

    var isStopRequested: Bool { stopRequested.load(ordering: .acquiring) }
    var isFinished: Bool { finishedFlag.load(ordering: .acquiring) }

    func requestStop() {
        stopRequested.store(true, ordering: .releasing)
    }

    /// Called once by the poll thread as its last action.
    func markFinished() {
        finishedFlag.store(true, ordering: .releasing)
        finished.signal()
    }

    /// Blocks until the poll thread finished (call it off the cooperative pool). Safe to call more than once.
    func waitFinished() {
        finished.wait()
        // Let the next waiter through too.
        finished.signal()
    }
}
