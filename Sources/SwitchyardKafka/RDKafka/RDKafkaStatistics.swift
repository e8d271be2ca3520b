import Foundation

/// The parts of librdkafka's statistics JSON (`statistics.interval.ms`) we use: per-partition consumer lag.
///
/// Not a hot path (one document every few seconds), so Foundation's `JSONSerialization` is fine.
struct RDKafkaStatistics: Sendable {
    /// Consumer lag per partition (`consumer_lag`: the high watermark, or the last stable offset, minus the
    /// committed offset; before the first commit, minus the log's start), only for partitions with a known lag.
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
                guard let partition = Int32(partitionKey), partition >= 0, let fields = partitionValue as? [String: Any] else { continue }
                func number(_ name: String) -> Int64? { (fields[name] as? NSNumber)?.int64Value }
                let value: Int64
                if let consumerLag = number("consumer_lag"), consumerLag >= 0 {
                    value = consumerLag
                } else if let committed = number("committed_offset"), committed < 0, let low = number("lo_offset"), low >= 0,
                    let high = number("ls_offset").flatMap({ $0 >= 0 ? $0 : nil }) ?? number("hi_offset"), high >= low
                {
                    // librdkafka reports no lag (-1) before the group's first commit of the partition: the group
                    // then starts at the log's start (auto.offset.reset=earliest), so everything in it is lag.
                    value = high - low
                } else {
                    continue
                }
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
