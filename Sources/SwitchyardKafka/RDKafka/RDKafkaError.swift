import CRdKafka

// MARK: - KafkaError from librdkafka error values

extension KafkaError {
    /// A `KafkaError` from an `rd_kafka_resp_err_t`.
    ///
    /// librdkafka's response errors carry no retriable flag (only `rd_kafka_error_t` does), so the flag comes from
    /// the list of errors the Kafka protocol documents as retriable plus librdkafka's local transient ones.
    static func rdKafka(
        _ err: rd_kafka_resp_err_t,
        code: Code,
        context: String,
        file: String = #fileID,
        line: Int = #line
    ) -> KafkaError {
        let name = String(cString: rd_kafka_err2name(err))
        let text = String(cString: rd_kafka_err2str(err))
        return KafkaError(
            code: err == RD_KAFKA_RESP_ERR__FATAL ? .fatal : code,
            reason: "\(context): \(text)",
            rdKafkaName: name,
            rdKafkaCode: err.rawValue,
            isFatal: err == RD_KAFKA_RESP_ERR__FATAL,
            isRetriable: RDKafkaErrors.isRetriable(err),
            file: file,
            line: line
        )
    }

    /// A `KafkaError` from an `rd_kafka_error_t`, which it destroys.
    static func rdKafka(
        consuming error: OpaquePointer,
        code: Code,
        context: String,
        file: String = #fileID,
        line: Int = #line
    ) -> KafkaError {
        defer { rd_kafka_error_destroy(error) }
        let err = rd_kafka_error_code(error)
        let fatal = rd_kafka_error_is_fatal(error) != 0
        return KafkaError(
            code: fatal ? .fatal : code,
            reason: "\(context): \(String(cString: rd_kafka_error_string(error)))",
            rdKafkaName: String(cString: rd_kafka_error_name(error)),
            rdKafkaCode: err.rawValue,
            isFatal: fatal,
            isRetriable: rd_kafka_error_is_retriable(error) != 0 || RDKafkaErrors.isRetriable(err),
            file: file,
            line: line
        )
    }
}

enum RDKafkaErrors {
    static func isRetriable(_ err: rd_kafka_resp_err_t) -> Bool {
        switch err {
        case RD_KAFKA_RESP_ERR__TRANSPORT, RD_KAFKA_RESP_ERR__TIMED_OUT, RD_KAFKA_RESP_ERR__MSG_TIMED_OUT,
            RD_KAFKA_RESP_ERR__QUEUE_FULL, RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN, RD_KAFKA_RESP_ERR__RESOLVE,
            RD_KAFKA_RESP_ERR__WAIT_COORD, RD_KAFKA_RESP_ERR__PURGE_QUEUE, RD_KAFKA_RESP_ERR__PURGE_INFLIGHT,
            RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION, RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC,
            RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE,
            RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION, RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT,
            RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION, RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS,
            RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE, RD_KAFKA_RESP_ERR_NOT_COORDINATOR,
            RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS, RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND,
            RD_KAFKA_RESP_ERR_KAFKA_STORAGE_ERROR, RD_KAFKA_RESP_ERR_FENCED_LEADER_EPOCH,
            RD_KAFKA_RESP_ERR_UNKNOWN_LEADER_EPOCH, RD_KAFKA_RESP_ERR_OFFSET_NOT_AVAILABLE,
            RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS, RD_KAFKA_RESP_ERR_THROTTLING_QUOTA_EXCEEDED:
            return true
        default:
            return false
        }
    }

    /// The librdkafka name of an error code, e.g. `TOPIC_AUTHORIZATION_FAILED`.
    static func name(_ code: Int32) -> String {
        String(cString: rd_kafka_err2name(rd_kafka_resp_err_t(rawValue: code)))
    }
}
