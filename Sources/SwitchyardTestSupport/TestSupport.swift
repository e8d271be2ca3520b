/// Helpers shared by the test targets: bounded waits, unique names.
import Foundation
import Synchronization
import SwitchyardKafka

/// A test failure with a message (timeouts, missing tools).
public struct TestFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Runs `body`, failing with a clear message when it takes longer than `limit`.
///
/// On timeout `body` is cancelled and abandoned: the caller never waits for it, so a body that ignores
/// cancellation cannot hang the test.
public func withDeadline<T: Sendable>(
    _ limit: Duration,
    _ what: String,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let outcome = Locked<Bool>(false)
    let timer = Locked<Task<Void, Never>?>(nil)
    return try await withCheckedThrowingContinuation { continuation in
        let work = Task {
            let result = await Result(catching: body)
            if outcome.withLock({ done in defer { done = true }; return !done }) {
                timer.withLock { $0?.cancel() }
                continuation.resume(with: result)
            }
        }
        timer.withLock { timer in
            timer = Task {
                try? await Task.sleep(for: limit)
                guard !Task.isCancelled else { return }
                if outcome.withLock({ done in defer { done = true }; return !done }) {
                    work.cancel()
                    continuation.resume(throwing: TestFailure("timed out after \(limit): \(what)"))
                }
            }
        }
    }
}

extension Result where Failure == any Error {
    public init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// Polls `condition` every 50 ms until it holds, failing after `limit`.
public func eventually(
    _ limit: Duration,
    _ what: String,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(50))
    }
    if try await condition() { return }
    throw TestFailure("timed out after \(limit) waiting for: \(what)")
}

/// Reads exactly `count` records (storing each offset when `store` is true).
public func take(
    _ count: Int,
    from consumer: KafkaConsumer,
    store: Bool = true,
    within limit: Duration = .seconds(60)
) async throws -> [KafkaRecord] {
    try await withDeadline(limit, "reading \(count) records") {
        var records: [KafkaRecord] = []
        for try await record in consumer.records {
            if store { try consumer.storeOffset(record) }
            records.append(record)
            if records.count == count { break }
        }
        return records
    }
}

/// A unique name per test run, so tests never see each other's groups or topics.
public func unique(_ prefix: String) -> String {
    "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
}

/// A value shared between tasks in a test.
public final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    public init(_ value: Value) { mutex = Mutex(value) }
    public func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}

/// `topic.metadata.refresh.interval.ms` for clients of the embedded broker in tests: frequent (a topic or a leader
/// that changes is seen within about a second), and not a multiple of a second. The embedded broker's group timers
/// are whole seconds (a join completes 3 s or `session.timeout.ms` − 1 s after it starts), and librdkafka 2.0.2
/// makes a group leader join again when a periodic metadata response lands while it waits for its assignor's
/// metadata; a refresh in step with those timers lands there on every join, and the group takes 5 s more each
/// time until the phases drift apart (a minute, at times).
public let metadataRefreshMilliseconds = "1300"

/// librdkafka settings that make a worker's consumer group settle in seconds on the embedded broker: fast
/// heartbeats, a member that dies is noticed within 6 s, commits every half second, and metadata refreshed out of
/// step with the broker's group timers (``metadataRefreshMilliseconds``).
public let embeddedBrokerKafka: [String: String] = [
    "heartbeat.interval.ms": "500", "session.timeout.ms": "6000", "auto.commit.interval.ms": "500",
    "topic.metadata.refresh.interval.ms": metadataRefreshMilliseconds, "reconnect.backoff.max.ms": "1000",
]
