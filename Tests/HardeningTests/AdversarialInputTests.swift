import Foundation
import Switchyard
import SwitchyardFuzz
import Testing

/// The hostile records, at full size: each classified as PRODUCT.md says, with its path, in
/// bounded time. (`scripts/adversarial.sh` replays the same inputs through the CLI and measures
/// time and peak memory.)
@Suite(.serialized, .timeLimit(.minutes(5)))
struct AdversarialInputTests {
    static let inputs = AdversarialInputs.all()

    @Test(arguments: inputs.map(\.name))
    func classified(_ name: String) throws {
        let input = try #require(Self.inputs.first { $0.name == name })
        var codec = TopicCodec(
            catalog: input.catalog.catalog, policy: .lenient,
            readerOptions: JSONReader.Options(maxBytes: input.maxRecordBytes ?? JSONReader.Options().maxBytes, rejectDuplicateKeys: true))
        let start = ContinuousClock.now
        let decoded = codec.decode(input.bytes)
        let elapsed = ContinuousClock.now - start
        #expect(decoded.outcome.name == input.outcome, "\(decoded.outcome)")
        if case .failed(let failure) = decoded.outcome {
            #expect(failure.kind == input.kind)
            #expect(failure.path == input.path)
            #expect(failure.message.hasPrefix(input.messagePrefix ?? ""), "\(failure.message)")
            #expect(DecodeInvariants.leak(of: input.bytes, in: Array(failure.message.utf8)) == nil, "no input in the message")
        }
        // Debug build, shared CI cores: generous, but far from quadratic (100,000 keys squared would be minutes).
        #expect(elapsed < .seconds(20), "\(name) took \(elapsed)")
    }
}
