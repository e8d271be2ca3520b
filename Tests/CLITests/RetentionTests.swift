import Foundation
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// The embedded broker keeps about 5 MB per partition, and says so; `dlq` says when a topic's log no longer
/// starts at offset 0, instead of showing what is left as if it were everything.
@Suite(.serialized, .timeLimit(.minutes(3))) struct RetentionTests {
    @Test func theBrokerSaysWhatItKeeps() async throws {
        let help = try CLI.run(["broker", "--help"])
        #expect(help.stdout.contains("about 5 MB per partition"), "\(help.stdout)")
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = ["broker"]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        try await Task.sleep(for: .seconds(1))
        process.terminate()
        process.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(stderr.contains("keeps about 5 MB per partition"), "\(stderr)")
    }

    @Test func dlqReportsRecordsThatExpiredBeforeTheRead() async throws {
        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["feeds.dlq": 1])
        let producer = try DLQFollowTests.producer(broker)
        // 7 MB of dead letters in one partition: the oldest are dropped.
        let padding = String(repeating: "x", count: 100_000)
        for i in 0..<70 {
            var record = DLQFollowTests.deadLetter(i, path: "userId")
            record.value = Array(#"{"type":"post.liked","postId":"p","pad":"\#(padding)"}"#.utf8)
            _ = try await producer.send(record)
        }
        await producer.close()
        let stats = try await CLI.runOffPool(["dlq", "stats", "-b", broker.bootstrapServers, "-t", "feeds.dlq", "--json"])
        #expect(stats.exitCode == 0, "\(stats.stderr)")
        let o = try ReplayCommandTests.object(stats.stdout)
        let expired = try #require(o["expired"] as? Int, "\(stats.stdout)")
        #expect(expired > 0 && expired + (o["records"] as? Int ?? 0) == 70, "\(stats.stdout)")
        #expect(stats.stderr.contains("warning: \(expired) earlier record(s) of feeds.dlq expired before this read"), "\(stats.stderr)")
        let list = try await CLI.runOffPool(["dlq", "list", "-b", broker.bootstrapServers, "-t", "feeds.dlq", "--fail-on", "warnings"])
        #expect(list.exitCode == 1 && list.stderr.contains("feeds.dlq/0 starts at offset \(expired)"), "\(list.stderr)")
    }
}
