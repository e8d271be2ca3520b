import Foundation
import Switchyard
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// `switchyard-bench-worker`, the worker that `make bench-worker` runs for its slow-handler rows: its
/// handler really waits per record (or the 1 ms rows would measure nothing), and its exit codes.
@Suite(.serialized, .timeLimit(.minutes(4)))
struct BenchWorkerTests {
    /// The built `switchyard-bench-worker`, beside the built `switchyard`.
    static let binary = switchyardBinary.deletingLastPathComponent().appendingPathComponent("switchyard-bench-worker")

    /// `processed` from the worker's `/status` (records whose outcome is durable); 0 while it does not answer.
    ///
    /// - Throws: when `/status` answers with something other than a JSON object with `processed`.
    static func processed(_ port: Int) async throws -> Int {
        guard let (status, body) = await httpGet(port: port, "/status"), status == 200 else { return 0 }
        let document = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        return try #require(document?["processed"] as? Int, "/status without processed: \(body)")
    }

    @Test func usageAndConfigurationErrors() async throws {
        let none = try ChildProcess([], executable: Self.binary)
        #expect(try await none.waitForExit() == 64)
        #expect(none.stderr.contains("CONFIG.json is required"))

        let badSleep = try ChildProcess(["/nonexistent.json", "--handler-sleep-ms", "soon"], executable: Self.binary)
        #expect(try await badSleep.waitForExit() == 64)
        #expect(badSleep.stderr.contains("--handler-sleep-ms needs a non-negative integer"))

        let missing = try ChildProcess(["/nonexistent.json"], executable: Self.binary)
        #expect(try await missing.waitForExit() == 78)
        #expect(missing.stderr.contains("/nonexistent.json"))
    }

    /// 40 records in one partition, handled once without a handler and once with a 25 ms one: the second
    /// run takes at least the 39 waits after the first record (less the 50 ms polling step), the first
    /// far less, and both commit every offset on SIGTERM.
    @Test func theHandlerWaitsForEveryRecord() async throws {
        let count = 40
        let sleep = 25
        var elapsed: [Int: Duration] = [:]
        for milliseconds in [0, sleep] {
            let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1])
            var generator = CorpusGenerator(seed: 5)
            for _ in 0..<count {
                try await harness.produce("feeds", partition: 0, value: generator.next(.feeds, shape: .current).value)
            }
            let (config, port) = try ConsumeProcessTests.writeConfig(harness, topics: ["feeds": ["catalog": "feeds", "policy": "lenient"]])
            let worker = try ChildProcess([config, "--handler-sleep-ms", String(milliseconds)], executable: Self.binary)
            try await eventually(.seconds(60), "the first record handled") { try await Self.processed(port) > 0 }
            let first = ContinuousClock.now
            try await eventually(.seconds(60), "all \(count) records handled") { try await Self.processed(port) == count }
            elapsed[milliseconds] = ContinuousClock.now - first

            worker.signal(SIGTERM)
            #expect(try await worker.waitForExit(within: .seconds(30)) == 0)
            let partition = KafkaTopicPartition(topic: "feeds", partition: 0)
            #expect(try await harness.committed([partition])[partition] == Int64(count))
        }
        let slow = try #require(elapsed[sleep])
        let fast = try #require(elapsed[0])
        #expect(slow >= .milliseconds((count - 1) * sleep - 50), "with a \(sleep) ms handler: \(slow)")
        #expect(fast * 2 < slow, "without a handler: \(fast), with one: \(slow)")
    }

    /// SIGTERM while a partition is paused at its pending limit (100 records) behind a 2 ms handler: the drain
    /// finishes well within the shutdown timeout, so nothing is abandoned and no line says so ("record
    /// abandoned", "… abandoned at shutdown"); what was handled before the signal is committed.
    @Test func aDrainThatFinishesInTimeLogsNothingAbandoned() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1])
        var generator = CorpusGenerator(seed: 7)
        for _ in 0..<2_000 {
            try await harness.produce("feeds", partition: 0, value: generator.next(.feeds, shape: .current).value)
        }
        let (config, port) = try ConsumeProcessTests.writeConfig(harness, topics: ["feeds": ["catalog": "feeds", "policy": "lenient"]])
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: config))) as? [String: Any])
        document["maxPendingRecordsPerPartition"] = 100
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: config))
        let worker = try ChildProcess([config, "--handler-sleep-ms", "2"], executable: Self.binary)
        try await eventually(.seconds(60), "records handled behind the pending limit") { try await Self.processed(port) >= 300 }
        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit(within: .seconds(30)) == 0)
        let abandoned = worker.stderr.split(separator: "\n").filter { $0.contains("abandoned") }
        #expect(abandoned.isEmpty, "a drain that finished in time logged: \(abandoned.joined(separator: "\n"))")
        #expect(worker.stderr.contains("worker stopped"))
        let partition = KafkaTopicPartition(topic: "feeds", partition: 0)
        let committed = try await harness.committed([partition])[partition] ?? 0
        #expect(committed >= 300, "committed \(committed) after 300 records were handled")
    }
}
