import Foundation
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// `switchyard replay --brokers B --topic T` against a live topic on the embedded broker, over TCP, with the
/// built binary; and a wrong broker address failing fast with its cause.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ReplayLiveTests {
    /// Fills `payments` (2 partitions) with every payments fixture twice: the first round in partition 0
    /// three hours ago, the second in partition 1 half an hour ago.
    static func paymentsBroker() async throws -> (EmbeddedBroker, [Fixtures.Expectation]) {
        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["payments": 2])
        let producer = try KafkaProducer.make(
            configuration: KafkaProducerConfiguration(
                kafka: KafkaConfiguration(bootstrapServers: [broker.bootstrapServers], clientID: "fixtures", logLevel: .error)),
            logger: NoOpKafkaLogger())
        let expected = try Fixtures.expectations(topic: "payments")
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        for (partition, age) in [(Int32(0), Int64(3 * 3600_000)), (1, 1800_000)] {
            for e in expected {
                _ = try await producer.send(
                    KafkaProducerRecord(
                        topic: "payments", partition: partition, key: Array(e.file.utf8), value: try Fixtures.bytes(e.file), headers: [],
                        timestampMilliseconds: now - age))
            }
        }
        await producer.close()
        return (broker, expected)
    }

    @Test func replaysALiveTopicToItsEndLikeADump() async throws {
        let (broker, expected) = try await Self.paymentsBroker()
        let failed = expected.filter { $0.outcome == "failed" }.count
        let result = try await CLI.runOffPool(["replay", "--brokers", broker.bootstrapServers, "--topic", "payments", "--json"])
        #expect(result.exitCode == 1, "payments is strict and the fixtures have failures: \(result.stderr)")
        let summary = try ReplayCommandTests.object(result.stdout)
        #expect(summary["records"] as? Int == 2 * expected.count)
        #expect(summary["failed"] as? Int == 2 * failed)
        #expect(summary["decoded"] as? Int == 2 * expected.filter { $0.outcome == "decoded" }.count)

        // The human summary names where the first failure was: topic/partition@offset.
        let human = try await CLI.runOffPool(["replay", "--brokers", broker.bootstrapServers, "--topic", "payments"])
        #expect(human.stdout.hasPrefix("\(2 * expected.count) records: "), "\(human.stdout)\(human.stderr)")
        // Partitions are read side by side: either may hold a group's first failure.
        #expect(human.stdout.contains(#/FIRST AT[^\n]*\n[^\n]*payments/[01]@\d+ /#), "\(human.stdout)")
    }

    @Test func sinceReadsOnlyTheLastHour() async throws {
        let (broker, expected) = try await Self.paymentsBroker()
        let result = try await CLI.runOffPool(["replay", "--brokers", broker.bootstrapServers, "--topic", "payments", "--since", "1h", "--records"])
        #expect(result.exitCode == 1, "\(result.stderr)")
        let lines = try result.stdoutLines.map(ReplayCommandTests.object)
        #expect(lines.count == expected.count, "only the half-hour-old round")
        #expect(lines.allSatisfy { $0["partition"] as? Int == 1 && $0["topic"] as? String == "payments" })
        #expect(lines.first?["location"] as? String == "payments/1@0")
    }

    @Test func aWindowOfOnePartitionByOffsets() async throws {
        let (broker, expected) = try await Self.paymentsBroker()
        let result = try await CLI.runOffPool([
            "replay", "--brokers", broker.bootstrapServers, "--topic", "payments", "--partition", "1", "--from-offset", "1", "--until", "2", "--records",
        ])
        let lines = try result.stdoutLines.map(ReplayCommandTests.object)
        #expect(lines.map { $0["location"] as? String } == ["payments/1@1", "payments/1@2"], "\(result.stdout)\(result.stderr)")
        #expect(lines.map { $0["outcome"] as? String } == expected[1...2].map { $0.outcome })
        #expect(lines.map { $0["index"] as? Int } == [0, 1])
    }

    @Test func untilAWhenStopsBeforeTheFirstNewerRecord() async throws {
        let (broker, expected) = try await Self.paymentsBroker()
        let result = try await CLI.runOffPool(["replay", "-b", broker.bootstrapServers, "-t", "payments", "--until", "1h", "--records"])
        let lines = try result.stdoutLines.map(ReplayCommandTests.object)
        #expect(lines.count == expected.count, "only the three-hour-old round: \(result.stderr)")
        #expect(lines.allSatisfy { $0["partition"] as? Int == 0 })
    }

    @Test func aTLSHandshakeWithAPlaintextBrokerFailsFastWithItsCause() async throws {
        // The fail-fast check goes through librdkafka with the config's security settings, so an SSL or
        // SASL failure is reported like a refused connection.
        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["payments": 1])
        let config = temporaryFile("ssl.json")
        try Data(
            #"{"brokers":"\#(broker.bootstrapServers)","groupId":"g","topics":{"payments":{"catalog":"payments"}},"kafka":{"security.protocol":"SSL"}}"#.utf8
        ).write(to: config)
        defer { try? FileManager.default.removeItem(at: config) }
        let start = ContinuousClock.now
        let result = try await CLI.runOffPool(["replay", "-c", config.path, "-t", "payments", "--since", "1h"])
        #expect(result.exitCode == 69, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("error: cannot reach \(broker.bootstrapServers): ssl://"), "\(result.stderr)")
        #expect(result.stderr.contains("SSL_HANDSHAKE"), "\(result.stderr)")
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test func aMissingTopicOrPartitionIsExit65() async throws {
        let (broker, _) = try await Self.paymentsBroker()
        let topic = try await CLI.runOffPool(["replay", "--brokers", broker.bootstrapServers, "--topic", "payments", "--catalog", "payments", "--partition", "7"])
        #expect(topic.exitCode == 65)
        #expect(topic.stderr.hasPrefix("error: topic 'payments' has no partition 7 (it has 2: 0-1)"), "\(topic.stderr)")
        let noTopic = try await CLI.runOffPool(["replay", "--brokers", broker.bootstrapServers, "--topic", "paymnts", "--catalog", "payments"])
        #expect(noTopic.exitCode == 65)
        #expect(noTopic.stderr.hasPrefix("error: topic 'paymnts' does not exist on \(broker.bootstrapServers)"), "\(noTopic.stderr)")
    }

    @Test func liveUsageErrors() throws {
        let files = try CLI.run(["replay", "--brokers", "localhost:1", "--topic", "payments", "--since", "1h", "dump.json"])
        #expect(files.exitCode == 64 && files.stderr.hasPrefix("error: a live replay reads --topic from --brokers: drop the FILE arguments"), "\(files.stderr)")
        let both = try CLI.run(["replay", "--brokers", "localhost:1", "--topic", "payments", "--since", "1h", "--from-offset", "3"])
        #expect(both.exitCode == 64 && both.stderr.hasPrefix("error: --since and --from-offset are exclusive"), "\(both.stderr)")
        let when = try CLI.run(["replay", "--brokers", "localhost:1", "--topic", "payments", "--since", "yesterday"])
        #expect(when.exitCode == 64 && when.stderr.hasPrefix("error: --since needs a duration"), "\(when.stderr)")
        let fileTimeout = try CLI.run(["replay", "-t", "payments", "--timeout", "10", "dump.json"])
        #expect(fileTimeout.exitCode == 64 && fileTimeout.stderr.hasPrefix("error: --timeout is for a live replay"), "\(fileTimeout.stderr)")
        let noTopic = try CLI.run(["replay", "--brokers", "localhost:1", "--since", "1h"])
        #expect(noTopic.exitCode == 64 && noTopic.stderr.hasPrefix("error: a live replay needs --topic NAME"), "\(noTopic.stderr)")
    }

    // MARK: - A wrong broker address fails fast, with its cause (item 10)

    static func elapsed(_ body: () throws -> CLI.Result) rethrows -> (CLI.Result, Duration) {
        let start = ContinuousClock.now
        let result = try body()
        return (result, ContinuousClock.now - start)
    }

    @Test(arguments: [["replay", "--topic", "payments"], ["dlq", "list", "--topic", "payments.dlq"], ["dlq", "stats", "--topic", "payments.dlq"]])
    func aRefusedPortFailsFast(_ command: [String]) throws {
        let (result, elapsed) = try Self.elapsed { try CLI.run(command + ["--brokers", "127.0.0.1:\(freePort())"]) }
        #expect(result.exitCode == 69, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("error: cannot reach 127.0.0.1:"), "\(result.stderr)")
        #expect(result.stderr.contains("Connection refused"), "\(result.stderr)")
        #expect(elapsed < .seconds(5), "within a couple of seconds, not the 10 s timeout: \(elapsed)")
    }

    @Test(arguments: [["replay", "--topic", "payments"], ["dlq", "list", "--topic", "payments.dlq"], ["replay", "--republish", "--to", "x", "--topic", "payments", "-"]])
    func anUnresolvableNameFailsFast(_ command: [String]) throws {
        let (result, elapsed) = try Self.elapsed { try CLI.run(command + ["--brokers", "nosuchhost.invalid:9092"], stdin: Data()) }
        #expect(result.exitCode == 69, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("error: cannot reach nosuchhost.invalid:9092: "), "\(result.stderr)")
        #expect(result.stderr.contains("resolve"), "\(result.stderr)")
        #expect(elapsed < .seconds(5), "\(elapsed)")
    }

    @Test func connectTimeoutBoundsABrokerThatDoesNotAnswer() throws {
        // A listening socket that never speaks Kafka: no refusal, no answer; --connect-timeout decides.
        let (fd, port) = boundLoopbackSocket()
        defer { close(fd) }
        #expect(listen(fd, 16) == 0)
        let (result, elapsed) = try Self.elapsed {
            try CLI.run(["replay", "--brokers", "127.0.0.1:\(port)", "--topic", "payments", "--connect-timeout", "2"])
        }
        #expect(result.exitCode == 69, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("error: no broker of 127.0.0.1:\(port) answered within 2"), "\(result.stderr)")
        #expect(elapsed >= .seconds(2) && elapsed < .seconds(8), "\(elapsed)")
    }
}
