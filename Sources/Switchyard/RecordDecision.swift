/// What the worker does with one record: a pure function of its decode outcome, its topic's policy and the
/// partition's halt and release state. ``RecordLoop`` carries the action out; this file decides it, so the
/// whole table is tested without a broker (`RecordDecisionTests`).
public enum RecordAction: Sendable, Hashable, CaseIterable {
    /// Decoded, or an unknown type on a lenient topic: run its handler (if any), then complete.
    case handOn
    /// As ``handOn``, then republish to the topic's `republishTo`; complete once the broker acknowledged it.
    case handOnThenRepublish
    /// A null value: counted, completed, not a failure (PRODUCT.md rule 7).
    case skipTombstone
    /// A failure on a topic that dead-letters and goes on: complete once the dead letter is acknowledged.
    case deadLetter
    /// A failure on a halting topic: dead-letter it, and once that (and every record before it) is durable,
    /// halt the partition at it; nothing after it on the partition is processed.
    case deadLetterThenHalt
    /// A failure on a halting topic that this process dead-lettered already (read again after a rebalance or a
    /// restart of the lane): halt again at it without a second dead letter.
    case halt
    /// A failure that this process dead-lettered, with an operator's release of exactly this record already
    /// read: skip it (complete) without halting. A release never replaces the dead letter.
    case skipReleased
    /// The partition is halted (or halting) at an earlier record: neither processed nor stored; it is read
    /// again after the release's seek.
    case hold
}

/// The facts ``RecordAction/decide(_:)`` looks at.
public struct RecordFacts: Sendable, Hashable {
    /// What the decoder made of the record (the catalog's policy already applied: an unknown type on a strict
    /// topic is a failure).
    public enum Outcome: Sendable, Hashable, CaseIterable {
        case decoded, unknown, failed, tombstone
    }

    public var outcome: Outcome
    /// What a failure does on this topic.
    public var onFailure: TopicConfiguration.OnFailure
    /// Whether the topic republishes decoded and unknown events.
    public var republishes: Bool
    /// Whether the partition is halted or halting at an earlier record.
    public var partitionHalted: Bool
    /// Whether this process already dead-lettered this very record (topic, partition, offset).
    public var deadLettered: Bool
    /// Whether an operator's release of this very record was read and not yet applied.
    public var releasePending: Bool

    public init(
        outcome: Outcome, onFailure: TopicConfiguration.OnFailure, republishes: Bool, partitionHalted: Bool = false,
        deadLettered: Bool = false, releasePending: Bool = false
    ) {
        self.outcome = outcome
        self.onFailure = onFailure
        self.republishes = republishes
        self.partitionHalted = partitionHalted
        self.deadLettered = deadLettered
        self.releasePending = releasePending
    }
}

extension RecordAction {
    /// The action for a record with these facts.
    public static func decide(_ facts: RecordFacts) -> RecordAction {
        if facts.partitionHalted { return .hold }
        switch facts.outcome {
        case .tombstone:
            return .skipTombstone
        case .decoded, .unknown:
            return facts.republishes ? .handOnThenRepublish : .handOn
        case .failed:
            switch facts.onFailure {
            case .deadLetter:
                return .deadLetter
            case .halt:
                // A release applies only to a record whose dead letter this process saw acknowledged.
                guard facts.deadLettered else { return .deadLetterThenHalt }
                return facts.releasePending ? .skipReleased : .halt
            }
        }
    }
}

extension RecordFacts.Outcome {
    /// The outcome's kind, without its payload.
    init(_ outcome: RecordOutcome) {
        switch outcome {
        case .decoded: self = .decoded
        case .unknown: self = .unknown
        case .failed: self = .failed
        case .tombstone: self = .tombstone
        }
    }
}
