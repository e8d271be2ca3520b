import Foundation
@testable import Switchyard
import SwitchyardCatalog
import SwitchyardMetrics
import Testing

/// PRODUCT.md, "Metrics": wire-derived `type` labels are capped. An attacker who can produce to a
/// topic sends 1,000,000 records with distinct tags (some with quotes, newlines and backslashes):
/// the registry keeps at most the cap, the rest collapse into `_other`, and /metrics stays small
/// and well-formed.
@Suite(.timeLimit(.minutes(5)))
struct LabelCardinalityTests {
    static func record(type: String, valid: Bool) -> [UInt8] {
        var tag = ""
        for scalar in type.unicodeScalars {
            switch scalar {
            case "\"": tag += "\\\""
            case "\\": tag += "\\\\"
            case "\n": tag += "\\n"
            default: tag.unicodeScalars.append(scalar)
            }
        }
        return valid
            ? Array(#"{"type":"\#(tag)","id":"e","occurredAt":"2026-01-01T00:00:00Z"}"#.utf8)
            : Array(#"{"type":"\#(tag)","id":""#.utf8)
    }

    @Test func aMillionDistinctUnknownTypesStayWithinTheCap() throws {
        let cap = 100
        let metrics = try WorkerMetrics(maxTypeLabels: cap)
        var feeds = TopicCodec(catalog: .feeds, policy: .lenient)
        var payments = TopicCodec(catalog: .payments, policy: .strict)
        let count = 1_000_000
        for i in 0..<count {
            // Every 1,000th tag is hostile text for the exposition format.
            let type = i % 1000 == 0 ? "evil\"} 1\n# TYPE x counter\\\(i)" : "attack.\(i)"
            let record = Self.record(type: type, valid: true)
            if case .unknown(let t) = feeds.decode(record).outcome {
                metrics.unknownEvents.labels("feeds", t).increment()
            } else {
                Issue.record("record \(i) not unknown on feeds")
            }
            if case .failed(let failure) = payments.decode(record).outcome {
                metrics.failures.labels("payments", failure.kind.rawValue, failure.type ?? "").increment()
            } else {
                Issue.record("record \(i) not failed on payments")
            }
        }
        let snapshot = metrics.registry.snapshot()
        #expect(snapshot.seriesCount("switchyard_unknown_events_total") <= cap + 1)
        #expect(snapshot.seriesCount("switchyard_decode_failures_total") <= cap + 1)
        #expect(snapshot.counter("switchyard_unknown_events_total", ["topic": "feeds", "type": "_other"]) == Int64(count - cap))
        #expect(snapshot.counter("switchyard_decode_failures_total", ["topic": "payments", "kind": "unknownType", "type": "_other"]) == Int64(count - cap))
        let exposition = metrics.registry.render()
        let lines = exposition.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count < 600, "the /metrics page stays small: \(lines.count) lines")
        #expect(exposition.utf8.count < 100_000)
        // Every sample line is `name{labels} value`: a hostile tag cannot start a line of its own.
        for line in lines where !line.isEmpty && !line.hasPrefix("#") {
            #expect(line.hasPrefix("switchyard_"), "\(line)")
        }
        #expect(!lines.contains { $0.hasPrefix("# TYPE x") }, "a tag cannot inject a comment line")
        // The escaped hostile tag is one label value on one line (one of the first 100 kept).
        #expect(exposition.contains(#"type="evil\"} 1\n# TYPE x counter\\0""#))
    }
}
