import Synchronization

/// Runs `body` in its own task and waits for it until `deadline()` (read every 50 ms; nil means no deadline
/// yet) has passed. Returns nil when the deadline came first: the task is then cancelled and left to finish on
/// its own, and its result is dropped. Cancelling the caller cancels `body` too.
///
/// Used where the worker must not wait for an operation that may not end in time: a librdkafka send waits
/// for its delivery report up to `message.timeout.ms` (300 s by default), whatever the shutdown timeout is.
func race<T: Sendable>(
    until deadline: @escaping @Sendable () -> ContinuousClock.Instant?,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T? {
    let gate = RaceGate<T>()
    let work = Task { gate.finish(await Result { try await body() }.map { Optional($0) }) }
    let watchdog = Task {
        while !Task.isCancelled {
            if let deadline = deadline(), ContinuousClock.now >= deadline {
                gate.finish(.success(nil))
                work.cancel()
                return
            }
            do { try await Task.sleep(for: .milliseconds(50)) } catch { return }
        }
    }
    defer { watchdog.cancel() }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in gate.wait(continuation) }
    } onCancel: {
        work.cancel()
    }
}

/// ``race(until:_:)`` with a fixed deadline and a body that does not throw.
func raceDeadline(_ deadline: ContinuousClock.Instant, _ body: @escaping @Sendable () async -> Void) async -> Void? {
    do {
        return try await race(until: { deadline }) { await body() }
    } catch {
        return nil
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
