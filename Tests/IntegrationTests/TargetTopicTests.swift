import Foundation
import Switchyard
import SwitchyardCatalog
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// Dead-letter and republish topics that are missing or forbidden: refused at start (exit 78, naming the topic
/// and its configuration key); at run time the partition halts visibly (`/status`, the halted gauge, `/readyz`)
/// with a few log lines, and goes on by itself once the topic can be written again.
@Suite(.serialized, .timeLimit(.minutes(4)))
struct TargetTopicTests {
    static let good = try! Harness.fixture("post-liked-v2.json")
    static let bad = try! Harness.fixture("fail-missing-user-id.json")

    /// Runs `switchyard consume` on `topics` and returns its exit status (nil: still running after 30 s, killed)
    /// and its standard error.
    static func start(_ harness: Harness, topics: [String: [String: String]]) async throws -> (status: Int32?, stderr: String) {
        let (config, _) = try DeliveryGuaranteeTests.writeConfig(harness, topics: topics)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let worker = try ChildProcess(["consume", "--config", config])
        let status = try? await worker.waitForExit(within: .seconds(30))
        if status == nil { worker.signal(SIGKILL) }
        return (status, worker.stderr)
    }

    @Test func aMissingOrForbiddenTargetTopicIsRefusedAtStartWithExit78() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1])
        let missing = try await Self.start(harness, topics: ["feeds": ["catalog": "feeds", "republishTo": "feeds.out"]])
        #expect(missing.status == 78, "\(missing.stderr.suffix(600))")
        #expect(missing.stderr.contains("republish topic 'feeds.out' (topics.feeds.republishTo) does not exist"), "\(missing.stderr.suffix(600))")

        harness.broker.setTopicError("feeds.dlq", .topicAuthorizationFailed)
        let forbidden = try await Self.start(harness, topics: ["feeds": ["catalog": "feeds"]])
        #expect(forbidden.status == 78, "\(forbidden.stderr.suffix(600))")
        #expect(
            forbidden.stderr.contains("dead-letter topic 'feeds.dlq' (topics.feeds.deadLetterTopic) cannot be used: TOPIC_AUTHORIZATION_FAILED"),
            "\(forbidden.stderr.suffix(600))")

        // Checked before anything is consumed: nothing was committed, and the missing topic was not created.
        let tp = KafkaTopicPartition(topic: "feeds", partition: 0)
        try await harness.produce("feeds", partition: 0, value: Self.good)
        #expect(try await harness.committed([tp])[tp] == nil)
        let metadata = try await KafkaCluster.metadata(kafka: KafkaConfiguration(bootstrapServers: [harness.broker.bootstrapServers], logLevel: .error))
        #expect(!metadata.topics.contains { $0.name == "feeds.out" }, "the check must not create the topic")
    }

    @Test func aTargetTopicForbiddenAtRunTimeHaltsThePartitionVisiblyAndResumesWhenItIsBack() async throws {
        let harness = try Harness(topics: ["feeds": 2, "feeds.dlq": 1, "feeds.out": 1])
        for i in 0..<50 { try await harness.produce("feeds", partition: 0, value: Self.good, key: "good-\(i)") }
        for i in 0..<5 { try await harness.produce("feeds", partition: 1, value: Self.bad, key: "bad-\(i)") }
        // The ACL on both targets is revoked: the broker refuses every produce with TOPIC_AUTHORIZATION_FAILED.
        harness.broker.pushRequestErrors(.produce, Array(repeating: .topicAuthorizationFailed, count: 100_000))
        let worker = try RunningWorker(harness.configuration([
            "feeds": TopicConfiguration(catalog: .feeds, deadLetterTopic: "feeds.dlq", republishTo: "feeds.out")
        ]))
        let server = try worker.worker.serveEndpoints(port: 0)
        defer { server.stop() }
        let p0 = KafkaTopicPartition(topic: "feeds", partition: 0)
        let p1 = KafkaTopicPartition(topic: "feeds", partition: 1)
        try await eventually(.seconds(30), "both partitions halted") {
            let blocked = worker.worker.status.targetUnavailable
            return blocked[p0] != nil && blocked[p1] != nil
        }
        let blocked = worker.worker.status.targetUnavailable
        #expect(blocked[p0]?.target == "feeds.out" && blocked[p0]?.configurationKey == "topics.feeds.republishTo")
        #expect(blocked[p1]?.target == "feeds.dlq" && blocked[p1]?.configurationKey == "topics.feeds.deadLetterTopic")
        #expect(blocked[p0]?.error.contains("TOPIC_AUTHORIZATION_FAILED") == true)
        #expect(blocked[p0]?.offset == 0 && blocked[p1]?.offset == 0, "the first record waiting")

        // Visible in /status, the halted gauge and /readyz.
        let status = try #require(await httpGet(port: server.port, "/status"))
        #expect(status.body.contains(#""targetUnavailable":[{"#) && status.body.contains(#""target":"feeds.out""#), "\(status.body)")
        #expect(worker.metrics.gauge("switchyard_partition_halted", ["topic": "feeds", "partition": "0"]) == 1)
        #expect(worker.metrics.gauge("switchyard_partition_halted", ["topic": "feeds", "partition": "1"]) == 1)
        let ready = await httpGet(port: server.port, "/readyz")
        #expect(ready?.status == 503 && ready?.body.contains("feeds/0") == true && ready?.body.contains("feeds.out") == true, "\(String(describing: ready))")

        // Rate-limited: a few lines over 6 s while the sends keep failing, not one a failure.
        let before = worker.logs.entries.filter { $0.level >= .warning }.count
        let failuresBefore = worker.counter("switchyard_republish_errors_total", ["topic": "feeds"])
        try await Task.sleep(for: .seconds(6))
        let lines = worker.logs.entries.filter { $0.level >= .warning }.count - before
        #expect(worker.counter("switchyard_republish_errors_total", ["topic": "feeds"]) > failuresBefore, "still retried")
        #expect(lines <= 4, "\(lines) warning lines in 6 s: \(worker.logs.entries.suffix(5).map(\.message))")
        #expect(worker.counter("switchyard_republished_total", ["topic": "feeds", "target": "feeds.out"]) == 0)
        #expect(try await harness.committed([p0, p1]).values.allSatisfy { $0 == 0 }, "nothing committed past a record not written")

        // The ACL is back: the partitions go on by themselves, in order, nothing lost.
        harness.broker.clearRequestErrors(.produce)
        try await eventually(.seconds(30), "everything written and committed") {
            try await harness.committed([p0, p1]) == [p0: 50, p1: 5]
        }
        try await eventually(.seconds(5), "no longer halted") { worker.worker.status.targetUnavailable.isEmpty }
        #expect(worker.metrics.gauge("switchyard_partition_halted", ["topic": "feeds", "partition": "0"]) == 0)
        #expect(worker.metrics.gauge("switchyard_partition_halted", ["topic": "feeds", "partition": "1"]) == 0)
        #expect(await httpGet(port: server.port, "/readyz")?.status == 200)
        let out = try await harness.readAll("feeds.out", count: 50)
        #expect(out.map { String(decoding: $0.key ?? [], as: UTF8.self) } == (0..<50).map { "good-\($0)" })
        #expect(worker.logs.entries.contains { $0.message == "target topic writable again; partition resumed" })
        try await worker.stop()
    }

    @Test func aStrictTopicsHaltShowsWhileItsDeadLetterTopicIsForbidden() async throws {
        let harness = try Harness(topics: ["payments": 1, "payments.dlq": 1, "switchyard.control": 1])
        try await harness.produce("payments", partition: 0, value: DeliveryGuaranteeTests.badPayment)
        harness.broker.pushRequestErrors(.produce, Array(repeating: .topicAuthorizationFailed, count: 100_000))
        let worker = try RunningWorker(harness.configuration(["payments": TopicConfiguration(catalog: .payments, deadLetterTopic: "payments.dlq")]))
        let tp = KafkaTopicPartition(topic: "payments", partition: 0)
        try await eventually(.seconds(30), "halted on the dead-letter topic") { worker.worker.status.targetUnavailable[tp] != nil }
        #expect(worker.worker.status.targetUnavailable[tp]?.target == "payments.dlq")
        #expect(worker.metrics.gauge("switchyard_partition_halted", ["topic": "payments", "partition": "0"]) == 1)
        // Once the dead letter is written, the record's own halt takes over: still halted, now for the record.
        harness.broker.clearRequestErrors(.produce)
        try await eventually(.seconds(30), "halted at the record") { worker.worker.status.halted[tp]?.offset == 0 }
        #expect(worker.worker.status.targetUnavailable.isEmpty)
        #expect(worker.metrics.gauge("switchyard_partition_halted", ["topic": "payments", "partition": "0"]) == 1)
        try await worker.stop()
    }
}
