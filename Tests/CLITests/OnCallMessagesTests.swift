import Foundation
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// Messages that send people the right way: what was meant, in plain words.
@Suite(.serialized, .timeLimit(.minutes(3))) struct OnCallMessagesTests {
    @Test func filterListsAndTimesWithoutAZone() throws {
        let both = try CLI.run(["dlq", "list", "--file", OnCallTests.feedsDLQ, "--kind", "keyNotFound,typeMismatch", "--json"])
        #expect(both.exitCode == 0, "--kind takes a list, as --fail-on does: \(both.stderr)")
        let kinds = Set(try both.stdoutLines.map { try ReplayCommandTests.object($0)["kind"] as? String })
        #expect(kinds == ["keyNotFound", "typeMismatch"], "\(both.stdout)")
        let wrong = try CLI.run(["dlq", "list", "--file", OnCallTests.feedsDLQ, "--kind", "keyNotFound,typemismatch"])
        #expect(wrong.exitCode == 64 && wrong.stderr.contains("not 'typemismatch' (did you mean 'typeMismatch'?)"), "\(wrong.stderr)")

        let noZone = try CLI.run(["dlq", "list", "--file", OnCallTests.feedsDLQ, "--since", "2026-12-01T21:00:00"])
        #expect(noZone.exitCode == 64)
        #expect(
            noZone.stderr.hasPrefix("error: --since 2026-12-01T21:00:00 has no time zone: add Z for UTC or an offset, like 2026-12-01T21:00:00Z or 2026-12-01T21:00:00+01:00"),
            "\(noZone.stderr)")
        let dateOnly = try CLI.run(["replay", "-b", "127.0.0.1:1", "-t", "payments", "--since", "2026-12-01"])
        #expect(dateOnly.exitCode == 64 && dateOnly.stderr.hasPrefix("error: --since 2026-12-01 has no time and no time zone"), "\(dateOnly.stderr)")
    }

    @Test func replayReadsADeadLetterDumpAsItsOriginalTopicAndSaysWhenItStartsPastTheEnd() async throws {
        let dump = try CLI.run(["replay", "--records", OnCallTests.feedsDLQ])
        #expect(dump.exitCode == 0, "feeds is lenient: \(dump.stderr)")
        let lines = try dump.stdoutLines.map(ReplayCommandTests.object)
        #expect(lines.count == 4 && lines.allSatisfy { $0["outcome"] as? String == "failed" }, "\(dump.stdout)")
        #expect(lines.first?["kind"] as? String == "keyNotFound" && lines.first?["path"] as? String == "userId", "decoded as feeds records")

        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["payments": 1])
        let producer = try DLQFollowTests.producer(broker)
        for _ in 0..<2 {
            _ = try await producer.send(KafkaProducerRecord(topic: "payments", partition: 0, key: nil, value: try DLQRedriveTests.payload("payment-captured-v2.json")))
        }
        await producer.close()
        let past = try await CLI.runOffPool(["replay", "-b", broker.bootstrapServers, "-t", "payments", "--from-offset", "5"])
        #expect(past.stderr.contains("warning: --from-offset 5 is past the end of payments/0 (it holds offsets 0…1): nothing to read there"), "\(past.stderr)")
    }

    @Test func consumeWithTheBrokerDownSaysWhyAtOnce() throws {
        let config = temporaryFile("worker.json")
        defer { try? FileManager.default.removeItem(at: config) }
        let port = freePort()
        try Data(#"{"brokers":"127.0.0.1:\#(port)","groupId":"g","topics":{"feeds":{"catalog":"feeds"}},"metrics":{"host":"127.0.0.1","port":0}}"#.utf8).write(to: config)
        let start = ContinuousClock.now
        let result = try CLI.run(["consume", "-c", config.path])
        #expect(result.exitCode == 69, "\(result.stderr)")
        #expect(result.stderr.contains("error: cannot reach 127.0.0.1:\(port)") && result.stderr.contains("Connection refused"), "\(result.stderr)")
        #expect(ContinuousClock.now - start < .seconds(5), "at once, not after 10 s")
    }

    @Test func switchyardBrokersStandsForDashB() async throws {
        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["payments": 2, "payments.dlq": 1, "switchyard.control": 1])
        try await ReleaseCheckTests.halt(broker, group: "payments-workers")
        var environment = ProcessInfo.processInfo.environment
        environment["SWITCHYARD_BROKERS"] = broker.bootstrapServers
        let stats = try await CLI.runOffPool(["dlq", "stats", "-t", "payments.dlq", "--json"], environment: environment)
        #expect(stats.exitCode == 0, "\(stats.stderr)")
        #expect(try ReplayCommandTests.object(stats.stdout)["records"] as? Int == 1)
        let replay = try await CLI.runOffPool(["replay", "-t", "payments", "--partition", "1", "-o", "json"], environment: environment)
        #expect(replay.exitCode == 1, "a live read of the failing record: \(replay.stderr)")
        #expect(try ReplayCommandTests.object(replay.stdout)["records"] as? Int == 1)
        let release = try await CLI.runOffPool(["release", "--group", "payments-workers", "payments/1@20", "--reason", "x", "--operator", "ana"], environment: environment)
        #expect(release.exitCode == 0, "\(release.stderr)")
    }

    @Test func aJournalThatCannotBeReadSaysWhyInPlainWords() throws {
        let result = try CLI.run(["dlq", "redrive", "--file", OnCallTests.feedsDLQ, "--journal", "/tmp"])
        #expect(result.exitCode == 65, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("error: cannot read the redrive journal /tmp: is a directory"), "\(result.stderr)")
        #expect(!result.stderr.contains("Error Domain") && !result.stderr.contains("could not be completed"))
        for (config, reason) in [("/nonexistent.json", "no such file or directory"), ("/tmp", "is a directory")] {
            let loaded = try CLI.run(["dlq", "list", "-c", config, "-t", "feeds.dlq"])
            #expect(loaded.exitCode == 78)
            #expect(loaded.stderr.hasPrefix("error: \(config): cannot read \(config): \(reason)\n"), "\(loaded.stderr)")
        }
    }

    @Test func theBrokerSideMistakesNameWhatWasMeant() async throws {
        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["payments": 2, "payments.dlq": 1, "feeds.dlq": 1, "switchyard.control": 1])
        try await ReleaseCheckTests.halt(broker, group: "payments-workers")
        let b = broker.bootstrapServers

        // A dead letter's location, as dlq list prints it, given to release: the record it is the dead letter of.
        let dlqLocation = try await CLI.runOffPool(["release", "-b", b, "--group", "payments-workers", "payments.dlq/0@0", "--reason", "x", "--operator", "ana"])
        #expect(dlqLocation.exitCode == 64, "\(dlqLocation.stdout)\(dlqLocation.stderr)")
        #expect(
            ReleaseRefusalTests.firstLine(dlqLocation.stderr)
                == "error: payments.dlq/0@0 is a dead letter, not a halted record: it is the dead letter of payments/1@20; release that (did you mean 'payments/1@20'?)",
            "\(dlqLocation.stderr)")

        // A --status URL that is not the worker's /status: the right endpoint, not --force.
        let port = freePort()
        let status = try await CLI.runOffPool([
            "release", "-b", b, "--group", "payments-workers", "payments/1@20", "--reason", "x", "--operator", "ana", "--status",
            "http://127.0.0.1:\(port)/metrics",
        ])
        #expect(status.exitCode == 65, "\(status.stderr)")
        #expect(status.stderr.contains("(a worker's status is at http://127.0.0.1:\(port)/status)") && !status.stderr.contains("--force"), "\(status.stderr)")

        // dlq: a misspelt topic, and a config without --topic.
        let misspelt = try await CLI.runOffPool(["dlq", "list", "-b", b, "-t", "payments.dql"])
        #expect(misspelt.exitCode == 65 && misspelt.stderr.contains("(did you mean 'payments.dlq'?)"), "\(misspelt.stderr)")
        let config = temporaryFile("worker.json")
        defer { try? FileManager.default.removeItem(at: config) }
        try Data(#"{"brokers":"\#(b)","groupId":"g","topics":{"payments":{"catalog":"payments"},"feeds":{"catalog":"feeds"}}}"#.utf8).write(to: config)
        let noTopic = try await CLI.runOffPool(["dlq", "stats", "-c", config.path])
        #expect(noTopic.exitCode == 64)
        #expect(noTopic.stderr.hasPrefix("error: --topic names the dead-letter topic: \(config.path) has feeds.dlq, payments.dlq"), "\(noTopic.stderr)")
    }
}
