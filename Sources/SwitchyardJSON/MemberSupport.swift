#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// What generated models use beyond the hand-written ones: optional members that keep `null` apart
// from absent, integers checked against the schema's range, booleans, numbers, arrays of any element.

// MARK: - Optional members

/// An optional member (no default) that keeps the difference between absent and `null` on the wire
/// (PRODUCT.md, decoding rule 4): `@Nullable public var card: Card?`.
///
/// Reading it gives the value or nil. Assigning a value stores it; assigning nil makes the member absent,
/// unless the record had it as `null` (then it stays `null`). `$card.isNull = true` writes `null` on purpose.
@propertyWrapper
public struct Nullable<Wrapped> {
    /// The value, or nil when absent or `null`.
    public var value: Wrapped?
    /// Whether the member was (or is to be written as) an explicit `null`.
    public var isNull: Bool

    /// Absent.
    @inlinable public init() {
        value = nil
        isNull = false
    }

    /// A value.
    @inlinable public init(_ value: Wrapped) {
        self.value = value
        isNull = false
    }

    @inlinable public init(wrappedValue: Wrapped?) {
        value = wrappedValue
        isNull = false
    }

    /// An explicit `null`.
    @inlinable public static var null: Self {
        var member = Self()
        member.isNull = true
        return member
    }

    @inlinable public var wrappedValue: Wrapped? {
        get { value }
        set {
            value = newValue
            if newValue != nil { isNull = false }
        }
    }

    /// The member itself: `$card.isNull`.
    @inlinable public var projectedValue: Self {
        get { self }
        set { self = newValue }
    }
}

extension Nullable: Sendable where Wrapped: Sendable {}
extension Nullable: Equatable where Wrapped: Equatable {}
extension Nullable: Hashable where Wrapped: Hashable {}

extension KeyedDecodingContainer {
    /// An optional member: absent, `null`, or a value (decoded as `decodeIfPresent` would).
    @inlinable public func decodeNullable<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> Nullable<T> {
        guard contains(key) else { return Nullable() }
        if try decodeNil(forKey: key) { return .null }
        return Nullable(try decode(type, forKey: key))
    }

    /// An optional integer member checked against the schema's range.
    @inlinable public func decodeNullable<T: FixedWidthInteger & Decodable>(_ type: T.Type, forKey key: Key, minimum: T? = nil, maximum: T? = nil)
        throws -> Nullable<T>
    {
        guard contains(key) else { return Nullable() }
        if try decodeNil(forKey: key) { return .null }
        return Nullable(try decode(type, forKey: key, minimum: minimum, maximum: maximum))
    }

    /// An optional string member, kept inline.
    @inlinable public func decodeNullableString(forKey key: Key) throws -> OptionalInlineString {
        guard contains(key) else { return OptionalInlineString() }
        if try decodeNil(forKey: key) { return .null }
        return OptionalInlineString(InlineString(try decode(String.self, forKey: key)))
    }

    /// An integer within the schema's `minimum` and `maximum`; outside them it is `dataCorrupted` at the
    /// member, like a number that does not fit its type (PRODUCT.md, decoding rule 5). No value in the message.
    @inlinable public func decode<T: FixedWidthInteger & Decodable>(_ type: T.Type, forKey key: Key, minimum: T? = nil, maximum: T? = nil) throws -> T {
        let value = try decode(type, forKey: key)
        try checkRange(value, key: key, minimum: minimum, maximum: maximum)
        return value
    }

    /// An integer member with a default, within the schema's range when present.
    @inlinable public func decodeIfPresent<T: FixedWidthInteger & Decodable>(_ type: T.Type, forKey key: Key, minimum: T? = nil, maximum: T? = nil)
        throws -> T?
    {
        guard let value = try decodeIfPresent(type, forKey: key) else { return nil }
        try checkRange(value, key: key, minimum: minimum, maximum: maximum)
        return value
    }

    @inlinable func checkRange<T: FixedWidthInteger>(_ value: T, key: Key, minimum: T?, maximum: T?) throws {
        if let minimum, value < minimum {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "Number is below the schema's minimum \(minimum).")
        }
        if let maximum, value > maximum {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "Number is above the schema's maximum \(maximum).")
        }
    }
}

extension KeyedEncodingContainer {
    /// Writes an optional member: its value, `null` when it was `null`, nothing when absent.
    @inlinable public mutating func encode<T: Encodable>(nullable member: Nullable<T>, forKey key: Key) throws {
        if let value = member.value {
            try encode(value, forKey: key)
        } else if member.isNull {
            try encodeNil(forKey: key)
        }
    }

    /// Writes an optional string member: its text, `null` when it was `null`, nothing when absent.
    @inlinable public mutating func encode(nullable member: OptionalInlineString, forKey key: Key) throws {
        if let value = member.value {
            try encode(value.string, forKey: key)
        } else if member.isNull {
            try encodeNil(forKey: key)
        }
    }
}

// MARK: - The fast path's readers and writers

extension JSONCursor {
    /// An integer within `minimum` and `maximum` (and the type's range); anything else bails.
    @inlinable @inline(__always) public mutating func integer<T: FixedWidthInteger>(_ type: T.Type, minimum: T? = nil, maximum: T? = nil)
        throws(FastPathBail) -> T
    {
        guard let value = T(exactly: try int64()) else { throw FastPathBail() }
        if let minimum, value < minimum { throw FastPathBail() }
        if let maximum, value > maximum { throw FastPathBail() }
        return value
    }

    /// An `Int` within `minimum` and `maximum` (the common case of ``integer(_:minimum:maximum:)``, without
    /// optionals to unwrap).
    @inlinable @inline(__always) public mutating func int(minimum: Int, maximum: Int = .max) throws(FastPathBail) -> Int {
        let value = Int(try int64())
        guard value >= minimum && value <= maximum else { throw FastPathBail() }
        return value
    }

    /// `true` or `false`.
    @inlinable public mutating func bool() throws(FastPathBail) -> Bool {
        switch try peek() {
        case UInt8(ascii: "t"):
            try skipLiteral("true")
            return true
        case UInt8(ascii: "f"):
            try skipLiteral("false")
            return false
        default:
            throw FastPathBail()
        }
    }

    /// A number as a `Double`; a number a `Double` cannot hold (it would be infinite) bails.
    @inlinable public mutating func double() throws(FastPathBail) -> Double {
        let c = try peek()
        guard c == UInt8(ascii: "-") || c &- UInt8(ascii: "0") < 10 else { throw FastPathBail() }
        let start = i
        try skipNumber()
        let n = i - start
        // strtod needs a terminated string: the number's text is short, copy it to the stack.
        guard n < 64 else { throw FastPathBail() }
        let value = withUnsafeTemporaryAllocation(of: CChar.self, capacity: n + 1) { buffer -> Double in
            UnsafeMutableRawPointer(buffer.baseAddress!).copyMemory(from: base + start, byteCount: n)
            buffer[n] = 0
            return strtod(buffer.baseAddress!, nil)
        }
        guard value.isFinite else { throw FastPathBail() }
        return value
    }

    /// An array whose elements `element` reads.
    @inlinable public mutating func array<Element>(_ element: (inout JSONCursor) throws(FastPathBail) -> Element) throws(FastPathBail) -> [Element] {
        var elements = try beginArray()
        var values: [Element] = []
        while try nextElement(&elements) {
            values.append(try element(&self))
        }
        return values
    }

    /// Checks an array exactly as ``array(_:)`` does, each element with `element`, making nothing.
    @inlinable public mutating func skipArray(_ element: (inout JSONCursor) throws(FastPathBail) -> Void) throws(FastPathBail) {
        var elements = try beginArray()
        while try nextElement(&elements) { try element(&self) }
    }
}

extension CanonicalWriter {
    @inlinable public mutating func bool(_ value: Bool) {
        literal(value ? "true" : "false")
    }

    /// A number, as ``CanonicalJSONEncoder`` writes it (`1.5`, `2`, `1e+20`).
    @inlinable public mutating func double(_ value: Double) {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        append(Array(text.utf8))
    }

    @inlinable public mutating func null() {
        literal("null")
    }

    /// A literal's bytes, without an array per call.
    @inlinable mutating func literal(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// An array whose elements `element` writes.
    @inlinable public mutating func array<Element>(_ values: [Element], _ element: (inout CanonicalWriter, Element) -> Void) {
        beginArray()
        for value in values {
            self.element()
            element(&self, value)
        }
        endArray()
    }
}
