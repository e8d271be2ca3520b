import Foundation
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// ``KafkaTopicReader`` and ``KafkaCluster/metadata(kafka:timeout:logger:)`` over TCP on the embedded broker.
@Suite(.serialized, .timeLimit(.minutes(3))) struct TopicReaderTests {
    static func kafka(_ broker: EmbeddedBroker) -> KafkaConfiguration {
        KafkaConfiguration(bootstrapServers: [broker.bootstrapServers], clientID: "reader-tests", logLevel: .error)
    }

    /// Produces `count` records to each partition, record i of a partition at `base + i` seconds.
    static func fill(_ broker: EmbeddedBroker, topic: String, partitions: Int32, count: Int, base: Int64) async throws {
        let producer = try KafkaProducer.make(configuration: KafkaProducerConfiguration(kafka: kafka(broker)), logger: NoOpKafkaLogger())
        for partition in 0..<partitions {
            for i in 0..<count {
                _ = try await producer.send(
                    KafkaProducerRecord(
                        topic: topic, partition: partition, key: nil, value: Array("p\(partition)-\(i)".utf8), headers: [],
                        timestampMilliseconds: (base + Int64(i)) * 1000))
            }
        }
        await producer.close()
    }

    static func readAll(_ reader: KafkaTopicReader) async throws -> [KafkaRecord] {
        var records: [KafkaRecord] = []
        while true {
            let batch = try await reader.next(maxRecords: 7, timeout: .seconds(10))
            records += batch.records
            if batch.isFinished { break }
            if batch.records.isEmpty { throw TestFailure("no record for 10 s before the end: \(records.count) read") }
        }
        await reader.close()
        return records
    }

    @Test func readsEveryPartitionToTheHighWatermarkAndEnds() async throws {
        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["payments": 2])
        try await Self.fill(broker, topic: "payments", partitions: 2, count: 5, base: 1_700_000_000)
        let reader = try await KafkaTopicReader.open(.init(kafka: Self.kafka(broker), topic: "payments"))
        #expect(reader.ranges.map(\.count) == [5, 5])
        // Written after the read opened: beyond its end.
        try await Self.fill(broker, topic: "payments", partitions: 1, count: 2, base: 1_800_000_000)
        let records = try await Self.readAll(reader)
        #expect(records.count == 10)
        for partition in Int32(0)..<2 {
            #expect(records.filter { $0.partition == partition }.map(\.offset) == Array(0..<5))
        }
    }

    @Test func startsAtATimeOrAnOffsetAndStopsAtAnOffsetOrATime() async throws {
        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["feeds": 2])
        try await Self.fill(broker, topic: "feeds", partitions: 2, count: 10, base: 1_700_000_000)
        let kafka = Self.kafka(broker)

        let since = try await Self.readAll(
            try await KafkaTopicReader.open(.init(kafka: kafka, topic: "feeds", start: .timestamp(milliseconds: 1_700_000_007_000))))
        #expect(since.map(\.offset).sorted() == [7, 7, 8, 8, 9, 9], "offsets_for_times: the first record at or after the time")

        let window = try await Self.readAll(
            try await KafkaTopicReader.open(.init(kafka: kafka, topic: "feeds", partitions: [1], start: .offset(3), end: .offset(5))))
        #expect(window.map(\.offset) == [3, 4, 5] && window.allSatisfy { $0.partition == 1 })

        let until = try await Self.readAll(
            try await KafkaTopicReader.open(.init(kafka: kafka, topic: "feeds", partitions: [0], end: .timestamp(milliseconds: 1_700_000_002_000))))
        #expect(until.map(\.offset) == [0, 1], "stops before the first record at or after --until")

        let future = try await KafkaTopicReader.open(.init(kafka: kafka, topic: "feeds", start: .timestamp(milliseconds: 1_900_000_000_000)))
        #expect(future.isFinished && future.ranges.allSatisfy { $0.count == 0 })
        #expect(try await Self.readAll(future).isEmpty)
    }

    @Test func aMissingTopicOrPartitionIsNamed() async throws {
        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["feeds": 2])
        let missing = await #expect(throws: KafkaError.self) {
            _ = try await KafkaTopicReader.open(.init(kafka: Self.kafka(broker), topic: "nosuch"))
        }
        #expect(missing?.code == .unknownTopic && missing?.reason.contains("topic 'nosuch' does not exist") == true)
        let partition = await #expect(throws: KafkaError.self) {
            _ = try await KafkaTopicReader.open(.init(kafka: Self.kafka(broker), topic: "feeds", partitions: [2]))
        }
        #expect(partition?.reason.contains("has no partition 2") == true, "\(String(describing: partition))")
    }

    @Test func followsNewRecordsUntilClosed() async throws {
        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["feeds.dlq": 1])
        try await Self.fill(broker, topic: "feeds.dlq", partitions: 1, count: 2, base: 1_700_000_000)
        let reader = try await KafkaTopicReader.open(.init(kafka: Self.kafka(broker), topic: "feeds.dlq", end: .never))
        var seen: [KafkaRecord] = []
        while seen.count < 2 { seen += try await reader.next(timeout: .seconds(10)).records }
        let idle = try await reader.next(timeout: .milliseconds(500))
        #expect(idle.records.isEmpty && !idle.isFinished, "following: the end of the partition is not the end of the read")
        try await Self.fill(broker, topic: "feeds.dlq", partitions: 1, count: 1, base: 1_800_000_000)
        try await eventually(.seconds(20), "the record written while following arrives") {
            seen += try await reader.next(timeout: .milliseconds(500)).records
            return seen.count == 3
        }
        #expect(seen.last?.value == Array("p0-0".utf8) && seen.last?.offset == 2)
        await reader.close()
    }

    @Test func aRefusedPortFailsFastWithItsCause() async throws {
        let kafka = KafkaConfiguration(bootstrapServers: ["127.0.0.1:\(freePort())"], clientID: "reader-tests", logLevel: .error)
        let start = ContinuousClock.now
        let error = await #expect(throws: KafkaError.self) { _ = try await KafkaCluster.metadata(kafka: kafka, timeout: .seconds(30)) }
        let elapsed = ContinuousClock.now - start
        #expect(error?.code == .unavailable)
        #expect(error?.reason.contains("Connection refused") == true, "\(String(describing: error))")
        #expect(elapsed < .seconds(5), "fast: \(elapsed)")
    }

    @Test func anUnresolvableNameFailsFastWithItsCause() async throws {
        let kafka = KafkaConfiguration(bootstrapServers: ["nosuchhost.invalid:9092"], clientID: "reader-tests", logLevel: .error)
        let start = ContinuousClock.now
        let error = await #expect(throws: KafkaError.self) { _ = try await KafkaCluster.metadata(kafka: kafka, timeout: .seconds(30)) }
        let elapsed = ContinuousClock.now - start
        #expect(error?.code == .unavailable)
        #expect(error?.reason.contains("resolve") == true, "\(String(describing: error))")
        #expect(elapsed < .seconds(5), "fast: \(elapsed)")
    }
}
