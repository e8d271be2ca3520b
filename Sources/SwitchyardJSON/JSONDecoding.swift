#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Decodes `Decodable` types from JSON bytes on a ``JSONTape``, with Foundation-compatible errors.
///
/// Differences from Foundation's `JSONDecoder`, on purpose (PRODUCT.md, decoding rule 5):
/// duplicate keys are `dataCorrupted` (with ``JSONReader/Options/rejectDuplicateKeys``), and a number
/// that does not fit its field is `dataCorrupted` at that field's path rather than at the root.
///
/// It also gives ``UnknownFields`` and ``RawJSON`` their raw bytes, which no other decoder can.
public struct SwitchyardJSONDecoder: Sendable {
    /// Reader rules for the input.
    public var readerOptions: JSONReader.Options

    public init(readerOptions: JSONReader.Options = JSONReader.Options(rejectDuplicateKeys: true)) {
        self.readerOptions = readerOptions
    }

    /// What a decode produced besides the value.
    public struct Report: Sendable {
        /// Members kept in ``UnknownFields`` bags anywhere in the value.
        public var unknownFieldCount: Int
        /// The tag of the known event type that a catalog dispatched to (nil: not a catalog, or an
        /// unknown tag).
        public var knownType: String?
    }

    /// Decodes `type` from `bytes`, reusing `workspace`'s buffers (the tape and the lookup scratch).
    ///
    /// - Throws: `DecodingError`; invalid JSON is `dataCorrupted` at the root with the byte offset in
    ///   the message and the ``JSONSyntaxError`` as underlying error.
    public func decode<T: Decodable>(
        _ type: T.Type, from bytes: UnsafeRawBufferPointer, workspace: DecodingWorkspace
    ) throws -> (value: T, report: Report) {
        do {
            try JSONReader(options: readerOptions).parse(bytes, into: &workspace.tape)
        } catch {
            throw Self.decodingError(for: error, tape: workspace.tape, bytes: bytes)
        }
        return try workspace.withDecoder(bytes: bytes) { decoder in
            let value = try T(from: decoder)
            return (value, Report(unknownFieldCount: decoder.state.unknownFieldCount, knownType: decoder.state.knownType))
        }
    }

    /// Decodes `type` from `bytes`.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try bytes.withUnsafeBytes { try decode(type, from: $0, workspace: DecodingWorkspace()).value }
    }

    /// Turns a reader error into the `DecodingError` that the decoding rules ask for.
    static func decodingError(for error: JSONSyntaxError, tape: JSONTape, bytes: UnsafeRawBufferPointer) -> DecodingError {
        if case .duplicateKey(let object, let key) = error.reason {
            // The path of the duplicated member: the object's path plus the key.
            let path = DecodingWorkspace.withState(bytes: bytes, tape: tape) { state in
                state.codingPath(to: object) + [JSONKey(stringValue: state.string(at: key))]
            }
            return .dataCorrupted(.init(codingPath: path, debugDescription: "Duplicate key in object.", underlyingError: error))
        }
        return .dataCorrupted(.init(codingPath: [], debugDescription: error.description, underlyingError: error))
    }
}

// MARK: - Shared state of one decode

/// Reusable buffers for decoding: the tape, the per-node lookup scratch, the decoder and its
/// keyed containers. One per thread.
public final class DecodingWorkspace {
    /// The parsed structure of the last input.
    public internal(set) var tape = JSONTape()
    var scratch: [UInt32] = []
    /// The decoder and its state, re-pointed at each input (saves two objects per record).
    let state = DecoderState()
    let decoder: _JSONDecoder
    /// Whether `decoder` is in use (a nested decode on the same workspace gets fresh objects).
    var busy = false

    public init() {
        decoder = _JSONDecoder(state: state, node: 0)
    }

    deinit {
        // Cached containers hold the decoder, which holds the state, which holds the cache: break
        // the cycle, or every workspace (and its decoder) would outlive its last use.
        state.containerCache.removeAll()
    }

    /// Runs `body` with this workspace's decoder over `bytes` and the tape; the scratch is cleared first.
    func withDecoder<R>(bytes: UnsafeRawBufferPointer, _ body: (_JSONDecoder) throws -> R) rethrows -> R {
        let count = tape.count
        if scratch.count < count { scratch = [UInt32](repeating: 0, count: max(count, scratch.count * 2)) }
        return try tape.withNodes { nodes in
            try scratch.withUnsafeMutableBufferPointer { scratch in
                let view = UnsafeMutableBufferPointer(rebasing: scratch[0..<count])
                view.update(repeating: 0)
                if busy {
                    let state = DecoderState()
                    defer { state.containerCache.removeAll() }  // the same cycle as in deinit
                    state.reset(bytes: bytes, nodes: nodes, scratch: view)
                    return try body(_JSONDecoder(state: state, node: 0))
                }
                busy = true
                defer {
                    busy = false
                    state.reset(bytes: UnsafeRawBufferPointer(start: nil, count: 0), nodes: UnsafeBufferPointer(start: nil, count: 0),
                                scratch: UnsafeMutableBufferPointer(start: nil, count: 0))
                }
                state.reset(bytes: bytes, nodes: nodes, scratch: view)
                decoder.node = 0
                return try body(decoder)
            }
        }
    }

    /// Runs `body` with a state over `bytes` and this workspace's tape.
    func withState<R>(bytes: UnsafeRawBufferPointer, _ body: (DecoderState) throws -> R) rethrows -> R {
        try withDecoder(bytes: bytes) { try body($0.state) }
    }

    /// Runs `body` with a state over `bytes` and `tape`, with scratch of its own (off the hot path).
    static func withState<R>(bytes: UnsafeRawBufferPointer, tape: JSONTape, _ body: (DecoderState) throws -> R) rethrows -> R {
        let workspace = DecodingWorkspace()
        workspace.tape = tape
        return try workspace.withState(bytes: bytes, body)
    }
}

/// A view of the bytes, the tape and the scratch of one decode. Valid only inside `withDecoder`.
///
/// The fields are re-pointed for each input and otherwise only read by that decode's own call chain,
/// so the dynamic exclusivity checks are off.
final class DecoderState {
    @exclusivity(unchecked) private(set) var base: UnsafePointer<UInt8> = UnsafePointer(bitPattern: 1)!
    @exclusivity(unchecked) private(set) var byteCount = 0
    @exclusivity(unchecked) private(set) var nodes = UnsafeBufferPointer<JSONNode>(start: nil, count: 0)
    /// Per node: for objects, the next key to try (a lookup hint); for keys, 1 once looked up.
    @exclusivity(unchecked) private(set) var scratch = UnsafeMutableBufferPointer<UInt32>(start: nil, count: 0)
    @exclusivity(unchecked) var unknownFieldCount = 0
    /// Set by ``EventCatalog/decodeTagged(from:)`` when it dispatched to a known type.
    @exclusivity(unchecked) var knownType: String?
    /// Keyed containers whose boxes can be handed out again (see ``_JSONDecoder/container(keyedBy:)``).
    @exclusivity(unchecked) var containerCache: [CachedContainer] = []

    init() {}

    func reset(bytes: UnsafeRawBufferPointer, nodes: UnsafeBufferPointer<JSONNode>, scratch: UnsafeMutableBufferPointer<UInt32>) {
        base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(bitPattern: 1)!
        byteCount = bytes.count
        self.nodes = nodes
        self.scratch = scratch
        unknownFieldCount = 0
        knownType = nil
    }

    // MARK: Values

    /// The raw bytes of the node (strings without quotes).
    @inline(__always) func raw(_ node: JSONNode) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base + Int(node.start), count: Int(node.end &- node.start))
    }

    /// The full JSON text of the node at `index` (strings with quotes).
    func text(at index: Int) -> UnsafeBufferPointer<UInt8> {
        let node = nodes[index]
        if node.kind == .string {
            return UnsafeBufferPointer(start: base + Int(node.start) - 1, count: Int(node.end - node.start) + 2)
        }
        return raw(node)
    }

    /// The unescaped string value at `index` (which must be a string node).
    func string(at index: Int) -> String {
        let node = nodes[index]
        if node.isEscaped {
            return String(decoding: JSONString.unescape(raw(node)), as: UTF8.self)
        }
        return String(decoding: raw(node), as: UTF8.self)
    }

    /// Whether the string node at `index` equals `utf8`.
    @inline(__always) func stringEquals(_ index: Int, _ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        let node = nodes[index]
        if !node.isEscaped {
            let length = Int(node.end &- node.start)
            return length == utf8.count && (length == 0 || memcmp(base + Int(node.start), utf8.baseAddress!, length) == 0)
        }
        return JSONString.unescape(raw(node)).elementsEqual(utf8)
    }

    /// Finds the value of `key` in the object at `object`, marking the key as looked up.
    @inline(__always) func find(_ key: String, in object: Int) -> Int? {
        var key = key
        return key.withUTF8 { find(utf8: $0, in: object) }
    }

    func find(utf8 key: UnsafeBufferPointer<UInt8>, in object: Int) -> Int? {
        let memberCount = Int(nodes[object].count)
        guard memberCount > 0 else { return nil }
        let first = object + 1
        let end = Int(nodes[object].next)
        // Members are usually read in the order they were written: start after the last hit.
        let hint = Int(scratch[object])
        var k = hint > first && hint < end ? hint : first
        for _ in 0..<memberCount {
            let value = k + 1
            if stringEquals(k, key) {
                scratch[k] = 1
                let after = Int(nodes[value].next)
                scratch[object] = UInt32(after < end ? after : first)
                return value
            }
            k = Int(nodes[value].next)
            if k >= end { k = first }
        }
        return nil
    }

    // MARK: Paths

    /// The coding path from the root to the node at `index`.
    func codingPath(to index: Int) -> [any CodingKey] {
        JSONTape.path(nodes: nodes, to: index).map { step -> any CodingKey in
            switch step {
            case .key(let k): JSONKey(stringValue: string(at: k))
            case .index(let i): JSONKey.index(i)
            }
        }
    }

    // MARK: Numbers

    /// Reads an integer of type `T`; a number that does not fit is `nil`.
    func integer<T: FixedWidthInteger>(_ node: JSONNode, as: T.Type) -> T? {
        let bytes = raw(node)
        if node.isInteger {
            var i = 0
            let negative = bytes[0] == UInt8(ascii: "-")
            if negative {
                guard T.isSigned else { return bytes.count == 2 && bytes[1] == UInt8(ascii: "0") ? 0 : nil }
                i = 1
            }
            var value: T = 0
            while i < bytes.count {
                let digit = T(bytes[i] &- UInt8(ascii: "0"))
                let (m, o1) = value.multipliedReportingOverflow(by: 10)
                let (s, o2) = negative ? m.subtractingReportingOverflow(digit) : m.addingReportingOverflow(digit)
                if o1 || o2 { return nil }
                value = s
                i += 1
            }
            return value
        }
        // Fraction or exponent: accept it when it is exactly an integer (as Foundation does for 1e2, 1.0).
        // Decided on the decimal text, not a Double: 1.0000000000000000001 and 1e-400 round to
        // integral Doubles but are not integers (fuzzing found 0.000…01 decoding as 0).
        guard let exact = Self.exactInteger(bytes) else { return nil }
        // Doubles above 2^53 are not exact; refuse rather than guess (unchanged rule).
        guard exact.magnitude <= 9_007_199_254_740_992 else { return nil }
        return T(exactly: exact)
    }

    /// The value of a validated JSON number with a fraction or exponent, if it is an integer that
    /// fits in an Int64.
    static func exactInteger(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = 0
        let negative = bytes[0] == UInt8(ascii: "-")
        if negative { i = 1 }
        var digits: [UInt8] = []  // significant digits of integer and fraction parts
        var fractionDigits = 0
        var inFraction = false
        while i < bytes.count, bytes[i] != UInt8(ascii: "e"), bytes[i] != UInt8(ascii: "E") {
            if bytes[i] == UInt8(ascii: ".") {
                inFraction = true
            } else {
                if !(digits.isEmpty && bytes[i] == UInt8(ascii: "0")) { digits.append(bytes[i] &- UInt8(ascii: "0")) }
                if inFraction { fractionDigits += 1 }
            }
            i += 1
        }
        var exponent = 0
        if i < bytes.count {
            i += 1
            var exponentNegative = false
            if bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
                exponentNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            while i < bytes.count {
                // Saturate: anything past a million digits of scale is out of range or not an integer.
                exponent = min(exponent * 10 + Int(bytes[i] &- UInt8(ascii: "0")), 1_000_000)
                i += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        // Leading zeros were dropped; drop trailing zeros into the exponent.
        while let last = digits.last, last == 0 {
            digits.removeLast()
            exponent += 1
        }
        if digits.isEmpty { return 0 }
        let scale = exponent - fractionDigits
        guard scale >= 0, digits.count + scale <= 19 else { return nil }
        var value: Int64 = 0
        for d in digits + Array(repeating: 0, count: scale) {
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = negative ? m.subtractingReportingOverflow(Int64(d)) : m.addingReportingOverflow(Int64(d))
            if o1 || o2 { return nil }
            value = s
        }
        return value
    }

    /// Reads a number as a Double (nil if it is not finite).
    func double(_ node: JSONNode) -> Double? {
        let bytes = raw(node)
        let value: Double = withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { buffer in
            for (i, b) in bytes.enumerated() { buffer[i] = CChar(bitPattern: b) }
            buffer[bytes.count] = 0
            return strtod(buffer.baseAddress!, nil)
        }
        return value.isFinite ? value : nil
    }
}

// MARK: - The Decoder

/// The `Decoder`. One instance serves a whole decode: a nested value moves ``node`` and puts it
/// back; containers remember their own node.
final class _JSONDecoder: Decoder {
    let state: DecoderState
    // Only this decode's own call chain touches it (a decoder is never shared between threads).
    @exclusivity(unchecked) var node: Int
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(state: DecoderState, node: Int) {
        self.state = state
        self.node = node
    }

    var codingPath: [any CodingKey] { state.codingPath(to: node) }

    /// This decoder, if `decoder` is one: a comparison of type metadata, not a dynamic cast.
    @inline(__always) static func unwrap(_ decoder: any Decoder) -> _JSONDecoder? {
        func open<D: Decoder>(_ d: D) -> _JSONDecoder? {
            guard D.self == _JSONDecoder.self else { return nil }
            return withUnsafePointer(to: d) { UnsafeRawPointer($0).load(as: _JSONDecoder.self) }
        }
        return open(decoder)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try keyedContainer(at: node, keyedBy: type)
    }

    func keyedContainer<Key: CodingKey>(at node: Int, keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let n = state.nodes[node]
        guard n.kind == .object else {
            let codingPath = state.codingPath(to: node)
            if n.kind == .null {
                throw DecodingError.valueNotFound(
                    [String: Any].self,
                    .init(codingPath: codingPath, debugDescription: "Cannot get keyed decoding container -- found null value instead"))
            }
            throw DecodingError.typeMismatch(
                [String: Any].self,
                .init(codingPath: codingPath, debugDescription: "Expected to decode Dictionary<String, Any> but found \(n.kind.article) instead."))
        }
        // Hand out a container made earlier for the same key type when no one holds it any more:
        // building one costs two generic metadata lookups and an allocation. Uniqueness of the box
        // proves it is unused, so containers that are kept (or nested ones of the same type) are safe.
        let keyType = ObjectIdentifier(type)
        let cache = state.containerCache
        for i in cache.indices where cache[i].keyType == keyType && isKnownUniquelyReferenced(&cache[i].box) {
            cache[i].cursor.object = node
            return unsafeBitCast(cache[i].box, to: KeyedDecodingContainer<Key>.self)
        }
        let cursor = ContainerCursor(object: node)
        let container = KeyedDecodingContainer(_KeyedContainer<Key>(decoder: self, cursor: cursor))
        // KeyedDecodingContainer is a struct around one class reference (its box).
        if cache.count < 64 && MemoryLayout<KeyedDecodingContainer<Key>>.size == MemoryLayout<AnyObject>.size {
            state.containerCache.append(CachedContainer(keyType: keyType, box: unsafeBitCast(container, to: AnyObject.self), cursor: cursor))
        }
        return container
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try unkeyedContainer(at: node)
    }

    func unkeyedContainer(at node: Int) throws -> any UnkeyedDecodingContainer {
        let n = state.nodes[node]
        guard n.kind == .array else {
            let codingPath = state.codingPath(to: node)
            if n.kind == .null {
                throw DecodingError.valueNotFound(
                    [Any].self,
                    .init(codingPath: codingPath, debugDescription: "Cannot get unkeyed decoding container -- found null value instead"))
            }
            throw DecodingError.typeMismatch(
                [Any].self,
                .init(codingPath: codingPath, debugDescription: "Expected to decode Array<Any> but found \(n.kind.article) instead."))
        }
        return _UnkeyedContainer(decoder: self, array: node)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        _SingleValueContainer(decoder: self, node: node)
    }

    // MARK: Reading one node, shared by the three containers

    /// The error for a node of the wrong kind (`typeMismatch`, or `valueNotFound` for null).
    func mismatch(_ type: Any.Type, at index: Int, path: @autoclosure () -> [any CodingKey]) -> DecodingError {
        let n = state.nodes[index]
        if n.kind == .null {
            return .valueNotFound(type, .init(codingPath: path(), debugDescription: "Cannot get value of type \(type) -- found null value instead"))
        }
        return .typeMismatch(type, .init(codingPath: path(), debugDescription: "Expected to decode \(type) but found \(n.kind.article) instead."))
    }

    @inline(__always) func decodeString(at index: Int, path: @autoclosure () -> [any CodingKey]) throws -> String {
        let n = state.nodes[index]
        guard n.kind == .string else { throw mismatch(String.self, at: index, path: path()) }
        if n.isEscaped { return String(decoding: JSONString.unescape(state.raw(n)), as: UTF8.self) }
        return String(decoding: state.raw(n), as: UTF8.self)
    }

    @inline(__always) func decodeBool(at index: Int, path: @autoclosure () -> [any CodingKey]) throws -> Bool {
        switch state.nodes[index].kind {
        case .true: return true
        case .false: return false
        default: throw mismatch(Bool.self, at: index, path: path())
        }
    }

    @inline(__always) func decodeInteger<T: FixedWidthInteger>(
        _ type: T.Type, at index: Int, path: @autoclosure () -> [any CodingKey]
    ) throws -> T {
        let n = state.nodes[index]
        guard n.kind == .number else { throw mismatch(T.self, at: index, path: path()) }
        guard let value = state.integer(n, as: T.self) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: path(), debugDescription: "Number does not fit in \(T.self) (out of range or not an integer)."))
        }
        return value
    }

    @inline(__always) func decodeFloatingPoint<T: BinaryFloatingPoint>(
        _ type: T.Type, at index: Int, path: @autoclosure () -> [any CodingKey]
    ) throws -> T {
        let n = state.nodes[index]
        guard n.kind == .number else { throw mismatch(T.self, at: index, path: path()) }
        guard let value = state.double(n), T(value).isFinite else {
            throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "Number is not representable as \(T.self)."))
        }
        return T(value)
    }

    @inline(__always) func decodeValue<T: Decodable>(_ type: T.Type, at index: Int) throws -> T {
        let saved = node
        node = index
        defer { node = saved }
        return try T(from: self)
    }
}

// MARK: - Keyed

/// The object a keyed container reads; a cached container is pointed at its next object.
final class ContainerCursor {
    @exclusivity(unchecked) var object: Int
    init(object: Int) { self.object = object }
}

/// A keyed container's box (type-erased) and its cursor, kept for reuse.
final class CachedContainer {
    let keyType: ObjectIdentifier
    @exclusivity(unchecked) var box: AnyObject
    let cursor: ContainerCursor

    init(keyType: ObjectIdentifier, box: AnyObject, cursor: ContainerCursor) {
        self.keyType = keyType
        self.box = box
        self.cursor = cursor
    }
}

struct _KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: _JSONDecoder
    let cursor: ContainerCursor
    @inline(__always) var object: Int { cursor.object }
    var state: DecoderState { decoder.state }

    var codingPath: [any CodingKey] { state.codingPath(to: object) }

    var allKeys: [Key] {
        state.nodes.isEmpty ? [] : JSONTape.memberKeys(nodes: state.nodes, object: object).compactMap { Key(stringValue: state.string(at: $0)) }
    }

    func contains(_ key: Key) -> Bool { state.find(key.stringValue, in: object) != nil }

    func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

    @inline(__always) func value(_ key: Key) throws -> Int {
        guard let v = state.find(key.stringValue, in: object) else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "No value associated with key \(key.stringValue)."))
        }
        return v
    }

    func decodeNil(forKey key: Key) throws -> Bool { state.nodes[try value(key)].kind == .null }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try decoder.decodeBool(at: try value(key), path: path(key))
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try decoder.decodeString(at: try value(key), path: path(key))
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try decoder.decodeFloatingPoint(type, at: try value(key), path: path(key))
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try decoder.decodeFloatingPoint(type, at: try value(key), path: path(key))
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }

    @inline(__always) func integer<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T {
        try decoder.decodeInteger(type, at: try value(key), path: path(key))
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.decodeValue(type, at: try value(key))
    }

    // decodeIfPresent: one lookup instead of the default's three. Absent or null → nil.
    @inline(__always) func present(_ key: Key) -> Int? {
        guard let v = state.find(key.stringValue, in: object), state.nodes[v].kind != .null else { return nil }
        return v
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let v = present(key) else { return nil }
        return try decoder.decodeString(at: v, path: path(key))
    }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let v = present(key) else { return nil }
        return try decoder.decodeBool(at: v, path: path(key))
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        guard let v = present(key) else { return nil }
        return try decoder.decodeInteger(type, at: v, path: path(key))
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        guard let v = present(key) else { return nil }
        return try decoder.decodeInteger(type, at: v, path: path(key))
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let v = present(key) else { return nil }
        return try decoder.decodeValue(type, at: v)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.keyedContainer(at: try value(key), keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.unkeyedContainer(at: try value(key))
    }

    func superDecoder() throws -> any Decoder {
        try superDecoder(forKey: Key(stringValue: "super")!)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        _JSONDecoder(state: state, node: try value(key))
    }
}

extension JSONTape {
    /// The key node indices of an object's members.
    static func memberKeys(nodes: UnsafeBufferPointer<JSONNode>, object: Int) -> [Int] {
        var keys: [Int] = []
        var k = object + 1
        for _ in 0..<nodes[object].count {
            keys.append(k)
            k = Int(nodes[k + 1].next)
        }
        return keys
    }
}

// MARK: - Unkeyed

struct _UnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: _JSONDecoder
    let array: Int
    private(set) var currentIndex = 0
    private var nextNode: Int
    var state: DecoderState { decoder.state }

    init(decoder: _JSONDecoder, array: Int) {
        self.decoder = decoder
        self.array = array
        self.nextNode = array + 1
    }

    var codingPath: [any CodingKey] { state.codingPath(to: array) }
    var count: Int? { Int(state.nodes[array].count) }
    var isAtEnd: Bool { currentIndex >= Int(state.nodes[array].count) }

    func path() -> [any CodingKey] { codingPath + [JSONKey.index(currentIndex)] }

    /// Returns the current element's node and advances.
    mutating func take(_ type: Any.Type) throws -> Int {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: path(), debugDescription: "Unkeyed container is at end."))
        }
        let node = nextNode
        nextNode = Int(state.nodes[node].next)
        currentIndex += 1
        return node
    }

    /// Reads the current element with `read`; advances only on success, as Foundation does.
    mutating func read<T>(_ type: T.Type, _ read: (_JSONDecoder, Int, [any CodingKey]) throws -> T) throws -> T {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: path(), debugDescription: "Unkeyed container is at end."))
        }
        let value = try read(decoder, nextNode, path())
        _ = try take(type)
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any?.self, .init(codingPath: path(), debugDescription: "Unkeyed container is at end."))
        }
        if state.nodes[nextNode].kind == .null {
            _ = try take(Any?.self)
            return true
        }
        return false
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try read(type) { try $0.decodeBool(at: $1, path: $2) } }
    mutating func decode(_ type: String.Type) throws -> String { try read(type) { try $0.decodeString(at: $1, path: $2) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try read(type) { try $0.decodeFloatingPoint(type, at: $1, path: $2) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try read(type) { try $0.decodeFloatingPoint(type, at: $1, path: $2) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    mutating func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        try read(type) { try $0.decodeInteger(type, at: $1, path: $2) }
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try read(type) { d, node, _ in try d.decodeValue(type, at: node) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try read(KeyedDecodingContainer<NestedKey>.self) { d, node, _ in
            try d.keyedContainer(at: node, keyedBy: type)
        }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try read((any UnkeyedDecodingContainer).self) { d, node, _ in try d.unkeyedContainer(at: node) }
    }

    mutating func superDecoder() throws -> any Decoder {
        _JSONDecoder(state: state, node: try take((any Decoder).self))
    }
}

// MARK: - Single value

struct _SingleValueContainer: SingleValueDecodingContainer {
    let decoder: _JSONDecoder
    let node: Int
    var codingPath: [any CodingKey] { decoder.state.codingPath(to: node) }

    func decodeNil() -> Bool { decoder.state.nodes[node].kind == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.decodeBool(at: node, path: codingPath) }
    func decode(_ type: String.Type) throws -> String { try decoder.decodeString(at: node, path: codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.decodeFloatingPoint(type, at: node, path: codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.decodeFloatingPoint(type, at: node, path: codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.decodeInteger(type, at: node, path: codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decodeInteger(type, at: node, path: codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decodeInteger(type, at: node, path: codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decodeInteger(type, at: node, path: codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decodeInteger(type, at: node, path: codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.decodeInteger(type, at: node, path: codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decodeInteger(type, at: node, path: codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decodeInteger(type, at: node, path: codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decodeInteger(type, at: node, path: codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decodeInteger(type, at: node, path: codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(type, at: node) }
}
