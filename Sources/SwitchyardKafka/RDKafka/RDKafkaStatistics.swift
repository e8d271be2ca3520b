import Foundation

/// The parts of librdkafka's statistics JSON (`statistics.interval.ms`) we use: per-partition consumer lag.
///
/// Not a hot path (one document every few seconds), so Foundation's `JSONSerialization` is fine.
struct RDKafkaStatistics: Sendable {
    /// Consumer lag per partition (`consumer_lag`: high watermark minus the consumer's position), only for
    /// partitions with a known lag.
    var consumerLag: [KafkaTopicPartition: Int64]

    init?(json: Data) {
        guard let root = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else { return nil }
        var lag: [KafkaTopicPartition: Int64] = [:]
        let topics = root["topics"] as? [String: Any] ?? [:]
        for (topic, topicValue) in topics {
            guard let partitions = (topicValue as? [String: Any])?["partitions"] as? [String: Any] else { continue }
            for (partitionKey, partitionValue) in partitions {
                // "-1" is librdkafka's internal unassigned partition.
                guard let partition = Int32(partitionKey), partition >= 0,
                    let fields = partitionValue as? [String: Any],
                    let value = (fields["consumer_lag"] as? NSNumber)?.int64Value, value >= 0
                else { continue }
                lag[KafkaTopicPartition(topic: topic, partition: partition)] = value
            }
        }
        consumerLag = lag
    }
}
