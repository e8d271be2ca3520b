import Foundation
import Orders
import Switchyard
import Testing

/// Republishing never destroys data: the canonical encoding of every decoded record keeps every input
/// key and value (unknown fields, unknown enum values, and explicit `null` on optional members), and
/// encoding again changes nothing.
@Suite struct RoundTripTests {
    static func decode(_ bytes: [UInt8]) -> (any EventCatalog)? {
        var codec = TopicCodec(catalog: Catalog(OrderEvent.self), policy: .strict)
        return codec.decode(bytes).event
    }

    @Test func decodedFixturesKeepEveryKeyAndValue() throws {
        var checked = 0
        for (index, line) in try fixtureLines().enumerated() {
            let input = Array(line.utf8)
            guard let event = Self.decode(input) else { continue }
            let output = try TopicCodec.canonicalBytes(of: event)
            #expect(RoundTripCheck.firstLoss(input: input, output: output) == nil, "line \(index + 1) lost '\(RoundTripCheck.firstLoss(input: input, output: output) ?? "")': \(String(decoding: output, as: UTF8.self))")
            var codec = TopicCodec(catalog: Catalog(OrderEvent.self), policy: .strict)
            #expect(codec.roundTripProblem(input: input, event: event) == nil, "line \(index + 1)")
            checked += 1
        }
        #expect(checked == 7)
    }

    @Test func explicitNullStaysNullAndAbsentStaysAbsent() throws {
        let lines = try fixtureLines()
        // Line 3: shippingAddress.line2 and deliverBy are null, postalCode is absent.
        let placed = String(decoding: try TopicCodec.canonicalBytes(of: try #require(Self.decode(Array(lines[2].utf8)))), as: UTF8.self)
        #expect(placed.contains(#""line2":null"#), "\(placed)")
        #expect(placed.contains(#""deliverBy":null"#), "\(placed)")
        #expect(!placed.contains("postalCode"), "\(placed)")
        #expect(placed.contains(#""channel":"marketplace""#), "an unknown enum value is kept: \(placed)")
        #expect(placed.contains(#""affiliate":{"id":"aff-9","commissionBps":250}"#), "unknown fields verbatim: \(placed)")
        // Line 1 (v1): defaults written out, absent optionals stay absent.
        let v1 = String(decoding: try TopicCodec.canonicalBytes(of: try #require(Self.decode(Array(lines[0].utf8)))), as: UTF8.self)
        #expect(v1.contains(#""schemaVersion":1"#) && v1.contains(#""giftWrap":false"#) && v1.contains(#""loyaltyPoints":0"#), "\(v1)")
        #expect(!v1.contains("deliverBy") && !v1.contains("line2"), "\(v1)")
    }

    /// Every optional member (no default) of every decodable fixture, set to null: decodes, and the null
    /// is written back. A member with a default reads null as the default, and writes the default.
    @Test func nullOnEveryOptionalMemberRoundTrips() throws {
        let defaulted: Set<String> = ["schemaVersion", "giftWrap", "loyaltyPoints", "restock"]
        var nulls = 0
        for (index, line) in try fixtureLines().enumerated() where Self.decode(Array(line.utf8)) != nil {
            for mutation in Mutation.all(of: line) where mutation.isNull {
                guard let event = Self.decode(mutation.bytes) else { continue }  // a required member: a failure, compared in DifferentialTests
                let output = try TopicCodec.canonicalBytes(of: event)
                let loss = RoundTripCheck.firstLoss(input: mutation.bytes, output: output)
                if defaulted.contains(mutation.path) {
                    #expect(loss == mutation.path, "line \(index + 1), \(mutation.name): the default replaces null")
                } else {
                    #expect(loss == nil, "line \(index + 1), \(mutation.name) lost '\(loss ?? "")': \(String(decoding: output, as: UTF8.self))")
                    nulls += 1
                }
            }
        }
        // shippingAddress, line2, postalCode, deliverBy, weightGrams, estimatedDelivery, note, refund, across the fixtures.
        #expect(nulls >= 8, "\(nulls)")
    }
}
