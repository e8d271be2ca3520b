import Foundation
import SwitchyardKafka

/// A partition held because a topic it writes to cannot be written: its dead-letter or republish topic (or a
/// handler's publication target) is missing, or this principal may not write it. Its sends hold (the first one
/// retried alone, every few seconds), nothing after the first waiting record is stored, and the partition goes
/// on by itself once a send to the topic is acknowledged.
public struct TargetUnavailable: Sendable {
    /// The first record of the partition whose send waits.
    public var offset: Int64
    /// The topic that cannot be written.
    public var target: String
    /// Where the configuration names it (`topics.feeds.deadLetterTopic`), or `handler publication`.
    public var configurationKey: String
    /// The last error (e.g. `… [TOPIC_AUTHORIZATION_FAILED]`).
    public var error: String
    /// When the first send failed.
    public var since: Timestamp
    /// Failed sends to the topic since then.
    public var failures: Int
    /// When a line was last logged about it (one every ``Worker/targetUnavailableLogInterval``).
    var loggedAt: ContinuousClock.Instant
}

/// A topic the worker writes to, and where its configuration names it.
struct TargetTopic: Sendable, Hashable {
    /// `dead-letter topic` or `republish topic`.
    var role: String
    var name: String
    /// `topics.feeds.deadLetterTopic`, `topics.feeds.republishTo`.
    var configurationKey: String
}

extension WorkerConfiguration {
    /// Every dead-letter and republish topic, in topic order.
    var targetTopics: [TargetTopic] {
        topicNames.flatMap { name -> [TargetTopic] in
            let topic = topics[name]!
            var targets = [TargetTopic(role: "dead-letter topic", name: topic.deadLetterTopic, configurationKey: "topics.\(name).deadLetterTopic")]
            if let republish = topic.republishTo {
                targets.append(TargetTopic(role: "republish topic", name: republish, configurationKey: "topics.\(name).republishTo"))
            }
            return targets
        }
    }
}

extension Worker {
    /// How often a partition whose target stays unavailable logs it again.
    static let targetUnavailableLogInterval = Duration.seconds(30)

    /// Broker errors saying a topic cannot be written at all (deleted, never created, or an ACL): no retry
    /// fixes them until someone acts, so the partition halts visibly instead of logging every retry.
    static let targetUnavailableErrors: Set<String> = [
        "TOPIC_AUTHORIZATION_FAILED", "UNKNOWN_TOPIC_OR_PART", "_UNKNOWN_TOPIC", "_UNKNOWN_PARTITION",
    ]

    static func isTargetUnavailable(_ error: any Error) -> Bool {
        guard let name = (error as? KafkaError)?.rdKafkaName else { return false }
        return targetUnavailableErrors.contains(name)
    }

    /// Checks, in the cluster's metadata (every topic: asking for one by name may create it), that every
    /// dead-letter and republish topic exists and carries no error.
    ///
    /// - Throws: ``WorkerError`` `.configuration` naming each topic that cannot be used and its configuration key.
    func checkTargetTopics(in metadata: KafkaClusterMetadata) throws(WorkerError) {
        let known = Dictionary(metadata.topics.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var problems: [String] = []
        var seen: Set<String> = []
        for target in configuration.targetTopics where seen.insert(target.configurationKey).inserted {
            guard let topic = known[target.name] else {
                problems.append(
                    "\(target.role) '\(target.name)' (\(target.configurationKey)) does not exist, or this principal may not describe it: "
                        + "create it, or grant the worker Describe and Write on it")
                continue
            }
            if let error = topic.errorName {
                problems.append(
                    "\(target.role) '\(target.name)' (\(target.configurationKey)) cannot be used: \(error) "
                        + "(the worker needs Describe and Write on it)")
            }
        }
        guard problems.isEmpty else { throw WorkerError.configuration(problems.joined(separator: "; ")) }
    }

    /// A send of `partition`'s record at `offset` to `target` failed because the topic cannot be written: the
    /// partition is halted visibly (`/status`, the halted gauge, `/readyz`); a line is logged when it begins and
    /// then at most every ``targetUnavailableLogInterval``.
    func targetUnavailable(
        _ partition: KafkaTopicPartition, offset: Int64, target: String, configurationKey: String, error: any Error,
        position: [String: String]
    ) {
        let now = ContinuousClock.now
        let (log, entry) = state.withLock { s -> (String?, TargetUnavailable) in
            if var held = s.targetUnavailable[partition], held.target == target {
                held.failures += 1
                held.offset = min(held.offset, offset)
                held.error = "\(error)"
                var log: String?
                if held.loggedAt.duration(to: now) >= Self.targetUnavailableLogInterval {
                    held.loggedAt = now
                    log = "target topic still unavailable; partition halted"
                }
                s.targetUnavailable[partition] = held
                return (log, held)
            }
            let held = TargetUnavailable(
                offset: offset, target: target, configurationKey: configurationKey, error: "\(error)", since: Timestamp(Date()), failures: 1,
                loggedAt: now)
            if s.targetUnavailable.updateValue(held, forKey: partition) == nil { targetsUnavailable.add(1, ordering: .relaxed) }
            setHaltedGauge(partition, in: s)
            return ("target topic unavailable; partition halted", held)
        }
        guard let log else { return }
        noteError(log, position.merging([
            "target.topic": target, "config.key": configurationKey, "error": entry.error, "failures": String(entry.failures),
            "since": entry.since.text,
            "fix": "create the topic, or grant the worker Write (and Describe) on it; the partition goes on by itself",
        ]) { a, _ in a })
    }

    /// A send of `partition` to `target` was acknowledged: a halt for that target ends.
    func targetWritten(_ partition: KafkaTopicPartition, target: String) {
        guard targetsUnavailable.load(ordering: .relaxed) > 0 else { return }
        let ended = state.withLock { s -> TargetUnavailable? in
            guard let held = s.targetUnavailable[partition], held.target == target else { return nil }
            s.targetUnavailable[partition] = nil
            targetsUnavailable.subtract(1, ordering: .relaxed)
            setHaltedGauge(partition, in: s)
            return held
        }
        guard let ended else { return }
        logger.notice("target topic writable again; partition resumed", [
            "kafka.topic": partition.topic, "kafka.partition": String(partition.partition), "target.topic": ended.target,
            "failures": String(ended.failures), "since": ended.since.text,
        ])
    }

    /// Sets `partition`'s halted gauge from `status` (call it under the `state` lock, so that a revocation in
    /// between cannot leave 1 for a partition no longer owned): 1 while it is halted at a record or held by
    /// a target topic that cannot be written.
    func setHaltedGauge(_ partition: KafkaTopicPartition, in status: WorkerStatus) {
        let halted = status.halted[partition] != nil || status.targetUnavailable[partition] != nil
        metrics.halted.labels(partition.topic, String(partition.partition)).set(halted ? 1 : 0)
    }
}
