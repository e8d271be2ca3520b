import Foundation
import Testing

@testable import Switchyard
import SwitchyardCatalog

/// PRODUCT.md decoding rule 4 and the encoding rules: an optional member without a default keeps the
/// difference between absent and `null`, on both decode paths, through re-encoding.
@Suite struct NullableMemberTests {
    /// Every optional member of the shipped catalogs: (fixture, JSON path to the member's object, member).
    static let optionalMembers: [(fixture: String, path: [String], member: String)] = [
        ("payment-authorized-v2.json", [], "card"),
        ("payment-authorized-v2.json", ["merchant"], "country"),
        ("payment-captured-v2.json", ["merchant"], "country"),
        ("payment-failed-v2.json", ["failure"], "message"),
    ]

    /// The fixture's compact text with the member replaced by `null` (or removed, when `value` is nil).
    static func variant(_ fixture: String, path: [String], member: String, value: String?) throws -> [UInt8] {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(FixtureTests.bytes(fixture))) as? [String: Any])
        func edit(_ node: inout [String: Any], _ path: ArraySlice<String>) {
            guard let first = path.first else {
                if value == nil { node.removeValue(forKey: member) } else { node[member] = NSNull() }
                return
            }
            var child = node[first] as! [String: Any]
            edit(&child, path.dropFirst())
            node[first] = child
        }
        edit(&object, path[...])
        return [UInt8](try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }

    @Test(arguments: optionalMembers.indices)
    func explicitNullStaysNull(_ index: Int) throws {
        let (fixture, path, member) = Self.optionalMembers[index]
        let input = try Self.variant(fixture, path: path, member: member, value: "null")
        var codec = FixtureTests.codec("payments")
        let event = try #require(codec.decode(input).event, "\(fixture) \(member)")
        let output = String(decoding: try TopicCodec.canonicalBytes(of: event), as: UTF8.self)
        #expect(output.contains("\"\(member)\":null"), "\(output)")
        #expect(codec.roundTripProblem(input: input, event: event) == nil)
        // Both decode paths agree (the general path gives the same value and bytes).
        var general = EventDecoder<PaymentEvent>(usesFastPath: false)
        var fast = EventDecoder<PaymentEvent>()
        guard case .decoded(let a) = general.decode(input).outcome, case .decoded(let b) = fast.decode(input).outcome else {
            Issue.record("did not decode")
            return
        }
        #expect(a == b)
        #expect(try TopicCodec.canonicalBytes(of: a) == TopicCodec.canonicalBytes(of: b))
    }

    @Test(arguments: optionalMembers.indices)
    func absentStaysAbsent(_ index: Int) throws {
        let (fixture, path, member) = Self.optionalMembers[index]
        let input = try Self.variant(fixture, path: path, member: member, value: nil)
        var codec = FixtureTests.codec("payments")
        let event = try #require(codec.decode(input).event)
        let output = String(decoding: try TopicCodec.canonicalBytes(of: event), as: UTF8.self)
        #expect(!output.contains("\"\(member)\":"), "\(output)")
        #expect(codec.roundTripProblem(input: input, event: event) == nil)
    }

    @Test func assigningKeepsTheWireState() throws {
        var merchant = Merchant(id: "m", name: "n")
        #expect(!merchant.$country.isNull)
        merchant.$country.isNull = true
        #expect(String(decoding: try CanonicalJSONEncoder().encode(merchant), as: UTF8.self) == #"{"id":"m","name":"n","country":null}"#)
        merchant.country = "DE"
        #expect(!merchant.$country.isNull)
        merchant.country = nil
        #expect(String(decoding: try CanonicalJSONEncoder().encode(merchant), as: UTF8.self) == #"{"id":"m","name":"n"}"#)
    }
}
