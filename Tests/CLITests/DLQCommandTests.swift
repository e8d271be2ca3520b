import Foundation
import Switchyard
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// `switchyard dlq` over a kcat -J dump (no broker): every subcommand and exit code, Spring and Connect headers.
@Suite(.serialized) struct DLQCommandTests {
    static func envelope(_ offset: Int, payload: String?, headers: [(String, String)], ts: Int64 = 1_767_225_600_000) throws -> String {
        var o: [String: Any] = ["topic": "feeds.dlq", "partition": 0, "offset": offset, "tstype": "create", "ts": ts, "key": "key-\(offset)"]
        o["payload"] = payload ?? NSNull()
        o["headers"] = headers.flatMap { [$0.0, $0.1] }
        return String(decoding: try JSONSerialization.data(withJSONObject: o, options: [.sortedKeys]), as: UTF8.self)
    }

    static func switchyardHeaders(kind: String, path: String, type: String, redrives: Int, failedAt: String) -> [(String, String)] {
        [
            ("trace", "t-1"), ("switchyard.original.topic", "feeds"), ("switchyard.original.partition", "0"),
            ("switchyard.original.offset", "33"), ("switchyard.original.timestamp", "1767225600000"), ("switchyard.error.kind", kind),
            ("switchyard.error.path", path), ("switchyard.error.type", type), ("switchyard.error.message", "Missing required key."),
            ("switchyard.consumer.group", "feeds-workers"), ("switchyard.failed.at", failedAt), ("switchyard.redrive.count", String(redrives)),
        ]
    }

    /// A dump: two Switchyard dead letters (one at the redrive limit), one Spring, one Connect.
    static func dump() throws -> URL {
        let fixtures = ReplayCommandTests.fixtures
        let missing = try String(contentsOf: fixtures.appendingPathComponent("fail-missing-user-id.json"), encoding: .utf8)
        let tags = try String(contentsOf: fixtures.appendingPathComponent("fail-tags-element-not-string.json"), encoding: .utf8)
        let recent = Timestamp(Date().addingTimeInterval(-180)).text
        let lines = [
            try envelope(0, payload: missing, headers: switchyardHeaders(kind: "keyNotFound", path: "userId", type: "post.liked", redrives: 0, failedAt: recent)),
            try envelope(1, payload: tags, headers: switchyardHeaders(kind: "typeMismatch", path: "tags[1]", type: "post.created", redrives: 3, failedAt: "2026-01-01T00:00:00Z")),
            try envelope(2, payload: #"{"orderId":"o-secret-1","total":12.5"#, headers: [
                ("kafka_dlt-original-topic", "orders"), ("kafka_dlt-original-partition", "2"), ("kafka_dlt-original-offset", "99"),
                ("kafka_dlt-exception-message", "Cannot deserialize"), ("kafka_dlt-exception-fqcn", "org.springframework.kafka.support.serializer.DeserializationException"),
            ]),
            try envelope(3, payload: #"{"row":"r-secret-2"}"#, headers: [
                ("__connect.errors.topic", "inventory"), ("__connect.errors.partition", "1"), ("__connect.errors.offset", "77"),
                ("__connect.errors.exception.class.name", "org.apache.kafka.connect.errors.DataException"), ("__connect.errors.exception.message", "Converting failed"),
            ]),
        ]
        let url = temporaryFile("feeds.dlq.kcat")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: url)
        return url
    }

    @Test func listShowsATableAndFilters() throws {
        let dump = try Self.dump()
        defer { try? FileManager.default.removeItem(at: dump) }
        let list = try CLI.run(["dlq", "list", "--file", dump.path])
        #expect(list.exitCode == 0, "\(list.stderr)")
        let lines = list.stdoutLines
        #expect(lines.first?.hasPrefix("DEAD LETTER    AGE") == true, "a header, no colour off a TTY: \(list.stdout)")
        #expect(!list.stdout.contains("\u{1B}["))
        #expect(lines.contains { $0.contains("3m ago") && $0.contains("feeds/0@33") && $0.contains("post.liked") && $0.contains("keyNotFound") && $0.contains("userId") })
        #expect(lines.contains { $0.contains("orders/2@99") && $0.contains("foreign") })
        #expect(lines.contains { $0.contains("inventory/1@77") && $0.contains("foreign") })
        #expect(lines.last == "4 of 4 dead letter(s)")
        // Columns line up: every row's AGE starts where the header's does.
        let ageColumn = try #require(lines.first?.range(of: "AGE")?.lowerBound.utf16Offset(in: lines.first!))
        for row in lines.dropFirst().dropLast() { #expect(row.utf16.count > ageColumn && row[row.index(row.startIndex, offsetBy: ageColumn - 1)] == " ") }

        let filtered = try CLI.run(["dlq", "list", "--file", dump.path, "--kind", "foreign", "--json"])
        #expect(filtered.exitCode == 0)
        let objects = try filtered.stdoutLines.map(ReplayCommandTests.object)
        #expect(objects.map { $0["dlqOffset"] as? Int } == [2, 3])
        #expect(objects.map { $0["origin"] as? String } == ["spring", "connect"])
        #expect(objects.first?["message"] as? String == "Cannot deserialize")
        let recent = try CLI.run(["dlq", "list", "--file", dump.path, "--since", "1h", "--json"])
        #expect(try recent.stdoutLines.map(ReplayCommandTests.object).map { $0["dlqOffset"] as? Int } == [0])
        let byType = try CLI.run(["dlq", "list", "--file", dump.path, "--type", "post.created", "--json"])
        #expect(byType.stdoutLines.count == 1)
    }

    @Test func showRedactsUnlessRevealAndMarksThePath() throws {
        let dump = try Self.dump()
        defer { try? FileManager.default.removeItem(at: dump) }
        let shown = try CLI.run(["dlq", "show", "1", "--file", dump.path])
        #expect(shown.exitCode == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("typeMismatch at 'tags[1]' in post.created"))
        #expect(shown.stdout.contains("switchyard.redrive.count") && shown.stdout.contains("trace"), "every header")
        #expect(shown.stdout.contains(#""tags": ["#) && shown.stdout.contains(#""***""#))
        #expect(shown.stdoutLines.contains { $0.contains("◀ typeMismatch at 'tags[1]'") && $0.trimmingCharacters(in: .whitespaces).hasPrefix("<number>") })
        let fixture = try String(contentsOf: ReplayCommandTests.fixtures.appendingPathComponent("fail-tags-element-not-string.json"), encoding: .utf8)
        let postId = try #require(fixture.firstMatch(of: /"postId"\s*:\s*"([^"]+)"/)?.1)
        #expect(!shown.stdout.contains(postId), "values are redacted")
        let revealed = try CLI.run(["dlq", "show", "1", "--file", dump.path, "--reveal"])
        #expect(revealed.stdout.contains(String(postId)))

        let spring = try CLI.run(["dlq", "show", "2", "--file", dump.path, "--json"])
        let o = try ReplayCommandTests.object(spring.stdout)
        #expect(o["originalTopic"] as? String == "orders" && o["kind"] as? String == "foreign")
        #expect((o["payload"] as? String)?.contains("o-secret-1") == false)
        #expect(o["payloadProblem"] is String, "a truncated payload says where reading stopped")
        let missing = try CLI.run(["dlq", "show", "9", "--file", dump.path])
        #expect(missing.exitCode == 1 && missing.stderr.contains("no dead letter at offset 9"), "not found is about the data")
        // One way to name a record: the location list prints is the one show takes.
        let named = try CLI.run(["dlq", "show", "feeds.dlq/0@2", "--file", dump.path, "--json"])
        #expect(named.exitCode == 0, "\(named.stderr)")
        #expect(try ReplayCommandTests.object(named.stdout)["location"] as? String == "feeds.dlq/0@2")
        let elsewhere = try CLI.run(["dlq", "show", "feeds.dlq/0@9", "--file", dump.path])
        #expect(elsewhere.exitCode == 1 && elsewhere.stderr.hasPrefix("error: no dead letter at feeds.dlq/0@9"), "\(elsewhere.stderr)")
        let malformed = try CLI.run(["dlq", "show", "feeds.dlq[0]@2", "--file", dump.path])
        #expect(malformed.exitCode == 64 && malformed.stderr.contains("topic/partition@offset, e.g. payments.dlq/1@20"), "\(malformed.stderr)")
    }

    @Test func statsRanksWhatBroke() throws {
        let dump = try Self.dump()
        defer { try? FileManager.default.removeItem(at: dump) }
        let stats = try CLI.run(["dlq", "stats", "--file", dump.path, "--json"])
        #expect(stats.exitCode == 0)
        let o = try ReplayCommandTests.object(stats.stdout)
        #expect(o["records"] as? Int == 4)
        let groups = try #require(o["groups"] as? [[String: Any]])
        #expect(groups.first?["kind"] as? String == "foreign" && groups.first?["count"] as? Int == 2, "most frequent first")
        #expect(groups.contains { $0["kind"] as? String == "keyNotFound" && $0["path"] as? String == "userId" && $0["type"] as? String == "post.liked" })
        let byKind = try #require(o["byKind"] as? [[String: Any]])
        #expect(byKind.map { $0["name"] as? String } == ["foreign", "keyNotFound", "typeMismatch"])
        let human = try CLI.run(["dlq", "stats", "--file", dump.path])
        #expect(human.stdout.contains("What broke") && human.stdout.contains("By kind") && human.stdout.contains("By path"))
    }

    @Test func redriveIsADryRunAndRefusesPastTheLimit() throws {
        let dump = try Self.dump()
        defer { try? FileManager.default.removeItem(at: dump) }
        let dry = try CLI.run(["dlq", "redrive", "--file", dump.path])
        #expect(dry.exitCode == 1, "offset 1 is at the default limit of 3, offset 0 still fails: refused → 1")
        #expect(dry.stdout.contains("DRY RUN") && dry.stdout.contains("2 record(s) would be redriven, 2 refused"), "\(dry.stdout)")
        #expect(dry.stdoutLines.contains { $0.hasPrefix("feeds.dlq/0@1 ") && $0.contains("refused: redriven 3 time(s), limit 3") })
        #expect(dry.stdoutLines.contains { $0.hasPrefix("feeds.dlq/0@0 ") && $0.contains("refused: would fail again: keyNotFound at 'userId'") })
        #expect(dry.stdoutLines.contains { $0.hasPrefix("feeds.dlq/0@2 ") && $0.contains("would send (not checked: this binary has no catalog for orders)") })
        let forced = try CLI.run(["dlq", "redrive", "--file", dump.path, "--kind", "keyNotFound", "--json", "--force"])
        #expect(forced.exitCode == 0)
        let line = try ReplayCommandTests.object(forced.stdout)
        #expect(line["action"] as? String == "redrive" && line["to"] as? String == "feeds" && line["newRedriveCount"] as? Int == 1)
        #expect(line["forced"] as? Bool == true && line["wouldFail"] as? String == "keyNotFound at 'userId'")
        let noTarget = try CLI.run(["dlq", "redrive", "--file", dump.path, "--execute"])
        #expect(noTarget.exitCode == 64 && noTarget.stderr.contains("--brokers"))
    }

    @Test func exitCodes() throws {
        let help = try CLI.run(["dlq", "--help"])
        #expect(help.exitCode == 0 && help.stdout.contains("switchyard dlq redrive") && help.stdout.contains("EXIT CODES"))
        #expect(try CLI.run(["dlq"]).exitCode == 64)
        #expect(try CLI.run(["dlq", "purge", "--file", "x"]).exitCode == 64)
        #expect(try CLI.run(["dlq", "list"]).exitCode == 64, "no source")
        #expect(try CLI.run(["dlq", "list", "--brokers", "b:9092"]).exitCode == 64, "no --topic")
        #expect(try CLI.run(["dlq", "list", "--file", "x", "--reveal"]).exitCode == 64)
        #expect(try CLI.run(["dlq", "show", "--file", "x"]).exitCode == 64, "no OFFSET")
        #expect(try CLI.run(["dlq", "list", "--file", "x", "--since", "yesterday"]).exitCode == 64)
        let missing = try CLI.run(["dlq", "list", "--file", "/nonexistent/dlq.kcat"])
        #expect(missing.exitCode == 65 && missing.stderr.contains("/nonexistent/dlq.kcat"))
        let garbage = try CLI.run(["dlq", "stats", "--file", "/dev/stdin"], stdin: Data("{\"payload\":\"x\",\"offset\":0}\nnot json\n".utf8))
        #expect(garbage.exitCode == 65 && garbage.stderr.contains(":2:"), "\(garbage.stderr)")
        let unreachable = try CLI.run(["dlq", "list", "--brokers", "127.0.0.1:1", "--topic", "feeds.dlq", "--connect-timeout", "1"])
        #expect(unreachable.exitCode == 69, "\(unreachable.stderr)")
        #expect(try CLI.run(["dlq", "list", "--config", "/nonexistent.json", "--topic", "feeds.dlq"]).exitCode == 78)
    }
}

/// A redacted value never looks like a real one: `"installments": 0` where the record has 1 would be read as data.
@Suite struct RedactionTests {
    @Test func aRedactedNumberIsNotANumber() throws {
        let payload = try String(contentsOf: ReplayCommandTests.fixtures.appendingPathComponent("payment-captured-v2.json"), encoding: .utf8)
        let url = temporaryFile("payments.dlq.kcat")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data((try DLQCommandTests.envelope(0, payload: payload, headers: [("switchyard.original.topic", "payments"), ("switchyard.error.kind", "typeMismatch"), ("switchyard.error.path", "installments")]) + "\n").utf8).write(to: url)
        let shown = try CLI.run(["dlq", "show", "0", "--file", url.path])
        #expect(shown.exitCode == 0, "\(shown.stderr)")
        let installments = try #require(shown.stdoutLines.first { $0.contains(#""installments":"#) })
        #expect(installments.contains(#""installments": <number>"#), "\(installments)")
        let payloadLines = shown.stdoutLines.drop { !$0.hasPrefix("Payload") }
        #expect(payloadLines.count > 5)
        #expect(!payloadLines.contains { $0.range(of: #":\s*-?[0-9]"#, options: .regularExpression) != nil }, "no digit stands for a value: \(shown.stdout)")
        #expect(shown.stdout.contains(#""value": <number>"#))
        let revealed = try CLI.run(["dlq", "show", "0", "--file", url.path, "--reveal"])
        #expect(revealed.stdout.contains(#""installments": 3"#))
    }
}
