import Foundation
import Switchyard
import SwitchyardCatalog
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// `switchyard release` records a release only for an offset that is still halted (the group's committed offset
/// and the dead letter), names a real operator in the audit record, and a worker does not report old releases
/// as waiting at every start.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ReleaseCheckTests {
    static func halt(_ broker: EmbeddedBroker, group: String) async throws {
        let producer = try KafkaProducer.make(
            configuration: KafkaProducerConfiguration(
                kafka: KafkaConfiguration(bootstrapServers: [broker.bootstrapServers], clientID: "fixtures", logLevel: .error)),
            logger: NoOpKafkaLogger())
        let headers = [
            ("switchyard.original.topic", "payments"), ("switchyard.original.partition", "1"), ("switchyard.original.offset", "20"),
            ("switchyard.original.timestamp", "1767225600000"), ("switchyard.error.kind", "keyNotFound"), ("switchyard.error.path", "amount"),
            ("switchyard.consumer.group", group), ("switchyard.failed.at", "2026-01-01T00:00:00Z"),
        ].map { KafkaHeader(name: $0.0, string: $0.1) }
        _ = try await producer.send(KafkaProducerRecord(topic: "payments.dlq", partition: 0, key: nil, value: Array("{}".utf8), headers: headers))
        _ = try await producer.send(KafkaProducerRecord(topic: "payments", partition: 1, key: nil, value: Array("{}".utf8)))
        await producer.close()
    }

    /// Commits `next` for payments/1 in `group`, as a worker that moved past the record does.
    static func commit(_ broker: EmbeddedBroker, group: String, next: Int64) async throws {
        let consumer = try KafkaConsumer.make(
            configuration: KafkaConsumerConfiguration(
                groupID: group, topics: ["payments"],
                kafka: KafkaConfiguration(
                    bootstrapServers: [broker.bootstrapServers], clientID: "committer", properties: DLQLiveTests.fastKafka, logLevel: .error)),
            logger: NoOpKafkaLogger())
        _ = try await take(1, from: consumer, store: false)
        try consumer.storeOffset(KafkaTopicPartition(topic: "payments", partition: 1), nextOffset: next)
        try await consumer.commit()
        await consumer.close()
    }

    static func controlRecords(_ broker: EmbeddedBroker) async throws -> Int64 {
        try await ReleaseRefusalTests.high(broker, "switchyard.control")[0]
    }

    @Test func anOffsetTheGroupCommittedPastIsRefused() async throws {
        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["payments": 2, "payments.dlq": 1, "switchyard.control": 1])
        let group = unique("payments-workers")
        try await Self.halt(broker, group: group)
        try await Self.commit(broker, group: group, next: 21)
        let result = try await CLI.runOffPool(["release", "-b", broker.bootstrapServers, "--group", group, "payments/1@20", "--reason", "x", "--operator", "ana"])
        #expect(result.exitCode == 1, "\(result.stdout)\(result.stderr)")
        #expect(
            ReleaseRefusalTests.firstLine(result.stderr)
                == "error: refused: group \(group) has committed payments/1 up to @21 (the next record it reads), past @20: it is not halted there (released already, or a build that decodes it ran); nothing to release",
            "\(result.stderr)")
        #expect(try await Self.controlRecords(broker) == 0, "nothing recorded")
        // Committed at the halted record itself (the worker's position while halted): recorded.
        let other = unique("payments-workers")
        try await Self.halt(broker, group: other)
        try await Self.commit(broker, group: other, next: 20)
        let right = try await CLI.runOffPool(["release", "-b", broker.bootstrapServers, "--group", other, "payments/1@20", "--reason", "x", "--operator", "ana"])
        #expect(right.exitCode == 0, "\(right.stderr)")
        #expect(try await Self.controlRecords(broker) == 1)
    }

    @Test func aGroupNoOneKnowsIsRefusedWithTheClosestKnownGroups() async throws {
        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["payments": 2, "payments.dlq": 1, "switchyard.control": 1])
        let group = unique("payments-workers")
        try await Self.halt(broker, group: group)
        try await Self.halt(broker, group: "orders-workers")
        // A tired hand drops a letter: that group never consumed, committed or dead-lettered anything.
        let misspelt = group.replacingOccurrences(of: "payments-", with: "payment-")
        let result = try await CLI.runOffPool(["release", "-b", broker.bootstrapServers, "--group", misspelt, "payments/1@20", "--reason", "x", "--operator", "ana"])
        #expect(result.exitCode == 1, "\(result.stdout)\(result.stderr)")
        #expect(
            ReleaseRefusalTests.firstLine(result.stderr)
                == "error: refused: no group '\(misspelt)' is known (no offset committed on payments/1, no dead letter in payments.dlq names it); "
                + "known groups, closest first: \(group), orders-workers (did you mean '\(group)'?)",
            "\(result.stderr)")
        #expect(try await Self.controlRecords(broker) == 0, "nothing recorded")
        // The suggestion, run: recorded.
        let suggested = try OnCallTests.suggestion(result.stderr)
        let right = try await CLI.runOffPool(["release", "-b", broker.bootstrapServers, "--group", suggested, "payments/1@20", "--reason", "x", "--operator", "ana"])
        #expect(right.exitCode == 0, "\(right.stderr)")
        #expect(try await Self.controlRecords(broker) == 1)
    }

    @Test func theOperatorIsNeverSilentlyUnknown() async throws {
        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["payments": 2, "payments.dlq": 1, "switchyard.control": 1])
        let group = unique("payments-workers")
        try await Self.halt(broker, group: group)
        var environment = ProcessInfo.processInfo.environment
        environment["USER"] = nil
        environment["LOGNAME"] = nil
        environment["SWITCHYARD_OPERATOR"] = nil
        let command = ["release", "-b", broker.bootstrapServers, "--group", group, "payments/1@20", "--reason", "x", "--json"]
        let nobody = try await CLI.runOffPool(command, environment: environment)
        #expect(nobody.exitCode == 64, "\(nobody.stdout)\(nobody.stderr)")
        #expect(ReleaseRefusalTests.firstLine(nobody.stderr) == "error: name who releases: --operator NAME (or SWITCHYARD_OPERATOR); $USER is not set")
        #expect(try await Self.controlRecords(broker) == 0)
        environment["SWITCHYARD_OPERATOR"] = "oncall-ana"
        let named = try await CLI.runOffPool(command, environment: environment)
        #expect(named.exitCode == 0, "\(named.stderr)")
        #expect(try ReplayCommandTests.object(named.stdout)["operator"] as? String == "oncall-ana")
        let flag = try await CLI.runOffPool(command + ["--operator", "bo"], environment: environment)
        #expect(try ReplayCommandTests.object(flag.stdout)["operator"] as? String == "bo", "--operator first")
    }

    @Test func aWorkerDoesNotReportOldReleasesAsWaiting() async throws {
        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["payments": 1, "payments.dlq": 1, "switchyard.control": 1])
        let group = unique("payments-workers")
        let producer = try KafkaProducer.make(
            configuration: KafkaProducerConfiguration(
                kafka: KafkaConfiguration(bootstrapServers: [broker.bootstrapServers], clientID: "fixtures", logLevel: .error)),
            logger: NoOpKafkaLogger())
        func release(_ offset: Int64) async throws {
            let request = ReleaseRequest(group: group, topic: "payments", partition: 0, offset: offset, reason: "old", operator: "ana")
            _ = try await producer.send(
                KafkaProducerRecord(topic: "switchyard.control", key: Array("\(group)/payments/0".utf8), value: try CanonicalJSONEncoder().encode(request)))
        }
        try await release(5)  // applied by an earlier run, long ago
        let handler = InMemoryLogHandler()
        let config = WorkerConfiguration(
            bootstrapServers: broker.bootstrapServerList, groupID: group,
            topics: ["payments": TopicConfiguration(catalog: .payments, deadLetterTopic: "payments.dlq")],
            metrics: MetricsConfiguration(host: "127.0.0.1", port: 0), shutdownTimeout: .seconds(10), kafka: DLQLiveTests.fastKafka)
        let worker = try Worker(configuration: config, logger: SwitchyardLogger(handler: handler, level: .info), kafkaLogLevel: .error)
        let running = Task { try await worker.run() }
        defer { worker.stop() }
        // A release written while it runs is reported as waiting: the log is read, and the old one is not in it.
        try await Task.sleep(for: .seconds(2))
        try await release(7)
        try await eventually(.seconds(60), "the new release is reported as waiting") {
            handler.entries.contains { $0.message == "release waiting for its halt" && $0.metadata["kafka.offset"] == "7" }
        }
        let waiting = handler.entries.filter { $0.message == "release waiting for its halt" }.map { $0.metadata["kafka.offset"] }
        #expect(waiting == ["7"], "\(waiting)")
        worker.stop()
        try await withDeadline(.seconds(30), "worker stop") { try await running.value }
        await producer.close()
    }
}
