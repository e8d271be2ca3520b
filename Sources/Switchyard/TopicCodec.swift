import SwitchyardCatalog
@_exported import SwitchyardJSON

/// Decodes and re-encodes records of one topic. Holds reusable buffers: one per thread.
public struct TopicCodec {
    /// The catalog.
    public let catalog: Catalog
    /// The policy.
    public let policy: TopicPolicy
    /// Whether `decode` keeps the event; false: outcomes only (``DecodedRecord/event`` nil), for a
    /// worker topic with no handler and no republish, which only counts and routes records.
    public let keepsEvents: Bool
    private let decoder: RecordDecoder

    public init(
        catalog: Catalog, policy: TopicPolicy, readerOptions: JSONReader.Options = .init(rejectDuplicateKeys: true), keepsEvents: Bool = true
    ) {
        self.catalog = catalog
        self.policy = policy
        self.keepsEvents = keepsEvents
        decoder = catalog.makeRecordDecoder(readerOptions: readerOptions)
    }

    /// Decodes a record value; nil is a tombstone.
    public mutating func decode(_ value: UnsafeRawBufferPointer?) -> DecodedRecord {
        guard let value else { return DecodedRecord(outcome: .tombstone, unknownFields: 0, event: nil) }
        var record = decoder.decode(value, keepingEvent: keepsEvents)
        if case .unknown(let type) = record.outcome, policy == .strict {
            record = DecodedRecord(outcome: .failed(.unknownType(type, catalog: catalog.name)), unknownFields: 0, event: nil)
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
        let again = first.withUnsafeBytes { decoder.decode($0, keepingEvent: true) }
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
