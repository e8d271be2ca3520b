import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// Starts a dedicated OS thread for blocking librdkafka polls (never the cooperative pool), named `name` as the
/// kernel sees it (`top -H`, `perf`, `/proc/PID/task/*/comm`: at most 15 bytes are kept).
func startDedicatedThread(name: String, _ body: @escaping @Sendable () -> Void) {
    // Set from inside the thread: a name given before the start (Foundation's Thread.name) never reached the
    // kernel, so the poll threads showed up under the name of the pool thread that started them.
    let thread = Thread {
        nameCurrentThread(name)
        body()
    }
    thread.name = name
    thread.start()
}

/// The kernel's name of the calling thread (what pthread_setname_np does, which Swift's Glibc module does not
/// export). Best effort: a name is for observability, so a failure here is not an error.
private func nameCurrentThread(_ name: String) {
    let fd = open("/proc/thread-self/comm", O_WRONLY)
    guard fd >= 0 else { return }
    defer { close(fd) }
    let bytes = Array(name.utf8.prefix(15))
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
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
