import CRdKafka

/// Owns an `rd_kafka_topic_partition_list_t` built from Swift values; freed in `deinit`.
final class RDKafkaTopicPartitionList {
    private let pointer: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>

    /// A list of (topic, partition, offset); a `nil` offset leaves librdkafka's default (`RD_KAFKA_OFFSET_INVALID`).
    init(_ entries: [(String, Int32, Int64?)]) {
        pointer = rd_kafka_topic_partition_list_new(Int32(max(entries.count, 1)))
        for (topic, partition, offset) in entries {
            let element = rd_kafka_topic_partition_list_add(pointer, topic, partition)
            if let offset, let element {
                element.pointee.offset = offset
            }
        }
    }

    deinit {
        rd_kafka_topic_partition_list_destroy(pointer)
    }

    /// Scoped access to the C list; the pointer must not escape.
    func withPointer<T>(_ body: (UnsafeMutablePointer<rd_kafka_topic_partition_list_t>) throws -> T) rethrows -> T {
        try body(pointer)
    }

    /// The (partition, offset) entries of a C list.
    static func offsets(_ list: UnsafePointer<rd_kafka_topic_partition_list_t>) -> [(KafkaTopicPartition, Int64)] {
        var result: [(KafkaTopicPartition, Int64)] = []
        for i in 0..<Int(list.pointee.cnt) {
            let element = list.pointee.elems[i]
            result.append((KafkaTopicPartition(topic: String(cString: element.topic), partition: element.partition), element.offset))
        }
        return result
    }

    /// The per-partition errors of a C list.
    static func errors(_ list: UnsafePointer<rd_kafka_topic_partition_list_t>) -> [(KafkaTopicPartition, rd_kafka_resp_err_t)] {
        var result: [(KafkaTopicPartition, rd_kafka_resp_err_t)] = []
        for i in 0..<Int(list.pointee.cnt) {
            let element = list.pointee.elems[i]
            if element.err != RD_KAFKA_RESP_ERR_NO_ERROR {
                result.append((KafkaTopicPartition(topic: String(cString: element.topic), partition: element.partition), element.err))
            }
        }
        return result
    }
}
