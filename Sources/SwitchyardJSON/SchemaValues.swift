import Foundation

// What generated models use for JSON Schema as teams write it, beyond strings, integers and nested
// objects: exact numbers, free-form values, maps, members that are required but may be `null`, and the
// validation keywords. Each works on both decode paths (Codable and ``FastCodable``) and writes the
// same bytes through ``CanonicalJSONEncoder`` and ``CanonicalWriter``.

// MARK: - Exact numbers

/// A JSON number kept as its exact decimal text: `12345678901234567.89` stays that, `1.10` keeps its zero.
///
/// ``doubleValue`` and ``decimalValue`` read it as a Swift number; re-encoding writes the text unchanged.
/// Two numbers are equal when their texts are.
public struct ExactNumber: Sendable, Hashable, CustomStringConvertible, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    /// The number as JSON text (RFC 8259 grammar).
    public private(set) var text: String

    /// A number from its JSON text; nil when `text` is not a JSON number.
    public init?(_ text: String) {
        guard ExactNumber.isNumber(Array(text.utf8)) else { return nil }
        self.text = text
    }

    /// A number from JSON text known to be valid (a schema's default).
    public init(literal text: StaticString) {
        let value = text.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
        precondition(ExactNumber.isNumber(Array(value.utf8)), "not a JSON number: \(value)")
        self.text = value
    }

    public init(integerLiteral value: Int64) {
        text = String(value)
    }

    public init(floatLiteral value: Double) {
        self.init(value)
    }

    /// The shortest text that reads back as `value` (`1.5`, `2`, `1e+20`).
    public init(_ value: Double) {
        precondition(value.isFinite, "JSON has no infinite numbers")
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        self.text = text
    }

    /// The decimal's digits.
    public init(_ value: Decimal) {
        text = value.description
    }

    @usableFromInline init(validText: String) {
        text = validText
    }

    /// The nearest `Double`.
    public var doubleValue: Double { Double(text) ?? .nan }

    /// The number as a `Decimal`; nil when it is outside `Decimal`'s range.
    public var decimalValue: Decimal? { Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) }

    public var description: String { text }

    /// Whether `bytes` are one JSON number.
    static func isNumber(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            do throws(FastPathBail) {
                var cursor = try JSONCursor(raw)
                guard try cursor.peek() != UInt8(ascii: "\"") else { return false }
                cursor.i = 0
                try cursor.skipNumber()
                try cursor.finish()
                return true
            } catch {
                return false
            }
        }
    }
}

extension ExactNumber: Codable {
    public init(from decoder: any Decoder) throws {
        if let json = _JSONDecoder.unwrap(decoder) {
            let state = json.state
            guard state.nodes[json.node].kind == .number else {
                // The error Foundation gives for a number member: typeMismatch, or valueNotFound for null.
                _ = try decoder.singleValueContainer().decode(Double.self)
                throw DecodingError.typeMismatch(
                    Double.self, .init(codingPath: decoder.codingPath, debugDescription: "Expected to decode a number."))
            }
            text = String(decoding: state.text(at: json.node), as: UTF8.self)
        } else {
            text = try decoder.singleValueContainer().decode(Decimal.self).description
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if let writer = _JSONWriter.unwrap(encoder) {
            var bytes = Array(text.utf8)
            try bytes.withUnsafeMutableBytes { try writer.appendRawValue(UnsafeRawBufferPointer($0)) }
        } else {
            var container = encoder.singleValueContainer()
            if let decimal = decimalValue { try container.encode(decimal) } else { try container.encode(doubleValue) }
        }
    }
}

extension ExactNumber: FastCodable {
    @inlinable public init(unread: Void) {
        self.init(validText: "0")
    }

    @inlinable public mutating func read(_ cursor: inout JSONCursor) throws(FastPathBail) {
        self = ExactNumber(validText: try cursor.numberText())
    }

    @inlinable public static func validate(_ cursor: inout JSONCursor) throws(FastPathBail) {
        _ = try cursor.numberText()
    }

    @inlinable public func write(to writer: inout CanonicalWriter) {
        writer.append(Array(text.utf8))
    }
}

extension JSONCursor {
    /// A number's text, as written.
    @inlinable public mutating func numberText() throws(FastPathBail) -> String {
        let c = try peek()
        guard c == UInt8(ascii: "-") || c &- UInt8(ascii: "0") < 10 else { throw FastPathBail() }
        let start = i
        try skipNumber()
        return String(decoding: UnsafeBufferPointer(start: base + start, count: i - start), as: UTF8.self)
    }

    /// An unsigned 64-bit integer: digits only, no sign, no fraction; anything else bails.
    @inlinable public mutating func uint64() throws(FastPathBail) -> UInt64 {
        let c = try peek()
        guard c &- UInt8(ascii: "0") < 10 else { throw FastPathBail() }
        let start = i
        try skipNumber()
        var value: UInt64 = 0
        for k in start..<i {
            let digit = base[k] &- UInt8(ascii: "0")
            guard digit < 10 else { throw FastPathBail() }
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(UInt64(digit))
            guard !o1 && !o2 else { throw FastPathBail() }
            value = sum
        }
        return value
    }

    /// A string, made even by a cursor that discards values: for a member whose value a schema rule checks.
    @inlinable public mutating func checkedString() throws(FastPathBail) -> String {
        guard try peek() == UInt8(ascii: "\"") else { throw FastPathBail() }
        let (start, end, escaped) = try scanString()
        let raw = UnsafeBufferPointer(start: base + start, count: end - start)
        if !escaped { return String(decoding: raw, as: UTF8.self) }
        return String(decoding: JSONString.unescape(raw), as: UTF8.self)
    }

    /// ``checkedString()`` for a required identifier (`minLength: 1`): an empty string bails, as
    /// ``inlineIdentifier()`` does.
    @inlinable public mutating func checkedIdentifier() throws(FastPathBail) -> String {
        let value = try checkedString()
        guard !value.isEmpty else { throw FastPathBail() }
        return value
    }
}

extension CanonicalWriter {
    /// A member whose name is only known at run time (a map's key): quoted, escaped as needed.
    ///
    /// - Important: Not an overload of ``key(_:)``: a string literal would pick `String` over
    ///   `StaticString`, and every generated member name would be checked for escaping and copied twice.
    @inlinable public mutating func mapKey(_ name: String) {
        if needsComma { append(UInt8(ascii: ",")) }
        needsComma = true
        string(name)
        append(UInt8(ascii: ":"))
    }
}

// MARK: - Free-form values

extension RawJSON: FastCodable {
    @inlinable public init(unread: Void) {
        self.init(bytes: [])
    }

    /// Any JSON value, validated and kept compact (insignificant whitespace removed).
    @inlinable public mutating func read(_ cursor: inout JSONCursor) throws(FastPathBail) {
        _ = try cursor.peek()
        let start = cursor.i
        try cursor.skipValue(depth: 1)
        var bytes: [UInt8] = []
        if !cursor.discardsValues {
            JSONString.appendCompact(UnsafeBufferPointer(start: cursor.base + start, count: cursor.i - start), to: &bytes)
        }
        self = RawJSON(bytes: bytes)
    }

    @inlinable public func write(to writer: inout CanonicalWriter) {
        writer.raw(self)
    }
}

// MARK: - Maps

/// A JSON object used as a map (`additionalProperties` with a schema): its members in input order, each
/// value of one type. Re-encoded in the same order.
public struct JSONMap<Value>: RandomAccessCollection {
    /// The keys, in order.
    public private(set) var keys: [String]
    /// The values, in the keys' order.
    public private(set) var values: [Value]

    /// An empty map.
    public init() {
        keys = []
        values = []
    }

    /// A map of `pairs`, in their order; a later pair replaces an earlier one of the same key.
    public init(_ pairs: [(key: String, value: Value)]) {
        self.init()
        for (key, value) in pairs { self[key] = value }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { keys.count }
    public subscript(position: Int) -> (key: String, value: Value) { (keys[position], values[position]) }

    /// The value of `key`; assigning appends a new key at the end, or replaces the value in place.
    public subscript(key: String) -> Value? {
        get { keys.firstIndex(of: key).map { values[$0] } }
        set {
            if let index = keys.firstIndex(of: key) {
                if let newValue { values[index] = newValue } else {
                    keys.remove(at: index)
                    values.remove(at: index)
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    @usableFromInline mutating func append(key: String, value: Value) {
        keys.append(key)
        values.append(value)
    }
}

extension JSONMap: Sendable where Value: Sendable {}
extension JSONMap: Equatable where Value: Equatable {
    public static func == (a: JSONMap, b: JSONMap) -> Bool { a.keys == b.keys && a.values == b.values }
}
extension JSONMap: Hashable where Value: Hashable {
    public func hash(into hasher: inout Hasher) {
        hasher.combine(keys)
        hasher.combine(values)
    }
}

extension JSONMap: Decodable where Value: Decodable {
    public init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: JSONKey.self)
        for key in container.allKeys {
            append(key: key.stringValue, value: try container.decode(Value.self, forKey: key))
        }
    }
}

extension JSONMap: Encodable where Value: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        for (key, value) in zip(keys, values) {
            try container.encode(value, forKey: JSONKey(stringValue: key))
        }
    }
}

extension JSONCursor {
    /// An object read as a map, each value with `element`; a repeated key bails.
    @inlinable public mutating func map<Value>(_ element: (inout JSONCursor) throws(FastPathBail) -> Value) throws(FastPathBail) -> JSONMap<Value> {
        var map = JSONMap<Value>()
        try mapMembers { (key, cursor) throws(FastPathBail) in map.append(key: key, value: try element(&cursor)) }
        return map
    }

    /// Whether `key` is among `keys`: compared one by one for the few keys most maps have, else hashed
    /// (`seen` is filled on the first such call).
    @inlinable static func isRepeated(_ key: String, in keys: [String], seen: inout Set<String>) -> Bool {
        if keys.count < 16 { return keys.contains(key) }
        if seen.isEmpty { seen = Set(keys) }
        return !seen.insert(key).inserted
    }

    /// Checks an object as ``map(_:)`` does, each value with `element`, making nothing.
    @inlinable public mutating func skipMap(_ element: (inout JSONCursor) throws(FastPathBail) -> Void) throws(FastPathBail) {
        try mapMembers { (_, cursor) throws(FastPathBail) in try element(&cursor) }
    }

    @inlinable mutating func mapMembers(_ member: (String, inout JSONCursor) throws(FastPathBail) -> Void) throws(FastPathBail) {
        guard try peek() == UInt8(ascii: "{") else { throw FastPathBail() }
        i += 1
        // The keys so far, for the duplicate check (no set for a small map).
        var keys: [String] = []
        var seen = Set<String>()
        var started = false
        while true {
            var c = try peek()
            if c == UInt8(ascii: "}") {
                i += 1
                return
            }
            if started {
                guard c == UInt8(ascii: ",") else { throw FastPathBail() }
                i += 1
                c = try peek()
            }
            started = true
            guard c == UInt8(ascii: "\"") else { throw FastPathBail() }
            let key = try checkedString()
            guard !Self.isRepeated(key, in: keys, seen: &seen) else { throw FastPathBail() }
            keys.append(key)
            if !seen.isEmpty { seen.insert(key) }
            guard try peek() == UInt8(ascii: ":") else { throw FastPathBail() }
            i += 1
            try member(key, &self)
        }
    }
}

extension CanonicalWriter {
    /// A map: its members in order, each value written by `element`.
    @inlinable public mutating func map<Value>(_ map: JSONMap<Value>, _ element: (inout CanonicalWriter, Value) -> Void) {
        beginObject()
        for (key, value) in zip(map.keys, map.values) {
            mapKey(key)
            element(&self, value)
        }
        endObject(unknown: UnknownFields())
    }
}

// MARK: - Unions

/// The JSON type of a value, as a union by type tells its branches apart.
public enum JSONValueKind: Sendable, Equatable {
    case null, bool, integer, number, string, array, object

    /// The kind of the value `decoder` is at. Switchyard's decoder reads it off the parsed value; another
    /// decoder is asked by decoding.
    public static func of(_ decoder: any Decoder) throws -> JSONValueKind {
        if let json = _JSONDecoder.unwrap(decoder) {
            let state = json.state
            switch state.nodes[json.node].kind {
            case .null: return .null
            case .true, .false: return .bool
            case .string: return .string
            case .array: return .array
            case .object: return .object
            case .number:
                let text = state.text(at: json.node)
                return text.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }) ? .number : .integer
            }
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { return .null }
        for (kind, probe) in [(JSONValueKind.bool, { _ = try container.decode(Bool.self) }), (.string, { _ = try container.decode(String.self) }),
                              (.integer, { _ = try container.decode(Int64.self) }), (.number, { _ = try container.decode(Double.self) })] as [(JSONValueKind, () throws -> Void)] {
            do {
                try probe()
                return kind
            } catch DecodingError.typeMismatch, DecodingError.dataCorrupted {
                continue
            }
        }
        do {
            _ = try decoder.unkeyedContainer()
            return .array
        } catch DecodingError.typeMismatch {
            return .object
        }
    }
}

extension JSONCursor {
    /// The JSON type of the value at the cursor, which does not move.
    @inlinable public mutating func peekKind() throws(FastPathBail) -> JSONValueKind {
        switch try peek() {
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = i
            try skipNumber()
            defer { i = start }
            for k in start..<i where base[k] == UInt8(ascii: ".") || base[k] | 0x20 == UInt8(ascii: "e") { return .number }
            return .integer
        default: throw FastPathBail()
        }
    }

    /// The string value of the member `key` of the object at the cursor, which does not move: a union's
    /// discriminator. Bails when the object has no such member, or its value is not a plain string.
    @inlinable public mutating func peekMember(_ key: StaticString) throws(FastPathBail) -> String {
        let start = i
        defer { i = start }
        guard try peek() == UInt8(ascii: "{") else { throw FastPathBail() }
        i += 1
        let wanted = UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
        var started = false
        while true {
            var c = try peek()
            guard c != UInt8(ascii: "}") else { throw FastPathBail() }
            if started {
                guard c == UInt8(ascii: ",") else { throw FastPathBail() }
                i += 1
                c = try peek()
            }
            started = true
            guard c == UInt8(ascii: "\"") else { throw FastPathBail() }
            let name = try plainString()
            guard try peek() == UInt8(ascii: ":") else { throw FastPathBail() }
            i += 1
            if name.count == wanted.count && memcmp(name.baseAddress!, wanted.baseAddress!, name.count) == 0 {
                return try checkedString()
            }
            try skipValue(depth: 1)
        }
    }
}

// MARK: - Required members that may be null

extension KeyedDecodingContainer {
    /// A member that must be present but may be `null` (`required` and `type: [T, "null"]`).
    @inlinable public func decodeRequiredNullable<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> Nullable<T> {
        guard contains(key) else { throw Self.missing(key, in: self) }
        if try decodeNil(forKey: key) { return .null }
        return Nullable(try decode(type, forKey: key))
    }

    /// A string member that must be present but may be `null`, kept inline.
    @inlinable public func decodeRequiredNullableString(forKey key: Key) throws -> OptionalInlineString {
        guard contains(key) else { throw Self.missing(key, in: self) }
        if try decodeNil(forKey: key) { return .null }
        return OptionalInlineString(InlineString(try decode(String.self, forKey: key)))
    }

    /// An integer member that must be present but may be `null`, checked against the schema's range.
    @inlinable public func decodeRequiredNullable<T: FixedWidthInteger & Decodable>(_ type: T.Type, forKey key: Key, minimum: T? = nil, maximum: T? = nil)
        throws -> Nullable<T>
    {
        guard contains(key) else { throw Self.missing(key, in: self) }
        if try decodeNil(forKey: key) { return .null }
        return Nullable(try decode(type, forKey: key, minimum: minimum, maximum: maximum))
    }

    @usableFromInline static func missing(_ key: Key, in container: Self) -> DecodingError {
        DecodingError.keyNotFound(key, .init(codingPath: container.codingPath, debugDescription: "No value associated with key \(key.stringValue)."))
    }

    /// Fails the member as `dataCorrupted` at its key unless `valid` (a validation keyword of the schema,
    /// named by `rule`; the message never holds the value).
    @inlinable public func require(_ valid: Bool, forKey key: Key, _ rule: StaticString) throws {
        guard valid else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "Value does not satisfy the schema's \(rule).")
        }
    }
}

// MARK: - Validation keywords

/// The checks behind the schema's validation keywords, shared by both decode paths.
public enum SchemaRule {
    /// A string's length as JSON Schema counts it: in Unicode code points.
    @inlinable public static func length(_ value: String) -> Int { value.unicodeScalars.count }

    /// Whether `value` is a multiple of `divisor`.
    @inlinable public static func isMultiple<T: BinaryInteger>(_ value: T, of divisor: T) -> Bool { value % divisor == 0 }

    /// Whether no two elements are equal (pairwise for a few elements, which needs no hashing or set).
    @inlinable public static func isUnique<T: Hashable>(_ values: [T]) -> Bool {
        guard values.count > 16 else {
            for i in values.indices {
                for j in values.index(after: i)..<values.endIndex where values[i] == values[j] { return false }
            }
            return true
        }
        return Set(values).count == values.count
    }

    /// `value` compared with the number `bound` (JSON text): -1, 0 or 1; nil when either is outside `Decimal`.
    ///
    /// Numbers of up to 19 significant digits are compared exactly on their digits; longer ones through `Decimal`.
    public static func compare(_ value: ExactNumber, _ bound: String) -> Int? {
        if let a = DecimalDigits(value.text), let b = DecimalDigits(bound) { return a.compare(b) }
        guard let a = value.decimalValue, let b = ExactNumber(validText: bound).decimalValue else { return nil }
        return a < b ? -1 : a == b ? 0 : 1
    }

    /// `value >= bound`.
    public static func atLeast(_ value: ExactNumber, _ bound: String) -> Bool { (compare(value, bound) ?? -1) >= 0 }
    /// `value > bound`.
    public static func above(_ value: ExactNumber, _ bound: String) -> Bool { (compare(value, bound) ?? -1) > 0 }
    /// `value <= bound`.
    public static func atMost(_ value: ExactNumber, _ bound: String) -> Bool { (compare(value, bound) ?? 1) <= 0 }
    /// `value < bound`.
    public static func below(_ value: ExactNumber, _ bound: String) -> Bool { (compare(value, bound) ?? 1) < 0 }

    /// Whether `value` is one of `numbers` (JSON texts), compared as numbers.
    public static func isOneOf(_ value: ExactNumber, _ numbers: [String]) -> Bool { numbers.contains { compare(value, $0) == 0 } }

    /// Whether `value` divided by `divisor` (JSON text) is a whole number.
    ///
    /// Exact on the digits when both scaled to a common exponent fit 64 bits; otherwise through `Decimal`.
    public static func isMultiple(_ value: ExactNumber, of divisor: String) -> Bool {
        if let a = DecimalDigits(value.text), let b = DecimalDigits(divisor), let multiple = a.isMultiple(of: b) { return multiple }
        guard let a = value.decimalValue, let b = ExactNumber(validText: divisor).decimalValue, b != 0 else { return false }
        var quotient = a / b
        var whole = Decimal()
        NSDecimalRound(&whole, &quotient, 0, .down)
        return whole == quotient
    }
}

/// A JSON number as `significand × 10^exponent`, exactly, for the validation keywords: the significand's
/// trailing zeros moved into the exponent, so that equal numbers have equal parts (`1.50` and `15e-1`).
@usableFromInline struct DecimalDigits {
    var negative: Bool
    /// The significant digits, at most 19 (so that they fit a `UInt64`); 0 for zero.
    var significand: UInt64
    var exponent: Int
    /// How many digits `significand` has (0 for zero).
    var digitCount: Int

    /// The parts of JSON number text; nil when it has more than 19 significant digits or its leading digit
    /// is more than 100 places from the decimal point (the caller then computes through `Decimal`), or when
    /// it is not a number.
    init?(_ text: String) {
        var text = text
        guard let digits = text.withUTF8({ DecimalDigits($0) }) else { return nil }
        self = digits
    }

    init?(_ text: UnsafeBufferPointer<UInt8>) {
        var negative = false
        var significand: UInt64 = 0
        var digitCount = 0
        var exponent = 0
        var pendingZeros = 0  // zeros after the last nonzero digit, not yet in the significand
        var inFraction = false
        var exponentSign = 0  // 0: no exponent part yet
        var exponentValue = 0
        var sawDigit = false
        for byte in text {
            if exponentSign != 0 {
                switch byte {
                case UInt8(ascii: "-") where exponentValue == 0: exponentSign = -1
                case UInt8(ascii: "+") where exponentValue == 0: exponentSign = 1
                case UInt8(ascii: "0")...UInt8(ascii: "9"):
                    exponentValue = exponentValue * 10 + Int(byte &- UInt8(ascii: "0"))
                    guard exponentValue <= 100_000 else { return nil }
                default: return nil
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "-") where !sawDigit && !negative: negative = true
            case UInt8(ascii: "."): inFraction = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"): exponentSign = 1
            case UInt8(ascii: "0"):
                sawDigit = true
                if inFraction { exponent -= 1 }
                if significand != 0 { pendingZeros += 1 }
            case UInt8(ascii: "1")...UInt8(ascii: "9"):
                sawDigit = true
                if inFraction { exponent -= 1 }
                // The zeros seen since the last nonzero digit become digits of the significand.
                guard digitCount + pendingZeros + 1 <= 19 else { return nil }
                for _ in 0..<pendingZeros { significand *= 10 }
                significand = significand * 10 + UInt64(byte &- UInt8(ascii: "0"))
                digitCount += pendingZeros + 1
                pendingZeros = 0
            default: return nil
            }
        }
        guard sawDigit else { return nil }
        self.negative = negative && significand != 0
        self.significand = significand
        self.digitCount = digitCount
        // The digits read are significand × 10^pendingZeros × 10^exponent (the fraction's places counted in exponent).
        self.exponent = significand == 0 ? 0 : exponent + pendingZeros + (exponentSign < 0 ? -exponentValue : exponentValue)
        // Far from 1, `Decimal` decides (it has no answer beyond its range, and the rules keep that answer).
        guard significand == 0 || (-100...100).contains(self.exponent + digitCount) else { return nil }
    }

    /// -1, 0 or 1.
    func compare(_ other: DecimalDigits) -> Int {
        if significand == 0 || other.significand == 0 {
            let a = significand == 0 ? 0 : (negative ? -1 : 1)
            let b = other.significand == 0 ? 0 : (other.negative ? -1 : 1)
            return a < b ? -1 : a == b ? 0 : 1
        }
        if negative != other.negative { return negative ? -1 : 1 }
        let magnitude = compareMagnitude(other)
        return negative ? -magnitude : magnitude
    }

    private func compareMagnitude(_ other: DecimalDigits) -> Int {
        // Both nonzero: the position of the leading digit decides, then the digits aligned to it.
        let lead = digitCount + exponent
        let otherLead = other.digitCount + other.exponent
        if lead != otherLead { return lead < otherLead ? -1 : 1 }
        var a = significand
        var b = other.significand
        // Aligned, both have at most 19 digits, which a UInt64 holds.
        for _ in digitCount..<max(digitCount, other.digitCount) { a *= 10 }
        for _ in other.digitCount..<max(digitCount, other.digitCount) { b *= 10 }
        return a < b ? -1 : a == b ? 0 : 1
    }

    /// Whether `self / divisor` is whole; nil when the numbers scaled to a common exponent do not fit 64 bits.
    func isMultiple(of divisor: DecimalDigits) -> Bool? {
        guard divisor.significand != 0 else { return nil }
        if significand == 0 { return true }
        let common = min(exponent, divisor.exponent)
        guard let a = Self.scaled(significand, by: exponent - common), let b = Self.scaled(divisor.significand, by: divisor.exponent - common) else {
            return nil
        }
        return a % b == 0
    }

    private static func scaled(_ value: UInt64, by places: Int) -> UInt64? {
        guard places <= 19 else { return nil }
        var result = value
        for _ in 0..<places {
            let (product, overflow) = result.multipliedReportingOverflow(by: 10)
            if overflow { return nil }
            result = product
        }
        return result
    }
}

/// A schema's `pattern`: a regular expression that matches anywhere in the string (JSON Schema's rule).
///
/// The patterns teams write most (`^ORD-[0-9]{8}$`, `^[A-Z]{2}$`: ASCII literals and classes with
/// counts, anchored or not) are matched on the string's UTF-8 bytes with no allocation; any other
/// pattern goes to `NSRegularExpression`, whose answers the byte matcher gives too (`$` also before a
/// final line terminator, as ICU has it).
public final class SchemaPattern: @unchecked Sendable {
    // @unchecked: the expression and the byte program are made once in `init` and only matched against
    // afterwards, which does not change them.
    private let expression: NSRegularExpression?
    private let program: BytePattern?

    /// The pattern `source`; a pattern this platform cannot compile matches nothing (the generator refuses
    /// such a schema).
    public init(_ source: String) {
        do {
            expression = try NSRegularExpression(pattern: source)
        } catch {
            expression = nil
        }
        program = expression == nil ? nil : BytePattern(source)
    }

    /// Whether `source` compiles.
    public static func isValid(_ source: String) -> Bool {
        SchemaPattern(source).expression != nil
    }

    /// Whether the byte matcher handles this pattern (else `NSRegularExpression` does).
    var matchesBytes: Bool { program != nil }

    /// Whether the expression matches somewhere in `value`.
    public func matches(_ value: String) -> Bool {
        if let program {
            if let found = value.utf8.withContiguousStorageIfAvailable({ program.matches($0) }) { return found }
            return program.matches(Array(value.utf8))
        }
        return regularExpressionMatches(value)
    }

    /// The answer of `NSRegularExpression` (for tests that compare the two matchers).
    func regularExpressionMatches(_ value: String) -> Bool {
        guard let expression else { return false }
        return expression.firstMatch(in: value, range: NSRange(value.startIndex..., in: value)) != nil
    }
}

/// A regular expression of ASCII literals and character classes, each with a count (`{n}`, `{n,m}`,
/// `{n,}`, `?`, `*`, `+`), optionally anchored by `^` and `$`: matched on UTF-8 bytes by backtracking.
/// Every atom matches ASCII bytes only, so a non-ASCII character never matches, as in a regex engine.
struct BytePattern: Sendable {
    struct Atom: Sendable {
        /// The ASCII bytes it matches, as a 128-bit set.
        var low: UInt64 = 0
        var high: UInt64 = 0
        var minimum = 1
        var maximum = 1

        func contains(_ byte: UInt8) -> Bool {
            byte < 64 ? low & (1 << UInt64(byte)) != 0 : byte < 128 ? high & (1 << UInt64(byte - 64)) != 0 : false
        }

        mutating func insert(_ byte: UInt8) {
            if byte < 64 { low |= 1 << UInt64(byte) } else { high |= 1 << UInt64(byte - 64) }
        }
    }

    var atoms: [Atom] = []
    var anchoredStart = false
    var anchoredEnd = false

    /// The program for `source`; nil when the pattern uses anything beyond this subset.
    init?(_ source: String) {
        let bytes = Array(source.utf8)
        var i = 0
        if bytes.first == UInt8(ascii: "^") {
            anchoredStart = true
            i = 1
        }
        var end = bytes.count
        if end > i, bytes[end - 1] == UInt8(ascii: "$"), !Self.isEscaped(bytes, at: end - 1) {
            anchoredEnd = true
            end -= 1
        }
        let punctuation = Set("\\.-/[](){}*+?^$|".utf8)
        while i < end {
            var atom = Atom()
            let c = bytes[i]
            switch c {
            case UInt8(ascii: "\\"):
                guard i + 1 < end, punctuation.contains(bytes[i + 1]) else { return nil }
                atom.insert(bytes[i + 1])
                i += 2
            case UInt8(ascii: "["):
                i += 1
                guard i < end, bytes[i] != UInt8(ascii: "^") else { return nil }
                var items: [UInt8] = []
                var closed = false
                while i < end {
                    let d = bytes[i]
                    if d == UInt8(ascii: "]") {
                        closed = true
                        i += 1
                        break
                    }
                    if d == UInt8(ascii: "\\") {
                        guard i + 1 < end, punctuation.contains(bytes[i + 1]) else { return nil }
                        items.append(bytes[i + 1])
                        i += 2
                    } else {
                        guard d < 128, d > 32, d != UInt8(ascii: "["), d != UInt8(ascii: "&"), d != UInt8(ascii: "~") else { return nil }
                        items.append(d == UInt8(ascii: "-") ? 0 : d)  // 0 marks an unescaped '-'
                        i += 1
                    }
                }
                guard closed, !items.isEmpty else { return nil }
                var k = 0
                while k < items.count {
                    if k + 2 < items.count, items[k + 1] == 0, items[k] != 0, items[k + 2] != 0 {
                        guard items[k] <= items[k + 2] else { return nil }
                        for b in items[k]...items[k + 2] { atom.insert(b) }
                        k += 3
                    } else {
                        // A '-' first or last is itself.
                        guard items[k] != 0 || k == 0 || k == items.count - 1 else { return nil }
                        atom.insert(items[k] == 0 ? UInt8(ascii: "-") : items[k])
                        k += 1
                    }
                }
            default:
                guard c < 128, c >= 32, !punctuation.contains(c) || c == UInt8(ascii: "-") || c == UInt8(ascii: "/") else { return nil }
                atom.insert(c)
                i += 1
            }
            // The count.
            if i < end {
                switch bytes[i] {
                case UInt8(ascii: "?"): (atom.minimum, atom.maximum, i) = (0, 1, i + 1)
                case UInt8(ascii: "*"): (atom.minimum, atom.maximum, i) = (0, Int.max, i + 1)
                case UInt8(ascii: "+"): (atom.minimum, atom.maximum, i) = (1, Int.max, i + 1)
                case UInt8(ascii: "{"):
                    guard let (minimum, maximum, next) = Self.braces(bytes, from: i, end: end) else { return nil }
                    (atom.minimum, atom.maximum, i) = (minimum, maximum, next)
                default: break
                }
                // Lazy or possessive counts, and a count on a count, are not in the subset.
                if i < end, [UInt8(ascii: "?"), UInt8(ascii: "+"), UInt8(ascii: "*"), UInt8(ascii: "{")].contains(bytes[i]) { return nil }
            }
            atoms.append(atom)
        }
    }

    private static func isEscaped(_ bytes: [UInt8], at index: Int) -> Bool {
        var backslashes = 0
        var k = index - 1
        while k >= 0, bytes[k] == UInt8(ascii: "\\") {
            backslashes += 1
            k -= 1
        }
        return backslashes % 2 == 1
    }

    /// `{n}`, `{n,}` or `{n,m}` at `start`: the bounds and the index after `}`.
    private static func braces(_ bytes: [UInt8], from start: Int, end: Int) -> (Int, Int, Int)? {
        var i = start + 1
        func number() -> Int? {
            var value: Int?
            while i < end, bytes[i] &- UInt8(ascii: "0") < 10, (value ?? 0) < 100_000 {
                value = (value ?? 0) * 10 + Int(bytes[i] &- UInt8(ascii: "0"))
                i += 1
            }
            return value
        }
        guard let minimum = number() else { return nil }
        var maximum = minimum
        if i < end, bytes[i] == UInt8(ascii: ",") {
            i += 1
            maximum = number() ?? Int.max
        }
        guard i < end, bytes[i] == UInt8(ascii: "}"), minimum <= maximum else { return nil }
        return (minimum, maximum, i + 1)
    }

    func matches<C: RandomAccessCollection>(_ text: C) -> Bool where C.Element == UInt8, C.Index == Int {
        if anchoredStart { return match(text, atom: 0, at: text.startIndex) }
        for start in text.startIndex...text.endIndex where match(text, atom: 0, at: start) { return true }
        return false
    }

    private func match<C: RandomAccessCollection>(_ text: C, atom index: Int, at position: Int) -> Bool where C.Element == UInt8, C.Index == Int {
        guard index < atoms.count else { return !anchoredEnd || Self.isEnd(text, position) }
        let atom = atoms[index]
        var count = 0
        while count < atom.maximum, position + count < text.endIndex, atom.contains(text[position + count]) { count += 1 }
        guard count >= atom.minimum else { return false }
        while true {
            if match(text, atom: index + 1, at: position + count) { return true }
            if count == atom.minimum { return false }
            count -= 1
        }
    }

    /// Where ICU's `$` matches without multiline: the end, or before a line terminator that ends the text
    /// (\n, \u{B}, \u{C}, \r, \r\n, U+0085, U+2028, U+2029).
    private static func isEnd<C: RandomAccessCollection>(_ text: C, _ position: Int) -> Bool where C.Element == UInt8, C.Index == Int {
        let rest = text.endIndex - position
        switch rest {
        case 0: return true
        case 1: return (0x0A...0x0D).contains(text[position])
        case 2: return (text[position] == 0x0D && text[position + 1] == 0x0A) || (text[position] == 0xC2 && text[position + 1] == 0x85)
        case 3: return text[position] == 0xE2 && text[position + 1] == 0x80 && (text[position + 2] == 0xA8 || text[position + 2] == 0xA9)
        default: return false
        }
    }
}
