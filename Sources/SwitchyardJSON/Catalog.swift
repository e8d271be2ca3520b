// What a catalog is to the rest of Switchyard: a name, a default policy, its event types, and a
// record decoder specialized for it. Nothing below the executable lists catalogs: a binary is built
// with whatever `EventCatalog` types it is given (`SwitchyardCommand.main(catalogs:)`).

/// How a topic treats records it cannot take (PRODUCT.md, "Per-topic policy").
public enum TopicPolicy: String, Sendable, Codable, CaseIterable {
    /// Fail closed: an unknown type is a failure; a failure halts the partition.
    case strict
    /// Degrade: unknown types flow on; failures are dead-lettered and consumption goes on.
    case lenient
}

/// What happened to one record.
public enum RecordOutcome: Sendable, Equatable {
    /// A known event.
    case decoded(type: String)
    /// An unrecognised tag on a lenient topic.
    case unknown(type: String)
    /// A failure (including `unknownType` on a strict topic).
    case failed(DecodeFailure)
    /// A null record value.
    case tombstone

    /// `decoded`, `unknown`, `failed` or `tombstone`, as in `--records`.
    public var name: String {
        switch self {
        case .decoded: "decoded"
        case .unknown: "unknown"
        case .failed: "failed"
        case .tombstone: "tombstone"
        }
    }

    /// The tag, when it was readable.
    public var type: String? {
        switch self {
        case .decoded(let type), .unknown(let type): type
        case .failed(let failure): failure.type
        case .tombstone: nil
        }
    }
}

/// One record decoded under a topic's catalog and policy.
public struct DecodedRecord: Sendable {
    /// The outcome.
    public var outcome: RecordOutcome
    /// Unknown fields kept (a newer producer's members), for the metrics.
    public var unknownFields: Int
    /// The event, for `decoded` and `unknown` outcomes.
    ///
    /// Spelled `Optional<…>`, not `(any EventCatalog)?`: a `var` of the `?` spelling starts as nil, so `init`
    /// assigned over that nil through Optional's generic value witness (~100 instructions per record).
    public var event: Optional<any EventCatalog>

    @inlinable public init(outcome: RecordOutcome, unknownFields: Int, event: (any EventCatalog)?) {
        self.outcome = outcome
        self.unknownFields = unknownFields
        self.event = event
    }
}

/// A catalog the running binary was built with: an ``EventCatalog`` type, named by its ``EventCatalog/name``.
///
/// Two values are equal when they name the same catalog.
public struct Catalog: Sendable, Hashable, CustomStringConvertible {
    /// The catalog's enum.
    public let type: any EventCatalog.Type

    /// The catalog of `type`.
    public init(_ type: any EventCatalog.Type) {
        self.type = type
    }

    /// The catalog's name (`payments`), as configs and `--catalog` write it.
    public var name: String { type.name }
    /// The policy a topic of this catalog gets unless configured otherwise.
    public var defaultPolicy: TopicPolicy { type.defaultPolicy }
    /// The tag key (`type`).
    public var tagKey: String { type.tagKey }
    /// The known event types' tags, in declaration order.
    public var eventTypes: [String] { type.eventTypeNames }

    /// A record decoder for this catalog (one per thread), specialized for its enum.
    public func makeRecordDecoder(readerOptions: JSONReader.Options) -> RecordDecoder {
        type.makeRecordDecoder(readerOptions: readerOptions)
    }

    public var description: String { name }
    public static func == (a: Catalog, b: Catalog) -> Bool { a.name == b.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// Decodes record values of one catalog into ``DecodedRecord``s, reusing its buffers. Not thread-safe:
/// one per thread.
///
/// Made by ``EventCatalog/makeRecordDecoder(readerOptions:)`` where the catalog's type is concrete, so
/// the closure it holds runs a decode path specialized for that catalog: one indirect call per record,
/// no generic lookups inside.
public final class RecordDecoder {
    @usableFromInline let body: (UnsafeRawBufferPointer) -> DecodedRecord
    @usableFromInline let outcomeOnly: (UnsafeRawBufferPointer) -> DecodedRecord

    /// A decoder running `decoder`, specialized for `Catalog` where this initializer is inlined.
    @inlinable public init<Catalog: EventCatalog>(_ decoder: EventDecoder<Catalog>) {
        // In a box whose member needs no dynamic exclusivity check: a captured `var` would pay one per
        // record (~70 instructions). One decoder is used by one thread at a time (see the type's doc).
        let box = Box(decoder)
        body = { bytes in box.decoder.decodeRecord(bytes) }
        outcomeOnly = { bytes in box.decoder.decodeRecord(bytes, keepingEvent: false) }
    }

    @usableFromInline final class Box<Catalog: EventCatalog> {
        @exclusivity(unchecked) @usableFromInline var decoder: EventDecoder<Catalog>

        @inlinable init(_ decoder: EventDecoder<Catalog>) {
            self.decoder = decoder
        }
    }

    /// Decodes one record value (not a tombstone: a null value is decided before).
    ///
    /// `keepingEvent: false`: the same outcome, unknown-field count and diagnosis, without the event (nil).
    /// For a reader that only counts and routes records (no handler, no republish): the event is not boxed
    /// into an existential, which for most events means an allocation and a copy per record.
    @inlinable public func decode(_ value: UnsafeRawBufferPointer, keepingEvent: Bool = true) -> DecodedRecord {
        keepingEvent ? body(value) : outcomeOnly(value)
    }
}

extension EventCatalog {
    /// Fail closed unless the catalog says otherwise.
    public static var defaultPolicy: TopicPolicy { .strict }

    /// The known event types' tags.
    public static var eventTypeNames: [String] { eventTypes.map(\.type) }

    /// A record decoder for this catalog. Generated catalogs implement it themselves (the same body),
    /// so that it is specialized in their module.
    @inlinable public static func makeRecordDecoder(readerOptions: JSONReader.Options) -> RecordDecoder {
        RecordDecoder(EventDecoder<Self>(readerOptions: readerOptions))
    }
}
