import Foundation
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// `switchyard broker --port N` listens where it is told and advertises that address; a port in use is exit 69.
@Suite(.serialized, .timeLimit(.minutes(3))) struct BrokerPortTests {
    @Test func theBrokerListensOnTheChosenPortAndAdvertisesIt() async throws {
        let port = freePort()
        let broker = try await BrokerProcess.start(["--port", "\(port)", "-t", "payments:2"])
        defer { broker.stop() }
        #expect(broker.bootstrap == "127.0.0.1:\(port)")

        // What clients learn from the metadata is the chosen port, not the mock's own.
        let kcat = try kcatPath()
        let metadata = try await runTool(kcat, ["-b", broker.bootstrap, "-L", "-J", "-m", "10"])
        #expect(metadata.status == 0, "\(metadata.stderr)")
        let document = try ReplayCommandTests.object(metadata.stdout)
        let brokers = try #require(document["brokers"] as? [[String: Any]], "\(metadata.stdout)")
        #expect(brokers.map { $0["name"] as? String } == ["127.0.0.1:\(port)"], "\(metadata.stdout)")
        let topics = try #require(document["topics"] as? [[String: Any]])
        #expect(topics.contains { $0["topic"] as? String == "payments" && ($0["partitions"] as? [Any])?.count == 2 }, "\(metadata.stdout)")

        // A record produced and read back through the chosen port (the leader is found at the advertised address).
        let input = temporaryFile("record.txt")
        try Data("{\"n\":1}\n".utf8).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let produced = try await runTool(kcat, ["-b", broker.bootstrap, "-P", "-t", "payments", "-p", "1"], input: input)
        #expect(produced.status == 0, "\(produced.stderr)")
        let consumed = try await runTool(kcat, ["-b", broker.bootstrap, "-C", "-t", "payments", "-p", "1", "-o", "beginning", "-c", "1", "-e", "-m", "10"])
        #expect(consumed.status == 0, "\(consumed.stderr)")
        #expect(consumed.stdout == "{\"n\":1}\n", "\(consumed.stdout)\(consumed.stderr)")

        // A consumer group through the chosen port (FindCoordinator's answer names the broker too).
        let group = try await CLI.runOffPool(["release", "-b", broker.bootstrap, "--group", "g", "payments/1@0", "--reason", "x", "--operator", "ana"])
        #expect(!group.stderr.contains("cannot reach"), "\(group.stderr)")
        #expect(!group.stderr.contains("internal"), "\(group.stderr)")

        // The same port again: exit 69, saying which port and why.
        let second = try await CLI.runOffPool(["broker", "--port", "\(port)"], timeout: 30)
        #expect(second.exitCode == 69, "\(second.stdout)\(second.stderr)")
        #expect(
            second.stderr.split(separator: "\n").first.map(String.init)
                == "error: port \(port) is in use on 127.0.0.1 (another broker, or another program; choose another --port)",
            "\(second.stderr)")
        #expect(second.stdout.isEmpty, "no bootstrap line for a broker that did not start")
    }
}
