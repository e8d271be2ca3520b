import Foundation
import Testing

import SwitchyardJSON
import SwitchyardTestSupport

/// `switchyard replay` as a user runs it: the built binary, stdout, stderr and exit code.
@Suite(.serialized) struct ReplayCommandTests {
    typealias Expectation = Fixtures.Expectation

    static let fixtures = Fixtures.directory

    static func expectations(topic: String) throws -> [Expectation] {
        try Fixtures.expectations(topic: topic)
    }

    /// The topic's fixtures as NDJSON (each compacted onto one line), in manifest order.
    static func ndjson(topic: String) throws -> (URL, [Expectation]) {
        let expected = try expectations(topic: topic)
        var out: [UInt8] = []
        for e in expected {
            let bytes = [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(e.file)))
            bytes.withUnsafeBufferPointer { JSONString.appendCompact($0, to: &out) }
            while out.last == 0x0A || out.last == 0x20 { out.removeLast() }
            out.append(0x0A)
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-\(topic)-\(UUID().uuidString).ndjson")
        try Data(out).write(to: url)
        return (url, expected)
    }

    static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test(arguments: ["payments", "feeds"])
    func recordsPrintsOneOutcomeLinePerRecord(topic: String) throws {
        let (file, expected) = try Self.ndjson(topic: topic)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try CLI.run(["replay", "--topic", topic, "--records", file.path])
        let lines = result.stdoutLines
        #expect(lines.count == expected.count)
        for (i, (line, e)) in zip(lines, expected).enumerated() {
            let o = try Self.object(line)
            #expect(o["index"] as? Int == i)
            #expect(o["outcome"] as? String == e.outcome, "\(e.file)")
            #expect(o["type"] as? String == e.type, "\(e.file)")
            #expect(o["kind"] as? String == e.kind, "\(e.file)")
            #expect(o["path"] as? String == e.path, "\(e.file)")
            #expect(o["partition"] == nil && o["offset"] == nil, "NDJSON has no partition or offset")
        }
        // payments is strict: its failures are findings (exit 1); feeds degrades (exit 0).
        let failures = expected.filter { $0.outcome == "failed" }.count
        #expect(result.exitCode == (topic == "payments" && failures > 0 ? 1 : 0))
        if topic == "payments" { #expect(result.stderr.contains("\(failures) strict failure(s)")) }
    }

    @Test func jsonSummaryCountsEveryOutcome() throws {
        let (file, expected) = try Self.ndjson(topic: "feeds")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try CLI.run(["replay", "--topic", "feeds", "--json", file.path])
        #expect(result.exitCode == 0)
        let o = try Self.object(result.stdout)
        #expect(o["records"] as? Int == expected.count)
        #expect(o["decoded"] as? Int == expected.filter { $0.outcome == "decoded" }.count)
        #expect(o["unknown"] as? Int == expected.filter { $0.outcome == "unknown" }.count)
        #expect(o["failed"] as? Int == expected.filter { $0.outcome == "failed" }.count)
        #expect(o["tombstones"] as? Int == 0)
        #expect((o["unknownTypes"] as? [String: Int])?["story.posted"] == 1)
        let failures = try #require(o["failures"] as? [[String: Any]])
        #expect(failures.reduce(0) { $0 + ($1["count"] as? Int ?? 0) } == expected.filter { $0.outcome == "failed" }.count)
        #expect(failures.allSatisfy { $0["kind"] is String && $0["path"] is String })
    }

    @Test func emitPrintsWhatRepublishingSends() throws {
        let (file, expected) = try Self.ndjson(topic: "feeds")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try CLI.run(["replay", "--topic", "feeds", "--emit", file.path])
        let sendable = expected.filter { $0.outcome != "failed" }
        #expect(result.stdoutLines.count == sendable.count)
        for (line, e) in zip(result.stdoutLines, sendable) where e.outcome == "decoded" {
            let golden = try String(contentsOf: Self.fixtures.appendingPathComponent("golden/\(e.file)"), encoding: .utf8)
            #expect(line == golden, "\(e.file)")
        }
    }

    @Test func roundTripOverEveryFixtureIsFaithful() throws {
        for topic in ["payments", "feeds"] {
            let (file, _) = try Self.ndjson(topic: topic)
            defer { try? FileManager.default.removeItem(at: file) }
            let result = try CLI.run(["replay", "--topic", topic, "--roundtrip", "--policy", "lenient", file.path])
            #expect(result.exitCode == 0, "\(result.stdout)")
            #expect(result.stdout.contains("Round trip:") && !result.stdout.contains("lossy"))
        }
    }

    @Test func readsStandardInputAndKcatEnvelopes() throws {
        let payload = try String(contentsOf: Self.fixtures.appendingPathComponent("golden/payment-captured-v2.json"), encoding: .utf8)
        var envelope = JSONObject()
        envelope.set("topic", "payments")
        envelope.set("partition", 3)
        envelope.set("offset", 42)
        envelope.set("tstype", "create")
        envelope.set("ts", 1_700_000_000_000)
        envelope.set("headers", ["trace", "abc"])
        envelope.set("key", "k1")
        envelope.set("payload", payload)
        var tombstone = JSONObject()
        tombstone.set("topic", "payments")
        tombstone.set("partition", 3)
        tombstone.set("offset", 43)
        tombstone.set("key", "k1")
        tombstone.set("payload", nil as String?)
        let input = envelope.text + "\n" + tombstone.text + "\n"
        let result = try CLI.run(["replay", "--records"], stdin: Data(input.utf8))
        #expect(result.exitCode == 0, "\(result.stderr)")
        let lines = try result.stdoutLines.map(Self.object)
        #expect(lines.count == 2)
        #expect(lines.first?["partition"] as? Int == 3 && lines.first?["offset"] as? Int == 42)
        #expect(lines.first?["outcome"] as? String == "decoded")
        #expect(lines.last?["outcome"] as? String == "tombstone")
    }

    @Test func exitCodes() throws {
        let help = try CLI.run(["replay", "--help"])
        #expect(help.exitCode == 0 && help.stdout.contains("USAGE: switchyard replay"))
        let usage = try CLI.run(["replay", "--topic", "nope", "x.ndjson"])
        #expect(usage.exitCode == 64 && usage.stderr.contains("--topic nope names no catalog: add --catalog NAME"))
        // A misspelt catalog: exit 64 with the nearest name of this binary's catalogs.
        let misspelt = try CLI.run(["replay", "--catalog", "paymnts", "x.ndjson"])
        #expect(misspelt.exitCode == 64 && misspelt.stderr.contains("unknown catalog 'paymnts'; did you mean 'payments'?"))
        let exclusive = try CLI.run(["replay", "--json", "--records", "x"])
        #expect(exclusive.exitCode == 64)
        let unknownOption = try CLI.run(["replay", "--bogus"])
        #expect(unknownOption.exitCode == 64 && unknownOption.stderr.contains("unknown option '--bogus'"))
        let missing = try CLI.run(["replay", "--topic", "payments", "/nonexistent/dump.ndjson"])
        #expect(missing.exitCode == 65 && missing.stderr.contains("/nonexistent/dump.ndjson"))
        let badEnvelope = #"{"topic":"payments","partition":0,"offset":1,"payload":"{}"}"# + "\n" + #"{"topic":"payments","partition":0,"offset":2,"payload":7}"# + "\n"
        let unreadable = try CLI.run(["replay", "--format", "kcat"], stdin: Data(badEnvelope.utf8))
        #expect(unreadable.exitCode == 65 && unreadable.stderr.contains(":2:"), "\(unreadable.stderr)")
        let noTopic = try CLI.run(["replay"], stdin: Data("{}\n".utf8))
        #expect(noTopic.exitCode == 64 && noTopic.stderr.contains("--topic"))
        let root = try CLI.run(["bogus"])
        #expect(root.exitCode == 64)
        let version = try CLI.run(["version"])
        #expect(version.exitCode == 0 && version.stdout.hasPrefix("switchyard "))
    }
}
