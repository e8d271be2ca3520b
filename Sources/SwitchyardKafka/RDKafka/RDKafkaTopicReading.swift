import CRdKafka

/// What a read-only poll returned: a record, the end of a partition (`enable.partition.eof`), or an error.
enum RDKafkaReadResult: Sendable {
    case record(KafkaRecord)
    /// The partition has no record at `offset` yet (its position reached the high watermark).
    case endOfPartition(KafkaTopicPartition, offset: Int64)
    case error(KafkaError)
}

extension RDKafkaClient {
    /// Assigns exactly these partitions, each from its offset, without joining a group (`rd_kafka_assign`):
    /// no rebalance, no member of any group is disturbed.
    func assign(_ entries: [(KafkaTopicPartition, Int64)]) throws {
        let list = RDKafkaTopicPartitionList(entries.map { ($0.0.topic, $0.0.partition, $0.1) })
        let err = list.withPointer { rd_kafka_assign(handle, $0) }
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError.rdKafka(err, code: .consumer, context: "assign failed")
        }
    }

    /// The first offset whose timestamp is at or after `timestampMilliseconds`, per partition
    /// (`rd_kafka_offsets_for_times`); `nil` when no record is that recent. Blocks up to the timeout.
    func offsetsForTimes(
        _ partitions: [KafkaTopicPartition], timestampMilliseconds: Int64, timeoutMilliseconds: Int32
    ) throws -> [KafkaTopicPartition: Int64?] {
        let list = RDKafkaTopicPartitionList(partitions.map { ($0.topic, $0.partition, timestampMilliseconds) })
        return try list.withPointer { pointer in
            let err = rd_kafka_offsets_for_times(handle, pointer, timeoutMilliseconds)
            guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
                let code: KafkaError.Code = err == RD_KAFKA_RESP_ERR__TIMED_OUT || err == RD_KAFKA_RESP_ERR__TRANSPORT ? .unavailable : .consumer
                throw KafkaError.rdKafka(err, code: code, context: "offsets-for-times request failed")
            }
            if let (tp, perr) = RDKafkaTopicPartitionList.errors(pointer).first {
                throw KafkaError.rdKafka(perr, code: .consumer, context: "offsets-for-times request for \(tp) failed")
            }
            var result: [KafkaTopicPartition: Int64?] = [:]
            // librdkafka answers RD_KAFKA_OFFSET_END (-1) for a partition with no record that recent.
            for (tp, offset) in RDKafkaTopicPartitionList.offsets(pointer) { result[tp] = offset >= 0 ? offset : nil }
            return result
        }
    }

    /// Polls a consumer that only assigns (never subscribes), telling a partition's end apart from errors.
    /// Blocks up to `timeoutMilliseconds`; call it off the cooperative pool, from one thread at a time.
    func readerPoll(timeoutMilliseconds: Int32) -> RDKafkaReadResult? {
        guard let message = rd_kafka_consumer_poll(handle, timeoutMilliseconds) else { return nil }
        defer { rd_kafka_message_destroy(message) }
        let m = message.pointee
        if m.err == RD_KAFKA_RESP_ERR__PARTITION_EOF, let rkt = m.rkt {
            return .endOfPartition(KafkaTopicPartition(topic: String(cString: rd_kafka_topic_name(rkt)), partition: m.partition), offset: m.offset)
        }
        var topicNames = RDKafkaTopicNames()
        switch pollResult(message, topicNames: &topicNames) {
        case .record(let record): return .record(record)
        case .error(let error): return .error(error)
        }
    }

    /// Serves queued callbacks (errors, logs) of a client that is not polled otherwise.
    func serveCallbacks() {
        _ = rd_kafka_poll(handle, 0)
    }
}
