import Foundation
import Switchyard
import SwitchyardKafka
import SwitchyardMetrics
import SwitchyardTestSupport
import Testing

/// An embedded broker, a producer and helpers to run workers against it.
final class Harness: Sendable {
    let broker: EmbeddedBroker
    let producer: KafkaProducer
    let group: String

    static let fixtures = Fixtures.directory

    init(topics: [String: Int], brokers: Int = 1) throws {
        broker = try EmbeddedBroker.make(brokers: brokers, topics: topics)
        producer = try KafkaProducer.make(
            configuration: KafkaProducerConfiguration(
                kafka: KafkaConfiguration(bootstrapServers: [broker.bootstrapServers], clientID: "harness", logLevel: .error)),
            logger: NoOpKafkaLogger())
        group = unique("group")
    }

    /// Kafka settings for fast group joins and commits on the embedded broker.
    static let fastKafka = embeddedBrokerKafka.merging(["statistics.interval.ms": "1000"]) { $1 }

    func configuration(_ topics: [String: TopicConfiguration], group: String? = nil) -> WorkerConfiguration {
        WorkerConfiguration(
            bootstrapServers: broker.bootstrapServerList, groupID: group ?? self.group, topics: topics,
            metrics: MetricsConfiguration(host: "127.0.0.1", port: 0), controlTopic: "switchyard.control",
            shutdownTimeout: .seconds(10), kafka: Self.fastKafka)
    }

    /// Produces `value` to an explicit partition and returns its offset.
    @discardableResult
    func produce(_ topic: String, partition: Int32, value: [UInt8]?, key: String? = nil, headers: [KafkaHeader] = []) async throws -> Int64 {
        try await producer.send(
            KafkaProducerRecord(topic: topic, partition: partition, key: key.map { Array($0.utf8) }, value: value, headers: headers)
        ).offset
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        try Fixtures.bytes(name)
    }

    /// Reads every record of `topic` from the beginning (a fresh group), until `count` arrived.
    func readAll(_ topic: String, count: Int, within limit: Duration = .seconds(60)) async throws -> [KafkaRecord] {
        guard count > 0 else { return [] }
        let consumer = try KafkaConsumer.make(
            configuration: KafkaConsumerConfiguration(
                groupID: unique("reader"), topics: [topic],
                kafka: KafkaConfiguration(bootstrapServers: [broker.bootstrapServers], clientID: "reader", properties: Self.fastKafka, logLevel: .error)),
            logger: NoOpKafkaLogger())
        defer { Task { await consumer.close() } }
        return try await take(count, from: consumer, store: false, within: limit)
    }

    /// Reads every record of `topics` from the beginning (a fresh group), until `count` arrived.
    func readAllTopics(_ topics: [String], count: Int, within limit: Duration = .seconds(60)) async throws -> [KafkaRecord] {
        guard count > 0 else { return [] }
        let consumer = try KafkaConsumer.make(
            configuration: KafkaConsumerConfiguration(
                groupID: unique("reader"), topics: topics,
                kafka: KafkaConfiguration(bootstrapServers: [broker.bootstrapServers], clientID: "reader", properties: Self.fastKafka, logLevel: .error)),
            logger: NoOpKafkaLogger())
        defer { Task { await consumer.close() } }
        return try await take(count, from: consumer, store: false, within: limit)
    }

    /// The group's committed offsets (next offset to read) for `partitions`, read without joining it.
    func committed(_ partitions: [KafkaTopicPartition], group: String? = nil) async throws -> [KafkaTopicPartition: Int64] {
        try await KafkaConsumer.committedOffsets(
            group: group ?? self.group, partitions: partitions,
            kafka: KafkaConfiguration(bootstrapServers: [broker.bootstrapServers], clientID: "probe", properties: Self.fastKafka, logLevel: .error))
    }
}

/// A worker running in a task, with its metrics and logs at hand.
final class RunningWorker: Sendable {
    let worker: Worker
    let task: Task<Void, any Error>
    let logs: InMemoryLogHandler

    init(_ configuration: WorkerConfiguration, handlers: EventHandlers = EventHandlers(), kafkaLogLevel: KafkaLogLevel = .error) throws {
        logs = InMemoryLogHandler()
        worker = try Worker(configuration: configuration, handlers: handlers, logger: SwitchyardLogger(handler: logs, level: .debug), kafkaLogLevel: kafkaLogLevel)
        let worker = self.worker
        task = Task { try await worker.run() }
    }

    var metrics: MetricsSnapshot { worker.metrics.registry.snapshot() }

    func counter(_ name: String, _ labels: [String: String]) -> Int64 { metrics.counter(name, labels) ?? 0 }

    /// Stops the worker and waits for `run()` to return.
    func stop() async throws {
        worker.stop()
        try await withDeadline(.seconds(30), "worker stop") { [task] in try await task.value }
    }
}
