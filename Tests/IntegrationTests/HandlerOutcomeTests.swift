import Foundation
import Switchyard
import SwitchyardCatalog
import SwitchyardHTTP
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// A team's handlers on the worker, on the embedded broker: what each outcome does to the record, its dead
/// letter, its retries, its partition and its offset, and what the handler publishes.
@Suite(.serialized, .timeLimit(.minutes(6)))
struct HandlerOutcomeTests {
    static let liked = try! Harness.fixture("post-liked-v2.json")
    static let captured = try! Harness.fixture("payment-captured-v2.json")

    struct Unavailable: Error {}

    @Test func rejectionsRetriesPermanentErrorsAndPublishingOnALenientTopic() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1, "feeds.events": 1])
        let keys = (0..<20).map { i in i == 3 ? "reject" : i == 5 ? "flaky" : i == 8 ? "broken" : "k-\(i)" }
        for key in keys { try await harness.produce("feeds", partition: 0, value: Self.liked, key: key) }
        let flakyAttempts = Locked<[Int]>([])
        var handlers = EventHandlers()
        handlers.handle(PostLiked.self) { event, context in
            let key = String(decoding: context.key ?? [], as: UTF8.self)
            switch key {
            case "reject":
                return .deadLetter(kind: "invalidLike", reason: "a like of a post this service never saw")
            case "flaky":
                flakyAttempts.withLock { $0.append(context.attempt) }
                if context.attempt < 3 { throw Unavailable() }
            case "broken":
                throw PermanentError(Unavailable())
            default:
                break
            }
            try context.publish(event, to: "feeds.events", key: context.key, headers: [KafkaHeader(name: "seq", string: String(context.offset))])
            return .handled
        }
        var topic = TopicConfiguration(catalog: .feeds, deadLetterTopic: "feeds.dlq")
        topic.retry = RetryPolicy(attempts: 5, initialBackoff: .milliseconds(50), maxBackoff: .milliseconds(200))
        let worker = try RunningWorker(harness.configuration(["feeds": topic]), handlers: handlers)
        let partition = KafkaTopicPartition(topic: "feeds", partition: 0)
        try await eventually(.seconds(60), "every record's outcome committed") {
            try await harness.committed([partition])[partition] == 20
        }
        // Dead letters: the original bytes and key, the standard headers, the handler's kind; counted.
        let dead = try await harness.readAll("feeds.dlq", count: 2)
        #expect(dead.map { String(decoding: $0.key ?? [], as: UTF8.self) } == ["reject", "broken"])
        for record in dead {
            #expect(record.value == Self.liked, "the original bytes, not a re-encoding")
            let letter = DeadLetter(record)
            #expect(letter.originalLocation == "feeds/0@\(record.key == Array("reject".utf8) ? 3 : 8)")
            #expect(letter.consumerGroup == harness.group)
        }
        #expect(DeadLetter(dead[0]).kind == "invalidLike" && DeadLetter(dead[0]).message == "a like of a post this service never saw")
        #expect(DeadLetter(dead[1]).kind == "handlerFailed" && DeadLetter(dead[1]).message?.contains("failed permanently") == true)
        #expect(worker.counter("switchyard_dead_letters_total", ["topic": "feeds", "kind": "invalidLike"]) == 1)
        #expect(worker.counter("switchyard_dead_letters_total", ["topic": "feeds", "kind": "handlerFailed"]) == 1)
        // The transient error: retried with the attempt number, then it succeeded; the permanent one was not retried.
        #expect(flakyAttempts.withLock { $0 } == [1, 2, 3])
        #expect(worker.counter("switchyard_handler_errors_total", ["topic": "feeds", "type": "post.liked"]) == 3)
        // Published: one event per handled record, in offset order, tagged, with its source.
        let published = try await harness.readAll("feeds.events", count: 18)
        let handledOffsets = (0..<20).filter { $0 != 3 && $0 != 8 }.map(String.init)
        #expect(published.map { $0.headers.first { $0.name == "seq" }?.value.map { String(decoding: $0, as: UTF8.self) } ?? "" } == handledOffsets)
        #expect(published.allSatisfy { String(decoding: $0.value ?? [], as: UTF8.self).hasPrefix(#"{"type":"post.liked""#) })
        #expect(worker.counter("switchyard_published_total", ["topic": "feeds"]) == 18)
        #expect(worker.worker.status.retrying.isEmpty)
        try await worker.stop()
    }

    @Test func exhaustedRetriesHaltAStrictPartitionAtTheRecord() async throws {
        let harness = try Harness(topics: ["payments": 1, "payments.dlq": 1, "feeds": 1, "feeds.dlq": 1])
        for _ in 0..<3 { try await harness.produce("payments", partition: 0, value: Self.captured) }
        let calls = Locked(0)
        var handlers = EventHandlers()
        handlers.on(PaymentCaptured.self) { _, context in
            calls.withLock { $0 += 1 }
            if context.offset == 1 { throw Unavailable() }
        }
        var topic = TopicConfiguration(catalog: .payments, deadLetterTopic: "payments.dlq")
        topic.retry = RetryPolicy(attempts: 4, initialBackoff: .milliseconds(400), maxBackoff: .milliseconds(400))
        let worker = try RunningWorker(
            harness.configuration(["payments": topic, "feeds": TopicConfiguration(catalog: .feeds)]), handlers: handlers)
        let partition = KafkaTopicPartition(topic: "payments", partition: 0)
        // At start: the topic no handler reaches is named, the other is not.
        try await eventually(.seconds(30), "started") { worker.worker.status.phase == .running }
        let idle = worker.logs.entries.filter { $0.message.hasPrefix("topic has no handler and no republish target") }
        #expect(idle.map { $0.metadata["kafka.topic"] } == ["feeds"])
        // While it is retried: in /status, and the partition's gauge is 1.
        try await eventually(.seconds(60), "retrying visible") { !worker.worker.status.retrying.isEmpty }
        let retrying = try #require(worker.worker.status.retrying.first)
        #expect(retrying.key.description == "payments/0@1")
        #expect(worker.metrics.gauge("switchyard_partition_retrying", ["topic": "payments", "partition": "0"]) == 1)
        // Then halted there: dead-lettered, in /status with the handler's kind, nothing after it stored.
        try await eventually(.seconds(60), "halted") { worker.worker.status.halted[partition] != nil }
        let halt = try #require(worker.worker.status.halted[partition])
        #expect(halt.offset == 1 && halt.kind == "handlerFailed")
        #expect(worker.metrics.gauge("switchyard_partition_halted", ["topic": "payments", "partition": "0"]) == 1)
        #expect(worker.metrics.gauge("switchyard_partition_retrying", ["topic": "payments", "partition": "0"]) == 0)
        let dead = try await harness.readAll("payments.dlq", count: 1)
        #expect(dead.first?.value == Self.captured && DeadLetter(dead[0]).kind == "handlerFailed")
        try await eventually(.seconds(30), "the halted offset committed") { try await harness.committed([partition])[partition] == 1 }
        try await Task.sleep(for: .seconds(2))
        #expect(try await harness.committed([partition])[partition] == 1, "nothing past the halted record")
        #expect(calls.withLock { $0 } == 5, "offset 0 once, offset 1 four times, offset 2 never")
        let status = String(decoding: worker.worker.status.json(configuration: worker.worker.configuration).bytes, as: UTF8.self)
        #expect(status.contains(#""kind":"handlerFailed""#), "\(status)")
        try await worker.stop()
    }

    @Test func aRecordRetriedForLongMakesTheWorkerNotReadyUntilItSucceeds() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1])
        try await harness.produce("feeds", partition: 0, value: Self.liked, key: "k")
        let failing = Locked(true)
        var handlers = EventHandlers()
        handlers.on(PostLiked.self) { _, _ in if failing.withLock({ $0 }) { throw Unavailable() } }
        var topic = TopicConfiguration(catalog: .feeds)
        topic.retry = RetryPolicy(attempts: 1_000, initialBackoff: .milliseconds(500), maxBackoff: .milliseconds(500))
        let worker = try RunningWorker(harness.configuration(["feeds": topic]), handlers: handlers)
        let readyz = try #require(worker.worker.routes.handler(for: "/readyz"))
        try await eventually(.seconds(60), "ready, then retrying") {
            !worker.worker.status.retrying.isEmpty && readyz(HTTPRequest(path: "/readyz")).status == .ok
        }
        try await eventually(.seconds(60), "not ready once retried for \(RetryPolicy.stuckAfter)") {
            readyz(HTTPRequest(path: "/readyz")).status == .serviceUnavailable
        }
        let body = String(decoding: readyz(HTTPRequest(path: "/readyz")).body, as: UTF8.self)
        #expect(body.hasPrefix("retrying feeds/0@0 (attempt "), "\(body)")
        failing.withLock { $0 = false }
        try await eventually(.seconds(30), "ready again") {
            readyz(HTTPRequest(path: "/readyz")).status == .ok && worker.worker.status.retrying.isEmpty
        }
        #expect(worker.metrics.gauge("switchyard_partition_retrying", ["topic": "feeds", "partition": "0"]) == 0)
        try await worker.stop()
    }

    @Test func consumerAndProducerPropertiesGoOnlyToTheirClient() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1])
        try await harness.produce("feeds", partition: 0, value: Self.liked)
        /// librdkafka's warnings that a property was given to the wrong kind of client.
        func misplaced(_ configure: (inout WorkerConfiguration) -> Void) async throws -> [String] {
            var configuration = harness.configuration(["feeds": TopicConfiguration(catalog: .feeds)], group: unique("group"))
            configure(&configuration)
            let worker = try RunningWorker(configuration, kafkaLogLevel: .warning)
            try await eventually(.seconds(60), "handled") { worker.worker.status.processed == 1 }
            try await worker.stop()
            return worker.logs.entries.compactMap { $0.metadata["kafka.log"] }.filter { $0.contains("will be ignored") }
        }
        // In the shared map, the producer warns about every consumer property (the harness's group settings too).
        let shared = try await misplaced { $0.kafka.merge(["fetch.wait.max.ms": "100", "linger.ms": "5"]) { $1 } }
        #expect(shared.contains { $0.contains("fetch.wait.max.ms") } && shared.contains { $0.contains("session.timeout.ms") }, "\(shared)")
        // In their own maps, nothing is misplaced.
        let consumerOnly: Set = ["heartbeat.interval.ms", "session.timeout.ms", "auto.commit.interval.ms"]
        let split = try await misplaced {
            $0.kafkaConsumer = $0.kafka.filter { consumerOnly.contains($0.key) }.merging(["fetch.wait.max.ms": "100"]) { $1 }
            $0.kafka = $0.kafka.filter { !consumerOnly.contains($0.key) }
            $0.kafkaProducer = ["linger.ms": "5"]
        }
        #expect(split.isEmpty, "\(split)")
    }

    @Test func nothingIsCommittedBeforeWhatTheHandlerPublishedIsDurable() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1, "feeds.events": 1])
        for i in 0..<30 { try await harness.produce("feeds", partition: 0, value: Self.liked, key: "k-\(i)") }
        var handlers = EventHandlers()
        handlers.on(PostLiked.self) { event, context in
            try context.publish(event, to: "feeds.events", key: context.key)
        }
        // The broker refuses the first produce requests: the publishes are retried, the offsets wait.
        harness.broker.pushRequestErrors(.produce, Array(repeating: .topicAuthorizationFailed, count: 6))
        let worker = try RunningWorker(harness.configuration(["feeds": TopicConfiguration(catalog: .feeds)]), handlers: handlers)
        let partition = KafkaTopicPartition(topic: "feeds", partition: 0)
        var samples = 0
        var sawWaiting = false
        while samples < 400 {
            let committed = try await harness.committed([partition])[partition] ?? 0
            // Read after the commit: every committed offset's publish was acknowledged before it.
            let acknowledged = worker.counter("switchyard_published_total", ["topic": "feeds"])
            #expect(committed <= acknowledged, "committed \(committed) with \(acknowledged) publishes acknowledged")
            if acknowledged == 0, worker.counter("switchyard_republish_errors_total", ["topic": "feeds"]) > 0 { sawWaiting = true }
            if committed == 30 { break }
            samples += 1
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(sawWaiting, "the publishes failed at first")
        #expect(try await harness.committed([partition])[partition] == 30)
        let published = try await harness.readAll("feeds.events", count: 30)
        #expect(Set(published.map { String(decoding: $0.key ?? [], as: UTF8.self) }).count == 30)
        try await worker.stop()
    }

    @Test func processingSecondsIncludesTheHandlerAndTheDurableOutcome() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1, "feeds.out": 1])
        for i in 0..<5 { try await harness.produce("feeds", partition: 0, value: Self.liked, key: "k-\(i)") }
        var handlers = EventHandlers()
        handlers.on(PostLiked.self) { _, _ in try await Task.sleep(for: .milliseconds(300)) }
        let worker = try RunningWorker(
            harness.configuration(["feeds": TopicConfiguration(catalog: .feeds, deadLetterTopic: "feeds.dlq", republishTo: "feeds.out")]),
            handlers: handlers)
        let tp = KafkaTopicPartition(topic: "feeds", partition: 0)
        try await eventually(.seconds(60), "all five committed") { try await harness.committed([tp])[tp] == 5 }
        let histogram = try #require(worker.metrics.histogram("switchyard_processing_seconds"))
        // Each record: read, its handler (300 ms), its republish acknowledged; one after another on the partition.
        #expect(histogram.count == 5, "\(histogram)")
        #expect(histogram.sum >= 1.5, "five records of at least 300 ms each: \(histogram.sum) s")
        try await worker.stop()
    }
}
