import Foundation
import SwitchyardKafka
import Synchronization

/// The record a handler runs for, and what the handler can do through the worker: publish events that are
/// durable before the record's offset is stored.
///
/// The worker makes one per attempt. Tests make their own (``init(topic:partition:offset:key:value:headers:timestampMilliseconds:attempt:group:logger:)``)
/// and read ``published`` afterwards.
public struct RecordContext: Sendable {
    /// The consumed record: key, value and headers as they arrived (the original bytes).
    public let record: KafkaRecord
    /// Which attempt this is: 1 for the first call, 2 for the first retry, …
    public var attempt: Int
    /// The worker's consumer group.
    public var group: String
    let baseLogger: SwitchyardLogger
    let publications: Publications

    /// A context for `record`.
    init(record: KafkaRecord, attempt: Int, group: String, logger: SwitchyardLogger, publications: Publications) {
        self.record = record
        self.attempt = attempt
        self.group = group
        self.baseLogger = logger
        self.publications = publications
    }

    /// A context for a record with these coordinates and bytes: what a handler's tests pass to
    /// ``EventHandlers/dispatch(_:context:)``.
    public init(
        topic: String, partition: Int32 = 0, offset: Int64 = 0, key: [UInt8]? = nil, value: [UInt8]? = nil,
        headers: [KafkaHeader] = [], timestampMilliseconds: Int64? = nil, attempt: Int = 1, group: String = "test",
        logger: SwitchyardLogger = SwitchyardLogger(handler: InMemoryLogHandler())
    ) {
        self.init(
            record: KafkaRecord(
                topic: topic, partition: partition, offset: offset, key: key, value: value, headers: headers,
                timestampMilliseconds: timestampMilliseconds),
            attempt: attempt, group: group, logger: logger, publications: Publications())
    }

    /// The topic the record was consumed from.
    public var topic: String { record.topic }
    /// Its partition.
    public var partition: Int32 { record.partition }
    /// Its offset.
    public var offset: Int64 { record.offset }
    /// `topic/partition@offset`, as logs, dead letters and `/status` name the record.
    public var location: RecordLocation { RecordLocation(topic: record.topic, partition: record.partition, offset: record.offset) }
    /// The record's key bytes (nil: no key).
    public var key: [UInt8]? { record.key }
    /// The record's value as it arrived: the original bytes, not a re-encoding.
    public var value: [UInt8]? { record.value }
    /// The record's headers as they arrived.
    public var headers: [KafkaHeader] { record.headers }
    /// The record's timestamp in milliseconds since the epoch, when it has one.
    public var timestampMilliseconds: Int64? { record.timestampMilliseconds }
    /// The record's timestamp, when it has one.
    public var timestamp: Date? { record.timestamp }

    /// The worker's logger with the record's metadata (`kafka.topic`, `kafka.partition`, `kafka.offset`,
    /// `kafka.record`, `handler.attempt`) on every entry. Log constant messages; put data in metadata, and no
    /// record values.
    public var logger: SwitchyardLogger {
        var logger = baseLogger
        logger.metadata.merge(location.position) { _, new in new }
        logger.metadata["handler.attempt"] = String(attempt)
        return logger
    }

    // MARK: Publishing

    /// Publishes `event` to `topic`, tracked against this record: the record's offset is stored only once
    /// every record published in the handler's successful attempt is acknowledged by the broker, and records
    /// published from one partition are produced in the order they were published. Nothing is sent before the
    /// handler returns ``HandlerOutcome/handled``; a handler that throws, skips or dead-letters publishes
    /// nothing in that attempt.
    ///
    /// The value is the event's canonical encoding, its `type` tag first (``Event/canonicalJSON()``).
    ///
    /// - Parameters:
    ///   - key: The record key (nil: none; the producer's partitioner then spreads the records).
    ///   - headers: Headers to send; `switchyard.published.from` (this record's `topic/partition/offset`) is
    ///     added.
    /// - Throws: The encoder's `EncodingError` when the event cannot be encoded (a non-finite number, …);
    ///   nothing is published then. As any handler error, it is retried per the topic's ``RetryPolicy``.
    public func publish<E: Event>(_ event: E, to topic: String, key: [UInt8]?, headers: [KafkaHeader] = []) throws {
        publish(KafkaProducerRecord(topic: topic, key: key, value: try event.canonicalJSON(), headers: headers))
    }

    /// Publishes `event` to `topic` with a text key (or none), its UTF-8 bytes; see the event overloads.
    ///
    /// - Throws: The encoder's `EncodingError` when the event cannot be encoded; nothing is published then.
    public func publish<E: Event>(_ event: E, to topic: String, key: String? = nil, headers: [KafkaHeader] = []) throws {
        try publish(event, to: topic, key: key.map { Array($0.utf8) }, headers: headers)
    }

    /// Publishes a catalog value (a known event as its canonical encoding, an unknown one as its original
    /// bytes) to `topic`, tracked against this record like the event overloads.
    ///
    /// - Throws: The encoder's `EncodingError` when a known event cannot be encoded; nothing is published then.
    public func publish(_ event: some EventCatalog, to topic: String, key: [UInt8]?, headers: [KafkaHeader] = []) throws {
        publish(KafkaProducerRecord(topic: topic, key: key, value: try TopicCodec.canonicalBytes(of: event), headers: headers))
    }

    /// Publishes a record as given (its value is not checked), tracked against this record like
    /// the event overloads.
    public func publish(_ record: KafkaProducerRecord) {
        var record = record
        record.headers.append(KafkaHeader(name: DeadLetterHeaders.publishedFrom, string: "\(topic)/\(partition)/\(offset)"))
        publications.append(record)
    }

    /// What the handler published through this context so far, in order (for tests).
    public var published: [KafkaProducerRecord] { publications.records }
}

/// The records a handler published in one attempt; the worker sends them once the attempt returns
/// ``HandlerOutcome/handled``. Shared between copies of a context.
final class Publications: Sendable {
    private let storage = Mutex<[KafkaProducerRecord]>([])

    func append(_ record: KafkaProducerRecord) {
        storage.withLock { $0.append(record) }
    }

    var records: [KafkaProducerRecord] { storage.withLock { $0 } }

    /// The records, and none left.
    func take() -> [KafkaProducerRecord] {
        storage.withLock { records in
            defer { records = [] }
            return records
        }
    }
}

extension DeadLetterHeaders {
    /// Added to a record a handler published: the consumed record's `topic/partition/offset`.
    public static let publishedFrom = "switchyard.published.from"
}

// MARK: - Events as bytes

extension Event {
    /// The event's canonical encoding, as a consumer of a catalog reads it: `{"type":"order.placed", …}`, the
    /// tag first, then the members as ``CanonicalJSONEncoder`` writes them. (The event's own `Codable`
    /// encoding has no tag: only its catalog's enum writes one.)
    public func canonicalJSON() throws -> [UInt8] {
        if let fast = self as? any FastCodable {
            var writer = CanonicalWriter()
            fast.write(to: &writer)
            return writer.bytes
        }
        return try CanonicalJSONEncoder().encode(TaggedEvent(event: self))
    }
}

/// An event with its tag, for the Codable encoder.
private struct TaggedEvent<E: Event>: Encodable {
    let event: E

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        try container.encode(E.type, forKey: JSONKey(stringValue: "type"))
        try event.encode(to: encoder)
    }
}
