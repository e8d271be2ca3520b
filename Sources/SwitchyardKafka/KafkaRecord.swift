import Foundation

/// A topic and one of its partitions.
public struct KafkaTopicPartition: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The topic name.
    public var topic: String
    /// The partition number, from 0.
    public var partition: Int32

    public init(topic: String, partition: Int32) {
        self.topic = topic
        self.partition = partition
    }

    public static func < (lhs: KafkaTopicPartition, rhs: KafkaTopicPartition) -> Bool {
        (lhs.topic, lhs.partition) < (rhs.topic, rhs.partition)
    }

    public var description: String { "\(topic)/\(partition)" }
}

/// One record header. Names may repeat; order is kept; a value may be null.
public struct KafkaHeader: Hashable, Sendable {
    /// The header name.
    public var name: String
    /// The header value; `nil` is a null value (distinct from empty).
    public var value: [UInt8]?

    public init(name: String, value: [UInt8]?) {
        self.name = name
        self.value = value
    }

    /// A header with a UTF-8 string value.
    public init(name: String, string: String) {
        self.init(name: name, value: Array(string.utf8))
    }
}

/// A record read by the consumer.
public struct KafkaRecord: Hashable, Sendable, CustomStringConvertible {
    /// Where the record came from.
    public var topic: String
    /// Where the record came from.
    public var partition: Int32
    /// The record's offset in its partition.
    public var offset: Int64
    /// The key bytes, `nil` when the record has no key.
    public var key: [UInt8]?
    /// The value bytes, `nil` for a tombstone.
    public var value: [UInt8]?
    /// The headers, in wire order, duplicates kept.
    public var headers: [KafkaHeader]
    /// The record timestamp in milliseconds since the Unix epoch, `nil` when the broker sent none.
    public var timestampMilliseconds: Int64?

    public init(
        topic: String,
        partition: Int32,
        offset: Int64,
        key: [UInt8]?,
        value: [UInt8]?,
        headers: [KafkaHeader] = [],
        timestampMilliseconds: Int64? = nil
    ) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.key = key
        self.value = value
        self.headers = headers
        self.timestampMilliseconds = timestampMilliseconds
    }

    /// The topic and partition.
    public var topicPartition: KafkaTopicPartition { KafkaTopicPartition(topic: topic, partition: partition) }

    /// The record timestamp as a `Date`.
    public var timestamp: Date? {
        timestampMilliseconds.map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    /// Whether this is a tombstone (null value).
    public var isTombstone: Bool { value == nil }

    /// Position only: record contents may hold personal data and never go to logs.
    public var description: String { "KafkaRecord(\(topic)/\(partition)@\(offset))" }
}

/// A record to produce.
public struct KafkaProducerRecord: Sendable, CustomStringConvertible {
    /// The target topic.
    public var topic: String
    /// The target partition; `nil` lets the partitioner choose (by key hash; random without a key).
    public var partition: Int32?
    /// The key bytes, `nil` for no key.
    public var key: [UInt8]?
    /// The value bytes, `nil` for a tombstone.
    public var value: [UInt8]?
    /// The headers, in order, duplicates and null values allowed.
    public var headers: [KafkaHeader]
    /// The record timestamp in milliseconds since the Unix epoch; `nil` for "now".
    public var timestampMilliseconds: Int64?

    public init(
        topic: String,
        partition: Int32? = nil,
        key: [UInt8]? = nil,
        value: [UInt8]?,
        headers: [KafkaHeader] = [],
        timestampMilliseconds: Int64? = nil
    ) {
        self.topic = topic
        self.partition = partition
        self.key = key
        self.value = value
        self.headers = headers
        self.timestampMilliseconds = timestampMilliseconds
    }

    public var description: String { "KafkaProducerRecord(\(topic)[\(partition.map(String.init) ?? "any")])" }
}

/// The broker's acknowledgement of a produced record.
public struct KafkaDeliveryReport: Hashable, Sendable {
    /// Where the record was written.
    public var topic: String
    /// Where the record was written.
    public var partition: Int32
    /// The record's offset, or -1 when the broker did not return one (acks=0).
    public var offset: Int64
}

/// A change of the consumer's partition assignment, or an error reported while consuming.
public enum KafkaConsumerEvent: Sendable {
    /// These partitions were added to the assignment.
    case assigned([KafkaTopicPartition])
    /// These partitions were removed from the assignment; their stored offsets were committed first
    /// (unless `lost` — another member may already own them).
    case revoked([KafkaTopicPartition], lost: Bool)
    /// A non-fatal error (a transport error, an unknown topic); librdkafka retries on its own.
    case error(KafkaError)
}

/// Metadata of the cluster: its brokers and topics.
public struct KafkaClusterMetadata: Sendable {
    /// One broker.
    public struct Broker: Sendable, Hashable {
        public var id: Int32
        public var host: String
        public var port: Int32
    }

    /// One topic.
    public struct Topic: Sendable, Hashable {
        public var name: String
        public var partitionCount: Int
        /// The topic-level error name, if the broker returned one (e.g. `UNKNOWN_TOPIC_OR_PART`).
        public var errorName: String?
    }

    public var brokers: [Broker]
    public var topics: [Topic]
}

func writeToStandardError(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
}
