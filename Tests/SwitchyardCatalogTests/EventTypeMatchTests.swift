import Testing

import SwitchyardCatalog
@testable import SwitchyardJSON

/// `EventType.matches` compares a tag of up to 16 bytes as two words: it must decide exactly as comparing
/// the bytes does, for every shipped tag (10 to 18 bytes: both ways of comparing are used).
@Suite struct EventTypeMatchTests {
    static func check<C>(_ types: [EventType<C>]) {
        for entry in types {
            let tag = Array(entry.type.utf8)
            tag.withUnsafeBufferPointer { #expect(entry.matches($0), "\(entry.type) must match itself") }
            for position in tag.indices {
                var changed = tag
                changed[position] ^= 0x01
                changed.withUnsafeBufferPointer { #expect(!entry.matches($0), "\(entry.type) with byte \(position) changed") }
            }
            // One byte shorter or longer, from a buffer that holds the whole tag (loads stay inside it).
            (tag + [UInt8(ascii: "\"")]).withUnsafeBufferPointer { all in
                #expect(!entry.matches(UnsafeBufferPointer(rebasing: all[..<(tag.count - 1)])), "\(entry.type) minus its last byte")
                #expect(!entry.matches(all), "\(entry.type) plus a byte")
            }
            for other in types where other.type != entry.type {
                Array(other.type.utf8).withUnsafeBufferPointer { #expect(!entry.matches($0), "\(entry.type) against \(other.type)") }
            }
        }
    }

    @Test func everyShippedTagMatchesOnlyItself() {
        Self.check(PaymentEvent.eventTypes)
        Self.check(FeedEvent.eventTypes)
        #expect(PaymentEvent.eventTypes.contains { $0.type.utf8.count > 16 }, "a tag over 16 bytes keeps the memcmp path covered")
    }
}
