/// A partition's offset range: records from ``low`` up to (not including) ``high`` are retained.
public struct KafkaWatermarks: Hashable, Sendable {
    /// The first retained offset.
    public var low: Int64
    /// The next offset to be written (the high watermark): the end of the partition for a reader.
    public var high: Int64

    public init(low: Int64, high: Int64) {
        self.low = low
        self.high = high
    }

    /// Whether the partition retains no record.
    public var isEmpty: Bool { high <= low }
}

extension KafkaConsumer {
    /// The watermarks of these partitions, asked of their leaders without joining any group: where a
    /// bounded read ("from the beginning to the current end") stops.
    ///
    /// - Throws: ``KafkaError/Code/unavailable`` when a leader does not answer within `timeout` (per partition).
    public static func watermarks(
        _ partitions: [KafkaTopicPartition],
        kafka: KafkaConfiguration,
        timeout: Duration = .seconds(10),
        logger: any KafkaLogger = NoOpKafkaLogger()
    ) async throws -> [KafkaTopicPartition: KafkaWatermarks] {
        // A consumer handle that never subscribes: it only sends ListOffsets requests.
        let properties = KafkaConsumerConfiguration(groupID: "switchyard-watermarks", topics: [], kafka: kafka, statisticsInterval: nil)
            .rdKafkaProperties
        let client = try RDKafkaClient.make(
            kind: .consumer, properties: properties, callbacks: RDKafkaCallbacks(logger: logger, secrets: kafka.secretValues))
        let milliseconds = Int32(clamping: timeout.milliseconds)
        return try await runBlocking {
            var result: [KafkaTopicPartition: KafkaWatermarks] = [:]
            for partition in partitions {
                let (low, high) = try client.watermarks(partition, timeoutMilliseconds: milliseconds)
                result[partition] = KafkaWatermarks(low: low, high: high)
            }
            return result
        }
    }
}
