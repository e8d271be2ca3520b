import Foundation
import Switchyard
import SwitchyardCatalog
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// The delivery guarantees under operator error, cancellation, fatal errors and rebalances.
///
/// The invariant every test checks in its own way: an offset is never stored past a record unless that
/// record was handled, or a dead letter of it was acknowledged by the broker in this process's lifetime.
/// Each test reproduces one item of the issue on the embedded broker over TCP (real `switchyard consume`
/// processes where the scenario involves a process: release, SIGTERM, exit codes).
@Suite(.serialized, .timeLimit(.minutes(6)))
struct DeliveryGuaranteeTests {
    static let goodPayment = try! Harness.fixture("payment-captured-v2.json")
    static let badPayment = try! Harness.fixture("fail-missing-id.json")
    static let goodPost = try! Harness.fixture("post-liked-v2.json")

    // MARK: - Helpers

    /// Writes a worker config file for `harness`; `kafka` is merged over the harness's fast settings.
    static func writeConfig(
        _ harness: Harness, topics: [String: [String: String]], kafka: [String: String] = [:], extra: [String: Any] = [:]
    ) throws -> (path: String, port: Int) {
        let port = freePort()
        var config: [String: Any] = [
            "brokers": harness.broker.bootstrapServers,
            "groupId": harness.group,
            "topics": topics,
            "metrics": ["host": "127.0.0.1", "port": port],
            "shutdownTimeoutSeconds": 15,
            "kafka": Harness.fastKafka.merging(kafka) { $1 },
        ]
        config.merge(extra) { $1 }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-dg-\(UUID().uuidString).json").path
        try JSONSerialization.data(withJSONObject: config, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
        return (path, port)
    }

    /// The worker's `/status` document.
    static func status(_ port: Int) async -> [String: Any]? {
        guard let (code, body) = await httpGet(port: port, "/status"), code == 200 else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
    }

    /// The offset a partition is halted at, from `/status`.
    static func haltedOffset(_ port: Int, topic: String, partition: Int) async -> Int? {
        guard let halted = await status(port)?["halted"] as? [[String: Any]] else { return nil }
        return halted.first { $0["topic"] as? String == topic && $0["partition"] as? Int == partition }?["offset"] as? Int
    }

    static func metric(_ port: Int, _ line: String) async -> Int? {
        await ConsumeProcessTests.metric(port, line)
    }

    /// A release written straight to the control topic, as an old `switchyard release` (or anyone with
    /// write access) would write it.
    static func writeRelease(
        _ harness: Harness, topic: String, partition: Int32, offset: Int64, recordTimestamp: Int64? = nil, reason: String = "tests"
    ) async throws {
        var release: [String: Any] = [
            "action": "release", "group": harness.group, "topic": topic, "partition": Int(partition), "offset": Int(offset),
            "reason": reason, "operator": "tests", "at": Timestamp(Date()).text,
        ]
        if let recordTimestamp { release["recordTimestamp"] = Int(recordTimestamp) }
        let value = try JSONSerialization.data(withJSONObject: release, options: [.sortedKeys])
        _ = try await harness.producer.send(KafkaProducerRecord(topic: "switchyard.control", value: [UInt8](value)))
    }

    /// The dead letters of `topic` (from its beginning to its current end).
    static func deadLetters(_ harness: Harness, _ topic: String) async throws -> [KafkaRecord] {
        let kafka = KafkaConfiguration(bootstrapServers: [harness.broker.bootstrapServers], clientID: "verify", properties: Harness.fastKafka, logLevel: .error)
        let tp = KafkaTopicPartition(topic: topic, partition: 0)
        let marks = try await KafkaConsumer.watermarks([tp], kafka: kafka)
        let count = Int((marks[tp]?.high ?? 0) - (marks[tp]?.low ?? 0))
        return try await harness.readAll(topic, count: count)
    }

    static func originalOffset(_ record: KafkaRecord) -> String? {
        WorkerTests.header(record, DeadLetterHeaders.originalOffset)
    }

    // MARK: - 4. The kafka map cannot turn off the guarantees

    @Test func kafkaPropertiesTheGuaranteesDependOnAreRefusedWithExit78() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1])
        let refused: [(String, String)] = [
            ("enable.auto.offset.store", "true"), ("enable.auto.commit", "false"), ("enable.idempotence", "false"),
            ("acks", "1"), ("isolation.level", "read_uncommitted"), ("auto.offset.reset", "latest"),
            // librdkafka's other names for them: a topic property with a `topic.` prefix, and aliases.
            ("topic.auto.offset.reset", "latest"), ("topic.offset.store.method", "file"), ("topic.auto.commit.enable", "false"),
            ("topic.enable.auto.commit", "false"), ("request.required.acks", "1"), ("topic.request.required.acks", "1"),
            ("topic.acks", "1"), ("auto.commit.enable", "false"),
            // Settings that break the worker's own bookkeeping: no delivery report for an acknowledged send, and
            // sends reordered in the producer's queue.
            ("delivery.report.only.error", "true"), ("topic.queuing.strategy", "lifo"),
        ]
        // All at once: on a build that accepts them, each process would consume instead of exiting.
        var processes: [(key: String, process: ChildProcess)] = []
        for (key, value) in refused {
            let (config, _) = try Self.writeConfig(harness, topics: ["feeds": ["catalog": "feeds"]], kafka: [key: value])
            processes.append((key, try ChildProcess(["consume", "--config", config])))
        }
        for (key, process) in processes {
            let status: Int32
            do {
                status = try await process.waitForExit(within: .seconds(20))
            } catch {
                Issue.record("kafka[\"\(key)\"] was accepted: the worker ran instead of exiting 78")
                continue
            }
            #expect(status == 78, "kafka[\"\(key)\"]")
            #expect(process.stderr.contains("kafka[\"\(key)\"]"), "the message names the key: \(process.stderr.suffix(400))")
        }
        // The library refuses them too, when the worker is made, under any name librdkafka reads as them.
        for key in ["enable.auto.offset.store", "topic.auto.offset.reset"] {
            var config = harness.configuration(["feeds": TopicConfiguration(catalog: .feeds, deadLetterTopic: "feeds.dlq")])
            config.kafka[key] = key.hasSuffix("reset") ? "latest" : "true"
            #expect(throws: WorkerError.self, "kafka[\"\(key)\"]") { try Worker(configuration: config, logger: SwitchyardLogger(handler: InMemoryLogHandler())) }
        }
        var config = harness.configuration(["feeds": TopicConfiguration(catalog: .feeds, deadLetterTopic: "feeds.dlq")])
        config.kafkaConsumer["enable.auto.commit"] = "false"
        #expect(throws: WorkerError.self) { try Worker(configuration: config, logger: SwitchyardLogger(handler: InMemoryLogHandler())) }
    }

    // MARK: - 2. Cancelling run()

    @Test func cancellingRunStoresNothingPastARecordWhoseOutcomeIsNotDurable() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1])
        let tp = KafkaTopicPartition(topic: "feeds", partition: 0)
        for i in 0..<5 { try await harness.produce("feeds", partition: 0, value: Self.goodPost, key: "k-\(i)") }
        // k-0's handler fails until the test ends: its outcome is never durable.
        let later = Locked(0)
        var handlers = EventHandlers()
        handlers.on(PostLiked.self) { _, context in
            if context.key == Array("k-0".utf8) { throw TestFailure("downstream unavailable") }
            later.withLock { $0 += 1 }
        }
        let worker = try RunningWorker(harness.configuration(["feeds": TopicConfiguration(catalog: .feeds, deadLetterTopic: "feeds.dlq")]), handlers: handlers)
        try await eventually(.seconds(60), "k-0 retried") {
            worker.counter("switchyard_handler_errors_total", ["topic": "feeds", "type": "post.liked"]) >= 2
        }
        worker.task.cancel()
        _ = try? await withDeadline(.seconds(30), "run() returns after cancellation") { [task = worker.task] in try await task.value }
        let committed = try await harness.committed([tp])
        #expect((committed[tp] ?? 0) == 0, "committed \(committed[tp] ?? -1): past k-0, whose handler never succeeded")
        // The records after k-0 may be decoded ahead (the loop reads batches), but with partition ordering none of
        // their handlers runs before k-0's succeeded.
        #expect(later.withLock { $0 } == 0, "nothing after k-0 was handled")
    }

    @Test func cancellingRunCommitsWhatIsDurableAndReturns() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1])
        let tp = KafkaTopicPartition(topic: "feeds", partition: 0)
        for i in 0..<5 { try await harness.produce("feeds", partition: 0, value: Self.goodPost, key: "k-\(i)") }
        let handled = Locked(0)
        var handlers = EventHandlers()
        handlers.on(PostLiked.self) { _, _ in handled.withLock { $0 += 1 } }
        var configuration = harness.configuration(["feeds": TopicConfiguration(catalog: .feeds, deadLetterTopic: "feeds.dlq")])
        // No periodic commit during the test: only the commit at the stop that cancellation starts can store the offsets.
        configuration.kafka["auto.commit.interval.ms"] = "600000"
        let worker = try RunningWorker(configuration, handlers: handlers)
        try await eventually(.seconds(60), "the five records handled") { worker.worker.status.processed == 5 }
        #expect((try await harness.committed([tp])[tp] ?? 0) == 0, "committed before the stop: the test cannot tell the stop's commit")
        let start = ContinuousClock.now
        worker.task.cancel()
        // run() returns (without an error) once the stored offsets are committed, well within the shutdown timeout.
        try await withDeadline(.seconds(30), "run() returns after cancellation") { [task = worker.task] in try await task.value }
        let took = ContinuousClock.now - start
        #expect(took < .seconds(10), "run() returned after \(took) (shutdown timeout 10 s)")
        #expect(try await harness.committed([tp])[tp] == 5, "the handled records' offsets are committed at the stop")
        #expect(handled.withLock { $0 } == 5)
        #expect(worker.logs.entries.contains { $0.message == "shutdown requested" })
    }

    @Test func stopAbandonsAHandlerThatIgnoresCancellationBeforeTheShutdownTimeout() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1])
        let tp = KafkaTopicPartition(topic: "feeds", partition: 0)
        for i in 0..<3 { try await harness.produce("feeds", partition: 0, value: Self.goodPost, key: "k-\(i)") }
        // k-0's handler waits for something that never comes, and cancelling it changes nothing.
        let waiting = Locked<CheckedContinuation<Void, Never>?>(nil)
        let later = Locked(0)
        var handlers = EventHandlers()
        handlers.on(PostLiked.self) { _, context in
            guard context.key == Array("k-0".utf8) else {
                later.withLock { $0 += 1 }
                return
            }
            await withCheckedContinuation { continuation in waiting.withLock { $0 = continuation } }
        }
        var configuration = harness.configuration(["feeds": TopicConfiguration(catalog: .feeds, deadLetterTopic: "feeds.dlq")])
        configuration.shutdownTimeout = .seconds(3)
        let worker = try RunningWorker(configuration, handlers: handlers)
        defer { waiting.withLock { $0 }?.resume() }
        try await eventually(.seconds(60), "k-0's handler running") { waiting.withLock { $0 != nil } }
        let start = ContinuousClock.now
        try await worker.stop()
        let took = ContinuousClock.now - start
        // Work in flight is abandoned at 3 s - 0.6 s; the commit and the close fit in what is left.
        #expect(took >= .seconds(2), "run() returned after \(took), before the handler's time was up")
        #expect(took < .seconds(6), "run() returned after \(took) (shutdownTimeoutSeconds 3)")
        #expect(worker.logs.entries.contains { $0.message == "handler abandoned at shutdown; the record will be read again" })
        #expect((try await harness.committed([tp])[tp] ?? 0) == 0, "committed past k-0, whose handler never returned")
        #expect(later.withLock { $0 } == 0, "nothing after k-0 was handled")
    }

    /// `ordering: key`: other keys run past a record whose handler is stuck, the same key
    /// waits behind it, and the watermark commits nothing past it until it is done.
    @Test func keyOrderingRunsOtherKeysPastAStuckOneAndCommitsNothingPastIt() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1])
        let tp = KafkaTopicPartition(topic: "feeds", partition: 0)
        // 0: a fast key; 1: "slow", whose handler waits for the test; 2–17: eight other keys twice each; 18: "slow".
        var keys = ["fast", "slow"]
        for _ in 0..<2 { keys += (1...8).map { "k-\($0)" } }
        keys.append("slow")
        for key in keys { try await harness.produce("feeds", partition: 0, value: Self.goodPost, key: key) }
        let handled = Locked<[(key: String, offset: Int64)]>([])
        let gate = Locked<CheckedContinuation<Void, Never>?>(nil)
        var handlers = EventHandlers()
        handlers.on(PostLiked.self) { _, context in
            let key = String(decoding: context.key ?? [], as: UTF8.self)
            if context.offset == 1 { await withCheckedContinuation { continuation in gate.withLock { $0 = continuation } } }
            handled.withLock { $0.append((key, context.offset)) }
        }
        let worker = try RunningWorker(
            harness.configuration(["feeds": TopicConfiguration(catalog: .feeds, deadLetterTopic: "feeds.dlq", ordering: .key)]), handlers: handlers)
        // Resumes the stuck handler once (here or, when an expectation throws, on the way out).
        let release = { gate.withLock { continuation in defer { continuation = nil }; return continuation }?.resume() }
        defer { release() }
        try await eventually(.seconds(60), "offset 0 committed, offset 1 stuck, other keys handled past it") {
            let others = handled.withLock { $0.filter { $0.offset > 1 }.count }
            guard gate.withLock({ $0 != nil }), others >= 4 else { return false }
            return try await harness.committed([tp])[tp] == 1
        }
        // Several commit intervals (500 ms) with records past offset 1 handled: the commit stays at 1.
        try await Task.sleep(for: .seconds(2))
        let handledPast = handled.withLock { $0.filter { $0.offset > 1 }.count }
        #expect(try await harness.committed([tp])[tp] == 1, "committed past offset 1, whose handler has not returned (\(handledPast) records after it handled)")
        #expect(!handled.withLock { $0.contains { $0.key == "slow" } }, "the second \"slow\" record ran before the first returned")

        release()
        try await eventually(.seconds(60), "every record handled") { handled.withLock { $0.count } == keys.count }
        try await worker.stop()
        #expect(try await harness.committed([tp])[tp] == Int64(keys.count))
        let order = handled.withLock { $0 }
        for key in Set(keys) {
            let offsets = order.filter { $0.key == key }.map(\.offset)
            #expect(offsets == offsets.sorted(), "\(key) handled out of order: \(offsets)")
            #expect(offsets.count == keys.filter { $0 == key }.count)
        }
        #expect(order.firstIndex { $0.offset == 1 }! > order.firstIndex { $0.offset > 1 }!, "no other key ran while offset 1 was stuck")
    }

    // MARK: - 1. A release is bound to the halted record

    @Test func releaseAppliesOnlyToTheHaltedRecordAndNeverSkipsOneThatWasNotDeadLettered() async throws {
        let harness = try Harness(topics: ["payments": 1, "payments.dlq": 1, "switchyard.control": 1])
        let p0 = KafkaTopicPartition(topic: "payments", partition: 0)
        try await harness.produce("payments", partition: 0, value: Self.goodPayment)  // 0
        try await harness.produce("payments", partition: 0, value: Self.badPayment)  // 1: halts
        try await harness.produce("payments", partition: 0, value: Self.goodPayment)  // 2
        try await harness.produce("payments", partition: 0, value: Self.badPayment)  // 3: must halt too
        try await harness.produce("payments", partition: 0, value: Self.goodPayment)  // 4
        let (config, port) = try Self.writeConfig(harness, topics: ["payments": ["catalog": "payments"]])
        let worker = try ChildProcess(["consume", "--config", config])
        defer { if worker.isRunning { worker.signal(SIGKILL) } }
        try await eventually(.seconds(60), "halted at 1") { await Self.haltedOffset(port, topic: "payments", partition: 0) == 1 }

        // A typo: the CLI reads the DLQ, finds no dead letter of offset 3, refuses and says what it found.
        let typo = try ChildProcess(["release", "--config", config, "--topic", "payments", "--partition", "0", "--offset", "3", "--reason", "typo", "--operator", "oncall"])
        let typoStatus = try await typo.waitForExit(within: .seconds(60))
        #expect(typoStatus == 1, "a release of an offset that is not halted is refused: \(typo.stdout) \(typo.stderr)")
        #expect(typo.stderr.contains("@1"), "names the halt it found: \(typo.stderr)")
        // Through /status: the same refusal, naming the halted offset.
        let typo2 = try ChildProcess([
            "release", "--config", config, "--status", "http://127.0.0.1:\(port)/status", "--topic", "payments", "--partition", "0",
            "--offset", "3", "--reason", "typo", "--operator", "oncall",
        ])
        #expect(try await typo2.waitForExit(within: .seconds(60)) == 1)
        #expect(typo2.stderr.contains("halted at 1"), "\(typo2.stderr)")

        // Someone writes a release of offset 3 straight to the control topic anyway (an old CLI, a script).
        try await Self.writeRelease(harness, topic: "payments", partition: 0, offset: 3, reason: "forged")
        try await Task.sleep(for: .seconds(2))

        // The right release: offset 1, through /status.
        let release = try ChildProcess([
            "release", "--config", config, "--status", "http://127.0.0.1:\(port)/status", "--topic", "payments", "--partition", "0",
            "--offset", "1", "--reason", "known bad record", "--operator", "oncall",
        ])
        #expect(try await release.waitForExit(within: .seconds(60)) == 0, "\(release.stderr)")

        // Record 3 fails too: it is dead-lettered and halts; the release of offset 3 never skipped it.
        try await eventually(.seconds(60), "halted at 3") { await Self.haltedOffset(port, topic: "payments", partition: 0) == 3 }
        let dead = try await Self.deadLetters(harness, "payments.dlq")
        #expect(dead.contains { Self.originalOffset($0) == "3" }, "record 3 dead-lettered before anything could skip it")
        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit(within: .seconds(30)) == 0)
        #expect(try await harness.committed([p0])[p0] == 3, "committed up to the halted record, not past it")
    }

    // MARK: - 6. A release that arrives while the record is being dead-lettered

    @Test func releaseArrivingWhileTheRecordIsBeingDeadLetteredWaitsForItsHalt() async throws {
        let harness = try Harness(topics: ["payments": 1, "payments.dlq": 1, "switchyard.control": 1])
        let p0 = KafkaTopicPartition(topic: "payments", partition: 0)
        let timestamp: Int64 = 1_767_225_600_000
        _ = try await harness.producer.send(
            KafkaProducerRecord(topic: "payments", partition: 0, value: Self.badPayment, timestampMilliseconds: timestamp))
        try await harness.produce("payments", partition: 0, value: Self.goodPayment)
        // The dead letter waits: its partition has no leader until the release was read.
        try harness.broker.setPartitionLeader(topic: "payments.dlq", partition: 0, broker: -1)
        let worker = try RunningWorker(harness.configuration(["payments": TopicConfiguration(catalog: .payments, deadLetterTopic: "payments.dlq")]))
        try await eventually(.seconds(60), "the bad record read") { worker.counter("switchyard_records_total", ["topic": "payments"]) >= 1 }
        try await Self.writeRelease(harness, topic: "payments", partition: 0, offset: 0, recordTimestamp: timestamp)
        try await eventually(.seconds(60), "the release read") { worker.logs.entries.contains { $0.metadata["release.operator"] == "tests" } }
        #expect(worker.counter("switchyard_dead_letters_total", ["topic": "payments", "kind": "keyNotFound"]) == 0, "still dead-lettering")
        try harness.broker.setPartitionLeader(topic: "payments.dlq", partition: 0, broker: 1)
        try await eventually(.seconds(60), "released after its dead letter, the next record handled") {
            worker.counter("switchyard_events_decoded_total", ["topic": "payments", "type": "payment.captured"]) == 1
        }
        #expect(worker.worker.status.halted[p0] == nil)
        #expect(worker.counter("switchyard_dead_letters_total", ["topic": "payments", "kind": "keyNotFound"]) == 1)
        #expect(worker.counter("switchyard_releases_total", ["topic": "payments"]) == 1)
        try await worker.stop()
        #expect(try await harness.committed([p0])[p0] == 2)
    }

    // MARK: - 5. A halt survives revoke and reassign

    @Test(arguments: ["range", "cooperative-sticky"])
    func haltedPartitionComesBackHaltedAfterARebalance(assignor: String) async throws {
        let harness = try Harness(topics: ["payments": 2, "payments.dlq": 1, "switchyard.control": 1])
        let p0 = KafkaTopicPartition(topic: "payments", partition: 0)
        let timestamp: Int64 = 1_767_225_600_000
        try await harness.produce("payments", partition: 0, value: Self.goodPayment)
        _ = try await harness.producer.send(
            KafkaProducerRecord(topic: "payments", partition: 0, value: Self.badPayment, timestampMilliseconds: timestamp))
        try await harness.produce("payments", partition: 0, value: Self.goodPayment)
        var config = harness.configuration(["payments": TopicConfiguration(catalog: .payments, deadLetterTopic: "payments.dlq")])
        config.kafka["partition.assignment.strategy"] = assignor
        let a = try RunningWorker(config)
        try await eventually(.seconds(60), "A halted at 1") { a.worker.status.halted[p0]?.offset == 1 }
        // B joins, then leaves: p0 is revoked from A at least once (eager) and comes back.
        let b = try RunningWorker(config)
        try await eventually(.seconds(60), "B has partitions") { !b.worker.status.assignment.isEmpty }
        try await b.stop()
        try await eventually(.seconds(60), "A owns both again") { a.worker.status.assignment.count == 2 }
        // Whatever happened in between, A and librdkafka agree: p0 is halted at the same record.
        try await eventually(.seconds(60), "A halted at 1 again") { a.worker.status.halted[p0]?.offset == 1 }
        #expect(a.metrics.gauge("switchyard_partition_halted", ["topic": "payments", "partition": "0"]) == 1)
        // And a release moves it on.
        try await Self.writeRelease(harness, topic: "payments", partition: 0, offset: 1, recordTimestamp: timestamp)
        try await eventually(.seconds(60), "released: the record after it handled") {
            guard a.worker.status.halted[p0] == nil else { return false }
            return try await harness.committed([p0])[p0] == 3
        }
        try await a.stop()
    }

    // MARK: - 7. A dead letter is always writable

    @Test func aDeadLetterTooLargeToWriteIsWrittenWithoutTheRecordAndCertainOnesAreRefusedAt78() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1])
        let tp = KafkaTopicPartition(topic: "feeds", partition: 0)
        // Refused at start: a record of maxRecordBytes plus the dead-letter headers cannot be produced.
        let (certain, _) = try Self.writeConfig(harness, topics: ["feeds": ["catalog": "feeds"]], kafka: ["message.max.bytes": "500000"])
        let refused = try ChildProcess(["consume", "--config", certain])
        // At run time: a record larger than message.max.bytes (too large to decode, so dead-lettered whole).
        let big = Array(#"{"type":"post.liked","blob":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: 500_000) + Array(#""}"#.utf8)
        try await harness.produce("feeds", partition: 0, value: big, key: "big")
        try await harness.produce("feeds", partition: 0, value: Self.goodPost)
        let (config, port) = try Self.writeConfig(
            harness, topics: ["feeds": ["catalog": "feeds"]], kafka: ["message.max.bytes": "300000"], extra: ["maxRecordBytes": 200_000])
        let worker = try ChildProcess(["consume", "--config", config])
        defer { if worker.isRunning { worker.signal(SIGKILL) } }

        let refusedStatus = try? await refused.waitForExit(within: .seconds(20))
        if refusedStatus == nil { refused.signal(SIGKILL) }
        #expect(refusedStatus == 78, "maxRecordBytes + header room > message.max.bytes is refused")
        #expect(refused.stderr.contains("message.max.bytes"), "\(refused.stderr.suffix(400))")

        // The lenient topic goes on: the dead letter is written without the record, and both are committed.
        do {
            try await eventually(.seconds(40), "both records committed") { try await harness.committed([tp])[tp] == 2 }
        } catch {
            Issue.record("the worker did not get past the oversized record (running: \(worker.isRunning)): \(worker.stderr.suffix(600))")
        }
        #expect(worker.isRunning, "one oversized record ended the worker: \(worker.stderr.suffix(600))")
        let letters = try await Self.deadLetters(harness, "feeds.dlq")
        #expect(letters.count == 1)
        if let letter = letters.first {
            func header(_ name: String) -> String? { WorkerTests.header(letter, name) }
            #expect(letter.value == [], "the record's value is omitted")
            #expect(letter.key == Array("big".utf8))
            #expect(header(DeadLetterHeaders.payloadOmitted)?.contains("message.max.bytes") == true)
            #expect(header(DeadLetterHeaders.payloadSize) == String(big.count))
            #expect(header(DeadLetterHeaders.payloadSHA256) == ReleaseSigning.hex(ReleaseSigning.sha256(big)))
            #expect(header(DeadLetterHeaders.payloadHead) == String(decoding: big.prefix(64), as: UTF8.self))
            #expect(header(DeadLetterHeaders.originalOffset) == "0")
            #expect(header(DeadLetterHeaders.errorKind) == "dataCorrupted")
        }
        #expect(await Self.metric(port, #"switchyard_dead_letters_total{topic="feeds",kind="dataCorrupted"}"#) == 1)
        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit(within: .seconds(20)) == 0)
    }

    // MARK: - 9. Shutdown is bounded

    @Test func sigtermEndsWithinTheShutdownTimeoutWithASendInFlight() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1, "feeds.out": 1])
        let tp = KafkaTopicPartition(topic: "feeds", partition: 0)
        for i in 0..<3 { try await harness.produce("feeds", partition: 0, value: Self.goodPost, key: "k-\(i)") }
        // Republishing waits forever for a leader (message.timeout.ms is 300 s).
        try harness.broker.setPartitionLeader(topic: "feeds.out", partition: 0, broker: -1)
        let (config, port) = try Self.writeConfig(
            harness, topics: ["feeds": ["catalog": "feeds", "republishTo": "feeds.out"]], extra: ["shutdownTimeoutSeconds": 3])
        let worker = try ChildProcess(["consume", "--config", config])
        defer { if worker.isRunning { worker.signal(SIGKILL) } }
        try await eventually(.seconds(60), "the first record read") {
            (await Self.metric(port, #"switchyard_records_total{topic="feeds"}"#) ?? 0) >= 1
        }
        try await Task.sleep(for: .seconds(1))
        let start = ContinuousClock.now
        worker.signal(SIGTERM)
        let status = try? await worker.waitForExit(within: .seconds(15))
        let took = ContinuousClock.now - start
        #expect(status != nil, "SIGTERM did not end the worker within 15 s (shutdownTimeoutSeconds 3)")
        #expect(took < .seconds(9), "took \(took)")
        #expect((try await harness.committed([tp])[tp] ?? 0) == 0, "the record in flight is not committed")
    }

    // MARK: - 8. Back-pressure keeps serving the group

    @Test func backPressureKeepsPollingAndTheMemberStaysInItsGroup() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1])
        let tp = KafkaTopicPartition(topic: "feeds", partition: 0)
        let count = 1_500
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<count {
                group.addTask { try await harness.produce("feeds", partition: 0, value: Self.goodPost, key: "k-\(i)") }
            }
            try await group.waitForAll()
        }
        // The first handler takes longer than max.poll.interval.ms, with more records behind it than the
        // partition may hold: the partition is paused at its limit, and the worker keeps polling.
        let handled = Locked(0)
        let slowStarted = Locked(false)
        var handlers = EventHandlers()
        handlers.on(PostLiked.self) { _, context in
            if context.key == Array("k-0".utf8) {
                slowStarted.withLock { $0 = true }
                try await Task.sleep(for: .seconds(12))
            }
            handled.withLock { $0 += 1 }
        }
        var config = harness.configuration(["feeds": TopicConfiguration(catalog: .feeds, deadLetterTopic: "feeds.dlq")])
        config.kafka["max.poll.interval.ms"] = "7000"
        config.maxPendingRecordsPerPartition = 300
        let worker = try RunningWorker(config, handlers: handlers, kafkaLogLevel: .warning)
        try await eventually(.seconds(60), "the slow handler running") { slowStarted.withLock { $0 } }
        try await Task.sleep(for: .seconds(8))  // past max.poll.interval.ms, the slow handler still running
        let read = worker.counter("switchyard_records_total", ["topic": "feeds"])
        #expect(handled.withLock { $0 } == 0, "the records behind the slow one waited")
        // One hand-over (at most 500 records) may go past the limit before the pause.
        #expect(read <= 300 + 500, "\(read) records read behind the slow handler: the partition was not paused at its limit (300)")
        try await eventually(.seconds(90), "all handled") { handled.withLock { $0 } == count }
        try await worker.stop()
        let revoked = worker.logs.entries.filter { $0.message == "partitions revoked" && $0.metadata["kafka.lost"] == "true" }
        #expect(revoked.isEmpty, "the member was dropped from its group while the reader was busy")
        // librdkafka: "Application maximum poll interval (7000ms) exceeded by …" ([_MAX_POLL_EXCEEDED]).
        let pollExceeded = worker.logs.entries.filter {
            ($0.metadata["error"] ?? "").contains("MAX_POLL") || ($0.metadata["kafka.log"] ?? "").contains("maximum poll interval")
        }
        #expect(pollExceeded.isEmpty, "\(pollExceeded.map(\.metadata))")
        #expect(try await harness.committed([tp])[tp] == Int64(count))
    }

    // MARK: - 10. Gauges follow the assignment

    @Test func lagAndHaltedGaugesFollowTheAssignment() async throws {
        let harness = try Harness(topics: ["payments": 2, "payments.dlq": 1, "switchyard.control": 1])
        // Both partitions halt at their first record, with records behind it: lag on both.
        for p in Int32(0)..<2 {
            try await harness.produce("payments", partition: p, value: Self.badPayment)
            for _ in 0..<5 { try await harness.produce("payments", partition: p, value: Self.goodPayment) }
        }
        let config = harness.configuration(["payments": TopicConfiguration(catalog: .payments, deadLetterTopic: "payments.dlq")])
        let a = try RunningWorker(config)
        func gauge(_ name: String, _ p: Int32) -> Double { a.metrics.gauge(name, ["topic": "payments", "partition": String(p)]) ?? 0 }
        try await eventually(.seconds(60), "A halted on both with lag") {
            a.worker.status.halted.count == 2 && gauge("switchyard_consumer_lag", 0) > 0 && gauge("switchyard_consumer_lag", 1) > 0
        }
        let b = try RunningWorker(config)
        try await eventually(.seconds(60), "one partition each") {
            a.worker.status.assignment.count == 1 && b.worker.status.assignment.count == 1
        }
        let lost = try #require(Set([Int32(0), 1]).subtracting(a.worker.status.assignment.map(\.partition)).first)
        try await Task.sleep(for: .seconds(3))  // several statistics intervals
        #expect(gauge("switchyard_consumer_lag", lost) == 0, "A reports lag for a partition it no longer owns")
        #expect(gauge("switchyard_partition_halted", lost) == 0, "A reports a halt of a partition it no longer owns")
        #expect(a.worker.status.lag[KafkaTopicPartition(topic: "payments", partition: lost)] == nil)
        try await b.stop()
        try await a.stop()
    }

    // MARK: - 3. Signed releases

    @Test func withASharedSecretOnlySignedReleasesApply() async throws {
        // RFC 4231, test case 2.
        #expect(ReleaseSigning.hex(ReleaseSigning.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        let harness = try Harness(topics: ["payments": 1, "payments.dlq": 1, "switchyard.control": 1])
        let p0 = KafkaTopicPartition(topic: "payments", partition: 0)
        try await harness.produce("payments", partition: 0, value: Self.goodPayment)  // 0
        try await harness.produce("payments", partition: 0, value: Self.badPayment)  // 1: halts
        try await harness.produce("payments", partition: 0, value: Self.goodPayment)  // 2
        let secretFile = FileManager.default.temporaryDirectory.appendingPathComponent("release-secret-\(UUID().uuidString)").path
        try Data("s3cret-for-releases\n".utf8).write(to: URL(fileURLWithPath: secretFile))
        let (config, port) = try Self.writeConfig(
            harness, topics: ["payments": ["catalog": "payments"]],
            extra: ["controlTopic": ["name": "switchyard.control", "secret": "${file:\(secretFile)}"]])
        let worker = try ChildProcess(["consume", "--config", config])
        defer { if worker.isRunning { worker.signal(SIGKILL) } }
        try await eventually(.seconds(60), "halted at 1") { await Self.haltedOffset(port, topic: "payments", partition: 0) == 1 }
        let timestamp = Int64(try #require(await Self.status(port)?["halted"] as? [[String: Any]]).first?["timestamp"] as? Int ?? 0)

        // Unsigned, signed with another secret, and signed then altered (another operator's name): all rejected.
        try await Self.writeRelease(harness, topic: "payments", partition: 0, offset: 1, recordTimestamp: timestamp)
        var forged = ReleaseRequest(
            group: harness.group, topic: "payments", partition: 0, offset: 1, reason: "forged", operator: "mallory", recordTimestamp: timestamp)
        forged.signature = ReleaseSigning.signature(of: forged, secret: "guessed")
        _ = try await harness.producer.send(KafkaProducerRecord(topic: "switchyard.control", value: try CanonicalJSONEncoder().encode(forged)))
        var altered = ReleaseRequest(
            group: harness.group, topic: "payments", partition: 0, offset: 1, reason: "ok", operator: "alice", recordTimestamp: timestamp)
        altered.signature = ReleaseSigning.signature(of: altered, secret: "s3cret-for-releases")
        altered.operator = "mallory"
        _ = try await harness.producer.send(KafkaProducerRecord(topic: "switchyard.control", value: try CanonicalJSONEncoder().encode(altered)))
        try await eventually(.seconds(60), "three rejections counted") {
            let unsigned = await Self.metric(port, #"switchyard_releases_rejected_total{reason="unsigned"}"#) ?? 0
            let bad = await Self.metric(port, #"switchyard_releases_rejected_total{reason="bad_signature"}"#) ?? 0
            return unsigned == 1 && bad == 2
        }
        #expect(await Self.haltedOffset(port, topic: "payments", partition: 0) == 1, "no rejected release was applied")
        #expect(worker.stderr.contains(#""msg":"release rejected""#))
        #expect(!worker.stderr.contains("s3cret-for-releases"), "the secret is never logged")

        // The CLI signs with the config's secret: applied.
        let release = try ChildProcess([
            "release", "--config", config, "--status", "http://127.0.0.1:\(port)/status", "--topic", "payments", "--partition", "0",
            "--offset", "1", "--reason", "known bad record", "--operator", "alice",
        ])
        #expect(try await release.waitForExit(within: .seconds(60)) == 0, "\(release.stderr)")
        try await eventually(.seconds(60), "released: the record after it handled") {
            await Self.metric(port, #"switchyard_events_decoded_total{topic="payments",type="payment.captured"}"#) == 2
        }
        #expect(await Self.haltedOffset(port, topic: "payments", partition: 0) == nil)
        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit(within: .seconds(30)) == 0)
        #expect(try await harness.committed([p0])[p0] == 3)
    }
}
