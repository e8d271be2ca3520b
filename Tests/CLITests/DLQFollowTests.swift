import Foundation
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// `dlq list --follow` and the idle timeout on the embedded broker, over TCP, with the built binary
///.
@Suite(.serialized, .timeLimit(.minutes(3))) struct DLQFollowTests {
    /// A dead letter as the worker writes it: the original bytes and the switchyard.* diagnosis headers.
    static func deadLetter(_ offset: Int, path: String) -> KafkaProducerRecord {
        KafkaProducerRecord(
            topic: "feeds.dlq", partition: 0, key: Array("k\(offset)".utf8), value: Array(#"{"type":"post.liked","postId":"p"}"#.utf8),
            headers: [
                KafkaHeader(name: "switchyard.original.topic", string: "feeds"),
                KafkaHeader(name: "switchyard.original.partition", string: "0"),
                KafkaHeader(name: "switchyard.original.offset", string: String(100 + offset)),
                KafkaHeader(name: "switchyard.error.kind", string: "keyNotFound"),
                KafkaHeader(name: "switchyard.error.path", string: path),
                KafkaHeader(name: "switchyard.error.type", string: "post.liked"),
                KafkaHeader(name: "switchyard.error.message", string: "no value for key '\(path)'"),
                KafkaHeader(name: "switchyard.failed.at", string: "2026-12-01T21:00:00Z"),
            ])
    }

    static func producer(_ broker: EmbeddedBroker) throws -> KafkaProducer {
        try KafkaProducer.make(
            configuration: KafkaProducerConfiguration(
                kafka: KafkaConfiguration(bootstrapServers: [broker.bootstrapServers], clientID: "fixtures", logLevel: .error)),
            logger: NoOpKafkaLogger())
    }

    @Test(arguments: [(SIGTERM, false), (SIGINT, true)])
    func followPrintsANewDeadLetterAsItArrivesUntilASignal(signal: Int32, json: Bool) async throws {
        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["feeds.dlq": 1])
        let producer = try Self.producer(broker)
        _ = try await producer.send(Self.deadLetter(0, path: "userId"))
        let child = try ChildProcess(["dlq", "list", "--follow", "-b", broker.bootstrapServers, "-t", "feeds.dlq"] + (json ? ["--json"] : []))
        try await eventually(.seconds(30), "the dead letter already there is printed") { child.stdout.contains("feeds.dlq/0@0") }
        #expect(!child.stdout.contains("feeds.dlq/0@1"))
        // Written while following: its line appears without restarting anything.
        _ = try await producer.send(Self.deadLetter(1, path: "postId"))
        try await eventually(.seconds(30), "the new dead letter is printed as it arrives") { child.stdout.contains("feeds.dlq/0@1") }
        #expect(child.isRunning, "still following")
        child.signal(signal)
        let status = try await child.waitForExit(within: .seconds(20))
        #expect(status == 0, "a signal ends --follow with exit 0: \(child.stderr)")
        let lines = child.stdout.split(separator: "\n").map(String.init)
        if json {
            let objects = try lines.map(ReplayCommandTests.object)
            #expect(objects.map { $0["location"] as? String } == ["feeds.dlq/0@0", "feeds.dlq/0@1"])
            #expect(objects.last?["path"] as? String == "postId")
        } else {
            #expect(lines.first?.hasPrefix("DEAD LETTER") == true, "\(child.stdout)")
            #expect(lines.contains { $0.hasPrefix("feeds.dlq/0@1 ") && $0.contains("feeds/0@101") && $0.contains("postId") }, "\(child.stdout)")
            #expect(lines.last == "2 of 2 dead letter(s)")
        }
        #expect(child.stderr.hasSuffix("dlq list: stopped following after 2 dead letter(s)\n"), "\(child.stderr)")
        await producer.close()
    }

    @Test func followIsForALiveTopic() throws {
        let result = try CLI.run(["dlq", "list", "--follow", "--file", "/dev/null"])
        #expect(result.exitCode == 64)
        #expect(result.stderr.hasPrefix("error: --follow reads a live topic (--brokers or --config), not a --file"), "\(result.stderr)")
        let stats = try CLI.run(["dlq", "stats", "--follow", "--file", "/dev/null"])
        #expect(stats.exitCode == 64 && stats.stderr.hasPrefix("error: unknown option '--follow' for 'switchyard dlq stats'"), "\(stats.stderr)")
    }

    @Test func aReadCutShortIsMarkedIncompleteAndIsNeverASuccess() async throws {
        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["feeds.dlq": 1, "feeds": 1])
        let producer = try Self.producer(broker)
        for i in 0..<3 { _ = try await producer.send(Self.deadLetter(i, path: "userId")) }
        for _ in 0..<3 {
            _ = try await producer.send(KafkaProducerRecord(topic: "feeds", partition: 0, key: nil, value: Array(#"{"type":"post.liked"}"#.utf8)))
        }
        await producer.close()
        // Metadata and watermarks answer, but no fetch brings a record: a broker that hangs mid-read.
        broker.pushRequestErrors(.fetch, Array(repeating: .requestTimedOut, count: 2000))
        defer { broker.clearRequestErrors(.fetch) }
        let start = ContinuousClock.now
        let result = try await CLI.runOffPool(["dlq", "list", "-b", broker.bootstrapServers, "-t", "feeds.dlq", "--timeout", "2"])
        let elapsed = ContinuousClock.now - start
        #expect(result.exitCode == 69, "a partial answer is not a success: \(result.stderr)")
        #expect(
            result.stderr.hasPrefix("error: incomplete: read 0 of 3 offsets of feeds.dlq: no new record for 2.0 seconds before its end"),
            "\(result.stderr)")
        #expect(result.stdout == "0 of 0 dead letter(s) (INCOMPLETE: the read was cut short)\n", "\(result.stdout)")
        #expect(elapsed < .seconds(15), "\(elapsed)")

        let stats = try await CLI.runOffPool(["dlq", "stats", "-b", broker.bootstrapServers, "-t", "feeds.dlq", "--timeout", "2", "--json"])
        #expect(stats.exitCode == 69, "\(stats.stderr)")
        let summary = try ReplayCommandTests.object(stats.stdout)
        #expect(summary["complete"] as? Bool == false && (summary["incomplete"] as? String)?.hasPrefix("read 0 of 3 offsets") == true, "\(stats.stdout)")
        let human = try await CLI.runOffPool(["dlq", "stats", "-b", broker.bootstrapServers, "-t", "feeds.dlq", "--timeout", "2"])
        #expect(human.exitCode == 69 && human.stdout.contains("INCOMPLETE: the read was cut short; these counts are partial"), "\(human.stdout)")

        let shown = try await CLI.runOffPool(["dlq", "show", "feeds.dlq/0@1", "-b", broker.bootstrapServers, "--timeout", "2"])
        #expect(shown.exitCode == 69 && shown.stderr.hasPrefix("error: could not tell whether there is a dead letter at feeds.dlq/0@1"), "\(shown.stderr)")

        let replay = try await CLI.runOffPool(["replay", "-b", broker.bootstrapServers, "-t", "feeds", "--timeout", "2", "-o", "json"])
        #expect(replay.exitCode == 69, "\(replay.stderr)")
        #expect(try ReplayCommandTests.object(replay.stdout)["complete"] as? Bool == false, "\(replay.stdout)")
        #expect(replay.stderr.contains("error: incomplete: replayed 0 of 3 offsets of feeds"), "\(replay.stderr)")
    }
}

/// Progress on stderr only when stderr is a terminal: run under `script`, which gives
/// the command a pseudo-terminal, and through pipes.
@Suite(.serialized, .timeLimit(.minutes(2))) struct ProgressTests {
    @Test func aLongReadShowsProgressOnATerminalOnly() async throws {
        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["feeds.dlq": 1])
        let producer = try DLQFollowTests.producer(broker)
        for i in 0..<3 { _ = try await producer.send(DLQFollowTests.deadLetter(i, path: "userId")) }
        await producer.close()
        // No fetch brings a record for a while: the read lasts past the second after which progress shows.
        broker.pushRequestErrors(.fetch, Array(repeating: .requestTimedOut, count: 500))
        defer { broker.clearRequestErrors(.fetch) }
        let command = "\(CLI.binary.path) dlq stats -b \(broker.bootstrapServers) -t feeds.dlq --timeout 2"
        let terminal = try await runTool("/usr/bin/script", ["-qec", command, "/dev/null"])
        #expect(terminal.status == 69, "cut short: \(terminal.stdout)")
        #expect(terminal.stdout.contains("\r\u{1B}[Kread 0 of 3 dead letters from feeds.dlq"), "\(terminal.stdout.debugDescription)")
        #expect(terminal.stdout.contains("\r\u{1B}[K0 dead letter(s) in feeds.dlq"), "cleared before the summary: \(terminal.stdout.debugDescription)")
        let piped = try await CLI.runOffPool(["dlq", "stats", "-b", broker.bootstrapServers, "-t", "feeds.dlq", "--timeout", "2"])
        #expect(piped.exitCode == 69)
        #expect(!piped.stderr.contains("dead letters from feeds.dlq") && !piped.stderr.contains("\u{1B}["), "\(piped.stderr.debugDescription)")
    }
}
