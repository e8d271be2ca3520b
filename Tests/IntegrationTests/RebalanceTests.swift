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
        /// The handler's task was cancelled when it returned: its partition was revoked meanwhile.
        var cancelled = false
    }

    /// Whether a worker's commit at a revocation did not happen: refused, or skipped because the assignment was
    /// lost. Only then may the next owner handle records again from the group's last periodic commit
    /// (at-least-once). The embedded broker refuses every commit while its group is joining
    /// (`REBALANCE_IN_PROGRESS`), where Apache Kafka accepts one from the current generation until the
    /// rebalance completes; so here a revocation's commit fails whenever a member's join started the rebalance.
    static func aRevocationLeftOffsetsUncommitted(_ workers: [RunningWorker]) -> Bool {
        workers.contains { worker in
            worker.logs.entries.contains {
                ($0.message == "kafka error" && ($0.metadata["error"] ?? "").contains("commit on revocation failed"))
                    || ($0.message == "partitions revoked" && $0.metadata["kafka.lost"] == "true")
            }
        }
    }

    /// One partition's records as they were written (republished or dead-lettered), by source offset, where each
    /// is written once by each owner that handles it: an owner goes on record after record, and a new owner may
    /// start again from an earlier committed offset (a replay), but nothing jumps ahead. The jumps ahead found.
    static func jumpsAhead(_ offsets: [Int]) -> [String] {
        zip(offsets, offsets.dropFirst()).compactMap { previous, next in next > previous + 1 ? "\(previous)→\(next)" : nil }
    }

    /// What each worker saw of the group, for a failure's message.
    static func groupLog(_ worker: RunningWorker) -> String {
        worker.logs.entries.filter { $0.message.hasPrefix("partitions") || $0.message == "kafka error" }
            .map { "\($0.message) \($0.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))" }
            .joined(separator: "; ")
    }

    /// Worker A's handler of each partition's first record outlives the rebalance a second worker's join starts
    /// (it ignores cancellation and takes 6 s), under the eager protocol, which revokes every partition and
    /// may give one back to A at once. The revoke waits for it: it never runs beside another run of the same
    /// record (on A's next lane or on B), and its success after the revoke publishes nothing. Every record is
    /// republished, in offset order per partition, once by each owner whose handler of it returned before its
    /// revocation: more than once only when a revocation's commit did not happen (a replay).
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
                let cancelled = Task.isCancelled
                runs.withLock {
                    $0[index].end = .now
                    $0[index].cancelled = cancelled
                }
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
        let kafka = KafkaConfiguration(
            bootstrapServers: [harness.broker.bootstrapServers], clientID: "verify", properties: Harness.fastKafka, logLevel: .error)
        let marks = try await KafkaConsumer.watermarks(
            (0..<2).map { KafkaTopicPartition(topic: "feeds.out", partition: Int32($0)) }, kafka: kafka)
        let written = marks.values.reduce(0) { $0 + Int($1.high - $1.low) }
        let out = try await harness.readAll("feeds.out", count: written, within: .seconds(30))
        // Which worker ran which record, in order, and whether its revocation came first (†).
        let history = all.map { "\($0.worker):\($0.record)\($0.cancelled ? "†" : "")" }.joined(separator: " ")
        let context = "runs: \(history); A: \(Self.groupLog(a)); B: \(Self.groupLog(b))"
        var published: [String: Int] = [:]
        for p in Int32(0)..<2 {
            let offsets = out.filter { $0.partition == p }.compactMap { record in
                record.headers.first { $0.name == DeadLetterHeaders.republishedFrom }.flatMap { $0.value }
                    .flatMap { Int(String(decoding: $0, as: UTF8.self).split(separator: "/").last ?? "") }
            }
            for offset in offsets { published["\(p)@\(offset)", default: 0] += 1 }
            #expect(Self.jumpsAhead(offsets).isEmpty, "feeds.out/\(p) out of order: \(offsets); \(context)")
        }
        for record in Set(all.map(\.record)).sorted() {
            let owned = all.filter { $0.record == record && $0.end != nil && !$0.cancelled }.count
            let count = published[record] ?? 0
            #expect(count >= 1, "\(record) never republished; \(context)")
            #expect(count <= owned, "\(record) republished \(count) times, by \(owned) handler runs that returned before a revocation: published after a revoke; \(context)")
        }
        #expect(published.count == 2 * perPartition, "republished \(published.keys.sorted()), \(2 * perPartition) records")
        if published.values.contains(where: { $0 > 1 }) {
            #expect(Self.aRevocationLeftOffsetsUncommitted([a, b]), "republished twice with every revocation's commit done; \(context)")
        }
    }

    /// Worker A's handler of each partition's first record dead-letters it after the rebalance a second worker's
    /// join starts (it ignores cancellation and takes 6 s); every other record is dead-lettered at once, by
    /// whichever worker owns its partition. A dead letter a handler asks for after its partition's revocation is
    /// never written (the new owner writes it); every record is dead-lettered, in offset order per partition, and
    /// more than once only when a revocation's commit did not happen (a replay).
    @Test(arguments: ["range", "cooperative-sticky"])
    func aDeadLetterAskedForAfterItsPartitionsRevocationIsNeverWritten(assignor: String) async throws {
        let harness = try Harness(topics: ["feeds": 2, "feeds.dlq": 1])
        let perPartition = 5
        for i in 0..<(2 * perPartition) {
            try await harness.produce("feeds", partition: Int32(i % 2), value: Self.good, key: "k-\(i)")
        }
        let slowStarted = Locked(0)
        let runs = Locked<[String]>([])
        func handlers(_ name: String) -> EventHandlers {
            var h = EventHandlers()
            h.handle(PostLiked.self) { _, context in
                runs.withLock { $0.append("\(name):\(context.partition)@\(context.offset)") }
                if name == "A", context.offset == 0 {
                    slowStarted.withLock { $0 += 1 }
                    await withCheckedContinuation { continuation in
                        DispatchQueue.global().asyncAfter(deadline: .now() + 6) { continuation.resume() }
                    }
                }
                return .deadLetter(kind: "rejectedLike", reason: Task.isCancelled ? Self.afterRevocation : "every like is rejected here")
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
        let deadLetters = letters.map { DeadLetter($0) }
        let sources = deadLetters.map { "\($0.originalPartition ?? -1)@\($0.originalOffset ?? -1)" }
        let context = "runs: \(runs.withLock { $0 }.joined(separator: " ")); A: \(Self.groupLog(a)); B: \(Self.groupLog(b))"
        let late = zip(deadLetters, sources).filter { $0.0.message?.contains(Self.afterRevocation) ?? false }.map(\.1)
        #expect(late.isEmpty, "dead letters written after their partition's revocation: \(late); \(context)")
        #expect(Set(sources).count == 2 * perPartition, "dead letters for \(Set(sources).sorted()), \(2 * perPartition) records")
        for p in 0..<2 {
            let offsets = deadLetters.filter { $0.originalPartition == Int32(p) }.compactMap { $0.originalOffset.map(Int.init) }
            #expect(Self.jumpsAhead(offsets).isEmpty, "feeds/\(p) dead-lettered out of order: \(offsets); \(context)")
        }
        let twice = Dictionary(grouping: sources, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        if !twice.isEmpty {
            #expect(Self.aRevocationLeftOffsetsUncommitted([a, b]), "dead-lettered more than once with every revocation's commit done: \(twice); \(context)")
        }
    }

    /// The reason a handler gives when it returns after its partition's revocation (its task was cancelled).
    static let afterRevocation = "returned after its partition was revoked"
}
