import Foundation

// MARK: - Settings the delivery guarantees depend on

extension WorkerConfiguration {
    /// librdkafka properties the worker sets itself, or that its bookkeeping depends on; the `kafka` map may
    /// not set them under any name librdkafka accepts for them (``librdkafkaPropertyName(_:)``) (PRODUCT.md,
    /// "Offsets: at-least-once"). Name → why.
    public static let guaranteedKafkaProperties: [String: String] = [
        "enable.auto.offset.store":
            "the worker stores an offset only once the record's outcome is durable; automatic storing would commit records not yet handled",
        "enable.auto.commit": "stored offsets must be committed periodically and on revocation",
        "offset.store.method": "offsets are committed to the group coordinator (broker)",
        "enable.idempotence": "dead letters and republished events must not be duplicated or reordered by producer retries",
        "acks": "a dead letter or a republished event is durable only once all in-sync replicas have it (acks=all)",
        "isolation.level": "only committed records are consumed (read_committed)",
        "auto.offset.reset": "a partition without a committed offset is read from its beginning (earliest), so nothing produced is skipped",
        "group.id": "the group is the configuration's groupId (releases and dead letters name it)",
        "delivery.report.only.error":
            "a record's offset is stored when its dead letter or republish is acknowledged; without a delivery report for every send, none would be",
        "queuing.strategy": "dead letters and republished events keep their partition's order (the producer's queue is first in, first out)",
    ]

    /// librdkafka's aliases of the properties in ``guaranteedKafkaProperties``: alias → the property it sets.
    static let librdkafkaAliases: [String: String] = [
        // A topic property (legacy) and the global one; librdkafka accepts both names for both.
        "auto.commit.enable": "enable.auto.commit",
        "request.required.acks": "acks",
    ]

    /// The property librdkafka sets for a name in the `kafka` map: without the `topic.` prefix (librdkafka tries a
    /// name that is not a global property on the default topic configuration, with that prefix removed) and
    /// with an alias resolved to the property it stands for. librdkafka's names are lower case; an upper-case
    /// or padded name is compared as librdkafka would most leniently read it.
    public static func librdkafkaPropertyName(_ name: String) -> String {
        var name = name.trimmingCharacters(in: .whitespaces).lowercased()
        while name.hasPrefix("topic.") { name.removeFirst("topic.".count) }
        return librdkafkaAliases[name] ?? name
    }

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
                let property = Self.librdkafkaPropertyName(key)
                if let why = Self.guaranteedKafkaProperties[property] {
                    let named = property == key ? "" : " (librdkafka reads it as \(property))"
                    throw ConfigurationError(path: "\(name)[\"\(key)\"]", reason: "cannot be set\(named): \(why)")
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
