import Foundation
import SwitchyardFuzz
import SwitchyardTestSupport
import Testing

/// The fuzz targets' checks on their seed corpus (the catalog fixtures and JSONTestSuite), so the
/// invariants run in every `swift test`, not only under `make fuzz`.
@Suite struct SeedCorpusTests {
    static let jsonTestSuite = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/testdata/JSONTestSuite/test_parsing")

    /// Every seed: the fixtures (golden encodings included) and JSONTestSuite's cases.
    static func seeds() throws -> [(name: String, bytes: [UInt8])] {
        var seeds: [(String, [UInt8])] = []
        for directory in [Fixtures.directory, Fixtures.directory.appendingPathComponent("golden"), jsonTestSuite] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            for name in names.sorted() where name.hasSuffix(".json") && name != "expectations.json" {
                seeds.append((name, [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))))
            }
        }
        return seeds
    }

    @Test func decodeInvariantsHoldOnEverySeed() throws {
        let seeds = try Self.seeds()
        #expect(seeds.count > 300, "fixtures and JSONTestSuite")
        var invariants = DecodeInvariants()
        for (name, bytes) in seeds {
            let violation = bytes.withUnsafeBytes { invariants.check($0) }
            #expect(violation == nil, "\(name): \(violation.map(String.init(describing:)) ?? "")")
        }
    }

    @Test func switchyardAgreesWithFoundationOnEverySeed() throws {
        var differential = DifferentialCheck()
        for (name, bytes) in try Self.seeds() {
            let violation = differential.check(bytes)
            #expect(violation == nil, "\(name): \(violation.map(String.init(describing:)) ?? "")")
        }
        #expect(differential.compared > 200)
    }

    @Test func invariantsHoldOnEveryAdversarialInput() {
        var invariants = DecodeInvariants()
        var differential = DifferentialCheck()
        for input in AdversarialInputs.all(scale: 0.01) {
            let violation = input.bytes.withUnsafeBytes { invariants.check($0) }
            #expect(violation == nil, "\(input.name): \(violation.map(String.init(describing:)) ?? "")")
            let disagreement = differential.check(input.bytes)
            #expect(disagreement == nil, "\(input.name): \(disagreement.map(String.init(describing:)) ?? "")")
        }
    }

    @Test func leakCheckFindsInputInAMessage() {
        let input = Array(#"{"text":"my secret account 12345678"}"#.utf8)
        #expect(DecodeInvariants.leak(of: input, in: Array("bad value: my secret account 1".utf8)) != nil)
        #expect(DecodeInvariants.leak(of: input, in: Array("Expected to decode Int but found a string instead.".utf8)) == nil)
    }
}
