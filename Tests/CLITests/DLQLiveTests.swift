import Foundation
import Switchyard
import SwitchyardCatalog
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// `switchyard dlq` against a live dead-letter topic that a real worker filled, on the embedded broker.
@Suite(.serialized, .timeLimit(.minutes(5))) struct DLQLiveTests {
    static let fastKafka = embeddedBrokerKafka

    static func header(_ record: KafkaRecord, _ name: String) -> String? {
        record.headers.last { $0.name == name }?.value.map { String(decoding: $0, as: UTF8.self) }
    }

    static func high(_ broker: EmbeddedBroker, _ topic: String) async throws -> Int64 {
        let kafka = KafkaConfiguration(bootstrapServers: [broker.bootstrapServers], clientID: "probe", logLevel: .error)
        let tp = KafkaTopicPartition(topic: topic, partition: 0)
        return try await KafkaConsumer.watermarks([tp], kafka: kafka)[tp]?.high ?? -1
    }

    static func readAll(_ broker: EmbeddedBroker, _ topic: String, count: Int) async throws -> [KafkaRecord] {
        let consumer = try KafkaConsumer.make(
            configuration: KafkaConsumerConfiguration(
                groupID: unique("reader"), topics: [topic],
                kafka: KafkaConfiguration(bootstrapServers: [broker.bootstrapServers], clientID: "reader", properties: fastKafka, logLevel: .error)),
            logger: NoOpKafkaLogger())
        let records = try await take(count, from: consumer, store: false)
        await consumer.close()
        return records
    }

    @Test func listStatsShowAndRedriveAWorkersDeadLetters() async throws {
        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["feeds": 1, "feeds.dlq": 1])
        let producer = try KafkaProducer.make(
            configuration: KafkaProducerConfiguration(
                kafka: KafkaConfiguration(bootstrapServers: [broker.bootstrapServers], clientID: "fixtures", logLevel: .error)),
            logger: NoOpKafkaLogger())
        let expected = try ReplayCommandTests.expectations(topic: "feeds")
        for e in expected {
            let value = [UInt8](try Data(contentsOf: ReplayCommandTests.fixtures.appendingPathComponent(e.file)))
            _ = try await producer.send(
                KafkaProducerRecord(topic: "feeds", partition: 0, key: Array(e.file.utf8), value: value, headers: [KafkaHeader(name: "trace", string: "t-\(e.file)")]))
        }
        let failing = expected.filter { $0.outcome == "failed" }
        let config = WorkerConfiguration(
            bootstrapServers: broker.bootstrapServerList, groupID: unique("feeds-workers"),
            topics: ["feeds": TopicConfiguration(catalog: .feeds, deadLetterTopic: "feeds.dlq")],
            metrics: MetricsConfiguration(host: "127.0.0.1", port: 0), shutdownTimeout: .seconds(10), kafka: Self.fastKafka)
        let worker = try Worker(configuration: config, logger: SwitchyardLogger(handler: InMemoryLogHandler(), level: .error), kafkaLogLevel: .error)
        let running = Task { try await worker.run() }
        defer { worker.stop() }
        try await eventually(.seconds(90), "the worker dead-lettered every failing fixture") {
            try await Self.high(broker, "feeds.dlq") == Int64(failing.count)
        }
        let source = ["--brokers", broker.bootstrapServers, "--topic", "feeds.dlq"]

        // stats: what broke.
        let stats = try await CLI.runOffPool(["dlq", "stats", "--json"] + source)
        #expect(stats.exitCode == 0, "\(stats.stderr)")
        let summary = try ReplayCommandTests.object(stats.stdout)
        #expect(summary["records"] as? Int == failing.count)
        let groups = try #require(summary["groups"] as? [[String: Any]])
        for e in failing {
            #expect(groups.contains { $0["kind"] as? String == e.kind && $0["path"] as? String == e.path && $0["type"] as? String == e.type }, "\(e.file)")
        }
        let humanStats = try await CLI.runOffPool(["dlq", "stats"] + source)
        #expect(humanStats.stdout.hasPrefix("\(failing.count) dead letter(s) in feeds.dlq"))

        // list: a table, and JSON lines.
        let list = try await CLI.runOffPool(["dlq", "list"] + source)
        #expect(list.exitCode == 0 && list.stdoutLines.first?.hasPrefix("DEAD LETTER") == true, "\(list.stdout)\(list.stderr)")
        for e in failing { #expect(list.stdoutLines.contains { $0.contains(e.kind!) && $0.contains(e.path!) && $0.contains("feeds/0@") }) }
        let lines = try await CLI.runOffPool(["dlq", "list", "--json"] + source).stdoutLines.map(ReplayCommandTests.object)
        let missingUser = try #require(failing.first { $0.file == "fail-missing-user-id.json" })
        let entry = try #require(lines.first { $0["kind"] as? String == missingUser.kind && $0["path"] as? String == missingUser.path })
        let offset = try #require(entry["dlqOffset"] as? Int)

        // show: redacted by default, revealed on request.
        let fixture = try String(contentsOf: ReplayCommandTests.fixtures.appendingPathComponent(missingUser.file), encoding: .utf8)
        let postId = String(try #require(fixture.firstMatch(of: /"postId"\s*:\s*"([^"]+)"/)?.1))
        let shown = try await CLI.runOffPool(["dlq", "show", String(offset)] + source)
        #expect(shown.exitCode == 0)
        #expect(shown.stdout.contains("keyNotFound at 'userId' in post.liked"))
        #expect(shown.stdout.contains("trace") && shown.stdout.contains("switchyard.consumer.group"))
        #expect(!shown.stdout.contains(postId), "redacted")
        #expect(shown.stdoutLines.contains { $0.contains("◀ keyNotFound at 'userId'") })
        let revealed = try await CLI.runOffPool(["dlq", "show", String(offset), "--reveal"] + source)
        #expect(revealed.stdout.contains(postId))
        // Named as list names it (the location), with the topic taken from it: only that record is fetched.
        let location = try #require(entry["location"] as? String)
        #expect(location == "feeds.dlq/0@\(offset)")
        let byLocation = try await CLI.runOffPool(["dlq", "show", location, "--brokers", broker.bootstrapServers])
        #expect(byLocation.exitCode == 0 && byLocation.stdout.hasPrefix("Dead letter \(location)"), "\(byLocation.stdout)\(byLocation.stderr)")
        #expect(byLocation.stdout.contains("keyNotFound at 'userId' in post.liked"))
        let beyond = try await CLI.runOffPool(["dlq", "show", "feeds.dlq/0@999", "--brokers", broker.bootstrapServers])
        #expect(beyond.exitCode == 1 && beyond.stderr.hasPrefix("error: no dead letter at feeds.dlq/0@999"), "\(beyond.stderr)")

        // redrive: a dry run sends nothing.
        let before = try await Self.high(broker, "feeds")
        let dry = try await CLI.runOffPool(["dlq", "redrive"] + source)
        #expect(dry.exitCode == 1 && dry.stdout.contains("DRY RUN: 0 record(s) would be redriven, \(failing.count) refused"), "\(dry.stdout)\(dry.stderr)")
        #expect(try await Self.high(broker, "feeds") == before)

        // --execute: back to the original topic, count incremented, diagnosis dropped, the rest kept.
        // They still fail with this build: refused, unless forced.
        let journal = temporaryFile("redrive.jsonl")
        defer { try? FileManager.default.removeItem(at: journal) }
        let refused = try await CLI.runOffPool(["dlq", "redrive", "--execute", "--journal", journal.path] + source)
        #expect(refused.exitCode == 1 && refused.stdout.contains("sent 0 record(s)"), "\(refused.stdout)\(refused.stderr)")
        #expect(try await Self.high(broker, "feeds") == before)
        let executed = try await CLI.runOffPool(["dlq", "redrive", "--execute", "--force", "--journal", journal.path, "--max-redrives", "1"] + source)
        #expect(executed.exitCode == 0, "\(executed.stdout)\(executed.stderr)")
        #expect(executed.stdout.contains("sent \(failing.count) record(s)"))
        #expect(try await Self.high(broker, "feeds") == before + Int64(failing.count))
        let all = try await Self.readAll(broker, "feeds", count: Int(before) + failing.count)
        let redriven = all.filter { $0.offset >= before }
        #expect(redriven.count == failing.count)
        for r in redriven {
            #expect(Self.header(r, "switchyard.redrive.count") == "1")
            #expect(Self.header(r, "switchyard.error.kind") == nil && Self.header(r, "switchyard.original.topic") == nil)
            let file = String(decoding: r.key ?? [], as: UTF8.self)
            #expect(Self.header(r, "trace") == "t-\(file)", "original headers kept")
            #expect(r.value == [UInt8](try Data(contentsOf: ReplayCommandTests.fixtures.appendingPathComponent(file))), "value unchanged")
        }

        // They still fail: the worker dead-letters them again, keeping the count; a second redrive refuses them.
        try await eventually(.seconds(90), "the redriven records dead-lettered again") {
            try await Self.high(broker, "feeds.dlq") == Int64(2 * failing.count)
        }
        // The worker kept the link to the dead letter each came from.
        let relisted = try await CLI.runOffPool(["dlq", "list", "--json", "--from", String(failing.count)] + source).stdoutLines.map(ReplayCommandTests.object)
        #expect(relisted.count == failing.count && relisted.allSatisfy { ($0["redriveOf"] as? String)?.hasPrefix("feeds.dlq/0@") == true }, "\(relisted)")
        // Without the journal, the links alone say the first dead letters went already; the new ones are at the limit.
        let again = try await CLI.runOffPool(["dlq", "redrive", "--execute", "--force", "--max-redrives", "1", "--json", "--journal", temporaryFile("none").path] + source)
        #expect(again.exitCode == 1, "refused records: exit 1; \(again.stderr)")
        let actions = try again.stdoutLines.map(ReplayCommandTests.object)
        #expect(actions.filter { $0["action"] as? String == "skipped" }.count == failing.count, "\(again.stdout)")
        #expect(actions.filter { $0["action"] as? String == "refused" && $0["redriveCount"] as? Int == 1 }.count == failing.count)
        #expect(try await Self.high(broker, "feeds") == before + Int64(failing.count), "nothing sent")

        worker.stop()
        try await withDeadline(.seconds(30), "worker stop") { try await running.value }
        await producer.close()
    }
}
