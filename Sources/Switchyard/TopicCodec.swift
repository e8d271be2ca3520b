@_exported import SwitchyardCatalog
@_exported import SwitchyardJSON

/// How a topic treats records it cannot take (PRODUCT.md, "Per-topic policy").
public enum TopicPolicy: String, Sendable, Codable, CaseIterable {
    /// Fail closed: an unknown type is a failure; a failure halts the partition.
    case strict
    /// Degrade: unknown types flow on; failures are dead-lettered and consumption goes on.
    case lenient
}

/// The shipped catalogs, by name.
public enum CatalogName: String, Sendable, Codable, CaseIterable {
    case payments
    case feeds

    /// The policy a topic of this catalog gets unless configured otherwise.
    public var defaultPolicy: TopicPolicy {
        switch self {
        case .payments: .strict
        case .feeds: .lenient
        }
    }
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
    public var event: (any EventCatalog)?
}

/// Decodes and re-encodes records of one topic. Holds reusable buffers: one per thread.
public struct TopicCodec {
    /// The catalog.
    public let catalog: CatalogName
    /// The policy.
    public let policy: TopicPolicy
    private var decoder: CatalogDecoders

    public init(catalog: CatalogName, policy: TopicPolicy, readerOptions: JSONReader.Options = .init(rejectDuplicateKeys: true)) {
        self.catalog = catalog
        self.policy = policy
        decoder = CatalogDecoders(catalog: catalog, readerOptions: readerOptions)
    }

    /// Decodes a record value; nil is a tombstone.
    public mutating func decode(_ value: UnsafeRawBufferPointer?) -> DecodedRecord {
        guard let value else { return DecodedRecord(outcome: .tombstone, unknownFields: 0, event: nil) }
        var record = decoder.decode(value)
        if case .unknown(let type) = record.outcome, policy == .strict {
            record = DecodedRecord(outcome: .failed(.unknownType(type, catalog: catalog.rawValue)), unknownFields: 0, event: nil)
        }
        return record
    }

    /// Decodes a record value from an array.
    public mutating func decode(_ value: [UInt8]?) -> DecodedRecord {
        guard let value else { return decode(nil as UnsafeRawBufferPointer?) }
        return value.withUnsafeBytes { decode($0) }
    }

    /// What republishing sends for a decoded or unknown record: the canonical encoding of a known
    /// event, the original bytes of an unknown one.
    public static func canonicalBytes(of event: any EventCatalog) throws -> [UInt8] {
        var writer = CanonicalWriter()
        if event.writeCanonical(to: &writer) { return writer.bytes }
        return try CanonicalJSONEncoder().encode(event)
    }

    /// Checks the encoding rules on one decoded record: input ⊆ encode(decode(input)), and
    /// encode(decode(encode(decode(input)))) == encode(decode(input)).
    ///
    /// - Returns: nil when the round trip is faithful, or what was lost and where.
    public mutating func roundTripProblem(input: [UInt8], event: any EventCatalog) -> String? {
        let first: [UInt8]
        do {
            first = try Self.canonicalBytes(of: event)
        } catch {
            return "encoding failed: \(error)"
        }
        if let path = RoundTripCheck.firstLoss(input: input, output: first) {
            return "value lost or changed at '\(path)'"
        }
        let again = decode(first)
        guard let event2 = again.event else {
            return "re-encoded record does not decode: \(again.outcome.name)"
        }
        do {
            let second = try Self.canonicalBytes(of: event2)
            return second == first ? nil : "encoding is not stable: a second round trip changed the bytes"
        } catch {
            return "second encoding failed: \(error)"
        }
    }
}

/// The decoder of each shipped catalog, held as its concrete type so that the whole decode path is
/// specialized for the catalog (no generic metadata lookups per record).
struct CatalogDecoders {
    var payments: EventDecoder<PaymentEvent>?
    var feeds: EventDecoder<FeedEvent>?

    init(catalog: CatalogName, readerOptions: JSONReader.Options) {
        switch catalog {
        case .payments: payments = EventDecoder(readerOptions: readerOptions)
        case .feeds: feeds = EventDecoder(readerOptions: readerOptions)
        }
    }

    mutating func decode(_ value: UnsafeRawBufferPointer) -> DecodedRecord {
        if payments != nil {
            let (outcome, unknownFields) = payments!.decode(value)
            return Self.record(outcome, unknownFields, knownType: payments!.lastKnownType)
        }
        let (outcome, unknownFields) = feeds!.decode(value)
        return Self.record(outcome, unknownFields, knownType: feeds!.lastKnownType)
    }

    /// The outcome as a record; consumed, so that the event moves into the record without a copy.
    @inline(__always) static func record<Catalog>(_ outcome: consuming DecodeOutcome<Catalog>, _ unknownFields: Int, knownType: String?) -> DecodedRecord {
        switch consume outcome {
        case .decoded(let event):
            return DecodedRecord(outcome: .decoded(type: knownType ?? event.type), unknownFields: unknownFields, event: event)
        case .unknown(let event, let type):
            return DecodedRecord(outcome: .unknown(type: type), unknownFields: 0, event: event)
        case .failed(let failure):
            return DecodedRecord(outcome: .failed(failure), unknownFields: 0, event: nil)
        }
    }
}
