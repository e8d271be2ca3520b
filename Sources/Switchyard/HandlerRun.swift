import Foundation
import SwitchyardKafka
import Synchronization

// MARK: - One handler call, its retries and its outcome

extension Effects {
    /// Runs `handler` for `item` in the calling handler lane: retries it per the topic's ``RetryPolicy``, then
    /// carries out its outcome without waiting for the broker: the records it published (and the topic's
    /// republish) are sent and complete the offset once all are acknowledged; a dead letter goes through the
    /// worker's dead-letter path; exhausted retries dead-letter the record, or dead-letter it and halt the
    /// partition.
    ///
    /// - Returns: false when the record is abandoned (cancelled at the shutdown deadline, or the next attempt
    ///   would start past it): its offset is not stored and it is read again by the partition's next owner.
    func runHandler(
        _ handler: @Sendable (RecordContext) async throws -> HandlerOutcome, for item: HandlerItem, topic: TopicRuntime,
        progress: PartitionProgress, sends sequence: SendSequence
    ) async -> Bool {
        let record = item.record
        let location = record.recordLocation
        let policy = topic.configuration.retry
        let group = worker.configuration.groupID
        var attempt = 1
        var retrying = false
        defer { if retrying { worker.noteRetry(location, nil) } }
        while true {
            let publications = Publications()
            let context = RecordContext(record: record, attempt: attempt, group: group, logger: worker.logger, publications: publications)
            let outcome: HandlerOutcome
            do {
                outcome = try await handler(context)
            } catch let rejected as RecordRejected {
                outcome = .deadLetter(kind: rejected.kind, reason: rejected.reason)
            } catch {
                // Cancelled: whoever cancelled wrote the log line (HandlerLane).
                if Task.isCancelled { return false }
                // Revoked: the partition's new owner reads the record again; nothing here is stored.
                guard progress.isOpen else { return true }
                worker.metrics.handlerErrors.labels(location.topic, item.type).increment()
                let retryable = HandlerErrors.isRetryable(error)
                let metadata = location.position.merging(["error": "\(error)", "handler.attempt": String(attempt), "event.type": item.type]) { a, _ in a }
                guard retryable, attempt < policy.attempts else {
                    let why = retryable ? "failed \(attempt) attempt(s)" : "failed permanently"
                    worker.noteError("handler \(why)", metadata)
                    return handlerDeadLetter(
                        item, kind: .handlerFailed, reason: "The handler \(why): \(error)",
                        halts: topic.configuration.exhaustedAction == .halt, topic: topic, progress: progress, sends: sequence)
                }
                worker.noteError("handler failed; retrying", metadata)
                retrying = true
                worker.noteRetry(location, (attempt, "\(error)"))
                let delay = policy.backoff(after: attempt)
                if let abandonAt = worker.abandonWatch.deadline, ContinuousClock.now + delay > abandonAt {
                    logAbandoned("handler", location.position)
                    return false
                }
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    return false  // cancelled: the worker is going away; the offset stays unstored
                }
                attempt += 1
                continue
            }
            switch outcome {
            case .handled:
                var sends = publications.take().map { Send(record: $0, source: location, kind: .publish, topic: topic, readAt: item.readAt) }
                if let republish = item.republish { sends.append(republish) }
                if sends.isEmpty {
                    progress.complete(record.offset)
                    durable(readAt: item.readAt)
                } else {
                    // In the lane's order, also through failed sends (SendSequence).
                    let completion = sends.count > 1 ? CompletionGroup(count: sends.count) : nil
                    for var send in sends {
                        send.group = completion
                        sequence.submit(send)
                    }
                }
            case .skip:
                progress.complete(record.offset)
                durable(readAt: item.readAt)
            case .deadLetter(let kind, let reason):
                return handlerDeadLetter(item, kind: kind, reason: reason, halts: false, topic: topic, progress: progress, sends: sequence)
            }
            return true
        }
    }

    /// Dead-letters `item`'s record for its handler (original key, value and headers, the standard headers
    /// with `kind`), and, when `halts`, halts the partition at it once the dead letter is durable.
    private func handlerDeadLetter(
        _ item: HandlerItem, kind: DeadLetterKind, reason: String, halts: Bool, topic: TopicRuntime, progress: PartitionProgress,
        sends: SendSequence
    ) -> Bool {
        let record = item.record
        let failure = DecodeFailure(kind: .dataCorrupted, path: "", type: item.type.isEmpty ? nil : item.type, message: reason)
        let consumer = worker.stopSignal.withLock { $0.consumer }
        // A partition that already halts (at another record) or was revoked: this record is dead-lettered and
        // the halt stays where it is.
        let halting = halts && consumer != nil && progress.haltForHandler(at: record.offset)
        let dead = Send(
            record: Lane.deadLetter(record, kind: kind.rawValue, failure: failure, topic: topic.configuration, group: worker.configuration.groupID),
            source: record.recordLocation, kind: .handlerDeadLetter(kind: kind.rawValue, failure: failure, halts: halting), topic: topic,
            readAt: item.readAt)
        if halting, let consumer {
            Lane.startHalt(
                record, progress: progress, failure: failure, handlerKind: kind, since: Timestamp(Date()), worker: worker, consumer: consumer)
        }
        sends.submit(dead)
        return true
    }
}

/// The sends of one consumed record: its offset completes when the last is acknowledged.
final class CompletionGroup: Sendable {
    private let remaining: Atomic<Int>

    init(count: Int) {
        remaining = Atomic(count)
    }

    /// One send was acknowledged; true for the last.
    func arrive() -> Bool {
        remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0
    }
}

extension Worker {
    /// Records (`attempt`, `error`) as `location`'s retry state in `/status` and the partition's
    /// `switchyard_partition_retrying` gauge; nil: the record is no longer retried.
    func noteRetry(_ location: RecordLocation, _ retry: (attempt: Int, error: String)?) {
        let count = state.withLock { s -> Int in
            if let retry {
                let first = s.retrying[location]
                s.retrying[location] = RetryInfo(
                    attempt: retry.attempt, since: first?.since ?? .now, sinceTimestamp: first?.sinceTimestamp ?? Timestamp(Date()),
                    error: retry.error)
            } else {
                s.retrying[location] = nil
            }
            return s.retrying.keys.filter { $0.topic == location.topic && $0.partition == location.partition }.count
        }
        metrics.retrying.labels(location.topic, String(location.partition)).set(Double(count))
    }
}
