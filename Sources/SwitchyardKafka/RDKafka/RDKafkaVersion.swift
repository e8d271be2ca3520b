import CRdKafka

/// The Kafka client library this build links.
public enum KafkaClientLibrary {
    /// librdkafka's version, as it reports it (`rd_kafka_version_str()`): "2.0.2".
    public static var version: String { String(cString: rd_kafka_version_str()) }
}
