import Foundation
import SwitchyardTestSupport
import Testing

/// `replay` on files that are not dumps warns (and `--fail-on warnings` catches it), and reads the shapes a dump
/// takes after passing through `jq .` or a JSON tool: pretty-printed envelopes or records, and a JSON array.
@Suite struct ReplayInputShapeTests {
    static func write(_ text: String, _ name: String) throws -> URL {
        let url = temporaryFile(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    static func pretty(_ object: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]), as: UTF8.self)
    }

    @Test func aFileThatIsNotADumpIsAWarning() throws {
        let readme = CLI.packageRoot.appendingPathComponent("README.md").path
        let result = try CLI.run(["replay", "-t", "feeds", readme])
        #expect(result.stderr.contains("are not JSON objects"), "\(result.stderr)")
        #expect(result.stderr.contains("is \(readme) a dump?"), "\(result.stderr)")
        let gated = try CLI.run(["replay", "-t", "feeds", "--fail-on", "warnings", readme])
        #expect(gated.exitCode == 1, "\(gated.stderr)")

        var bytes = [UInt8](repeating: 0, count: 20_000)
        for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: i &* 2_654_435_761 >> 7) }
        let binary = temporaryFile("data.bin")
        defer { try? FileManager.default.removeItem(at: binary) }
        try Data(bytes).write(to: binary)
        let fromBinary = try CLI.run(["replay", "-t", "feeds", "--fail-on", "warnings", binary.path])
        #expect(fromBinary.exitCode == 1 && fromBinary.stderr.contains("are not JSON objects"), "\(fromBinary.stderr)")
    }

    @Test func aPrettyPrintedDumpAndAJSONArrayAreReadAsTheirRecords() throws {
        let compact = OnCallTests.payments
        let expected = try CLI.run(["replay", "-o", "json", compact])
        let envelopes = try String(contentsOfFile: compact, encoding: .utf8).split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) }

        let prettyDump = try Self.write(try envelopes.map(Self.pretty).joined(separator: "\n") + "\n", "payments.pretty.json")
        let array = try Self.write(try Self.pretty(envelopes) + "\n", "payments.array.json")
        let oneLineArray = try Self.write(String(decoding: try JSONSerialization.data(withJSONObject: envelopes), as: UTF8.self) + "\n", "payments.array1.json")
        defer { for url in [prettyDump, array, oneLineArray] { try? FileManager.default.removeItem(at: url) } }
        for file in [prettyDump, array, oneLineArray] {
            let result = try CLI.run(["replay", "-o", "json", file.path])
            #expect(result.exitCode == expected.exitCode, "\(file.lastPathComponent): \(result.stderr)")
            #expect(
                try ReplayCommandTests.object(result.stdout) as NSDictionary == ReplayCommandTests.object(expected.stdout) as NSDictionary,
                "\(file.lastPathComponent): \(result.stdout) vs \(expected.stdout)")
        }

        // Records themselves (no envelopes), pretty-printed in an array, with --topic.
        // (The lines that are JSON: an invalid record cannot be an array element.)
        let lines = try String(contentsOfFile: OnCallTests.fixture("feeds.ndjson"), encoding: .utf8).split(separator: "\n").filter {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) != nil
        }
        let records = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) }
        let compactRecords = try records.map { String(decoding: try JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]), as: UTF8.self) }
        let feeds = try Self.write(compactRecords.joined(separator: "\n") + "\n", "feeds.ndjson")
        let fromNDJSON = try CLI.run(["replay", "-t", "feeds", "-o", "json", feeds.path])
        let recordArray = try Self.write(try Self.pretty(records), "feeds.array.json")
        defer { for url in [feeds, recordArray] { try? FileManager.default.removeItem(at: url) } }
        let fromArray = try CLI.run(["replay", "-t", "feeds", "-o", "json", recordArray.path])
        #expect(fromArray.exitCode == fromNDJSON.exitCode && fromArray.stderr.isEmpty, "\(fromArray.stderr)")
        // The same outcomes; only where each failure was (its line in the file) depends on the layout.
        #expect(try Self.withoutLines(fromArray.stdout) as NSDictionary == Self.withoutLines(fromNDJSON.stdout) as NSDictionary)
        #expect(try Self.failureLines(fromArray.stdout) != Self.failureLines(fromNDJSON.stdout), "the lines are the array's own")
    }

    /// A `replay -o json` summary without the failures' lines (`firstLine`, and `firstLocation`, which names it).
    static func withoutLines(_ json: String) throws -> [String: Any] {
        var o = try ReplayCommandTests.object(json)
        o["failures"] = (o["failures"] as? [[String: Any]])?.map { $0.filter { $0.key != "firstLine" && $0.key != "firstLocation" } }
        return o
    }

    static func failureLines(_ json: String) throws -> [Int] {
        try (ReplayCommandTests.object(json)["failures"] as? [[String: Any]] ?? []).compactMap { $0["firstLine"] as? Int }
    }
}
