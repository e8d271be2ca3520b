/// The kind of a decode failure: the Swift `DecodingError` case, plus `unknownType`.
public enum FailureKind: String, Sendable, Codable, CaseIterable, Comparable {
    case keyNotFound
    case valueNotFound
    case typeMismatch
    case dataCorrupted
    /// An unrecognised tag on a strict topic.
    case unknownType

    public static func < (a: FailureKind, b: FailureKind) -> Bool { a.rawValue < b.rawValue }
}

/// Why a record could not be decoded: kind, path, tag, and a message without record values.
public struct DecodeFailure: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The kind.
    public var kind: FailureKind
    /// Where in the record: `amount.value`, `tags[2]`; the root is "".
    public var path: String
    /// The record's tag, if it could be read.
    public var type: String?
    /// What went wrong, without values from the record.
    public var message: String

    public init(kind: FailureKind, path: String, type: String?, message: String) {
        self.kind = kind
        self.path = path
        self.type = type
        self.message = message
    }

    /// Classifies a `DecodingError` (from Switchyard's decoder or Foundation's).
    public init(_ error: DecodingError, type: String?) {
        switch error {
        case .keyNotFound(let key, let context):
            self.init(kind: .keyNotFound, path: CodingPathRenderer.render(context.codingPath + [key]), type: type,
                      message: "Missing required key '\(key.stringValue)'.")
        case .valueNotFound(let valueType, let context):
            self.init(kind: .valueNotFound, path: CodingPathRenderer.render(context.codingPath), type: type,
                      message: "Expected \(valueType) but found null.")
        case .typeMismatch(_, let context):
            self.init(kind: .typeMismatch, path: CodingPathRenderer.render(context.codingPath), type: type,
                      message: context.debugDescription)
        case .dataCorrupted(let context):
            self.init(kind: .dataCorrupted, path: CodingPathRenderer.render(context.codingPath), type: type,
                      message: context.debugDescription)
        @unknown default:
            self.init(kind: .dataCorrupted, path: "", type: type, message: "Unclassified decoding error.")
        }
    }

    /// The failure for an unrecognised tag on a strict topic.
    public static func unknownType(_ tag: String, catalog: String) -> DecodeFailure {
        DecodeFailure(kind: .unknownType, path: "", type: tag, message: "Event type is not in the \(catalog) catalog.")
    }

    public var description: String {
        "\(kind.rawValue) at '\(path)'\(type.map { " (type \($0))" } ?? ""): \(message)"
    }
}

/// The outcome of decoding one record.
public enum DecodeOutcome<Catalog: EventCatalog>: Sendable {
    /// A known event.
    case decoded(Catalog)
    /// An unrecognised tag (the catalog's `.unknown` value).
    case unknown(Catalog, type: String)
    /// A failure, classified.
    case failed(DecodeFailure)
}

/// Decodes records of one catalog, reusing its buffers between records. Not thread-safe: one per thread.
///
/// A record goes to the fast path first (``EventCatalog/decodeFast(_:options:)``, or ``EventCatalog/validateFast(_:options:)`` when the event is not kept); what the fast path does
/// not decide goes to the general decoder, which gives the exact diagnosis.
public struct EventDecoder<Catalog: EventCatalog> {
    /// The decoder (duplicate keys rejected).
    public var decoder: SwitchyardJSONDecoder
    @usableFromInline let workspace = DecodingWorkspace()
    @usableFromInline var _lastKnownType: String?
    /// The tag of the last record when it was a known type (saves asking the event, which boxes it).
    public var lastKnownType: String? { _lastKnownType }

    /// Whether records go to the fast path first. Default: true; the tests turn it off to compare the paths.
    public var usesFastPath: Bool

    public init(readerOptions: JSONReader.Options = JSONReader.Options(rejectDuplicateKeys: true), usesFastPath: Bool = true) {
        decoder = SwitchyardJSONDecoder(readerOptions: readerOptions)
        self.usesFastPath = usesFastPath
    }

    /// Decodes one record value.
    ///
    /// - Returns: the outcome and the number of unknown fields kept.
    @inlinable public mutating func decode(_ bytes: UnsafeRawBufferPointer) -> (outcome: DecodeOutcome<Catalog>, unknownFields: Int) {
        _lastKnownType = nil
        if usesFastPath, let fast = Catalog.decodeFast(bytes, options: decoder.readerOptions) {
            guard let knownType = fast.knownType else {
                return (.unknown(fast.value, type: fast.value.type), 0)
            }
            _lastKnownType = knownType
            return (.decoded(fast.value), fast.unknownFieldCount)
        }
        return decodeGeneral(bytes)
    }

    /// Decodes one record value into a ``DecodedRecord`` (what ``RecordDecoder`` runs): the fast path's
    /// value moves straight into the record, with no ``DecodeOutcome`` in between.
    ///
    /// `keepingEvent: false` leaves ``DecodedRecord/event`` nil (see ``RecordDecoder/decode(_:keepingEvent:)``).
    @inlinable public mutating func decodeRecord(_ bytes: UnsafeRawBufferPointer, keepingEvent: Bool = true) -> DecodedRecord {
        _lastKnownType = nil
        if usesFastPath, !keepingEvent {
            // Without the event, the fast path makes the same checks and makes no value.
            if let verdict = Catalog.validateFast(bytes, options: decoder.readerOptions) {
                guard verdict.isKnown else { return DecodedRecord(outcome: .unknown(type: verdict.type), unknownFields: 0, event: nil) }
                _lastKnownType = verdict.type
                return DecodedRecord(outcome: .decoded(type: verdict.type), unknownFields: verdict.unknownFieldCount, event: nil)
            }
        } else if usesFastPath, let fast = Catalog.decodeFast(bytes, options: decoder.readerOptions) {
            guard let knownType = fast.knownType else {
                return DecodedRecord(outcome: .unknown(type: fast.value.type), unknownFields: 0, event: fast.value)
            }
            _lastKnownType = knownType
            return DecodedRecord(outcome: .decoded(type: knownType), unknownFields: fast.unknownFieldCount, event: fast.value)
        }
        let (outcome, unknownFields) = decodeGeneral(bytes)
        return Self.record(outcome, unknownFields, knownType: _lastKnownType, keepingEvent: keepingEvent)
    }

    /// The outcome as a record; consumed, so that the event moves into the record without a copy.
    @inlinable @inline(__always) static func record<C>(
        _ outcome: consuming DecodeOutcome<C>, _ unknownFields: Int, knownType: String?, keepingEvent: Bool = true
    ) -> DecodedRecord {
        switch consume outcome {
        case .decoded(let event):
            return DecodedRecord(outcome: .decoded(type: knownType ?? event.type), unknownFields: unknownFields, event: keepingEvent ? event : nil)
        case .unknown(let event, let type):
            return DecodedRecord(outcome: .unknown(type: type), unknownFields: 0, event: keepingEvent ? event : nil)
        case .failed(let failure):
            return DecodedRecord(outcome: .failed(failure), unknownFields: 0, event: nil)
        }
    }

    /// The general path: every record the fast path leaves, and every failure's diagnosis.
    @usableFromInline mutating func decodeGeneral(_ bytes: UnsafeRawBufferPointer) -> (outcome: DecodeOutcome<Catalog>, unknownFields: Int) {
        do {
            let (value, report) = try decoder.decode(Catalog.self, from: bytes, workspace: workspace)
            if let knownType = report.knownType {
                _lastKnownType = knownType
                return (.decoded(value), report.unknownFieldCount)
            }
            if case .unknown(let type, _) = value.content { return (.unknown(value, type: type), 0) }
            return (.decoded(value), report.unknownFieldCount)
        } catch let error as DecodingError {
            return (.failed(DecodeFailure(error, type: readableTag(bytes))), 0)
        } catch {
            return (.failed(DecodeFailure(kind: .dataCorrupted, path: "", type: readableTag(bytes),
                                          message: "Unexpected error while decoding: \(Swift.type(of: error))")), 0)
        }
    }

    /// Decodes one record value.
    public mutating func decode(_ bytes: [UInt8]) -> (outcome: DecodeOutcome<Catalog>, unknownFields: Int) {
        bytes.withUnsafeBytes { decode($0) }
    }

    /// The tag of a record whose decode failed, if the JSON is valid and the tag is a string. Read with the
    /// workspace that failed (the decode is over), not a new one: a dead-letter storm runs this per record.
    private func readableTag(_ bytes: UnsafeRawBufferPointer) -> String? {
        // A partial tape (the reader stopped) has an unclosed root. Duplicate keys stop the reader
        // while the tag may still be readable: read again without that rule.
        if workspace.tape.count == 0 || workspace.tape[0].next != UInt32(workspace.tape.count) {
            var lenient = decoder.readerOptions
            lenient.rejectDuplicateKeys = false
            do { try JSONReader(options: lenient).parse(bytes, into: &workspace.tape) } catch { return nil }
        }
        guard workspace.tape[0].kind == .object else { return nil }
        return workspace.withState(bytes: bytes) { state in
            guard let v = state.find(Catalog.tagKey, in: 0), state.nodes[v].kind == .string else { return nil }
            return state.string(at: v)
        }
    }
}
