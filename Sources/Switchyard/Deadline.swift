import Synchronization

/// Runs `body` in its own task and waits for it until `watch`'s deadline has passed. Returns nil when the
/// deadline came first: the task is then cancelled and left to finish on its own, and its result is dropped.
/// Cancelling the caller cancels `body` too.
///
/// Used where the worker must not wait for an operation that may not end in time: a shutdown step (the final
/// commit, closing the consumer and the producer) that librdkafka may hold far longer than the shutdown timeout
/// (a send waits up to `message.timeout.ms`, 300 s by default).
func race<T: Sendable>(_ watch: DeadlineWatch, _ body: @escaping @Sendable () async throws -> T) async throws -> T? {
    let gate = RaceGate<T>()
    let work = Task { gate.finish(await Result { try await body() }.map { Optional($0) }) }
    let expire: @Sendable () -> Void = {
        gate.finish(.success(nil))
        work.cancel()
    }
    let token = watch.register(expire)
    defer { if let token { watch.unregister(token) } }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in gate.wait(continuation) }
    } onCancel: {
        work.cancel()
    }
}

/// ``race(_:_:)`` with a fixed deadline (on a watch of its own, `watch` for a test) and a body that does not throw.
func raceDeadline(
    _ deadline: ContinuousClock.Instant, watch: DeadlineWatch = DeadlineWatch(), _ body: @escaping @Sendable () async -> Void
) async -> Void? {
    watch.arm(at: deadline)
    // The race may end long before the deadline; the watch's task must not sleep on until it.
    defer { watch.stop() }
    do {
        return try await race(watch) { await body() }
    } catch {
        return nil
    }
}

/// A deadline that any number of ``race(_:_:)`` calls wait against. Nothing watches the clock until the deadline
/// is set (``arm(at:)``); then one task sleeps until it and ends every race still waiting.
///
/// The worker's handler lanes wait against its shutdown deadline for work in flight, which is unknown until a
/// stop is requested (``Worker/abandonWatch``). One watch serves every call: a race of its own per handler call
/// (a watchdog task reading the deadline every 50 ms, a task, a timer and their wake-ups per record) costs over a
/// third of the worker's CPU with a 1 ms handler.
final class DeadlineWatch: Sendable {
    private struct State {
        var deadline: ContinuousClock.Instant?
        var passed = false
        /// The task that waits for the deadline, while it runs.
        var sleeper: Task<Void, Never>?
        var nextToken = 0
        var waiting: [Int: @Sendable () -> Void] = [:]
    }

    private let state = Mutex(State())

    init() {}

    /// Sets the deadline and starts the task that waits for it. The first call wins; later ones change nothing.
    func arm(at deadline: ContinuousClock.Instant) {
        state.withLock { state in
            guard state.deadline == nil, !state.passed else { return }
            state.deadline = deadline
            // Kept under the lock, so that a stop() that comes before the task has started still finds it, and
            // the task's own clearing of it (under the lock too) comes after.
            state.sleeper = Task { [self] in
                do {
                    try await Task.sleep(until: deadline, clock: .continuous)
                } catch {
                    // Cancelled by stop(): the deadline counts as passed from now on.
                }
                expire()
                self.state.withLock { $0.sleeper = nil }
            }
        }
    }

    /// Ends the watch now, as if the deadline had passed: its task stops sleeping, what is registered expires
    /// and what registers later expires at once. For a watch whose races are all over (``raceDeadline``).
    func stop() {
        if let sleeper = state.withLock({ $0.sleeper }) { sleeper.cancel() } else { expire() }
    }

    /// Whether a task is waiting for the deadline.
    var isWatching: Bool { state.withLock { $0.sleeper != nil } }

    /// The deadline, once armed.
    var deadline: ContinuousClock.Instant? { state.withLock { $0.deadline } }

    /// Registers `expire`, called once when the deadline passes; when it has passed already, `expire` is called
    /// at once and nothing is registered (nil). Pass the token to ``unregister(_:)`` once the race is over.
    func register(_ expire: @escaping @Sendable () -> Void) -> Int? {
        let token = state.withLock { state -> Int? in
            guard !state.passed else { return nil }
            state.nextToken &+= 1
            state.waiting[state.nextToken] = expire
            return state.nextToken
        }
        if token == nil { expire() }
        return token
    }

    func unregister(_ token: Int) {
        _ = state.withLock { $0.waiting.removeValue(forKey: token) }
    }

    private func expire() {
        let expired = state.withLock { state -> [@Sendable () -> Void] in
            state.passed = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for expire in expired { expire() }
    }
}

/// The first of two outcomes wins; the continuation is resumed exactly once.
private final class RaceGate<T: Sendable>: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<T?, any Error>)
        case finished(Result<T?, any Error>)
        case done
    }

    private let state = Mutex<State>(.empty)

    func wait(_ continuation: CheckedContinuation<T?, any Error>) {
        let result: Result<T?, any Error>? = state.withLock { state in
            switch state {
            case .finished(let result):
                state = .done
                return result
            default:
                state = .waiting(continuation)
                return nil
            }
        }
        if let result { continuation.resume(with: result) }
    }

    func finish(_ result: Result<T?, any Error>) {
        let continuation: CheckedContinuation<T?, any Error>? = state.withLock { state in
            switch state {
            case .empty:
                state = .finished(result)
                return nil
            case .waiting(let continuation):
                state = .done
                return continuation
            case .finished, .done:
                return nil
            }
        }
        continuation?.resume(with: result)
    }
}

extension Result where Failure == any Error {
    init(_ body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
