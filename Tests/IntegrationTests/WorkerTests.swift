import Foundation
import Switchyard
import SwitchyardCatalog
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// The worker end to end on the embedded broker (PRODUCT.md: per-topic policy, dead letters, offsets).
@Suite(.serialized, .timeLimit(.minutes(5)))
struct WorkerTests {
    static func expectations(_ topic: String) throws -> [Fixtures.Expectation] {
        try Fixtures.expectations(topic: topic)
    }

    static func header(_ record: KafkaRecord, _ name: String) -> String? {
        record.headers.last { $0.name == name }?.value.map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func lenientTopicDeadLettersEveryMalformedRecordOnce() async throws {
        let harness = try Harness(topics: ["feeds": 2, "feeds.dlq": 1, "feeds.canonical": 2])
        let fixtures = try Self.expectations("feeds")
        // Every fixture to partition 0, in manifest order; plus a tombstone.
        var offsets: [String: Int64] = [:]
        for e in fixtures {
            offsets[e.file] = try await harness.produce("feeds", partition: 0, value: Harness.fixture(e.file), key: e.file,
                                                        headers: [KafkaHeader(name: "trace", string: "t-\(e.file)")])
        }
        try await harness.produce("feeds", partition: 1, value: nil, key: "gone")
        let worker = try RunningWorker(harness.configuration([
            "feeds": TopicConfiguration(catalog: .feeds, deadLetterTopic: "feeds.dlq", republishTo: "feeds.canonical")
        ]))
        try await eventually(.seconds(60), "all feeds records handled") {
            worker.counter("switchyard_records_total", ["topic": "feeds"]) == Int64(fixtures.count + 1)
        }
        let failing = fixtures.filter { $0.outcome == "failed" }
        let dead = try await harness.readAll("feeds.dlq", count: failing.count)
        #expect(dead.count == failing.count)
        for e in failing {
            let matches = dead.filter { Self.header($0, "switchyard.original.offset") == String(offsets[e.file]!) }
            #expect(matches.count == 1, "\(e.file) dead-lettered \(matches.count) times")
            guard let d = matches.first else { continue }
            #expect(d.value == (try Harness.fixture(e.file)), "value unchanged")
            #expect(d.key == Array(e.file.utf8), "key unchanged")
            #expect(Self.header(d, "trace") == "t-\(e.file)", "original headers kept")
            #expect(Self.header(d, "switchyard.original.topic") == "feeds")
            #expect(Self.header(d, "switchyard.original.partition") == "0")
            #expect(Self.header(d, "switchyard.original.timestamp") != nil)
            #expect(Self.header(d, "switchyard.error.kind") == e.kind)
            #expect(Self.header(d, "switchyard.error.path") == e.path)
            #expect(Self.header(d, "switchyard.error.type") == e.type)
            #expect(!(Self.header(d, "switchyard.error.message") ?? "").isEmpty)
            #expect(Self.header(d, "switchyard.consumer.group") == harness.group)
            #expect(Timestamp(rfc3339: Self.header(d, "switchyard.failed.at") ?? "") != nil)
            #expect(Self.header(d, "switchyard.redrive.count") == "0")
            let metric = worker.counter("switchyard_decode_failures_total", ["topic": "feeds", "kind": e.kind!, "type": e.type ?? ""])
            #expect(metric >= 1, "\(e.file): failure metric")
        }
        for kind in Set(failing.compactMap(\.kind)) {
            #expect(worker.counter("switchyard_dead_letters_total", ["topic": "feeds", "kind": kind]) == Int64(failing.filter { $0.kind == kind }.count))
        }
        #expect(worker.counter("switchyard_unknown_events_total", ["topic": "feeds", "type": "story.posted"]) == 1)
        #expect(worker.counter("switchyard_tombstones_total", ["topic": "feeds"]) == 1)
        #expect(worker.counter("switchyard_unknown_fields_total", ["topic": "feeds", "type": "post.created"]) > 0)
        // Republished: every decoded and unknown record, canonical, in order, with the source position.
        let republishable = fixtures.filter { $0.outcome != "failed" }
        let republished = try await harness.readAll("feeds.canonical", count: republishable.count)
        #expect(republished.map { Self.header($0, "switchyard.republished.from") } == republishable.map { "feeds/0/\(offsets[$0.file]!)" })
        for (record, e) in zip(republished, republishable) where e.outcome == "decoded" {
            #expect(record.value == (try Harness.fixture("golden/\(e.file)")), "\(e.file) canonical")
        }
        if let unknown = zip(republished, republishable).first(where: { $0.1.outcome == "unknown" }) {
            #expect(unknown.0.value == (try Harness.fixture(unknown.1.file)), "unknown events pass through byte-exact")
        }
        try await worker.stop()
        let committed = try await harness.committed([KafkaTopicPartition(topic: "feeds", partition: 0)])
        #expect(committed[KafkaTopicPartition(topic: "feeds", partition: 0)] == Int64(fixtures.count))
    }

    @Test func strictTopicHaltsAtTheFirstBadRecordAndAReleaseMovesPastExactlyIt() async throws {
        let harness = try Harness(topics: ["payments": 2, "payments.dlq": 1, "switchyard.control": 1])
        let good = try Harness.fixture("payment-captured-v2.json")
        let bad = try Harness.fixture("fail-missing-id.json")
        let p0 = KafkaTopicPartition(topic: "payments", partition: 0)
        try await harness.produce("payments", partition: 0, value: good)
        try await harness.produce("payments", partition: 0, value: good)
        let badOffset = try await harness.produce("payments", partition: 0, value: bad)
        try await harness.produce("payments", partition: 0, value: good)
        try await harness.produce("payments", partition: 0, value: bad)  // a second bad one, later
        for _ in 0..<3 { try await harness.produce("payments", partition: 1, value: good) }
        let config = harness.configuration(["payments": TopicConfiguration(catalog: .payments, deadLetterTopic: "payments.dlq")])

        var worker = try RunningWorker(config)
        try await eventually(.seconds(60), "payments[0] halted") { worker.worker.status.halted[p0] != nil }
        // The other partition is not affected.
        try await eventually(.seconds(30), "payments[1] consumed") {
            worker.counter("switchyard_events_decoded_total", ["topic": "payments", "type": "payment.captured"]) == 5
        }
        #expect(worker.worker.status.halted[p0]?.offset == badOffset)
        #expect(worker.worker.status.halted[p0]?.failure.kind == .keyNotFound)
        #expect(worker.metrics.gauge("switchyard_partition_halted", ["topic": "payments", "partition": "0"]) == 1)
        // Nothing after the bad record was handled.
        try await Task.sleep(for: .seconds(1))
        #expect(worker.counter("switchyard_records_total", ["topic": "payments"]) == 6)
        try await worker.stop()
        var committed = try await harness.committed([p0])
        #expect(committed[p0] == badOffset, "the committed offset is the bad record's")
        #expect(try await harness.readAll("payments.dlq", count: 1).count == 1)

        // A restart keeps it halted (the record still does not decode).
        worker = try RunningWorker(config)
        try await eventually(.seconds(60), "payments[0] halted again") { worker.worker.status.halted[p0]?.offset == badOffset }
        #expect(worker.metrics.gauge("switchyard_partition_halted", ["topic": "payments", "partition": "0"]) == 1)

        // An audited release of exactly that offset: the next good record is handled, then the
        // second bad record halts the partition again.
        let release = ReleaseRequest(group: harness.group, topic: "payments", partition: 0, offset: badOffset, reason: "test: bad record known", operator: "tests")
        _ = try await harness.producer.send(KafkaProducerRecord(topic: "switchyard.control", value: try CanonicalJSONEncoder().encode(release)))
        try await eventually(.seconds(60), "halted at the second bad record") { worker.worker.status.halted[p0]?.offset == badOffset + 2 }
        #expect(worker.counter("switchyard_releases_total", ["topic": "payments"]) == 1)
        #expect(worker.logs.entries.contains { $0.message == "halted offset released" && $0.metadata["release.reason"] == "test: bad record known" })
        try await worker.stop()
        committed = try await harness.committed([p0])
        #expect(committed[p0] == badOffset + 2)
    }

    @Test func deadLetterProduceFailureCommitsNothingPastTheRecord() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1])
        let good = try Harness.fixture("post-liked-v2.json")
        let bad = try Harness.fixture("fail-missing-user-id.json")
        let tp = KafkaTopicPartition(topic: "feeds", partition: 0)
        try await harness.produce("feeds", partition: 0, value: good)
        let badOffset = try await harness.produce("feeds", partition: 0, value: bad)
        try await harness.produce("feeds", partition: 0, value: good)
        // Every produce fails while the errors last (non-retriable: the delivery report says so).
        harness.broker.pushRequestErrors(.produce, Array(repeating: .topicAuthorizationFailed, count: 200))
        let worker = try RunningWorker(harness.configuration(["feeds": TopicConfiguration(catalog: .feeds, deadLetterTopic: "feeds.dlq")]))
        try await eventually(.seconds(60), "dead-letter errors counted") {
            worker.counter("switchyard_dead_letter_errors_total", ["topic": "feeds"]) >= 2
        }
        try await Task.sleep(for: .seconds(1))
        #expect(try await harness.committed([tp])[tp] ?? 0 <= badOffset, "nothing committed past the record whose dead letter failed")
        // TOPIC_AUTHORIZATION_FAILED: the dead-letter topic cannot be written, and the partition says so.
        #expect(worker.worker.status.recentErrors.contains { $0.message == "target topic unavailable; partition halted" })
        #expect(worker.worker.status.targetUnavailable[tp]?.target == "feeds.dlq")
        harness.broker.clearRequestErrors(.produce)
        defer { if ProcessInfo.processInfo.environment["DEBUG_LOGS"] != nil { for e in worker.logs.entries { print(e) } } }
        try await eventually(.seconds(60), "recovered: the dead letter went out and the next record was handled") {
            worker.counter("switchyard_dead_letters_total", ["topic": "feeds", "kind": "keyNotFound"]) == 1
                && worker.counter("switchyard_records_total", ["topic": "feeds"]) == 3
        }
        try await worker.stop()
        #expect(try await harness.committed([tp])[tp] == 3)
    }

    /// A release applies only to a halted partition: a worker whose topics never halt does not start the control
    /// topic's consumer; one with a halting topic does (the release tests in DeliveryGuaranteeTests use it).
    @Test func theControlTopicIsReadOnlyWhenATopicHalts() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1, "payments": 1, "payments.dlq": 1])
        let notRead = "control topic not read: no topic halts on a decode failure, so no release can apply"
        for (topics, reads) in [
            (["feeds": TopicConfiguration(catalog: .feeds, deadLetterTopic: "feeds.dlq")], false),
            (["payments": TopicConfiguration(catalog: .payments, deadLetterTopic: "payments.dlq")], true),
            (["payments": TopicConfiguration(catalog: .payments, onFailure: .deadLetter, deadLetterTopic: "payments.dlq")], false),
        ] {
            let worker = try RunningWorker(harness.configuration(topics, group: "control-\(reads)-\(UUID().uuidString)"))
            try await eventually(.seconds(60), "the worker started") { worker.logs.entries.contains { $0.message == "worker started" } }
            try await worker.stop()
            let logged = worker.logs.entries.contains { $0.message == notRead && $0.metadata["kafka.topic"] == "switchyard.control" }
            #expect(logged == !reads, "\(topics.keys): control topic read: \(!logged), expected \(reads)")
        }
    }

    @Test func handlersRunPerEventTypeAndRetryUntilTheySucceed() async throws {
        let harness = try Harness(topics: ["payments": 1, "payments.dlq": 1])
        try await harness.produce("payments", partition: 0, value: Harness.fixture("payment-captured-v2.json"))
        try await harness.produce("payments", partition: 0, value: Harness.fixture("payment-refunded-v2.json"))
        let seen = Locked<[String]>([])
        let attempts = Locked(0)
        var handlers = EventHandlers()
        handlers.on(PaymentCaptured.self) { event, context in
            // Fail twice: the partition waits, nothing is skipped.
            if attempts.withLock({ $0 += 1; return $0 }) < 3 { throw TestFailure("ledger unavailable") }
            seen.withLock { $0.append("captured \(event.amount.value) @\(context.offset)") }
        }
        handlers.on(PaymentRefunded.self) { event, _ in seen.withLock { $0.append("refunded \(event.reason)") } }
        let worker = try RunningWorker(harness.configuration(["payments": TopicConfiguration(catalog: .payments, deadLetterTopic: "payments.dlq")]), handlers: handlers)
        try await eventually(.seconds(60), "both handled") { seen.withLock { $0.count } == 2 }
        #expect(seen.withLock { $0 }.first?.hasPrefix("captured") == true)
        #expect(worker.counter("switchyard_handler_errors_total", ["topic": "payments", "type": "payment.captured"]) == 2)
        try await worker.stop()
    }

    @Test func tenThousandDistinctUnknownTypesStayWithinTheLabelCap() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1])
        let count = 10_000
        // Fire the sends concurrently (the producer batches them), then await every delivery.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<count {
                let value = Array(#"{"type":"attack.\#(i)","id":"e\#(i)","occurredAt":"2026-01-01T00:00:00Z"}"#.utf8)
                group.addTask { _ = try await harness.produce("feeds", partition: 0, value: value) }
            }
            try await group.waitForAll()
        }
        var config = harness.configuration(["feeds": TopicConfiguration(catalog: .feeds, deadLetterTopic: "feeds.dlq")])
        config.metrics.maxTypeLabels = 100
        let worker = try RunningWorker(config)
        try await eventually(.seconds(120), "all handled") { worker.counter("switchyard_records_total", ["topic": "feeds"]) == Int64(count) }
        let metrics = worker.metrics
        #expect(metrics.seriesCount("switchyard_unknown_events_total") <= 101)
        #expect(worker.counter("switchyard_unknown_events_total", ["topic": "feeds", "type": "_other"]) == Int64(count - 100))
        let exposition = worker.worker.metrics.registry.render()
        #expect(exposition.split(separator: "\n").count < 600, "the /metrics page stays small")
        try await worker.stop()
    }

    @Test func brokerDownForSecondsThenBack() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1])
        let good = try Harness.fixture("post-liked-v2.json")
        for _ in 0..<5 { try await harness.produce("feeds", partition: 0, value: good) }
        let worker = try RunningWorker(harness.configuration(["feeds": TopicConfiguration(catalog: .feeds, deadLetterTopic: "feeds.dlq")]))
        try await eventually(.seconds(60), "first records") { worker.counter("switchyard_records_total", ["topic": "feeds"]) == 5 }
        try harness.broker.setBrokerDown(1)
        try await Task.sleep(for: .seconds(3))
        try harness.broker.setBrokerUp(1)
        for _ in 0..<5 { try await harness.produce("feeds", partition: 0, value: good) }
        try await eventually(.seconds(90), "recovered") { worker.counter("switchyard_records_total", ["topic": "feeds"]) >= 10 }
        try await worker.stop()
        #expect(try await harness.committed([KafkaTopicPartition(topic: "feeds", partition: 0)])[KafkaTopicPartition(topic: "feeds", partition: 0)] == 10)
    }
}
