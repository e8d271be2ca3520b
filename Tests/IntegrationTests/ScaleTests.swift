import Foundation
import Switchyard
import SwitchyardCatalog
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// Several `switchyard consume` processes in one group share a topic without loss.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct ScaleTests {
    /// The `(topic, partition)` pairs a worker's `/status` says it owns.
    static func assignment(port: Int) async -> Set<String>? {
        guard let (status, body) = await httpGet(port: port, "/status"), status == 200 else { return nil }
        let json: Any
        do {
            json = try JSONSerialization.jsonObject(with: Data(body.utf8))
        } catch {
            Issue.record("/status is not JSON: \(error)")
            return nil
        }
        guard let assignment = (json as? [String: Any])?["assignment"] as? [[String: Any]] else { return nil }
        return Set(assignment.compactMap { p in (p["topic"] as? String).flatMap { t in (p["partition"] as? Int).map { "\(t)/\($0)" } } })
    }

    @Test func threeWorkersSixPartitionsOneKilledNothingLostOrderKept() async throws {
        let harness = try Harness(topics: ["feeds": 6, "feeds.out": 6, "feeds.dlq": 1])
        let topics = ["feeds": ["catalog": "feeds", "republishTo": "feeds.out"]]
        var workers: [(process: ChildProcess, port: Int)] = []
        for _ in 0..<3 {
            let (config, port) = try ConsumeProcessTests.writeConfig(harness, topics: topics)
            workers.append((try ChildProcess(["consume", "--config", config]), port))
        }
        // The group settles: every member owns some of the six partitions.
        try await eventually(.seconds(120), "three members with partitions") {
            var owned: [Set<String>] = []
            for w in workers { owned.append(await Self.assignment(port: w.port) ?? []) }
            return owned.allSatisfy { !$0.isEmpty } && owned.reduce(Set<String>()) { $0.union($1) }.count == 6
        }

        // Produce while they consume: key = partition and sequence number, so order can be checked.
        let perPartition = 500
        var generator = CorpusGenerator(seed: 7)
        var keys: Set<String> = []
        var records: [(partition: Int32, key: String, value: [UInt8])] = []
        for seq in 0..<perPartition {
            for p in 0..<6 {
                let key = "p\(p)-\(seq)"
                keys.insert(key)
                records.append((Int32(p), key, generator.next(.feeds).value))
            }
        }
        let producer = harness.producer
        let produced = Locked(0)
        let toProduce = records
        let production = Task {
            for (i, r) in toProduce.enumerated() {
                _ = try await producer.send(KafkaProducerRecord(topic: "feeds", partition: r.partition, key: Array(r.key.utf8), value: r.value))
                produced.withLock { $0 = i + 1 }
                if i % 200 == 199 { try await Task.sleep(for: .milliseconds(100)) }
            }
        }
        // Kill one worker mid-stream.
        try await eventually(.seconds(120), "a third produced") { produced.withLock { $0 } > records.count / 3 }
        workers[1].process.signal(SIGKILL)
        _ = try await workers[1].process.waitForExit()
        try await production.value

        // Every record handled (republished) or dead-lettered, at least once.
        let reader = try KafkaConsumer.make(
            configuration: KafkaConsumerConfiguration(
                groupID: unique("verify"), topics: ["feeds.out", "feeds.dlq"],
                kafka: KafkaConfiguration(bootstrapServers: [harness.broker.bootstrapServers], properties: Harness.fastKafka, logLevel: .error)),
            logger: NoOpKafkaLogger())
        let expected = keys
        let outputs = try await withDeadline(.seconds(240), "every key republished or dead-lettered") {
            var seen: Set<String> = []
            var republished: [Int32: [Int]] = [:]
            for try await record in reader.records {
                guard let key = record.key.map({ String(decoding: $0, as: UTF8.self) }) else { continue }
                seen.insert(key)
                if record.topic == "feeds.out" {
                    #expect(key.hasPrefix("p\(record.partition)-"), "record stayed in its partition number")
                    republished[record.partition, default: []].append(Int(key.split(separator: "-")[1])!)
                }
                if seen.isSuperset(of: expected) { break }
            }
            return (seen, republished)
        }
        await reader.close()
        #expect(keys.subtracting(outputs.0).isEmpty, "lost: \(keys.subtracting(outputs.0).sorted().prefix(10))")

        // Per-partition order: first occurrences are increasing; a step back only replays what
        // was already sent (the at-least-once window after the kill).
        for (partition, sequence) in outputs.1 {
            var seen: Set<Int> = []
            var lastNew = -1
            for seq in sequence {
                if seen.contains(seq) { continue }
                #expect(seq > lastNew, "partition \(partition): \(seq) after \(lastNew)")
                lastNew = seq
                seen.insert(seq)
            }
        }

        // The survivors own every partition.
        try await eventually(.seconds(60), "survivors own all six partitions") {
            let a = await Self.assignment(port: workers[0].port) ?? []
            let b = await Self.assignment(port: workers[2].port) ?? []
            return a.union(b).count == 6
        }
        for w in [workers[0], workers[2]] {
            w.process.signal(SIGTERM)
            #expect(try await w.process.waitForExit(within: .seconds(40)) == 0)
        }
    }
}
