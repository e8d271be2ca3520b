/// How a topic's handler errors are retried, and what happens to the record when retries run out.
///
/// An attempt that throws a retryable error (``HandlerErrors/isRetryable(_:)``) is tried again after a
/// backoff that starts at ``initialBackoff`` and doubles up to ``maxBackoff``, until ``attempts`` attempts
/// have failed; a permanent error ends the retries at once. Then the record is dead-lettered
/// (``Exhausted/deadLetter``: consumption goes on) or dead-lettered and its partition halted at it
/// (``Exhausted/halt``: as a strict topic's decode failure, released by an operator). While a record is being
/// retried, `/status` lists it under `retrying`, `switchyard_partition_retrying{topic,partition}` is 1, and
/// `/readyz` answers 503 once it has been retrying for ``stuckAfter``.
///
/// In the configuration file, per topic:
/// `"retry": {"attempts": 10, "initialBackoffMilliseconds": 100, "maxBackoffMilliseconds": 5000, "onExhausted": "deadLetter"}`.
public struct RetryPolicy: Sendable, Hashable {
    /// What happens to a record whose handler failed every attempt (or failed permanently).
    public enum Exhausted: String, Sendable, CaseIterable {
        /// Dead-letter it and go on with the partition.
        case deadLetter
        /// Dead-letter it, then halt the partition at it until an operator releases it.
        case halt
    }

    /// Attempts in all, the first included (at least 1). Default: 10 (about 20 s of retries with the default
    /// backoff).
    public var attempts: Int
    /// The wait before the first retry. Default: 100 ms.
    public var initialBackoff: Duration
    /// The longest wait between two attempts. Default: 5 s.
    public var maxBackoff: Duration
    /// What happens when the attempts are used up. Default (nil): the topic's `onFailure`, so a strict
    /// topic halts and a lenient one dead-letters.
    public var onExhausted: Exhausted?

    /// How long a record may be retried before `/readyz` reports the worker not ready.
    public static let stuckAfter = Duration.seconds(10)

    /// A policy; the defaults are the configuration file's.
    public init(
        attempts: Int = 10, initialBackoff: Duration = .milliseconds(100), maxBackoff: Duration = .seconds(5),
        onExhausted: Exhausted? = nil
    ) {
        self.attempts = attempts
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.onExhausted = onExhausted
    }

    /// The wait after failed attempt number `attempt` (1-based).
    public func backoff(after attempt: Int) -> Duration {
        var delay = initialBackoff
        for _ in 1..<max(attempt, 1) {
            delay *= 2
            if delay >= maxBackoff { return maxBackoff }
        }
        return min(delay, maxBackoff)
    }

    /// Refuses a policy that cannot work: no attempt, a negative backoff, a maximum below the initial wait.
    func validate(path: String) throws(ConfigurationError) {
        guard attempts >= 1 else { throw ConfigurationError(path: "\(path).attempts", reason: "must be at least 1 (the first attempt)") }
        guard initialBackoff >= .zero else { throw ConfigurationError(path: "\(path).initialBackoffMilliseconds", reason: "must not be negative") }
        guard maxBackoff >= initialBackoff else {
            throw ConfigurationError(path: "\(path).maxBackoffMilliseconds", reason: "must be at least the initial backoff")
        }
    }
}

extension TopicConfiguration {
    /// What a record whose handler's retries ran out does: the retry policy's choice, else the topic's
    /// ``onFailure``.
    var exhaustedAction: RetryPolicy.Exhausted {
        if let choice = retry.onExhausted { return choice }
        switch onFailure {
        case .halt: return .halt
        case .deadLetter: return .deadLetter
        }
    }
}
