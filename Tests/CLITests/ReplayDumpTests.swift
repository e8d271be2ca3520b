import Foundation
import SwitchyardTestSupport
import Testing

/// `replay` over real dumps: captured by kcat from `switchyard broker`, gzip, a worker config, republishing.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ReplayDumpTests {
    /// Outcome fields of `--records` lines, without position.
    static func outcomes(_ result: CLI.Result) throws -> [[String: String]] {
        try result.stdoutLines.map { line in
            let o = try ReplayCommandTests.object(line)
            var fields: [String: String] = [:]
            for key in ["outcome", "type", "kind", "path"] { if let v = o[key] as? String { fields[key] = v } }
            return fields
        }
    }

    @Test func kcatCapturedDumpReplaysLikeTheNDJSONItCameFrom() async throws {
        let kcat = try kcatPath()
        let broker = try await BrokerProcess.start(["--topic", "payments:1", "--topic", "feeds:1", "--topic", "feeds.out:1"])
        defer { broker.stop() }
        for topic in ["payments", "feeds"] {
            let (ndjson, expected) = try ReplayCommandTests.ndjson(topic: topic)
            let dump = temporaryFile("\(topic).kcat")
            defer {
                try? FileManager.default.removeItem(at: ndjson)
                try? FileManager.default.removeItem(at: dump)
            }
            let produced = try await runTool(kcat, ["-b", broker.bootstrap, "-P", "-t", topic, "-p", "0"], input: ndjson)
            #expect(produced.status == 0, "kcat -P: \(produced.stderr)")
            let captured = try await runTool(
                kcat, ["-b", broker.bootstrap, "-C", "-J", "-e", "-o", "beginning", "-t", topic], output: dump)
            #expect(captured.status == 0, "kcat -C: \(captured.stderr)")

            let fromNDJSON = try await CLI.runOffPool(["replay", "--topic", topic, "--records", ndjson.path])
            let fromDump = try await CLI.runOffPool(["replay", "--records", dump.path])  // the envelopes name the topic
            #expect(fromDump.stdoutLines.count == expected.count, "\(fromDump.stderr)")
            #expect(try Self.outcomes(fromDump) == Self.outcomes(fromNDJSON), "\(topic): same per-record outcomes")
            #expect(fromDump.exitCode == fromNDJSON.exitCode)
            for (i, line) in fromDump.stdoutLines.enumerated() {
                let o = try ReplayCommandTests.object(line)
                #expect(o["partition"] as? Int == 0 && o["offset"] as? Int == i, "kcat positions are reported")
            }
        }

        // --republish sends what --emit prints, in order, to --to.
        let (ndjson, expected) = try ReplayCommandTests.ndjson(topic: "feeds")
        defer { try? FileManager.default.removeItem(at: ndjson) }
        let emitted = try await CLI.runOffPool(["replay", "--topic", "feeds", "--emit", ndjson.path])
        let republished = try await CLI.runOffPool([
            "replay", "--topic", "feeds", "--json", "--republish", "--brokers", broker.bootstrap, "--to", "feeds.out", "--rate", "200/s",
            ndjson.path,
        ])
        #expect(republished.exitCode == 0, "\(republished.stderr)")
        let sendable = expected.filter { $0.outcome != "failed" }.count
        #expect(republished.stderr.contains("republished \(sendable) record(s)"))
        let out = temporaryFile("feeds.out.kcat")
        defer { try? FileManager.default.removeItem(at: out) }
        _ = try await runTool(kcat, ["-b", broker.bootstrap, "-C", "-J", "-e", "-o", "beginning", "-t", "feeds.out"], output: out)
        let payloads = try String(contentsOf: out, encoding: .utf8).split(separator: "\n").map { line in
            try #require(try ReplayCommandTests.object(String(line))["payload"] as? String)
        }
        #expect(payloads == emitted.stdoutLines)
    }

    @Test func gzipFilesAndStandardInputReadLikePlainOnes() throws {
        let (ndjson, _) = try ReplayCommandTests.ndjson(topic: "feeds")
        let gz = URL(fileURLWithPath: ndjson.path + ".gz")
        defer {
            try? FileManager.default.removeItem(at: ndjson)
            try? FileManager.default.removeItem(at: gz)
        }
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gzip.arguments = ["-c", "gzip -c '\(ndjson.path)' > '\(gz.path)'"]
        try gzip.run()
        gzip.waitUntilExit()
        let plain = try CLI.run(["replay", "--topic", "feeds", "--json", ndjson.path])
        let fromFile = try CLI.run(["replay", "--topic", "feeds", "--json", gz.path])
        let fromStdin = try CLI.run(["replay", "--topic", "feeds", "--json"], stdin: try Data(contentsOf: gz))
        #expect(plain.exitCode == 0 && fromFile.exitCode == 0 && fromStdin.exitCode == 0, "\(fromFile.stderr) \(fromStdin.stderr)")
        #expect(fromFile.stdout == plain.stdout)
        #expect(fromStdin.stdout == plain.stdout)

        // Truncated and corrupted gzip: exit 65 with the file and line.
        let compressed = try Data(contentsOf: gz)
        let truncated = try CLI.run(["replay", "--topic", "feeds", "--json"], stdin: compressed.prefix(compressed.count - 20))
        #expect(truncated.exitCode == 65 && truncated.stderr.contains("-:") && truncated.stderr.contains("gzip"), "\(truncated.stderr)")
        var corrupt = compressed
        for i in stride(from: compressed.count / 2, to: compressed.count / 2 + 8, by: 1) { corrupt[i] ^= 0xA5 }
        let corrupted = try CLI.run(["replay", "--topic", "feeds", "--json"], stdin: corrupt)
        #expect(corrupted.exitCode == 65 && corrupted.stderr.contains("gzip"), "\(corrupted.stderr)")
        #expect(corrupted.stderr.range(of: #"-:\d+: "#, options: .regularExpression) != nil, "names the line: \(corrupted.stderr)")
    }

    @Test func configMapsDumpTopicsToCatalogsAndPolicies() throws {
        let config = temporaryFile("config.json")
        defer { try? FileManager.default.removeItem(at: config) }
        try Data(#"{"brokers":"localhost:9092","groupId":"g","topics":{"prod.payments":{"catalog":"payments","policy":"lenient"}}}"#.utf8).write(to: config)
        let bad = try String(contentsOf: ReplayCommandTests.fixtures.appendingPathComponent("fail-missing-id.json"), encoding: .utf8)
        var envelope = [String: Any]()
        envelope["topic"] = "prod.payments"
        envelope["partition"] = 1
        envelope["offset"] = 7
        envelope["payload"] = bad
        let line = String(decoding: try JSONSerialization.data(withJSONObject: envelope), as: UTF8.self) + "\n"
        let replayed = try CLI.run(["replay", "--config", config.path, "--records"], stdin: Data(line.utf8))
        #expect(replayed.exitCode == 0, "lenient per the config: no findings; \(replayed.stderr)")
        #expect(replayed.stdout.contains(#""outcome":"failed""#))
        let human = try CLI.run(["replay", "--config", config.path], stdin: Data(line.utf8))
        #expect(human.stdout.contains("prod.payments/1@7"), "the example location of the failure group")
        let noCatalog = try CLI.run(["replay", "--records"], stdin: Data(line.utf8))
        #expect(noCatalog.exitCode == 64 && noCatalog.stderr.contains("--config"))
        let badConfig = try CLI.run(["replay", "--config", "/nonexistent/config.json"], stdin: Data(line.utf8))
        #expect(badConfig.exitCode == 78)
        let usage = try CLI.run(["replay", "--republish", "--topic", "feeds"])
        #expect(usage.exitCode == 64 && usage.stderr.contains("--brokers"))
        let unreachable = try CLI.run(
            ["replay", "--topic", "feeds", "--republish", "--brokers", "127.0.0.1:1", "--to", "x", "--connect-timeout", "1"], stdin: Data())
        #expect(unreachable.exitCode == 69, "\(unreachable.stderr)")
    }
}
