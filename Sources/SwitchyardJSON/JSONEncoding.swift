/// Encodes `Encodable` values to compact, deterministic JSON, in the order the value encodes its
/// fields; ``UnknownFields`` and ``RawJSON`` are written back byte for byte.
///
/// - Important: the encoder writes as it goes. A nested container must be finished before its
///   parent is written to again; writing to a container after a sibling was started throws
///   `EncodingError.invalidValue`. Synthesized and ordinary hand-written `encode(to:)` satisfy this.
public struct CanonicalJSONEncoder: Sendable {
    public init() {}

    /// Encodes `value` and returns the bytes.
    public func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        try encode(value, into: &out)
        return out
    }

    /// Appends the encoding of `value` to `out`.
    public func encode<T: Encodable>(_ value: T, into out: inout [UInt8]) throws {
        let writer = _JSONWriter()
        swap(&writer.out, &out)
        defer { swap(&writer.out, &out) }
        try writer.encodeValue(value, key: nil, parentDepth: 0)
        if let error = writer.deferredError { throw error }
        guard writer.out.count > 0 || !writer.pendingValue else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
        }
    }
}

/// The streaming writer behind ``CanonicalJSONEncoder``; also the `Encoder` passed to values.
///
/// Its state is touched only by the one encode running on it (a writer is never shared), so the
/// dynamic exclusivity checks are switched off for it: they cost more than the writing itself.
final class _JSONWriter: Encoder {
    @exclusivity(unchecked) var out: [UInt8] = []
    /// Open containers, innermost last.
    @exclusivity(unchecked) var frames: [Frame] = []
    /// True between writing a key (or array comma) and writing that value.
    @exclusivity(unchecked) var pendingValue = false
    /// An error raised where the `Encoder` API cannot throw; `encode` throws it at the end.
    @exclusivity(unchecked) var deferredError: (any Error)?
    /// The index in `frames` that the value being encoded owns (its object or array).
    @exclusivity(unchecked) var valueFrame = 0
    @exclusivity(unchecked) var nextFrameID = 0
    /// The keys from the root to the value being encoded: the first `pathDepth` of `pathKeys`
    /// (a stack, so that a nested value costs no path array; paths are built only when asked for).
    @exclusivity(unchecked) var pathKeys: [any CodingKey] = []
    @exclusivity(unchecked) var pathDepth = 0
    var codingPath: [any CodingKey] { path(depth: pathDepth) }

    /// The first `depth` keys of the current path.
    func path(depth: Int) -> [any CodingKey] { Array(pathKeys.prefix(depth)) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// This writer, if `encoder` is one: a comparison of type metadata, not a dynamic cast.
    @inline(__always) static func unwrap(_ encoder: any Encoder) -> _JSONWriter? {
        func open<E: Encoder>(_ e: E) -> _JSONWriter? {
            guard E.self == _JSONWriter.self else { return nil }
            return withUnsafePointer(to: e) { UnsafeRawPointer($0).load(as: _JSONWriter.self) }
        }
        return open(encoder)
    }

    struct Frame {
        var id: Int
        var isObject: Bool
        var hasElements: Bool
    }

    /// A handle on one open container: where it is on the stack and which container it is.
    struct Handle {
        var depth: Int
        var id: Int
    }

    // MARK: Values

    /// Encodes a nested value at the current position (after a key, a comma, or at the top).
    func encodeValue<T: Encodable>(_ value: T, key: (any CodingKey)?, parentDepth: Int) throws {
        let savedFrame = valueFrame
        let savedDepth = pathDepth
        let depth = frames.count
        valueFrame = depth
        if let key {
            if pathKeys.count > parentDepth { pathKeys.removeSubrange(parentDepth...) }
            pathKeys.append(key)
            pathDepth = pathKeys.count
        } else {
            pathDepth = parentDepth
        }
        pendingValue = true
        defer {
            valueFrame = savedFrame
            pathDepth = savedDepth
        }
        try value.encode(to: self)
        if pendingValue {
            // A value that encoded nothing is an empty object, as with Foundation.
            out.append(UInt8(ascii: "{"))
            out.append(UInt8(ascii: "}"))
            pendingValue = false
        }
        closeFrames(downTo: depth)
    }

    /// Closes every container deeper than `depth`.
    @inline(__always) func closeFrames(downTo depth: Int) {
        while frames.count > depth {
            let frame = frames.removeLast()
            out.append(frame.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        }
    }

    /// Opens a container for the pending value, or returns the one this value already opened.
    func openContainer(object: Bool) throws -> Handle {
        if pendingValue {
            pendingValue = false
            out.append(object ? UInt8(ascii: "{") : UInt8(ascii: "["))
            nextFrameID += 1
            frames.append(Frame(id: nextFrameID, isObject: object, hasElements: false))
            return Handle(depth: frames.count - 1, id: nextFrameID)
        }
        // A second container request for the same value (a tagged enum writing its tag, then its
        // payload) continues the container that value opened.
        guard valueFrame < frames.count, frames[valueFrame].isObject == object else {
            throw EncodingError.invalidValue(
                object, .init(codingPath: codingPath, debugDescription: "A value requested containers of different kinds."))
        }
        closeFrames(downTo: valueFrame + 1)
        return Handle(depth: valueFrame, id: frames[valueFrame].id)
    }

    /// Makes `handle` the innermost open container, before writing an element into it.
    @inline(__always) func activate(_ handle: Handle) throws {
        guard handle.depth < frames.count, frames[handle.depth].id == handle.id else {
            throw EncodingError.invalidValue(
                handle.id, .init(codingPath: codingPath, debugDescription: "Container written to after it was finished."))
        }
        closeFrames(downTo: handle.depth + 1)
    }

    /// Starts a member `"key":` in the object `handle`.
    @inline(__always) func beginMember(_ handle: Handle, key: String) throws {
        try activate(handle)
        if frames[handle.depth].hasElements { out.append(UInt8(ascii: ",")) }
        frames[handle.depth].hasElements = true
        JSONString.appendQuoted(key, to: &out)
        out.append(UInt8(ascii: ":"))
    }

    /// Starts an element in the array `handle`.
    @inline(__always) func beginElement(_ handle: Handle) throws {
        try activate(handle)
        if frames[handle.depth].hasElements { out.append(UInt8(ascii: ",")) }
        frames[handle.depth].hasElements = true
    }

    /// Takes the pending value slot for a scalar.
    @inline(__always) func beginScalar() throws {
        guard pendingValue else {
            throw EncodingError.invalidValue(
                0, .init(codingPath: codingPath, debugDescription: "A single value was encoded twice, or after a container."))
        }
        pendingValue = false
    }

    /// Appends raw JSON text as the pending value.
    func appendRawValue(_ bytes: UnsafeRawBufferPointer) throws {
        try beginScalar()
        out.append(contentsOf: bytes)
    }

    /// Appends raw `"key":value` members to the object of the value being encoded.
    func appendRawMembers(_ members: UnsafeRawBufferPointer, count: Int) throws {
        guard count > 0 else { return }
        let handle = try openContainer(object: true)
        try activate(handle)
        if frames[handle.depth].hasElements { out.append(UInt8(ascii: ",")) }
        frames[handle.depth].hasElements = true
        out.append(contentsOf: members)
    }

    // MARK: Scalars

    @inline(__always) func writeInteger<T: FixedWidthInteger>(_ value: T) {
        JSONNumber.appendInteger(value, to: &out)
    }

    func writeFloatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(_ value: T) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "Non-finite numbers cannot be encoded as JSON."))
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        out.append(contentsOf: text.utf8)
    }

    /// A keyed container for a nested value whose slot was just started (by a key or an array comma).
    func nestedKeyedContainer<NestedKey: CodingKey>(_ keyType: NestedKey.Type, begin: () throws -> Void, pathDepth: Int) -> KeyedEncodingContainer<NestedKey> {
        do {
            try begin()
            pendingValue = true
            valueFrame = frames.count
            return container(keyedBy: keyType)
        } catch {
            deferredError = error
            return KeyedEncodingContainer(_KeyedEncodingContainer<NestedKey>(writer: self, handle: .init(depth: Int.max, id: -1), pathDepth: pathDepth))
        }
    }

    /// An unkeyed container for a nested value whose slot was just started.
    func nestedUnkeyedContainer(begin: () throws -> Void, pathDepth: Int) -> any UnkeyedEncodingContainer {
        do {
            try begin()
            pendingValue = true
            valueFrame = frames.count
            return unkeyedContainer()
        } catch {
            deferredError = error
            return _UnkeyedEncodingContainer(writer: self, handle: .init(depth: Int.max, id: -1), pathDepth: pathDepth)
        }
    }

    /// This encoder, positioned at a nested value whose slot was just started.
    func nestedEncoder(begin: () throws -> Void) -> any Encoder {
        do {
            try begin()
            pendingValue = true
            valueFrame = frames.count
        } catch {
            deferredError = error
        }
        return self
    }

    // MARK: Encoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        do {
            return KeyedEncodingContainer(_KeyedEncodingContainer<Key>(writer: self, handle: try openContainer(object: true), pathDepth: pathDepth))
        } catch {
            // Encoder.container cannot throw: remember the error, and the invalid handle makes writes throw.
            deferredError = error
            return KeyedEncodingContainer(_KeyedEncodingContainer<Key>(writer: self, handle: Handle(depth: Int.max, id: -1), pathDepth: pathDepth))
        }
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        do {
            return _UnkeyedEncodingContainer(writer: self, handle: try openContainer(object: false), pathDepth: pathDepth)
        } catch {
            deferredError = error
            return _UnkeyedEncodingContainer(writer: self, handle: Handle(depth: Int.max, id: -1), pathDepth: pathDepth)
        }
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        _SingleValueEncodingContainer(writer: self, pathDepth: pathDepth)
    }
}

// MARK: - Keyed

struct _KeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: _JSONWriter
    let handle: _JSONWriter.Handle
    let pathDepth: Int
    var codingPath: [any CodingKey] { writer.path(depth: pathDepth) }

    func encodeNil(forKey key: Key) throws {
        try writer.beginMember(handle, key: key.stringValue)
        writer.out.append(contentsOf: [UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l")])
    }
    func encode(_ value: Bool, forKey key: Key) throws {
        try writer.beginMember(handle, key: key.stringValue)
        writer.out.append(contentsOf: value ? Array("true".utf8) : Array("false".utf8))
    }
    func encode(_ value: String, forKey key: Key) throws {
        try writer.beginMember(handle, key: key.stringValue)
        JSONString.appendQuoted(value, to: &writer.out)
    }
    func encode(_ value: Double, forKey key: Key) throws {
        try writer.beginMember(handle, key: key.stringValue)
        try writer.writeFloatingPoint(value)
    }
    func encode(_ value: Float, forKey key: Key) throws {
        try writer.beginMember(handle, key: key.stringValue)
        try writer.writeFloatingPoint(value)
    }
    func encode(_ value: Int, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: Int8, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: Int16, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: Int32, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: Int64, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: UInt, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: UInt8, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: UInt16, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: UInt32, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: UInt64, forKey key: Key) throws { try integer(value, key) }

    @inline(__always) func integer<T: FixedWidthInteger>(_ value: T, _ key: Key) throws {
        try writer.beginMember(handle, key: key.stringValue)
        writer.writeInteger(value)
    }

    func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try writer.beginMember(handle, key: key.stringValue)
        try writer.encodeValue(value, key: key, parentDepth: pathDepth)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        writer.nestedKeyedContainer(keyType, begin: { try writer.beginMember(handle, key: key.stringValue) }, pathDepth: pathDepth)
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        writer.nestedUnkeyedContainer(begin: { try writer.beginMember(handle, key: key.stringValue) }, pathDepth: pathDepth)
    }

    func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }

    func superEncoder(forKey key: Key) -> any Encoder {
        // Streaming cannot defer a member; write the key now and let the encoder fill the value.
        writer.nestedEncoder { try writer.beginMember(handle, key: key.stringValue) }
    }
}

// MARK: - Unkeyed

struct _UnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let writer: _JSONWriter
    let handle: _JSONWriter.Handle
    let pathDepth: Int
    var codingPath: [any CodingKey] { writer.path(depth: pathDepth) }
    private(set) var count = 0

    init(writer: _JSONWriter, handle: _JSONWriter.Handle, pathDepth: Int) {
        self.writer = writer
        self.handle = handle
        self.pathDepth = pathDepth
    }

    mutating func begin() throws {
        try writer.beginElement(handle)
        count += 1
    }

    mutating func encodeNil() throws {
        try begin()
        writer.out.append(contentsOf: Array("null".utf8))
    }
    mutating func encode(_ value: Bool) throws {
        try begin()
        writer.out.append(contentsOf: value ? Array("true".utf8) : Array("false".utf8))
    }
    mutating func encode(_ value: String) throws {
        try begin()
        JSONString.appendQuoted(value, to: &writer.out)
    }
    mutating func encode(_ value: Double) throws {
        try begin()
        try writer.writeFloatingPoint(value)
    }
    mutating func encode(_ value: Float) throws {
        try begin()
        try writer.writeFloatingPoint(value)
    }
    mutating func encode(_ value: Int) throws { try integer(value) }
    mutating func encode(_ value: Int8) throws { try integer(value) }
    mutating func encode(_ value: Int16) throws { try integer(value) }
    mutating func encode(_ value: Int32) throws { try integer(value) }
    mutating func encode(_ value: Int64) throws { try integer(value) }
    mutating func encode(_ value: UInt) throws { try integer(value) }
    mutating func encode(_ value: UInt8) throws { try integer(value) }
    mutating func encode(_ value: UInt16) throws { try integer(value) }
    mutating func encode(_ value: UInt32) throws { try integer(value) }
    mutating func encode(_ value: UInt64) throws { try integer(value) }

    mutating func integer<T: FixedWidthInteger>(_ value: T) throws {
        try begin()
        writer.writeInteger(value)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try begin()
        try writer.encodeValue(value, key: JSONKey.index(count - 1), parentDepth: pathDepth)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let (writer, depth) = (self.writer, pathDepth)
        return writer.nestedKeyedContainer(keyType, begin: { try self.begin() }, pathDepth: depth)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let (writer, depth) = (self.writer, pathDepth)
        return writer.nestedUnkeyedContainer(begin: { try self.begin() }, pathDepth: depth)
    }

    mutating func superEncoder() -> any Encoder {
        let writer = self.writer
        return writer.nestedEncoder { try self.begin() }
    }
}

// MARK: - Single value

struct _SingleValueEncodingContainer: SingleValueEncodingContainer {
    let writer: _JSONWriter
    let pathDepth: Int
    var codingPath: [any CodingKey] { writer.path(depth: pathDepth) }

    func encodeNil() throws {
        try writer.beginScalar()
        writer.out.append(contentsOf: Array("null".utf8))
    }
    func encode(_ value: Bool) throws {
        try writer.beginScalar()
        writer.out.append(contentsOf: value ? Array("true".utf8) : Array("false".utf8))
    }
    func encode(_ value: String) throws {
        try writer.beginScalar()
        JSONString.appendQuoted(value, to: &writer.out)
    }
    func encode(_ value: Double) throws {
        try writer.beginScalar()
        try writer.writeFloatingPoint(value)
    }
    func encode(_ value: Float) throws {
        try writer.beginScalar()
        try writer.writeFloatingPoint(value)
    }
    func encode(_ value: Int) throws { try integer(value) }
    func encode(_ value: Int8) throws { try integer(value) }
    func encode(_ value: Int16) throws { try integer(value) }
    func encode(_ value: Int32) throws { try integer(value) }
    func encode(_ value: Int64) throws { try integer(value) }
    func encode(_ value: UInt) throws { try integer(value) }
    func encode(_ value: UInt8) throws { try integer(value) }
    func encode(_ value: UInt16) throws { try integer(value) }
    func encode(_ value: UInt32) throws { try integer(value) }
    func encode(_ value: UInt64) throws { try integer(value) }

    func integer<T: FixedWidthInteger>(_ value: T) throws {
        try writer.beginScalar()
        writer.writeInteger(value)
    }

    func encode<T: Encodable>(_ value: T) throws {
        // The value takes this container's slot, like Foundation's single-value encode.
        guard writer.pendingValue else { try writer.beginScalar(); return }
        try writer.encodeValue(value, key: nil, parentDepth: pathDepth)
    }
}
