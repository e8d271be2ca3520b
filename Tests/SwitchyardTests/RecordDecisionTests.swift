import Switchyard
import Testing

/// Every combination of the facts `RecordAction.decide` looks at (4 outcomes × 2 failure modes × republish ×
/// halted × dead-lettered × release pending = 128), against the table PRODUCT.md's policies give.
@Suite struct RecordDecisionTests {
    static let all: [RecordFacts] = RecordFacts.Outcome.allCases.flatMap { outcome in
        TopicConfiguration.OnFailure.allCases.flatMap { onFailure in
            [false, true].flatMap { republishes in
                [false, true].flatMap { halted in
                    [false, true].flatMap { deadLettered in
                        [false, true].map { releasePending in
                            RecordFacts(
                                outcome: outcome, onFailure: onFailure, republishes: republishes, partitionHalted: halted,
                                deadLettered: deadLettered, releasePending: releasePending)
                        }
                    }
                }
            }
        }
    }

    @Test func theTableCoversEveryCombination() {
        #expect(Self.all.count == 128)
        #expect(Set(Self.all).count == 128)
    }

    @Test(arguments: all)
    func decision(_ facts: RecordFacts) {
        let action = RecordAction.decide(facts)
        // A halted partition holds every record: nothing after the halted one is processed or stored.
        if facts.partitionHalted {
            #expect(action == .hold)
            return
        }
        switch facts.outcome {
        case .tombstone:
            // Rule 7: counted and skipped, never a failure, never republished.
            #expect(action == .skipTombstone)
        case .decoded, .unknown:
            // Handed on; republished only where the topic republishes. Halt and release state do not matter.
            #expect(action == (facts.republishes ? .handOnThenRepublish : .handOn))
        case .failed where facts.onFailure == .deadLetter:
            // Lenient: dead-lettered, consumption goes on, whatever any release says.
            #expect(action == .deadLetter)
        case .failed:
            if !facts.deadLettered {
                // Never skipped before its dead letter is acknowledged, even with a release waiting.
                #expect(action == .deadLetterThenHalt)
            } else if facts.releasePending {
                #expect(action == .skipReleased)
            } else {
                // Read again after a rebalance: halts again, no second dead letter.
                #expect(action == .halt)
            }
        }
    }

    @Test func everyActionIsReachable() {
        let reached = Set(Self.all.map(RecordAction.decide))
        #expect(reached == Set(RecordAction.allCases))
    }

    @Test func republishingNeverChangesWhatHappensToAFailure() {
        for facts in Self.all where facts.outcome == .failed {
            var other = facts
            other.republishes.toggle()
            #expect(RecordAction.decide(facts) == RecordAction.decide(other))
        }
    }
}
