import Foundation
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// `switchyard release` (also against a broker) does not say "release recorded"
/// for a topic the worker does not consume, a lenient topic, a partition the brokers do not have, or a
/// partition that is not halted at that offset; `replay --republish` keeps the worker's order rule.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ReleaseRefusalTests {
    static func high(_ broker: EmbeddedBroker, _ topic: String, partitions: Int32 = 1) async throws -> [Int64] {
        let kafka = KafkaConfiguration(bootstrapServers: [broker.bootstrapServers], clientID: "probe", logLevel: .error)
        let tps = (0..<partitions).map { KafkaTopicPartition(topic: topic, partition: $0) }
        let marks = try await KafkaConsumer.watermarks(tps, kafka: kafka)
        return tps.map { marks[$0]?.high ?? -1 }
    }

    static func firstLine(_ text: String) -> String? { text.split(separator: "\n").first.map(String.init) }

    @Test func releaseRefusesWhatIsNotHaltedAndSaysWhatItFound() async throws {
        let broker = try EmbeddedBroker.make(
            brokers: 1, topics: ["payments": 2, "payments.dlq": 1, "feeds": 1, "feeds.dlq": 1, "switchyard.control": 1])
        let config = temporaryFile("worker.json")
        try Data(
            #"{"brokers":"\#(broker.bootstrapServers)","groupId":"payments-workers","topics":{"payments":{"catalog":"payments"},"feeds":{"catalog":"feeds"}}}"#
                .utf8
        ).write(to: config)
        defer { try? FileManager.default.removeItem(at: config) }
        let release = ["release", "-c", config.path, "--partition", "0", "--offset", "99", "--reason", "x", "--operator", "ana"]

        let misspelt = try await CLI.runOffPool(release + ["-t", "paymnts"])
        #expect(misspelt.exitCode == 1, "\(misspelt.stdout)\(misspelt.stderr)")
        #expect(
            Self.firstLine(misspelt.stderr)
                == "error: refused: topic 'paymnts' is not in \(config.path) (its topics: feeds, payments) (did you mean 'payments'?)")
        #expect(!misspelt.stdout.contains("release recorded"))
        // The suggestion, run: payments/0 has no dead letter, so it is not halted.
        let suggested = try OnCallTests.suggestion(misspelt.stderr)
        let notHalted = try await CLI.runOffPool(release + ["-t", suggested])
        #expect(notHalted.exitCode == 1)
        #expect(
            Self.firstLine(notHalted.stderr)
                == "error: refused: payments.dlq has no dead letter of payments/0 for group payments-workers: it is not halted; nothing to release",
            "\(notHalted.stderr)")

        let lenient = try await CLI.runOffPool(release + ["-t", "feeds"])
        #expect(lenient.exitCode == 1)
        #expect(
            Self.firstLine(lenient.stderr)
                == "error: refused: feeds is lenient in \(config.path): it dead-letters and goes on, it never halts; nothing to release")

        let direct = ["release", "-b", broker.bootstrapServers, "--group", "payments-workers", "--offset", "99", "--reason", "x", "--operator", "ana"]
        let unknownTopic = try await CLI.runOffPool(direct + ["-t", "paymnts", "--partition", "0"])
        #expect(unknownTopic.exitCode == 1)
        #expect(Self.firstLine(unknownTopic.stderr) == "error: refused: the brokers have no topic 'paymnts' (did you mean 'payments'?)", "\(unknownTopic.stderr)")
        let noPartition = try await CLI.runOffPool(direct + ["-t", "payments", "--partition", "7"])
        #expect(noPartition.exitCode == 1)
        #expect(Self.firstLine(noPartition.stderr) == "error: refused: payments has 2 partition(s) (0…1), no partition 7")
        #expect(try await Self.high(broker, "switchyard.control") == [0], "nothing was recorded")

        // Halted at 20 (its dead letter is the partition's newest): 99 is refused, 20 is recorded.
        let producer = try KafkaProducer.make(
            configuration: KafkaProducerConfiguration(
                kafka: KafkaConfiguration(bootstrapServers: [broker.bootstrapServers], clientID: "fixtures", logLevel: .error)),
            logger: NoOpKafkaLogger())
        let headers = [
            ("switchyard.original.topic", "payments"), ("switchyard.original.partition", "1"), ("switchyard.original.offset", "20"),
            ("switchyard.original.timestamp", "1767225600000"), ("switchyard.error.kind", "keyNotFound"), ("switchyard.error.path", "amount"),
            ("switchyard.consumer.group", "payments-workers"), ("switchyard.failed.at", "2026-01-01T00:00:00Z"),
        ].map { KafkaHeader(name: $0.0, string: $0.1) }
        _ = try await producer.send(KafkaProducerRecord(topic: "payments.dlq", partition: 0, key: nil, value: Array("{}".utf8), headers: headers))
        await producer.close()
        let wrongOffset = try await CLI.runOffPool(
            ["release", "-c", config.path, "-t", "payments", "--partition", "1", "--offset", "99", "--reason", "x", "--operator", "ana"])
        #expect(wrongOffset.exitCode == 1)
        #expect(Self.firstLine(wrongOffset.stderr)?.hasPrefix("error: refused: the newest dead letter of payments/1 in payments.dlq is @20") == true, "\(wrongOffset.stderr)")
        let right = try await CLI.runOffPool(["release", "-c", config.path, "-t", "payments", "--partition", "1", "--offset", "20", "--reason", "inspected", "--operator", "ana"])
        #expect(right.exitCode == 0, "\(right.stderr)")
        #expect(right.stdout.hasPrefix("release recorded: payments/1@20 for group payments-workers"))
        #expect(try await Self.high(broker, "switchyard.control") == [1])
        // One way to name a record: the location the output prints is what release takes.
        let byLocation = try await CLI.runOffPool(["release", "-c", config.path, "payments/1@20", "--reason", "inspected", "--operator", "ana"])
        #expect(byLocation.exitCode == 0, "\(byLocation.stderr)")
        #expect(byLocation.stdout.hasPrefix("release recorded: payments/1@20 for group payments-workers"))
        #expect(try await Self.high(broker, "switchyard.control") == [2])
        let wrongByLocation = try await CLI.runOffPool(["release", "-c", config.path, "payments/1@99", "--reason", "x", "--operator", "ana"])
        #expect(wrongByLocation.exitCode == 1 && Self.firstLine(wrongByLocation.stderr)?.hasPrefix("error: refused: the newest dead letter of payments/1") == true)
        let malformed = try await CLI.runOffPool(["release", "-c", config.path, "payments[1]@20", "--reason", "x", "--operator", "ana"])
        #expect(malformed.exitCode == 64)
        #expect(Self.firstLine(malformed.stderr) == "error: name the halted record as topic/partition@offset, e.g. payments/1@20, not 'payments[1]@20'")
        let both = try await CLI.runOffPool(["release", "-c", config.path, "payments/1@20", "--offset", "20", "--reason", "x", "--operator", "ana"])
        #expect(both.exitCode == 64 && Self.firstLine(both.stderr) == "error: payments/1@20 names the record: give it without --offset", "\(both.stderr)")
        #expect(try await Self.high(broker, "switchyard.control") == [2], "nothing more was recorded")
    }

    @Test func releaseFailsFastOnAWrongBrokerAddress() throws {
        let start = ContinuousClock.now
        let result = try CLI.run(["release", "-b", "127.0.0.1:\(freePort())", "--group", "g", "payments/1@20", "--reason", "x", "--operator", "ana"])
        #expect(result.exitCode == 69 && result.stderr.contains("Connection refused"), "\(result.stderr)")
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test func republishSendsNothingAfterAStrictFailureOfItsPartition() async throws {
        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["payments.canonical": 2])
        let file = OnCallTests.fixture("payments-strict-failure-in-partition-0.kcat.jsonl")
        let result = try await CLI.runOffPool(["replay", "--republish", "-b", broker.bootstrapServers, "--to", "payments.canonical", file])
        #expect(result.exitCode == 1, "a strict failure is a finding: \(result.stderr)")
        #expect(result.stderr.contains("replay: payments/0 stopped at payments/0@2 (strict failure): 2 later record(s) held back"))
        #expect(result.stderr.contains("replay: republished 5 record(s)"))
        #expect(try await Self.high(broker, "payments.canonical", partitions: 2) == [2, 3], "partition 0 up to its failure; partition 1 whole")
    }
}
