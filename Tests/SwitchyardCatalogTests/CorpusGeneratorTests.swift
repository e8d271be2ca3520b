import Testing

@testable import Switchyard
import SwitchyardCatalog

/// The generated corpus (demo and benchmarks) is what it says: each shape decodes as that shape.
@Suite struct CorpusGeneratorTests {
    @Test(arguments: ShippedCatalog.allCases)
    func shapesDecodeAsIntended(catalog: ShippedCatalog) {
        var generator = CorpusGenerator(seed: 42)
        var codec = TopicCodec(catalog: catalog.catalog, policy: catalog.defaultPolicy)
        var seen: [CorpusGenerator.Shape: Int] = [:]
        for _ in 0..<5_000 {
            let (value, shape, key) = generator.next(catalog)
            seen[shape, default: 0] += 1
            #expect(!key.isEmpty)
            let record = codec.decode(value)
            switch shape {
            case .current, .legacy, .future:
                guard case .decoded = record.outcome else {
                    Issue.record("\(shape) did not decode: \(record.outcome) \(String(decoding: value, as: UTF8.self))")
                    continue
                }
                #expect((record.unknownFields > 0) == (shape == .future))
                if let event = record.event {
                    #expect(codec.roundTripProblem(input: value, event: event) == nil)
                }
            case .unknownType:
                if catalog.defaultPolicy == .strict {
                    if case .failed(let f) = record.outcome { #expect(f.kind == .unknownType) } else { Issue.record("\(record.outcome)") }
                } else {
                    #expect(record.outcome.name == "unknown")
                }
            case .malformed:
                #expect(record.outcome.name == "failed", "\(String(decoding: value, as: UTF8.self))")
            }
        }
        // The mix is roughly 90/5/3/1/1.
        #expect((4_300...4_700).contains(seen[.current] ?? 0))
        #expect((seen[.malformed] ?? 0) > 20 && (seen[.unknownType] ?? 0) > 20)
    }

    @Test func sameSeedSameCorpus() {
        var a = CorpusGenerator(seed: 7)
        var b = CorpusGenerator(seed: 7)
        for _ in 0..<100 { #expect(a.next(.payments).value == b.next(.payments).value) }
    }
}
