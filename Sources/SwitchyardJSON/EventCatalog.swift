#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One event type of a catalog: a `Codable` struct and the tag that selects it on the wire.
public protocol Event: Codable, Sendable {
    /// The tag that selects this event on the wire (the value of the catalog's ``EventCatalog/tagKey``).
    static var type: String { get }
}

/// An event that carries the envelope of Switchyard's shipped catalogs: `id`, `occurredAt` and
/// `schemaVersion`, first after the tag. Other catalogs' events need not.
public protocol EnvelopeEvent: Event {
    /// The envelope: identity, time, schema version.
    var envelope: Envelope { get }
}

/// What a catalog value holds: a known event, or an unrecognised tag with the record's bytes.
public enum EventContent: Sendable {
    case known(any Event)
    case unknown(type: String, raw: RawJSON)
}

/// An internally tagged event enum with an `.unknown(type:raw:)` case.
///
/// Conforming enums list their event types once, in ``eventTypes``, and get tagged decoding and
/// canonical encoding from this protocol:
/// ```swift
/// public enum PaymentEvent: EventCatalog {
///     case captured(PaymentCaptured)
///     case unknown(type: String, raw: RawJSON)
///     public static let name = "payments"
///     public static let eventTypes = [EventType(PaymentCaptured.self, PaymentEvent.captured)]
///     public var content: EventContent { … }
///     public init(from decoder: any Decoder) throws { self = try Self.decodeTagged(from: decoder) }
///     public func encode(to encoder: any Encoder) throws { try encodeTagged(to: encoder) }
/// }
/// ```
public protocol EventCatalog: Codable, Sendable {
    /// The catalog's name (`payments`, `feeds`).
    static var name: String { get }
    /// The tag key. Default: `type`.
    static var tagKey: String { get }
    /// Every known event type.
    static var eventTypes: [EventType<Self>] { get }
    /// The value for a tag this build does not know (the enum's `unknown` case satisfies it).
    static func unknown(type: String, raw: RawJSON) -> Self
    /// The event, or the unknown tag and bytes.
    var content: EventContent { get }
    /// Writes the canonical encoding with ``CanonicalWriter``; returns false when the catalog has no
    /// fast path, and ``CanonicalJSONEncoder`` writes it instead. Default: false.
    func writeCanonical(to writer: inout CanonicalWriter) -> Bool
    /// The policy a topic of this catalog gets unless its configuration names one. Default: strict.
    static var defaultPolicy: TopicPolicy { get }
    /// A record decoder for this catalog, specialized for it (see ``RecordDecoder``).
    static func makeRecordDecoder(readerOptions: JSONReader.Options) -> RecordDecoder
}

/// One entry of ``EventCatalog/eventTypes``: a tag, how to decode its payload, how to wrap it.
public struct EventType<Catalog>: Sendable {
    /// The tag.
    public let type: String
    /// The payload type.
    public let payload: any Event.Type
    @usableFromInline let decode: @Sendable (any Decoder) throws -> Catalog
    /// The fast path's reader, when the payload type has one.
    @usableFromInline let fastDecode: (@Sendable (inout JSONCursor) throws(FastPathBail) -> Catalog)?
    /// The payload's checks without a value (``FastCodable/validate(_:)``): for
    /// ``EventCatalog/validateFast(_:options:)``.
    @usableFromInline let fastValidate: (@Sendable (inout JSONCursor) throws(FastPathBail) -> Void)?
    @usableFromInline let utf8: [UInt8]
    /// The tag's first and last eight bytes (zero-padded when shorter), as ``JSONCursor`` reads them.
    @usableFromInline let words: (UInt64, UInt64)

    /// An entry for `event`, wrapped into the catalog by `wrap` (usually the enum case).
    @inlinable public init<E: Event>(_ event: E.Type, _ wrap: @escaping @Sendable (E) -> Catalog) {
        type = E.type
        utf8 = Array(E.type.utf8)
        words = utf8.withUnsafeBufferPointer { JSONCursor.words($0) }
        payload = E.self
        decode = { decoder in wrap(try E(from: decoder)) }
        fastDecode = nil
        fastValidate = nil
    }

    /// An entry for an event with a fast path (``FastCodable``). Inlinable, so that the reader is
    /// specialized for the event type where the catalog lists it (no generic copies of the value).
    @inlinable public init<E: Event & FastCodable>(_ event: E.Type, _ wrap: @escaping @Sendable (consuming E) -> Catalog) {
        type = E.type
        utf8 = Array(E.type.utf8)
        words = utf8.withUnsafeBufferPointer { JSONCursor.words($0) }
        payload = E.self
        decode = { decoder in wrap(try E(from: decoder)) }
        fastDecode = { cursor throws(FastPathBail) in wrap(try E.read(from: &cursor)) }
        fastValidate = { cursor throws(FastPathBail) in try E.validate(&cursor) }
    }

    /// Whether `tag` is this type's tag: up to 16 bytes (most tags) by their two words, as ``FieldTable``
    /// compares a key, with no `memcmp` call.
    @inlinable func matches(_ tag: UnsafeBufferPointer<UInt8>) -> Bool {
        guard utf8.count == tag.count else { return false }
        if tag.count <= 16 { return JSONCursor.words(tag) == words }
        return utf8.withUnsafeBufferPointer { memcmp($0.baseAddress!, tag.baseAddress!, tag.count) == 0 }
    }
}

/// What the fast path decided for one record.
public struct FastDecoded<Catalog: EventCatalog> {
    /// The value.
    public var value: Catalog
    /// The known event type's tag; nil for an unknown tag.
    public var knownType: String?
    /// Members kept in ``UnknownFields`` bags anywhere in the value.
    public var unknownFieldCount: Int

    @inlinable init(value: Catalog, knownType: String?, unknownFieldCount: Int) {
        self.value = value
        self.knownType = knownType
        self.unknownFieldCount = unknownFieldCount
    }
}

/// What the fast path decided about a record it read without keeping the value
/// (``EventCatalog/validateFast(_:options:)``).
public struct FastVerdict: Sendable, Equatable {
    /// The tag: a known event's type (the catalog's own string) or the unrecognised tag.
    public var type: String
    /// Whether the tag is one of the catalog's.
    public var isKnown: Bool
    /// Members kept in ``UnknownFields`` bags anywhere in the value (0 for an unknown tag).
    public var unknownFieldCount: Int

    @inlinable public init(type: String, isKnown: Bool, unknownFieldCount: Int) {
        self.type = type
        self.isKnown = isKnown
        self.unknownFieldCount = unknownFieldCount
    }
}

extension EventCatalog {
    public static var tagKey: String { "type" }

    /// Writes the canonical encoding directly; false when this catalog has no fast path (the default).
    public func writeCanonical(to writer: inout CanonicalWriter) -> Bool { false }

    /// Decodes a record on the fast path, or returns nil to leave it to the general decoder: for any
    /// failure, and for valid records the fast path does not handle (see ``JSONCursor``).
    @inlinable public static func decodeFast(_ bytes: UnsafeRawBufferPointer, options: JSONReader.Options) -> FastDecoded<Self>? {
        do throws(FastPathBail) {
            var cursor = try JSONCursor(bytes, options: options)
            let tag = try cursor.findTag(tagKey)
            let types = eventTypes
            for k in types.indices where types[k].matches(tag) {
                guard let decode = types[k].fastDecode else { return nil }
                let value = try decode(&cursor)
                try cursor.finish()
                return FastDecoded(value: value, knownType: types[k].type, unknownFieldCount: cursor.unknownFieldCount)
            }
            let type = String(decoding: tag, as: UTF8.self)
            try cursor.validateDocument()
            return FastDecoded(value: unknown(type: type, raw: RawJSON(bytes: Array(bytes))), knownType: nil, unknownFieldCount: 0)
        } catch {
            return nil
        }
    }

    /// Decides a record as ``decodeFast(_:options:)`` does, with the same checks, without making the value:
    /// strings are validated and dropped (``JSONCursor`` `discardingValues`), the payload is not wrapped into
    /// the catalog (no allocation for an `indirect` case), an unknown record's bytes are not copied. For a
    /// reader that needs the outcome, not the event (a worker topic with no handler and no republish).
    @inlinable public static func validateFast(_ bytes: UnsafeRawBufferPointer, options: JSONReader.Options) -> FastVerdict? {
        do throws(FastPathBail) {
            var cursor = try JSONCursor(bytes, options: options, discardingValues: true)
            let tag = try cursor.findTag(tagKey)
            let types = eventTypes
            for k in types.indices where types[k].matches(tag) {
                guard let validate = types[k].fastValidate else { return nil }
                try validate(&cursor)
                try cursor.finish()
                return FastVerdict(type: types[k].type, isKnown: true, unknownFieldCount: cursor.unknownFieldCount)
            }
            let type = String(decoding: tag, as: UTF8.self)
            try cursor.validateDocument()
            return FastVerdict(type: type, isKnown: false, unknownFieldCount: 0)
        } catch {
            return nil
        }
    }

    /// The tag of this value (a known event's type, or the unknown tag).
    public var type: String {
        switch content {
        case .known(let event): Swift.type(of: event).type
        case .unknown(let type, _): type
        }
    }

    /// Whether the tag was unrecognised.
    public var isUnknown: Bool {
        if case .unknown = content { return true }
        return false
    }

    /// Decodes by tag: a known tag decodes its payload (failures propagate); any other tag is
    /// ``unknown(type:raw:)``. Only an unrecognised tag is unknown (PRODUCT.md, rule 1).
    public static func decodeTagged(from decoder: any Decoder) throws -> Self {
        // Switchyard's decoder: compare the tag's bytes with each known type, without a container
        // or a String. Anything unusual (missing, not a string, escaped) takes the general path.
        if let fast = _JSONDecoder.unwrap(decoder), fast.state.nodes[fast.node].kind == .object,
            let tag = fast.state.find(tagKey, in: fast.node), fast.state.nodes[tag].kind == .string, !fast.state.nodes[tag].isEscaped
        {
            let raw = fast.state.raw(fast.state.nodes[tag])
            for entry in eventTypes where entry.utf8.count == raw.count && entry.utf8.withUnsafeBufferPointer({ memcmp($0.baseAddress!, raw.baseAddress!, raw.count) == 0 }) {
                let value = try entry.decode(decoder)
                fast.state.knownType = entry.type
                return value
            }
        }
        let container = try decoder.container(keyedBy: JSONKey.self)
        let tag = try container.decode(String.self, forKey: JSONKey(stringValue: tagKey))
        for entry in eventTypes where entry.type == tag {
            let value = try entry.decode(decoder)
            _JSONDecoder.unwrap(decoder)?.state.knownType = entry.type
            return value
        }
        return unknown(type: tag, raw: try RawJSON(from: decoder))
    }

    /// Encodes the tag first, then the payload; an unknown event as its original bytes.
    public func encodeTagged(to encoder: any Encoder) throws {
        switch content {
        case .known(let event):
            var container = encoder.container(keyedBy: JSONKey.self)
            try container.encode(Swift.type(of: event).type, forKey: JSONKey(stringValue: Self.tagKey))
            try event.encode(to: encoder)
        case .unknown(_, let raw):
            try raw.encode(to: encoder)
        }
    }
}

/// The coding keys of an event: they include the envelope's (enum cases satisfy the requirements).
public protocol EnvelopeCodingKey: CodingKey {
    static var id: Self { get }
    static var occurredAt: Self { get }
    static var schemaVersion: Self { get }
}

/// The envelope every event carries: `id`, `occurredAt`, `schemaVersion`, flat beside the tag.
public struct Envelope: Codable, Sendable, Hashable {
    /// The identity: a non-empty string, never defaulted. Kept inline (`$id`) up to 40 bytes.
    @InlineString public var id: String
    /// When the event happened (RFC 3339, re-encoded as written).
    public var occurredAt: Timestamp = .unread
    /// The producer's schema version, at least 1. Default: 1 (records that predate versioning).
    public var schemaVersion: Int = 1

    public init(id: String, occurredAt: Timestamp, schemaVersion: Int = 1) {
        self.id = id
        self.occurredAt = occurredAt
        self.schemaVersion = schemaVersion
    }

    enum CodingKeys: String, CodingKey {
        case id, occurredAt, schemaVersion
    }

    /// Reads the envelope from the event's own object (the fields are not nested on the wire).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decodeIdentifier(forKey: .id)
        occurredAt = try c.decode(Timestamp.self, forKey: .occurredAt)
        schemaVersion = try c.decodeIfPresent(Int.self, forKey: .schemaVersion, minimum: 1) ?? 1
    }

    /// Reads the envelope from the event's own container, whose keys include `id`, `occurredAt` and
    /// `schemaVersion` (saves a second container per record).
    public init<K: EnvelopeCodingKey>(from c: KeyedDecodingContainer<K>) throws {
        id = try c.decodeIdentifier(forKey: .id)
        occurredAt = try c.decode(Timestamp.self, forKey: .occurredAt)
        schemaVersion = try c.decodeIfPresent(Int.self, forKey: .schemaVersion, minimum: 1) ?? 1
    }

    /// Writes the envelope into the event's own container.
    public func encode<K: EnvelopeCodingKey>(to c: inout KeyedEncodingContainer<K>) throws {
        try c.encode(id, forKey: .id)
        try c.encode(occurredAt, forKey: .occurredAt)
        try c.encode(schemaVersion, forKey: .schemaVersion)
    }

    /// Writes the envelope into the event's own object, defaults written out.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(occurredAt, forKey: .occurredAt)
        try c.encode(schemaVersion, forKey: .schemaVersion)
    }
}

extension EnvelopeEvent {
    public var id: String { envelope.id }
    public var occurredAt: Timestamp { envelope.occurredAt }
    public var schemaVersion: Int { envelope.schemaVersion }
}

extension KeyedDecodingContainer {
    /// Decodes an identifier: a string that must not be empty (empty is `dataCorrupted` at the key).
    public func decodeIdentifier(forKey key: Key) throws -> String {
        let value = try decode(String.self, forKey: key)
        guard !value.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "Identifier must not be empty.")
        }
        return value
    }
}
