import Foundation
import Switchyard
import SwitchyardCatalog
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// `switchyard consume` as a process, against the embedded broker over TCP: exit codes, SIGTERM
/// drain, SIGKILL and restart, a real Prometheus scrape.
@Suite(.serialized, .timeLimit(.minutes(6)))
struct ConsumeProcessTests {
    /// Writes a worker config for `harness` and returns its path and metrics port.
    static func writeConfig(_ harness: Harness, topics: [String: [String: String]], deadLetterLogsPerSecond: Int? = nil) throws -> (path: String, port: Int) {
        let port = freePort()
        var topicsJSON = JSONObject()
        for (name, settings) in topics.sorted(by: { $0.key < $1.key }) {
            var t = JSONObject()
            for (k, v) in settings.sorted(by: { $0.key < $1.key }) { t.set(k, v) }
            topicsJSON.set(name, t)
        }
        var kafka = JSONObject()
        for (k, v) in Harness.fastKafka.sorted(by: { $0.key < $1.key }) { kafka.set(k, v) }
        var config = JSONObject()
        config.set("brokers", harness.broker.bootstrapServers)
        config.set("groupId", harness.group)
        config.set("topics", topicsJSON)
        var metrics = JSONObject()
        metrics.set("host", "127.0.0.1")
        metrics.set("port", port)
        metrics.set("maxTypeLabels", 50)
        config.set("metrics", metrics)
        config.set("shutdownTimeoutSeconds", 15)
        if let deadLetterLogsPerSecond { config.set("deadLetterLogsPerSecond", deadLetterLogsPerSecond) }
        config.set("kafka", kafka)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-\(UUID().uuidString).json").path
        try Data(config.bytes).write(to: URL(fileURLWithPath: path))
        return (path, port)
    }

    static func metric(_ port: Int, _ line: String) async -> Int? {
        guard let (status, body) = await httpGet(port: port, "/metrics"), status == 200 else { return nil }
        for l in body.split(separator: "\n") where l.hasPrefix(line + " ") {
            return Int(Double(l.split(separator: " ").last!) ?? -1)
        }
        return nil
    }

    @Test func exitCodesForBadConfigurationAndUnreachableBrokers() async throws {
        let missing = try ChildProcess(["consume", "--config", "/nonexistent.json"])
        #expect(try await missing.waitForExit() == 78)
        #expect(missing.stderr.contains("/nonexistent.json"))

        let typo = FileManager.default.temporaryDirectory.appendingPathComponent("typo-\(UUID().uuidString).json")
        try Data(#"{"brokers":"127.0.0.1:1","groupId":"g","topics":{"feeds":{"catalog":"feeds","polcy":"lenient"}}}"#.utf8).write(to: typo)
        let bad = try ChildProcess(["consume", "--config", typo.path])
        #expect(try await bad.waitForExit() == 78)
        #expect(bad.stderr.contains("topics.feeds.polcy: unknown key; did you mean 'policy'?"))

        let unreachable = FileManager.default.temporaryDirectory.appendingPathComponent("unreachable-\(UUID().uuidString).json")
        try Data(#"{"brokers":"127.0.0.1:1","groupId":"g","topics":{"feeds":{"catalog":"feeds"}},"metrics":{"host":"127.0.0.1","port":0}}"#.utf8).write(to: unreachable)
        let down = try ChildProcess(["consume", "--config", unreachable.path])
        #expect(try await down.waitForExit(within: .seconds(40)) == 69)
        #expect(down.stderr.contains("error: cannot reach 127.0.0.1:1") && down.stderr.contains("Connection refused"), "the cause, at once")

        let usage = try ChildProcess(["consume"])
        #expect(try await usage.waitForExit() == 64)
    }

    @Test func sigtermDrainsCommitsAndPrometheusScrapesFailuresByKind() async throws {
        let harness = try Harness(topics: ["feeds": 2, "feeds.dlq": 1])
        let fixtures = try WorkerTests.expectations("feeds")
        for e in fixtures { try await harness.produce("feeds", partition: 0, value: Harness.fixture(e.file)) }
        let (config, port) = try Self.writeConfig(harness, topics: ["feeds": ["catalog": "feeds", "policy": "lenient"]])
        let worker = try ChildProcess(["consume", "--config", config])
        try await eventually(.seconds(60), "ready") { await httpGet(port: port, "/readyz")?.status == 200 }
        try await eventually(.seconds(60), "all records handled") {
            await Self.metric(port, #"switchyard_records_total{topic="feeds"}"#) == fixtures.count
        }
        let status = try #require(await httpGet(port: port, "/status"))
        #expect(status.status == 200 && status.body.contains(#""phase":"running""#))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(status.body.utf8)) as? [String: Any])
        #expect((document["assignment"] as? [[String: Any]])?.isEmpty == false)
        #expect((document["halted"] as? [Any])?.isEmpty == true)
        #expect(document["group"] as? String == harness.group)

        // A real Prometheus scrapes the worker; its query API has the failure series by kind.
        let prometheus = try PrometheusServer(target: port)
        defer { prometheus.stop() }
        let kinds = Set(fixtures.filter { $0.outcome == "failed" }.compactMap(\.kind))
        var answered: Set<String> = []
        try await eventually(.seconds(90), "Prometheus returns the decode failures by kind") {
            answered = try await prometheus.labelValues(query: #"sum by (kind) (switchyard_decode_failures_total{topic="feeds"})"#, label: "kind")
            return answered == kinds
        }

        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit(within: .seconds(30)) == 0)
        #expect(worker.stderr.contains(#""msg":"worker stopped""#))
        let committed = try await harness.committed([KafkaTopicPartition(topic: "feeds", partition: 0)])
        #expect(committed[KafkaTopicPartition(topic: "feeds", partition: 0)] == Int64(fixtures.count))
    }

    /// A flood of dead letters writes a burst of `record dead-lettered` warnings, then summary lines that count
    /// the rest by kind: every dead letter is in a warning or a summary, and in the metric.
    @Test func deadLetterWarningsAreRateLimitedAndEveryOneCounted() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1])
        let count = 40
        for i in 0..<count { try await harness.produce("feeds", partition: 0, value: Array("not json \(i)".utf8)) }
        let (config, port) = try Self.writeConfig(harness, topics: ["feeds": ["catalog": "feeds", "policy": "lenient"]], deadLetterLogsPerSecond: 1)
        let worker = try ChildProcess(["consume", "--config", config])
        try await eventually(.seconds(60), "every dead letter acknowledged") {
            await Self.metric(port, #"switchyard_dead_letters_total{topic="feeds",kind="dataCorrupted"}"#) == count
        }
        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit(within: .seconds(30)) == 0)
        var warnings = 0
        var suppressed = 0
        for line in worker.stderr.split(separator: "\n") {
            guard let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String] else { continue }
            switch entry["msg"] {
            case "record dead-lettered":
                warnings += 1
            case "dead-letter warnings suppressed":
                suppressed += Int(entry["log.suppressed"] ?? "") ?? -1000
                #expect(entry["log.suppressed_by_kind"] == "dataCorrupted=\(entry["log.suppressed"] ?? "")")
                #expect(entry["log.limit_per_second"] == "1")
            default:
                break
            }
        }
        // A burst of ten seconds' worth (10), a line a second after it.
        #expect(warnings >= 10 && warnings < count, "\(warnings) warnings")
        #expect(warnings + suppressed == count, "\(warnings) warnings + \(suppressed) suppressed")
    }

    /// Dead letters are produced without waiting for each other, so many can be in flight. A
    /// SIGKILL then must find nothing committed past the first record whose dead letter was not acknowledged.
    @Test func sigkillWithDeadLettersInFlightCommitsNothingPastTheFirstUnacknowledgedOne() async throws {
        // The DLQ's leader is a second broker, down from the start: every dead letter waits in the producer.
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1], brokers: 2)
        try harness.broker.setPartitionLeader(topic: "feeds", partition: 0, broker: 1)
        try harness.broker.setPartitionLeader(topic: "feeds.dlq", partition: 0, broker: 2)
        try harness.broker.setGroupCoordinator(group: harness.group, broker: 1)
        let good = try Harness.fixture("post-liked-v2.json")
        let bad = try Harness.fixture("fail-missing-user-id.json")
        let total = 2_000
        let firstBad = 20
        let isBad = { (i: Int) in i >= firstBad && i % 4 == 0 }
        for i in 0..<total {
            try await harness.produce("feeds", partition: 0, value: isBad(i) ? bad : good, key: "k-\(i)")
        }
        let badCount = (0..<total).filter(isBad).count
        try harness.broker.setBrokerDown(2)
        let tp = KafkaTopicPartition(topic: "feeds", partition: 0)
        let (config, port) = try Self.writeConfig(harness, topics: ["feeds": ["catalog": "feeds"]])
        let first = try ChildProcess(["consume", "--config", config])
        try await eventually(.seconds(90), "every record read") {
            (await Self.metric(port, #"switchyard_records_total{topic="feeds"}"#) ?? 0) == total
        }
        // Several commit intervals (500 ms here) pass with every record read and every dead letter waiting.
        try await eventually(.seconds(30), "the good records before the first bad one committed") {
            (try await harness.committed([tp])[tp] ?? 0) == Int64(firstBad)
        }
        try await Task.sleep(for: .seconds(2))
        #expect((await Self.metric(port, #"switchyard_dead_letters_total{topic="feeds",kind="keyNotFound"}"#) ?? 0) == 0)
        first.signal(SIGKILL)
        _ = try await first.waitForExit()
        // Exactly up to the first record whose outcome is not durable: not one past it.
        #expect(try await harness.committed([tp])[tp] == Int64(firstBad))

        // Nothing is lost: with the DLQ's broker back, a new worker reads from there and every bad record is
        // dead-lettered (those after the first bad one perhaps twice: at-least-once).
        try harness.broker.setBrokerUp(2)
        let second = try ChildProcess(["consume", "--config", config])
        defer { second.signal(SIGTERM) }
        let dead = try await harness.readAll("feeds.dlq", count: badCount, within: .seconds(120))
        let offsets = Set(dead.compactMap { record in
            record.headers.first { $0.name == DeadLetterHeaders.originalOffset }?.value.flatMap { Int(String(decoding: $0, as: UTF8.self)) }
        })
        #expect(offsets == Set((0..<total).filter(isBad)))
        try await eventually(.seconds(60), "the second worker commits everything") {
            (try await harness.committed([tp])[tp] ?? 0) == Int64(total)
        }
    }

    @Test func sigkillMidStreamAndRestartLosesNothing() async throws {
        let harness = try Harness(topics: ["feeds": 3, "feeds.dlq": 1, "feeds.out": 3])
        var generator = CorpusGenerator(seed: 99)
        let total = 3_000
        var keys: Set<String> = []
        for i in 0..<total {
            let key = "rec-\(i)"
            keys.insert(key)
            _ = try await harness.producer.send(
                KafkaProducerRecord(topic: "feeds", partition: Int32(i % 3), key: Array(key.utf8), value: generator.next(.feeds).value))
        }
        let (config, port) = try Self.writeConfig(harness, topics: ["feeds": ["catalog": "feeds", "republishTo": "feeds.out"]])
        let first = try ChildProcess(["consume", "--config", config])
        try await eventually(.seconds(90), "some records handled") {
            (await Self.metric(port, #"switchyard_records_total{topic="feeds"}"#) ?? 0) > 300
        }
        first.signal(SIGKILL)
        _ = try await first.waitForExit()
        let second = try ChildProcess(["consume", "--config", config])
        defer { second.signal(SIGTERM) }
        // Every produced record ends up republished or dead-lettered (by key), at least once.
        let out = try await harness.readAll("feeds.out", count: 1, within: .seconds(90))
        #expect(!out.isEmpty)
        let reader = try KafkaConsumer.make(
            configuration: KafkaConsumerConfiguration(
                groupID: unique("verify"), topics: ["feeds.out", "feeds.dlq"],
                kafka: KafkaConfiguration(bootstrapServers: [harness.broker.bootstrapServers], properties: Harness.fastKafka, logLevel: .error)),
            logger: NoOpKafkaLogger())
        let expected = keys
        let seen = try await withDeadline(.seconds(180), "every key republished or dead-lettered") {
            var seen: Set<String> = []
            for try await record in reader.records {
                if let key = record.key { seen.insert(String(decoding: key, as: UTF8.self)) }
                if seen.isSuperset(of: expected) { break }
            }
            return seen
        }
        await reader.close()
        #expect(keys.subtracting(seen).isEmpty, "lost: \(keys.subtracting(seen).sorted().prefix(10))")
        second.signal(SIGTERM)
        #expect(try await second.waitForExit(within: .seconds(30)) == 0)
    }
}
