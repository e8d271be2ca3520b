import Foundation

/// The parts of librdkafka's statistics JSON (`statistics.interval.ms`) we use: per-partition consumer lag.
///
/// Not a hot path (one document every few seconds), so Foundation's `JSONSerialization` is fine.
struct RDKafkaStatistics: Sendable {
    /// Consumer lag per partition (`consumer_lag`: high watermark minus the consumer's position), only for
    /// partitions with a known lag.
    var consumerLag: [KafkaTopicPartition: Int64]

    /// Reads the lag out of one statistics document.
    ///
    /// - Throws: Foundation's error for a document that is not JSON, ``StatisticsError`` for one that is not
    ///   an object: the caller logs it (the lag gauges then keep their last values) instead of dropping it.
    init(json: Data) throws {
        guard let root = try JSONSerialization.jsonObject(with: json) as? [String: Any] else {
            throw StatisticsError(description: "the statistics document is not a JSON object")
        }
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

/// A statistics document without the shape librdkafka gives it.
struct StatisticsError: Error, CustomStringConvertible {
    let description: String
}
