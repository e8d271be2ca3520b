import Foundation

// MARK: - Settings the delivery guarantees depend on

extension WorkerConfiguration {
    /// librdkafka properties the worker sets itself because at-least-once depends on them; the `kafka` map
    /// may not set them (PRODUCT.md, "Offsets: at-least-once"). Name → why.
    public static let guaranteedKafkaProperties: [String: String] = [
        "enable.auto.offset.store":
            "the worker stores an offset only once the record's outcome is durable; automatic storing would commit records not yet handled",
        "auto.commit.enable": "an alias of enable.auto.commit, which the worker sets",
        "enable.auto.commit": "stored offsets must be committed periodically and on revocation",
        "offset.store.method": "offsets are committed to the group coordinator (broker)",
        "enable.idempotence": "dead letters and republished events must not be duplicated or reordered by producer retries",
        "acks": "a dead letter or a republished event is durable only once all in-sync replicas have it (acks=all)",
        "request.required.acks": "an alias of acks; a dead letter or a republished event is durable only with acks=all",
        "isolation.level": "only committed records are consumed (read_committed)",
        "auto.offset.reset": "a partition without a committed offset is read from its beginning (earliest), so nothing produced is skipped",
        "group.id": "the group is the configuration's groupId (releases and dead letters name it)",
    ]

    /// Room left for the dead-letter headers (the diagnosis plus the record's own headers) on top of
    /// ``maxRecordBytes``, when checking the producer's `message.max.bytes`.
    public static let deadLetterHeaderRoom = 64 * 1024

    /// The producer's `message.max.bytes`: the `kafka` map's, else large enough for a dead letter of a record
    /// of ``maxRecordBytes`` with its headers (and at least librdkafka's default, 1,000,000).
    public var producerMessageMaxBytes: Int {
        if let configured = (kafkaProducer["message.max.bytes"] ?? kafka["message.max.bytes"]).flatMap({ Int($0) }) { return configured }
        return max(1_000_000, maxRecordBytes + Self.deadLetterHeaderRoom)
    }

    /// Refuses settings that would break the delivery guarantees (exit 78): a `kafka` property the
    /// guarantees depend on, or a producer `message.max.bytes` too small for a dead letter of a record of
    /// ``maxRecordBytes`` (every such dead letter would fail, permanently).
    public func validateDeliveryGuarantees() throws(ConfigurationError) {
        for (name, map) in [("kafka", kafka), ("kafkaConsumer", kafkaConsumer), ("kafkaProducer", kafkaProducer)] {
            for key in map.keys.sorted() {
                if let why = Self.guaranteedKafkaProperties[key.trimmingCharacters(in: .whitespaces)] {
                    throw ConfigurationError(path: "\(name)[\"\(key)\"]", reason: "cannot be set: \(why)")
                }
            }
        }
        guard maxRecordBytes > 0 else { throw ConfigurationError(path: "maxRecordBytes", reason: "must be positive") }
        let producerMap = kafkaProducer["message.max.bytes"] != nil ? "kafkaProducer" : "kafka"
        if let text = kafkaProducer["message.max.bytes"] ?? kafka["message.max.bytes"] {
            guard let value = Int(text) else {
                throw ConfigurationError(path: "\(producerMap)[\"message.max.bytes\"]", reason: "must be an integer, not '\(text)'")
            }
            let needed = maxRecordBytes + Self.deadLetterHeaderRoom
            guard value >= needed else {
                throw ConfigurationError(
                    path: "\(producerMap)[\"message.max.bytes\"]",
                    reason: "\(value) is less than maxRecordBytes (\(maxRecordBytes)) + \(Self.deadLetterHeaderRoom) bytes for the "
                        + "dead-letter headers (\(needed)): a record that fails at that size could never be dead-lettered; "
                        + "raise message.max.bytes (and the DLQ topic's max.message.bytes) or lower maxRecordBytes")
            }
        }
    }
}
