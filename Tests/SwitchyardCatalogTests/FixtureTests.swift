import Foundation
import Testing

@testable import Switchyard
import SwitchyardCatalog
import SwitchyardTestSupport

/// Every fixture in `Fixtures/expectations.json`: its outcome, kind, path and tag; for decoded ones,
/// the canonical encoding byte for byte (`Fixtures/golden/`) and the round-trip properties.
@Suite struct FixtureTests {
    typealias Expectation = Fixtures.Expectation

    static let fixtures = Fixtures.directory

    static let expectations: [Expectation] = {
        do {
            return try Fixtures.expectations()
        } catch {
            fatalError("Fixtures/expectations.json unreadable: \(error)")
        }
    }()

    static func bytes(_ name: String) throws -> [UInt8] {
        try Fixtures.bytes(name)
    }

    static func codec(_ topic: String) -> TopicCodec {
        let catalog = CatalogRegistry(Catalog.shipped)[topic]!
        return TopicCodec(catalog: catalog, policy: catalog.defaultPolicy)
    }

    @Test func manifestCoversEveryFixture() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.fixtures.path).filter { $0.hasSuffix(".json") && $0 != "expectations.json" }
        #expect(Set(files) == Set(Self.expectations.map(\.file)))
        // Every event type has v1, v2 and v3-future fixtures.
        for type in PaymentEvent.eventTypes.map(\.type) + FeedEvent.eventTypes.map(\.type) {
            let stem = type.replacingOccurrences(of: ".", with: "-")
            for version in ["v1", "v2", "v3-future"] {
                #expect(files.contains("\(stem)-\(version).json"), "missing \(stem)-\(version).json")
            }
        }
    }

    @Test(arguments: expectations)
    func outcome(_ expected: Expectation) throws {
        var codec = Self.codec(expected.topic)
        let record = codec.decode(try Self.bytes(expected.file))
        #expect(record.outcome.name == expected.outcome, "\(record.outcome)")
        #expect(record.outcome.type == expected.type)
        if case .failed(let failure) = record.outcome {
            #expect(failure.kind.rawValue == expected.kind)
            #expect(failure.path == expected.path)
            #expect(!failure.message.isEmpty)
        }
    }

    /// A worker topic with no handler and no republish decodes without keeping the event (`keepsEvents:
    /// false`): the same outcome, type, unknown-field count and diagnosis as with it, on every fixture and on
    /// 20,000 generated records of each catalog (1% malformed), under both policies.
    @Test func outcomesWithoutTheEventAreTheSame() throws {
        var inputs: [(catalog: String, bytes: [UInt8])] = try Self.expectations.map { ($0.topic, try Self.bytes($0.file)) }
        var generator = CorpusGenerator(seed: 29)
        for catalog in [ShippedCatalog.payments, .feeds] {
            for _ in 0..<20_000 { inputs.append((catalog.rawValue, generator.next(catalog).value)) }
        }
        var compared = 0
        for (name, bytes) in inputs {
            let catalog = try #require(CatalogRegistry(Catalog.shipped)[name])
            for policy in [TopicPolicy.strict, .lenient] {
                var keeping = TopicCodec(catalog: catalog, policy: policy)
                var counting = TopicCodec(catalog: catalog, policy: policy, keepsEvents: false)
                let full = keeping.decode(bytes)
                let bare = counting.decode(bytes)
                #expect(bare.outcome == full.outcome, "\(String(decoding: bytes, as: UTF8.self))")
                #expect(bare.unknownFields == full.unknownFields)
                #expect(bare.event == nil)
                if case .decoded = full.outcome { #expect(full.event != nil) }
                compared += 1
            }
        }
        #expect(compared == 2 * (Self.expectations.count + 40_000))
    }

    @Test(arguments: expectations.filter { $0.outcome == "decoded" })
    func canonicalEncodingMatchesGolden(_ expected: Expectation) throws {
        var codec = Self.codec(expected.topic)
        let input = try Self.bytes(expected.file)
        let event = try #require(codec.decode(input).event)
        let encoded = try TopicCodec.canonicalBytes(of: event)
        let golden = try Self.bytes("golden/\(expected.file)")
        #expect(String(decoding: encoded, as: UTF8.self) == String(decoding: golden, as: UTF8.self))
        // input ⊆ encode(decode(input)), and a second round trip is byte-identical.
        #expect(RoundTripCheck.firstLoss(input: input, output: encoded) == nil)
        #expect(codec.roundTripProblem(input: input, event: event) == nil)
        let again = try #require(codec.decode(encoded).event)
        #expect(try TopicCodec.canonicalBytes(of: again) == encoded)
    }

    @Test func unknownEventsPassThroughByteExact() throws {
        for expected in Self.expectations where expected.outcome == "unknown" {
            var codec = Self.codec(expected.topic)
            let input = try Self.bytes(expected.file)
            let event = try #require(codec.decode(input).event)
            #expect(try TopicCodec.canonicalBytes(of: event) == input)
            // The same record on a strict topic is an unknownType failure at the root.
            var strict = TopicCodec(catalog: CatalogRegistry(Catalog.shipped)[expected.topic]!, policy: .strict)
            #expect(strict.decode(input).outcome == .failed(.unknownType(expected.type!, catalog: expected.topic)))
        }
    }

    @Test func futureFixturesKeepUnknownFieldsAndEnumValues() throws {
        for expected in Self.expectations where expected.file.hasSuffix("v3-future.json") {
            var codec = Self.codec(expected.topic)
            let record = codec.decode(try Self.bytes(expected.file))
            #expect(record.unknownFields > 0, "\(expected.file) should count unknown fields")
        }
        var codec = Self.codec("payments")
        guard case .authorized(let event)? = codec.decode(try Self.bytes("payment-authorized-v3-future.json")).event as? PaymentEvent else {
            Issue.record("payment-authorized-v3-future.json did not decode as payment.authorized")
            return
        }
        #expect(!event.method.isKnown)
        #expect(event.method.description.hasPrefix("unrecognized("))
    }

    @Test func legacyFixturesGetDefaults() throws {
        var payments = Self.codec("payments")
        guard case .captured(let captured)? = payments.decode(try Self.bytes("payment-captured-v1.json")).event as? PaymentEvent else {
            Issue.record("payment-captured-v1.json did not decode")
            return
        }
        #expect(captured.installments == 1)
        #expect(captured.schemaVersion == 1)
        var feeds = Self.codec("feeds")
        guard case .postCreated(let post)? = feeds.decode(try Self.bytes("post-created-v1.json")).event as? FeedEvent else {
            Issue.record("post-created-v1.json did not decode")
            return
        }
        #expect(post.mediaCount == 0)
    }

    /// Foundation's JSONDecoder on the same models agrees on kind and path for every failing fixture,
    /// except the documented differences (duplicate keys; numbers out of range; unknownType is ours).
    @Test func failuresAgreeWithFoundation() throws {
        for expected in Self.expectations where expected.outcome == "failed" && expected.kind != "unknownType" {
            let data = Data(try Self.bytes(expected.file))
            let theirs: DecodeFailure?
            do {
                if expected.topic == "payments" { _ = try JSONDecoder().decode(PaymentEvent.self, from: data) } else { _ = try JSONDecoder().decode(FeedEvent.self, from: data) }
                theirs = nil
            } catch let error as DecodingError {
                theirs = DecodeFailure(error, type: nil)
            }
            let duplicate = expected.file.contains("duplicate")
            let outOfRange = expected.file.contains("overflow") || expected.file.contains("fraction")
            if duplicate {
                #expect(theirs == nil || theirs?.kind != .dataCorrupted || theirs?.path != expected.path, "\(expected.file)")
            } else if outOfRange {
                #expect(theirs?.kind == .dataCorrupted && theirs?.path == "", "\(expected.file): Foundation reports at the root")
            } else {
                #expect(theirs?.kind.rawValue == expected.kind, "\(expected.file)")
                #expect(theirs?.path == expected.path, "\(expected.file)")
            }
        }
    }
}
