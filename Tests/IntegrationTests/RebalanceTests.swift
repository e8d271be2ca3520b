import Foundation
import Switchyard
import SwitchyardCatalog
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// A rebalance stops a revoked partition's work before it completes: no record's handler runs twice at once,
/// nothing of a revoked partition is produced afterwards, and a partition's records finish in order.
@Suite(.serialized, .timeLimit(.minutes(6)))
struct RebalanceTests {
    static let good = try! Harness.fixture("post-liked-v2.json")

    /// One handler call: which worker, which record, when it started and ended.
    struct Run: Sendable {
        var worker: String
        var record: String
        var start: ContinuousClock.Instant
        var end: ContinuousClock.Instant?
    }

    /// Worker A's handler of each partition's first record outlives the rebalance a second worker's join starts
    /// (it ignores cancellation and takes 6 s), under the eager protocol, which revokes every partition and
    /// may give one back to A at once. The revoke waits for it: it never runs beside another run of the same
    /// record (on A's next lane or on B), and its success after the revoke publishes nothing; every record is
    /// republished exactly once, in offset order per partition.
    @Test(arguments: ["range", "cooperative-sticky"])
    func revokeStopsThePartitionsHandlersBeforeItCompletes(assignor: String) async throws {
        let harness = try Harness(topics: ["feeds": 2, "feeds.dlq": 1, "feeds.out": 2])
        let perPartition = 10
        for i in 0..<(2 * perPartition) {
            try await harness.produce("feeds", partition: Int32(i % 2), value: Self.good, key: "k-\(i)")
        }
        let runs = Locked<[Run]>([])
        let slowStarted = Locked(0)
        func handlers(_ name: String) -> EventHandlers {
            var h = EventHandlers()
            h.on(PostLiked.self) { _, context in
                let record = "\(context.partition)@\(context.offset)"
                let index = runs.withLock { runs in
                    runs.append(Run(worker: name, record: record, start: .now))
                    return runs.count - 1
                }
                if name == "A", context.offset == 0 {
                    slowStarted.withLock { $0 += 1 }
                    // Ignores cancellation: only the revoke's wait keeps its success from being published.
                    await withCheckedContinuation { continuation in
                        DispatchQueue.global().asyncAfter(deadline: .now() + 6) { continuation.resume() }
                    }
                }
                runs.withLock { $0[index].end = .now }
            }
            return h
        }
        var config = harness.configuration([
            "feeds": TopicConfiguration(catalog: .feeds, deadLetterTopic: "feeds.dlq", republishTo: "feeds.out")
        ])
        config.kafka["partition.assignment.strategy"] = assignor
        let a = try RunningWorker(config, handlers: handlers("A"))
        try await eventually(.seconds(60), "A's handlers of both first records running") { slowStarted.withLock { $0 } == 2 }
        let b = try RunningWorker(config, handlers: handlers("B"))
        try await eventually(.seconds(60), "one partition each") {
            a.worker.status.assignment.count == 1 && b.worker.status.assignment.count == 1
        }
        try await eventually(.seconds(90), "every record handled") {
            let finished = Set(runs.withLock { $0 }.filter { $0.end != nil }.map(\.record))
            return finished.count == 2 * perPartition
        }
        try await Task.sleep(for: .seconds(4))  // anything A still had to publish after its 6 s handlers
        try await b.stop()
        try await a.stop()

        let all = runs.withLock { $0 }
        for (i, x) in all.enumerated() {
            for y in all[(i + 1)...] where x.record == y.record {
                let overlap = x.start < (y.end ?? .now) && y.start < (x.end ?? .now)
                #expect(!overlap, "\(x.record) ran on \(x.worker) and on \(y.worker) at the same time")
            }
        }
        let out = try await harness.readAll("feeds.out", count: 2 * perPartition, within: .seconds(30))
        try await Task.sleep(for: .seconds(1))
        let kafka = KafkaConfiguration(
            bootstrapServers: [harness.broker.bootstrapServers], clientID: "verify", properties: Harness.fastKafka, logLevel: .error)
        let marks = try await KafkaConsumer.watermarks(
            (0..<2).map { KafkaTopicPartition(topic: "feeds.out", partition: Int32($0)) }, kafka: kafka)
        let written = marks.values.reduce(0) { $0 + Int($1.high - $1.low) }
        // Which worker ran which record, in order: a record run twice by one owner and then by the next after a
        // second rebalance (at-least-once) reads differently from a success published after its revoke.
        let history = all.map { "\($0.worker):\($0.record)" }.joined(separator: " ")
        #expect(written == 2 * perPartition, "feeds.out holds \(written) records for \(2 * perPartition): published after a revoke; runs: \(history)")
        for p in Int32(0)..<2 {
            let sources = out.filter { $0.partition == p }.compactMap { record in
                record.headers.first { $0.name == DeadLetterHeaders.republishedFrom }.flatMap { $0.value }.map { String(decoding: $0, as: UTF8.self) }
            }
            let offsets = sources.compactMap { Int($0.split(separator: "/").last ?? "") }
            #expect(offsets == offsets.sorted(), "feeds.out/\(p) out of order: \(offsets)")
        }
    }

    /// Worker A's handler of each partition's first record dead-letters it after the rebalance a second worker's
    /// join starts (it ignores cancellation and takes 6 s); every other record is dead-lettered at once, by
    /// whichever worker owns its partition. Each record is dead-lettered once: a revoked partition's dead letter
    /// is either durable with its offset committed before the partition moves, or not produced and written by
    /// the new owner.
    @Test(arguments: ["range", "cooperative-sticky"])
    func aRecordDeadLetteredAcrossARebalanceIsDeadLetteredOnce(assignor: String) async throws {
        let harness = try Harness(topics: ["feeds": 2, "feeds.dlq": 1])
        let perPartition = 5
        for i in 0..<(2 * perPartition) {
            try await harness.produce("feeds", partition: Int32(i % 2), value: Self.good, key: "k-\(i)")
        }
        let slowStarted = Locked(0)
        func handlers(_ name: String) -> EventHandlers {
            var h = EventHandlers()
            h.handle(PostLiked.self) { _, context in
                if name == "A", context.offset == 0 {
                    slowStarted.withLock { $0 += 1 }
                    await withCheckedContinuation { continuation in
                        DispatchQueue.global().asyncAfter(deadline: .now() + 6) { continuation.resume() }
                    }
                }
                return .deadLetter(kind: "rejectedLike", reason: "every like is rejected here")
            }
            return h
        }
        var config = harness.configuration(["feeds": TopicConfiguration(catalog: .feeds, deadLetterTopic: "feeds.dlq")])
        config.kafka["partition.assignment.strategy"] = assignor
        let a = try RunningWorker(config, handlers: handlers("A"))
        try await eventually(.seconds(60), "A's handlers of both first records running") { slowStarted.withLock { $0 } == 2 }
        let b = try RunningWorker(config, handlers: handlers("B"))
        try await eventually(.seconds(60), "one partition each") {
            a.worker.status.assignment.count == 1 && b.worker.status.assignment.count == 1
        }
        let feeds = (0..<2).map { KafkaTopicPartition(topic: "feeds", partition: Int32($0)) }
        try await eventually(.seconds(90), "every record's offset committed") {
            let committed = try await harness.committed(feeds)
            return feeds.allSatisfy { committed[$0] == Int64(perPartition) }
        }
        try await Task.sleep(for: .seconds(7))  // anything A still had to write after its 6 s handlers
        try await b.stop()
        try await a.stop()

        let kafka = KafkaConfiguration(
            bootstrapServers: [harness.broker.bootstrapServers], clientID: "verify", properties: Harness.fastKafka, logLevel: .error)
        let dlq = KafkaTopicPartition(topic: "feeds.dlq", partition: 0)
        let marks = try await KafkaConsumer.watermarks([dlq], kafka: kafka)
        let written = Int((marks[dlq]?.high ?? 0) - (marks[dlq]?.low ?? 0))
        let letters = try await harness.readAll("feeds.dlq", count: written, within: .seconds(30))
        let sources = letters.map { DeadLetter($0) }.map { "\($0.originalPartition ?? -1)@\($0.originalOffset ?? -1)" }
        let twice = Dictionary(grouping: sources, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        #expect(twice.isEmpty, "dead-lettered more than once: \(twice)")
        #expect(Set(sources).count == 2 * perPartition, "dead letters for \(Set(sources).sorted()), \(2 * perPartition) records")
    }
}
