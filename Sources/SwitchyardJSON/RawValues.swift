/// The exact JSON text of one value, kept byte for byte.
///
/// Decoded by ``SwitchyardJSONDecoder`` from the input's bytes (for the root value: the whole input, byte
/// for byte; for a member: its value without insignificant whitespace), and written back unchanged by
/// ``CanonicalJSONEncoder``. A free-form member (`{}`, `true`, an object without `properties`) is one.
public struct RawJSON: Codable, Sendable, Hashable {
    /// The bytes.
    public var bytes: [UInt8]

    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    public init(from decoder: any Decoder) throws {
        guard let decoder = _JSONDecoder.unwrap(decoder) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "RawJSON can only be decoded by SwitchyardJSONDecoder."))
        }
        let state = decoder.state
        if decoder.node == 0 {
            // A whole record (an unknown event): byte for byte.
            bytes = Array(UnsafeBufferPointer(start: state.base, count: state.byteCount))
        } else {
            // A member's value: compact, as the fast path keeps it.
            var compact: [UInt8] = []
            JSONString.appendCompact(state.text(at: decoder.node), to: &compact)
            bytes = compact
        }
    }

    public func encode(to encoder: any Encoder) throws {
        guard let writer = _JSONWriter.unwrap(encoder) else {
            throw EncodingError.invalidValue(
                self, .init(codingPath: encoder.codingPath, debugDescription: "RawJSON can only be encoded by CanonicalJSONEncoder."))
        }
        try bytes.withUnsafeBytes { try writer.appendRawValue($0) }
    }
}

/// The members of a JSON object that its model does not know, kept verbatim and in order.
///
/// A model reads its bag last in `init(from:)` with ``init(from:excluding:)`` and writes it last in
/// `encode(to:)` with ``encode(to:)``: unknown members then follow the known ones, exactly as the
/// producer wrote them (digits, escapes).
public struct UnknownFields: Sendable, Hashable {
    /// The members, nil when there are none: most records have none, and an empty bag then costs
    /// nothing to copy (no reference counting).
    @usableFromInline var members: Members?

    @usableFromInline struct Members: Sendable, Hashable {
        @usableFromInline var text: [UInt8] = []
        @usableFromInline var keys: [String] = []
    }

    /// The members as compact JSON text without braces: `"k":v,"k2":v2`.
    public var text: [UInt8] { members?.text ?? [] }
    /// The keys, unescaped, in original order.
    public var keys: [String] { members?.keys ?? [] }

    public init() {}

    /// Whether there are no unknown members.
    @inlinable public var isEmpty: Bool { members == nil }
    /// The number of unknown members.
    public var count: Int { members?.keys.count ?? 0 }

    /// Collects the members of the decoder's object that were not looked up and are not keys of `Key`.
    ///
    /// With a decoder other than ``SwitchyardJSONDecoder`` the bag is empty: only Switchyard's decoder
    /// has the bytes.
    public init<Key: CodingKey>(from decoder: any Decoder, excluding: Key.Type) throws {
        guard let decoder = _JSONDecoder.unwrap(decoder) else { return }
        let state = decoder.state
        let object = decoder.node
        guard state.nodes[object].kind == .object else { return }
        var k = object + 1
        for _ in 0..<state.nodes[object].count {
            let value = k + 1
            defer { k = Int(state.nodes[value].next) }
            if state.scratch[k] != 0 { continue }  // looked up by the model
            let name = state.string(at: k)
            if Key(stringValue: name) != nil { continue }
            // Verbatim digits and escapes; only insignificant whitespace inside containers goes.
            append(rawKey: state.text(at: k), name: name, rawValue: state.text(at: value))
        }
        state.unknownFieldCount += count
    }

    /// Appends one member read by ``JSONCursor``: its key as written (with quotes), its unescaped name,
    /// and its validated value (compacted here).
    @usableFromInline mutating func append(rawKey: UnsafeBufferPointer<UInt8>, name: String, rawValue: UnsafeBufferPointer<UInt8>) {
        var members = self.members.take() ?? Members()
        if !members.text.isEmpty { members.text.append(UInt8(ascii: ",")) }
        members.text.append(contentsOf: rawKey)
        members.text.append(UInt8(ascii: ":"))
        JSONString.appendCompact(rawValue, to: &members.text)
        members.keys.append(name)
        self.members = members
    }

    /// Whether a member named `name` is in the bag.
    @usableFromInline func contains(_ name: String) -> Bool {
        members?.keys.contains(name) ?? false
    }

    /// Appends the members after the ones already written to the encoder's current object.
    public func encode(to encoder: any Encoder) throws {
        guard let members else { return }
        guard let writer = _JSONWriter.unwrap(encoder) else {
            throw EncodingError.invalidValue(
                keys, .init(codingPath: encoder.codingPath, debugDescription: "Unknown fields can only be encoded by CanonicalJSONEncoder."))
        }
        try members.text.withUnsafeBytes { try writer.appendRawMembers($0, count: members.keys.count) }
    }
}
