import Foundation
import Switchyard
import SwitchyardCatalog
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// Faults injected on the embedded broker while a worker consumes. Each test produces keyed
/// records (good and bad), injects one fault, and checks that every key ends up republished or
/// dead-lettered (none lost), that nothing is handled twice outside the at-least-once window, and
/// that the fault shows in metrics and in the worker's logs or `/status` recent errors.
///
/// SIGKILL and restart is `ConsumeProcessTests.sigkillMidStreamAndRestartLosesNothing`.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct FaultTests {
    static let good = try! Harness.fixture("post-liked-v2.json")
    static let bad = try! Harness.fixture("fail-missing-user-id.json")

    /// Produces `count` records keyed `k-0…`, round-robin over `partitions`; every 10th is bad.
    static func produce(_ harness: Harness, count: Int, partitions: Int32, from start: Int = 0) async throws -> [String: Bool] {
        var keys: [String: Bool] = [:]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in start..<(start + count) {
                let key = "k-\(i)"
                let isBad = i % 10 == 7
                keys[key] = isBad
                group.addTask {
                    try await harness.produce("feeds", partition: Int32(i) % partitions, value: isBad ? bad : good, key: key)
                }
            }
            try await group.waitForAll()
        }
        return keys
    }

    static func configuration(_ harness: Harness, group: String? = nil) -> WorkerConfiguration {
        harness.configuration(["feeds": TopicConfiguration(catalog: .feeds, deadLetterTopic: "feeds.dlq", republishTo: "feeds.out")], group: group)
    }

    /// Every record of `topics` from the beginning to the current end, by key.
    static func keyCounts(_ harness: Harness, _ topics: [String], partitions: [String: Int]) async throws -> [String: Int] {
        let kafka = KafkaConfiguration(bootstrapServers: [harness.broker.bootstrapServers], clientID: "verify", properties: Harness.fastKafka, logLevel: .error)
        var total = 0
        for topic in topics {
            let tps = (0..<(partitions[topic] ?? 1)).map { KafkaTopicPartition(topic: topic, partition: Int32($0)) }
            total += try await KafkaConsumer.watermarks(tps, kafka: kafka).values.reduce(0) { $0 + Int($1.high - $1.low) }
        }
        let records = try await harness.readAllTopics(topics, count: total)
        var counts: [String: Int] = [:]
        for r in records { counts[String(decoding: r.key ?? [], as: UTF8.self), default: 0] += 1 }
        return counts
    }

    /// Lost and duplicated keys of `keys` in feeds.out (good) and feeds.dlq (bad).
    static func audit(_ harness: Harness, _ keys: [String: Bool], outPartitions: Int = 1) async throws -> (lost: [String], duplicates: [String]) {
        let counts = try await keyCounts(harness, ["feeds.out", "feeds.dlq"], partitions: ["feeds.out": outPartitions, "feeds.dlq": 1])
        let lost = keys.keys.filter { counts[$0, default: 0] == 0 }.sorted()
        let duplicates = keys.keys.filter { counts[$0, default: 0] > 1 }.sorted()
        return (lost, duplicates)
    }

    static func logged(_ worker: RunningWorker, _ predicate: (InMemoryLogHandler.Entry) -> Bool) -> Bool {
        worker.logs.entries.contains(where: predicate)
    }

    // MARK: - Broker down

    @Test func brokerDownDuringConsume() async throws {
        let harness = try Harness(topics: ["feeds": 2, "feeds.dlq": 1, "feeds.out": 1])
        var keys = try await Self.produce(harness, count: 100, partitions: 2)
        let worker = try RunningWorker(Self.configuration(harness))
        try await eventually(.seconds(60), "first batch") { worker.counter("switchyard_records_total", ["topic": "feeds"]) == 100 }
        try harness.broker.setBrokerDown(1)
        try await Task.sleep(for: .seconds(4))
        try harness.broker.setBrokerUp(1)
        keys.merge(try await Self.produce(harness, count: 100, partitions: 2, from: 100)) { a, _ in a }
        try await eventually(.seconds(90), "second batch after the outage") { worker.counter("switchyard_records_total", ["topic": "feeds"]) == 200 }
        try await worker.stop()
        let (lost, duplicates) = try await Self.audit(harness, keys)
        #expect(lost.isEmpty, "lost \(lost.prefix(5))")
        #expect(duplicates.isEmpty, "one worker, no restart: nothing is handled twice")
        // Visible: librdkafka's transport errors reach the log and /status.
        #expect(worker.worker.status.recentErrors.contains { $0.message == "kafka error" })
        #expect(Self.logged(worker) { $0.level >= .warning && ($0.message == "kafka error" || $0.message == "librdkafka") })
    }

    @Test func brokerDownDuringDeadLetterProduce() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1, "feeds.out": 1])
        // k-0…k-6 good, k-7 bad: the handler of k-6 takes the broker down, so k-7's dead letter is
        // produced while it is down; it comes back 4 s later.
        let keys = try await Self.produce(harness, count: 30, partitions: 1)
        let broker = harness.broker
        var handlers = EventHandlers()
        handlers.on(PostLiked.self) { _, context in
            if context.key == Array("k-6".utf8) {
                try broker.setBrokerDown(1)
                Task {
                    try await Task.sleep(for: .seconds(4))
                    try broker.setBrokerUp(1)
                }
            }
        }
        var config = Self.configuration(harness)
        config.kafka["message.timeout.ms"] = "2000"  // deliveries fail while the broker is down, and are retried
        let worker = try RunningWorker(config, handlers: handlers)
        try await eventually(.seconds(120), "all handled") {
            worker.counter("switchyard_republished_total", ["topic": "feeds", "target": "feeds.out"])
                + worker.counter("switchyard_dead_letters_total", ["topic": "feeds", "kind": "keyNotFound"]) == 30
        }
        try await worker.stop()
        let (lost, duplicates) = try await Self.audit(harness, keys)
        #expect(lost.isEmpty, "lost \(lost.prefix(5))")
        #expect(duplicates.isEmpty)
        // Visible: librdkafka queues the produce while the broker is down (delivered when it is back) or
        // the delivery times out and the worker retries (counted); either way the outage is in /status: a
        // client error, or the worker's sends (the dead letter, republishes) failing and retried.
        let errors = worker.worker.status.recentErrors.map(\.message)
        #expect(
            errors.contains { $0.hasPrefix("dead letter failed") || $0.hasPrefix("republish failed") || $0 == "kafka error" },
            "nothing of the outage in /status: \(errors)")
        #expect(try await harness.committed([KafkaTopicPartition(topic: "feeds", partition: 0)])[KafkaTopicPartition(topic: "feeds", partition: 0)] == 30)
    }

    // MARK: - Request errors

    @Test func produceRequestErrorsOnRepublishAndDeadLetter() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1, "feeds.out": 1])
        let keys = try await Self.produce(harness, count: 40, partitions: 1)
        // Retriable errors (librdkafka retries them itself), then non-retriable ones (the worker retries).
        harness.broker.pushRequestErrors(.produce, Array(repeating: .notLeaderForPartition, count: 5) + Array(repeating: .topicAuthorizationFailed, count: 8))
        let worker = try RunningWorker(Self.configuration(harness))
        try await eventually(.seconds(120), "all handled") { worker.counter("switchyard_records_total", ["topic": "feeds"]) == 40 }
        try await eventually(.seconds(60), "all acknowledged") {
            worker.counter("switchyard_republished_total", ["topic": "feeds", "target": "feeds.out"]) == 36
        }
        try await worker.stop()
        let (lost, duplicates) = try await Self.audit(harness, keys)
        #expect(lost.isEmpty, "lost \(lost.prefix(5))")
        #expect(duplicates.isEmpty)
        let errors = worker.counter("switchyard_republish_errors_total", ["topic": "feeds"]) + worker.counter("switchyard_dead_letter_errors_total", ["topic": "feeds"])
        #expect(errors >= 1, "failed produce attempts are counted")
        // TOPIC_AUTHORIZATION_FAILED reaches the worker (librdkafka retries NOT_LEADER itself): the partition
        // is held and says so until the next send is acknowledged.
        #expect(worker.worker.status.recentErrors.contains {
            $0.message.hasSuffix("failed; retrying") || $0.message == "target topic unavailable; partition halted"
        })
        #expect(try await harness.committed([KafkaTopicPartition(topic: "feeds", partition: 0)])[KafkaTopicPartition(topic: "feeds", partition: 0)] == 40)
    }

    /// A send that fails is retried before the sends after it go out: the republished records of a partition
    /// stay in offset order through non-retriable produce errors.
    @Test func republishedRecordsKeepTheirOrderThroughProduceErrors() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1, "feeds.out": 1])
        let count = 300
        for i in 0..<count { try await harness.produce("feeds", partition: 0, value: Self.good, key: "k-\(i)") }
        harness.broker.pushRequestErrors(.produce, Array(repeating: .topicAuthorizationFailed, count: 6))
        let worker = try RunningWorker(Self.configuration(harness))
        try await eventually(.seconds(120), "all acknowledged") {
            worker.counter("switchyard_republished_total", ["topic": "feeds", "target": "feeds.out"]) == Int64(count)
        }
        try await worker.stop()
        let out = try await harness.readAll("feeds.out", count: count)
        let offsets = out.compactMap { record in
            record.headers.first { $0.name == DeadLetterHeaders.republishedFrom }.flatMap { $0.value }
                .flatMap { Int(String(decoding: $0, as: UTF8.self).split(separator: "/").last ?? "") }
        }
        let inversions = zip(offsets, offsets.dropFirst()).filter { $0 > $1 }.count
        let errors = worker.counter("switchyard_republish_errors_total", ["topic": "feeds"])
        print("FIGURE produce errors: \(count) records, \(errors) failed sends, \(inversions) adjacent inversions in feeds.out")
        #expect(errors >= 1, "the injected errors reached the worker")
        #expect(Set(offsets).count == count, "every record republished")
        #expect(inversions == 0, "feeds.out out of order: \(inversions) adjacent inversions")
    }

    @Test func fetchRequestErrors() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1, "feeds.out": 1])
        let keys = try await Self.produce(harness, count: 40, partitions: 1)
        harness.broker.pushRequestErrors(.fetch, [.notLeaderForPartition, .unknownTopicOrPartition, .requestTimedOut, .notLeaderForPartition, .transport])
        let worker = try RunningWorker(Self.configuration(harness))
        try await eventually(.seconds(120), "all handled") { worker.counter("switchyard_records_total", ["topic": "feeds"]) == 40 }
        try await worker.stop()
        let (lost, duplicates) = try await Self.audit(harness, keys)
        #expect(lost.isEmpty, "lost \(lost.prefix(5))")
        #expect(duplicates.isEmpty)
    }

    @Test func offsetCommitErrors() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1, "feeds.out": 1])
        let tp = KafkaTopicPartition(topic: "feeds", partition: 0)
        let keys = try await Self.produce(harness, count: 40, partitions: 1)
        harness.broker.pushRequestErrors(.offsetCommit, Array(repeating: .requestTimedOut, count: 6))
        // The worker's default librdkafka log level (warning): librdkafka logs failed commits (COMMITFAIL).
        let worker = try RunningWorker(Self.configuration(harness), kafkaLogLevel: .warning)
        try await eventually(.seconds(120), "all handled") { worker.counter("switchyard_records_total", ["topic": "feeds"]) == 40 }
        // The periodic commit is retried until one gets through.
        try await eventually(.seconds(60), "committed despite the errors") { try await harness.committed([tp])[tp] == 40 }
        try await worker.stop()
        let (lost, duplicates) = try await Self.audit(harness, keys)
        #expect(lost.isEmpty)
        #expect(duplicates.isEmpty)
        #expect(try await harness.committed([tp])[tp] == 40)
        // Visible: the failed commits are logged by the worker.
        #expect(Self.logged(worker) { $0.message == "librdkafka" && $0.level >= .warning && ($0.metadata["kafka.log"] ?? "").contains("commit") },
                "commit failures are visible in the log")
        if ProcessInfo.processInfo.environment["DEBUG_LOGS"] != nil { for e in worker.logs.entries { print(e) } }
    }

    // MARK: - Rebalance

    @Test func secondWorkerJoiningMidBatch() async throws {
        let harness = try Harness(topics: ["feeds": 4, "feeds.dlq": 1, "feeds.out": 4])
        let keys = try await Self.produce(harness, count: 800, partitions: 4)
        // Each worker notes what it handled (good records only; bad ones go to the DLQ).
        let handled = Locked<[String: [String]]>([:])
        let handledAt = Locked<[ContinuousClock.Instant]>([])
        func handlers(_ name: String) -> EventHandlers {
            var h = EventHandlers()
            h.on(PostLiked.self) { _, context in
                try await Task.sleep(for: .milliseconds(5))  // slow enough for the rebalance to land mid-batch
                handled.withLock { $0[name, default: []].append("\(context.partition)/\(context.offset)") }
                handledAt.withLock { $0.append(.now) }
            }
            return h
        }
        let config = Self.configuration(harness)
        let first = try RunningWorker(config, handlers: handlers("first"))
        try await eventually(.seconds(60), "first worker under way") { first.counter("switchyard_records_total", ["topic": "feeds"]) > 150 }
        let second = try RunningWorker(config, handlers: handlers("second"))
        try await eventually(.seconds(60), "rebalanced") { second.worker.status.assignment.count > 0 }
        do {
            try await eventually(.seconds(180), "all handled by the two") {
                let out = first.counter("switchyard_republished_total", ["topic": "feeds", "target": "feeds.out"])
                    + second.counter("switchyard_republished_total", ["topic": "feeds", "target": "feeds.out"])
                let dead = first.counter("switchyard_dead_letters_total", ["topic": "feeds", "kind": "keyNotFound"])
                    + second.counter("switchyard_dead_letters_total", ["topic": "feeds", "kind": "keyNotFound"])
                let outKeys = Set(try await Self.keyCounts(harness, ["feeds.out", "feeds.dlq"], partitions: ["feeds.out": 4, "feeds.dlq": 1]).keys)
                return out + dead >= 800 && outKeys.isSuperset(of: keys.keys)
            }
        } catch {
            // On a timeout, what each worker saw: the counts that tell a lost record from a slow one.
            for (name, worker) in [("first", first), ("second", second)] {
                let handledCount = worker.counter("switchyard_records_total", ["topic": "feeds"])
                print("secondWorkerJoiningMidBatch: \(name) worker, \(handledCount) records handled, assignment \(worker.worker.status.assignment); its last log lines:")
                for entry in worker.logs.entries.suffix(60) { print("  \(entry)") }
            }
            throw error
        }
        // The uncommitted tail: the most records handled in one auto-commit interval (500 ms here), plus the
        // work in flight. The mock cluster refuses the commit in the revoke callback (REBALANCE_IN_PROGRESS), so
        // a new owner starts from the last periodic commit. The worker handles partitions concurrently (a lane
        // each, 5 ms per record), so the tail is what the run's own handling rate makes it, not a fixed number.
        let times = handledAt.withLock { $0 }.sorted()
        var window = 0
        var low = 0
        for high in times.indices {
            while times[low] < times[high] - .milliseconds(500) { low += 1 }
            window = max(window, high - low + 1)
        }
        let tail = window + 50
        // Each revocation can hand a worker back one such tail: the eager protocol revokes every partition, the
        // commit in the revoke callback is refused, and what the worker gets back it reads again from the last
        // periodic commit. A second member's join may take more than one rebalance (seen: the first worker
        // revoked twice, feeds/0 and feeds/1 assigned back both times), so the bound counts them.
        func revocations(_ worker: RunningWorker) -> Int {
            worker.logs.entries.filter { $0.message == "partitions revoked" }.count
        }
        let revoked = ["first": revocations(first), "second": revocations(second)]
        try await second.stop()
        try await first.stop()
        let (lost, duplicates) = try await Self.audit(harness, keys, outPartitions: 4)
        #expect(lost.isEmpty, "lost \(lost.prefix(5))")
        // At-least-once window: a record is handled twice only on a partition that moved, from the offset
        // the new owner started at, and no more than the uncommitted tail. That holds for one worker too:
        // the eager protocol revokes every partition first and may give some back to the same worker,
        // which then reads from the last commit; records it handled after that commit (in flight at the
        // revoke, or when the commit in the revoke callback fails during the rebalance) come again.
        let byWorker = handled.withLock { $0 }
        for (name, positions) in byWorker {
            let again = positions.count - Set(positions).count
            let bound = max(revoked[name] ?? 0, 1) * tail
            #expect(again <= bound, "\(name) handled \(again) records twice: more than an uncommitted tail (\(tail)) per revocation (\(revoked[name] ?? 0))")
        }
        let a = Set(byWorker["first"] ?? []), b = Set(byWorker["second"] ?? [])
        let twice = a.intersection(b)
        var start: [String: Int] = [:]
        for p in byWorker["second"] ?? [] {
            let parts = p.split(separator: "/")
            start[String(parts[0])] = min(start[String(parts[0])] ?? Int.max, Int(parts[1])!)
        }
        for p in twice {
            let parts = p.split(separator: "/")
            #expect(Int(parts[1])! >= start[String(parts[0])]!, "duplicate \(p) before the new owner's start")
        }
        #expect(twice.count <= tail, "duplicates bounded by the uncommitted tail (\(tail)): \(twice.count)")
        // A key is written twice when either worker handled it twice (both counts above).
        let revocationsInAll = max((revoked["first"] ?? 0) + (revoked["second"] ?? 0), 1)
        #expect(duplicates.count <= (revocationsInAll + 1) * tail, "republished or dead-lettered twice: \(duplicates.count)")
        #expect(Self.logged(first) { $0.message == "partitions revoked" }, "the rebalance is logged")
        let again = byWorker.mapValues { $0.count - Set($0).count }
        print("FIGURE rebalance: 800 records, at most \(window) handled per commit interval (tail bound \(tail)), revocations \(revoked), handled twice by one worker \(again), by both \(twice.count), lost \(lost.count), keys written twice \(duplicates.count)")
    }

    // MARK: - Record size

    @Test func workerEnforcesMaxRecordBytes() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1, "feeds.out": 1])
        var config = Self.configuration(harness)
        config.maxRecordBytes = 1000
        let big = Array(Self.good.dropLast(2)) + Array(#","pad":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: 2000) + Array(#""}"#.utf8)
        try await harness.produce("feeds", partition: 0, value: Self.good, key: "small")
        try await harness.produce("feeds", partition: 0, value: big, key: "big")
        let worker = try RunningWorker(config)
        let dead = try await harness.readAll("feeds.dlq", count: 1)
        #expect(WorkerTests.header(dead[0], "switchyard.error.kind") == "dataCorrupted")
        #expect(WorkerTests.header(dead[0], "switchyard.error.path") == "")
        #expect(WorkerTests.header(dead[0], "switchyard.error.message") == "Invalid JSON: record larger than 1000 bytes at byte offset 0.")
        #expect(dead[0].value == big, "the dead letter carries the original bytes")
        try await worker.stop()
    }
}
