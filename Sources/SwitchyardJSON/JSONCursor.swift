import CJSONScan

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thrown by the fast path when it does not decide a record itself. The general decoder
/// (``SwitchyardJSONDecoder``) then reads the record again and gives the exact outcome.
public struct FastPathBail: Error, Sendable {
    @inlinable public init() {}
}

/// A type with a direct reader and writer beside its `Codable` conformance: the fast path.
///
/// - Important: the fast path decides only what the general decoder accepts, and gives the same value;
///   for anything else (a failure, an unusual spelling) it throws ``FastPathBail`` and the general
///   decoder decides. `FastPathTests` and the `fuzz-decode` invariants hold the two paths equal.
public protocol FastCodable {
    /// A value with every member at a placeholder or its default: what a reader starts from (``unread``).
    /// The members a record must have are required by the type's ``FieldTable``, so a placeholder never
    /// survives a read.
    init(unread: Void)
    /// Reads the value at the cursor (for an object: from `{` to `}`) into this value, in place: a model
    /// reads its nested models where they are, with no copy.
    mutating func read(_ cursor: inout JSONCursor) throws(FastPathBail)
    /// Checks the value at the cursor exactly as ``read(_:)`` does and moves past it, making nothing: for a
    /// cursor that discards values (``EventCatalog/validateFast(_:options:)``). The generated models read
    /// each member into nothing; the default reads into a placeholder and drops it.
    static func validate(_ cursor: inout JSONCursor) throws(FastPathBail)
    /// Writes the canonical encoding: the same bytes as ``CanonicalJSONEncoder``.
    func write(to writer: inout CanonicalWriter)
}

extension FastCodable {
    /// The placeholder a reader starts from (``init(unread:)``), made in place.
    @inlinable @inline(__always) public static var unread: Self { Self(unread: ()) }

    /// Reads a value at the cursor.
    ///
    /// - Important: a local `var` that is read into and returned moves out; an initializer that delegates
    ///   or reads into `self` copies the model (every inline string) once more.
    @inlinable @inline(__always) public static func read(from cursor: inout JSONCursor) throws(FastPathBail) -> Self {
        var value = unread
        try value.read(&cursor)
        return value
    }

    /// Reads into a placeholder and drops it: the checks of ``read(_:)``, for a hand-written model.
    @inlinable public static func validate(_ cursor: inout JSONCursor) throws(FastPathBail) {
        _ = try read(from: &cursor)
    }
}

/// A single-pass reader that decodes JSON straight into values, with no tape and no containers.
///
/// It validates everything it passes over as strictly as ``JSONReader`` (UTF-8, escapes, number grammar,
/// duplicate keys, trailing content). It never explains a failure: it throws ``FastPathBail``, also for
/// valid input it does not handle (escaped keys, integers written `1e2`, deep nesting inside unknown fields).
@frozen public struct JSONCursor {
    @usableFromInline let base: UnsafePointer<UInt8>
    @usableFromInline let count: Int
    /// The read position.
    @usableFromInline var i = 0
    @usableFromInline let maxDepth: Int
    /// The most keys of one object checked for duplicates by comparison (the fast path bails beyond).
    @usableFromInline static let maxComparedKeys = 32
    /// Members kept in ``UnknownFields`` bags so far.
    public internal(set) var unknownFieldCount = 0
    /// Where the root object's members go on after its tag, when the tag was its first member (set by
    /// ``findTag(_:)``, taken by the event's ``beginObject(_:)``).
    @usableFromInline var resumeAfterTag = 0
    /// Whether string values are validated and then dropped: ``string()``, ``inlineString()``,
    /// ``inlineIdentifier()`` and ``strings()`` return empty values after exactly the checks they make
    /// otherwise. For a reader that needs the outcome, not the event (``EventCatalog/validateFast(_:options:)``):
    /// no copy, no `String`, nothing to free afterwards.
    @usableFromInline let discardsValues: Bool

    /// A cursor at the start of `bytes`; bails on empty input or input over the reader's limits.
    public init(
        _ bytes: UnsafeRawBufferPointer, options: JSONReader.Options = JSONReader.Options(rejectDuplicateKeys: true),
        discardingValues: Bool = false
    ) throws(FastPathBail) {
        guard let start = bytes.baseAddress, bytes.count > 0, bytes.count <= options.maxBytes, options.maxDepth >= 8 else {
            throw FastPathBail()
        }
        base = start.assumingMemoryBound(to: UInt8.self)
        count = bytes.count
        discardsValues = discardingValues
        // Depth counts from an unknown member's value, which sits at most three levels down in a record
        // of the shipped models: keep well inside the reader's absolute limit.
        maxDepth = min(options.maxDepth - 4, 64)
    }

    // MARK: - Structure

    @inlinable @inline(__always) mutating func skipWhitespace() {
        while i < count {
            let c = base[i]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            i += 1
        }
    }

    /// The next byte that is not whitespace, not consumed.
    @inlinable @inline(__always) mutating func peek() throws(FastPathBail) -> UInt8 {
        skipWhitespace()
        guard i < count else { throw FastPathBail() }
        return base[i]
    }

    /// Consumes `{`; read the members with ``nextField(_:_:)`` and the same table.
    @inlinable public mutating func beginObject<Key>(_ fields: FieldTable<Key>) throws(FastPathBail) -> ObjectMembers {
        if resumeAfterTag > 0 && fields.entryCount > fields.keyCount {
            // The event's object, whose first member (the tag) was read when dispatching.
            i = resumeAfterTag
            resumeAfterTag = 0
            var members = ObjectMembers(hint: 0)
            members.started = true
            members.seen = 1 << UInt64(fields.keyCount)
            return members
        }
        guard try peek() == UInt8(ascii: "{") else { throw FastPathBail() }
        i += 1
        return ObjectMembers(hint: fields.firstHint)
    }

    /// The next member's key, positioned at its value; nil after the closing `}`.
    ///
    /// Members that `fields` does not name are validated and kept in `members.unknown`; the table's tag
    /// member is checked to be a string and skipped. A key seen twice bails.
    @inlinable @inline(__always) public mutating func nextField<Key>(_ fields: FieldTable<Key>, _ members: inout ObjectMembers) throws(FastPathBail) -> Key? {
        while true {
            // Compact JSON first: `,"name":` with the name the model expects next, compared in place. Before
            // the first member the comma's place holds the `{` (or whitespace, which the match then fails).
            let at = members.started ? i : i &- 1
            if let index = fields.quickMatch(base + at, available: count &- at, hint: members.hint, started: members.started) {
                i = at &+ fields.entries[index].patternLength
                members.started = true
                if let key = try accept(index, fields, &members) { return key }
                continue
            }
            // Any spacing, and members out of order or unknown.
            var c = try peek()
            if c == UInt8(ascii: "}") {
                i += 1
                // A required member that did not come: the general decoder names it.
                guard members.seen & fields.required == fields.required else { throw FastPathBail() }
                return nil
            }
            if members.started {
                guard c == UInt8(ascii: ",") else { throw FastPathBail() }
                i += 1
                c = try peek()
            }
            members.started = true
            guard c == UInt8(ascii: "\"") else { throw FastPathBail() }
            let keyStart = i
            let key = try plainString()
            let found = fields.index(of: key, words: keyWords(key), hint: members.hint)
            guard try peek() == UInt8(ascii: ":") else { throw FastPathBail() }
            i += 1
            guard let index = found else {
                try keepUnknownMember(keyStart: keyStart, key: key, in: &members.unknown)
                continue
            }
            if let key = try accept(index, fields, &members) { return key }
        }
    }

    /// Takes member `index` of `fields` if it comes next, written compactly (`,"name":`; `{"name":` first):
    /// the cursor is then at its value. For a reader that takes a model's members in their order before it
    /// falls back to ``nextField(_:_:)`` (which goes on from there); it must start with nothing seen but the
    /// tag and take each member once, so no duplicate is possible.
    @inlinable @inline(__always) public mutating func take<Key>(_ index: Int, _ fields: FieldTable<Key>, _ members: inout ObjectMembers) -> Bool {
        let at = members.started ? i : i &- 1
        guard fields.matches(index, base + at, available: count &- at, started: members.started) else { return false }
        i = at &+ fields.entries[index].patternLength
        members.started = true
        members.hint = index &+ 1
        members.seen |= 1 &<< UInt64(truncatingIfNeeded: index)
        return true
    }

    /// Takes the table entry `index` for the member whose value is next: its key, or nil for the tag
    /// (whose value is checked to be a string and skipped). A member seen twice bails.
    @inlinable @inline(__always) mutating func accept<Key>(_ index: Int, _ fields: FieldTable<Key>, _ members: inout ObjectMembers)
        throws(FastPathBail) -> Key?
    {
        // Wrapping and masking arithmetic: an index is below the table's 64 entries (checked in its init).
        members.hint = index &+ 1
        let bit: UInt64 = 1 &<< UInt64(truncatingIfNeeded: index)
        guard members.seen & bit == 0 else { throw FastPathBail() }
        members.seen |= bit
        if index < fields.keyCount { return fields.keys[index] }
        // The tag: its value was read before dispatching; here it only has to be a string.
        guard try peek() == UInt8(ascii: "\"") else { throw FastPathBail() }
        _ = try scanString()
        return nil
    }

    /// The first and last eight bytes of a key (fewer, zero-padded, for a shorter key), as
    /// ``FieldTable`` stores its names.
    @inlinable @inline(__always) func keyWords(_ key: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64) {
        let start = UnsafeRawPointer(key.baseAddress!)
        let n = key.count
        if n >= 8 { return (start.loadUnaligned(as: UInt64.self), start.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)) }
        // Eight bytes from the key's start stay inside the input: mask off what follows the key.
        if start + 8 <= UnsafeRawPointer(base + count) {
            return (start.loadUnaligned(as: UInt64.self) & (UInt64(1) << UInt64(n &* 8) &- 1), 0)
        }
        return (Self.words(key).0, 0)
    }

    /// The first and last eight bytes of `bytes`, zero-padded when shorter.
    @inlinable static func words(_ bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64) {
        if bytes.count >= 8 {
            let start = UnsafeRawPointer(bytes.baseAddress!)
            return (start.loadUnaligned(as: UInt64.self), start.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self))
        }
        var first: UInt64 = 0
        for (k, byte) in bytes.enumerated() { first |= UInt64(byte) << UInt64(k * 8) }
        return (first, 0)
    }

    /// Validates an unknown member's value and appends the member to `unknown`.
    @usableFromInline mutating func keepUnknownMember(keyStart: Int, key: UnsafeBufferPointer<UInt8>, in unknown: inout UnknownFields)
        throws(FastPathBail)
    {
        // Duplicates are found by comparing with every earlier key: fine for a few, quadratic for many.
        // A record with more unknown members goes to the reader, which hashes its keys.
        guard unknown.count < Self.maxComparedKeys else { throw FastPathBail() }
        let name = String(decoding: key, as: UTF8.self)
        guard !unknown.contains(name) else { throw FastPathBail() }
        skipWhitespace()
        let valueStart = i
        try skipValue(depth: 1)
        unknown.append(
            rawKey: UnsafeBufferPointer(start: base + keyStart, count: key.count + 2), name: name,
            rawValue: UnsafeBufferPointer(start: base + valueStart, count: i - valueStart))
        unknownFieldCount += 1
    }

    /// Consumes `[`; read the elements with ``nextElement(_:)``.
    @inlinable public mutating func beginArray() throws(FastPathBail) -> ArrayElements {
        guard try peek() == UInt8(ascii: "[") else { throw FastPathBail() }
        i += 1
        return ArrayElements()
    }

    /// Whether another element follows (the cursor is then at it); false after the closing `]`.
    @inlinable public mutating func nextElement(_ elements: inout ArrayElements) throws(FastPathBail) -> Bool {
        let c = try peek()
        if c == UInt8(ascii: "]") {
            i += 1
            return false
        }
        if elements.started {
            guard c == UInt8(ascii: ",") else { throw FastPathBail() }
            i += 1
        }
        elements.started = true
        return true
    }

    /// Consumes `null` if it is next.
    @inlinable @inline(__always) public mutating func null() throws(FastPathBail) -> Bool {
        guard try peek() == UInt8(ascii: "n") else { return false }
        guard i + 4 <= count, base[i + 1] == UInt8(ascii: "u"), base[i + 2] == UInt8(ascii: "l"), base[i + 3] == UInt8(ascii: "l")
        else { throw FastPathBail() }
        i += 4
        return true
    }

    /// Checks that only whitespace follows the root value.
    @inlinable public mutating func finish() throws(FastPathBail) {
        skipWhitespace()
        guard i == count else { throw FastPathBail() }
    }

    // MARK: - Values

    /// A string value.
    @inlinable @inline(__always) public mutating func string() throws(FastPathBail) -> String {
        guard try peek() == UInt8(ascii: "\"") else { throw FastPathBail() }
        let (start, end, escaped) = try scanString()
        if discardsValues { return "" }
        let raw = UnsafeBufferPointer(start: base + start, count: end - start)
        // `String(decoding:as:)` measured faster here than `init(unsafeUninitializedCapacity:initializingUTF8With:)`.
        if !escaped { return String(decoding: raw, as: UTF8.self) }
        return String(decoding: JSONString.unescape(raw), as: UTF8.self)
    }

    /// A string value, kept inline when it is short (see ``InlineString``).
    @inlinable @inline(__always) public mutating func inlineString() throws(FastPathBail) -> InlineString {
        guard try peek() == UInt8(ascii: "\"") else { throw FastPathBail() }
        let (start, end, escaped) = try scanString()
        if discardsValues { return InlineString() }
        let raw = UnsafeBufferPointer(start: base + start, count: end - start)
        // The scan stopped at no quote, backslash or control character: the text is written as it is.
        if !escaped { return InlineString(validUTF8: raw, isPlain: true) }
        // Unescaping never lengthens: a buffer of the raw length, on the stack when it is small.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: raw.count) { buffer in
            let n = JSONString.unescape(raw, into: buffer.baseAddress!)
            return InlineString(validUTF8: UnsafeBufferPointer(start: buffer.baseAddress, count: n))
        }
    }

    /// A non-empty string (an identifier), kept inline when it is short.
    @inlinable @inline(__always) public mutating func inlineIdentifier() throws(FastPathBail) -> InlineString {
        if discardsValues {
            try skipIdentifier()
            return InlineString()
        }
        let value = try inlineString()
        guard !value.isEmpty else { throw FastPathBail() }
        return value
    }

    /// Validates a non-empty string exactly as ``inlineIdentifier()`` does and moves past it, making nothing.
    @inlinable @inline(__always) public mutating func skipIdentifier() throws(FastPathBail) {
        // Empty is what an empty string unescapes to, and only that: an escape writes at least a byte.
        guard try peek() == UInt8(ascii: "\"") else { throw FastPathBail() }
        let (start, end, _) = try scanString()
        guard end > start else { throw FastPathBail() }
    }

    /// Validates a string exactly as ``string()`` and ``inlineString()`` do and moves past it, making nothing.
    @inlinable @inline(__always) public mutating func skipString() throws(FastPathBail) {
        guard try peek() == UInt8(ascii: "\"") else { throw FastPathBail() }
        _ = try scanString()
    }

    /// Validates an array of strings exactly as ``strings()`` does and moves past it, making nothing.
    @inlinable public mutating func skipStrings() throws(FastPathBail) {
        var elements = try beginArray()
        while try nextElement(&elements) { try skipString() }
    }

    /// An array of strings. (Kept as `String`s, not ``InlineString``s: a long array of short strings
    /// would take three times the memory.)
    @inlinable public mutating func strings() throws(FastPathBail) -> [String] {
        if discardsValues {
            try skipStrings()
            return []
        }
        var elements = try beginArray()
        var values: [String] = []
        while try nextElement(&elements) {
            // One allocation for the usual few elements instead of growing 1, 2, 4.
            if values.isEmpty { values.reserveCapacity(4) }
            values.append(try string())
        }
        return values
    }

    /// An integer written as plain digits (`-12`); anything else (`1e2`, `1.0`, 19 digits or more) bails.
    @inlinable @inline(__always) public mutating func int64() throws(FastPathBail) -> Int64 {
        var c = try peek()
        let negative = c == UInt8(ascii: "-")
        if negative {
            i += 1
            guard i < count else { throw FastPathBail() }
            c = base[i]
        }
        var value: Int64 = 0
        if c == UInt8(ascii: "0") {
            i += 1
        } else {
            let start = i
            while i < count, case let d = base[i] &- UInt8(ascii: "0"), d < 10 {
                value = value &* 10 &+ Int64(d)
                i += 1
            }
            guard i > start, i - start <= 18 else { throw FastPathBail() }
        }
        if i < count {
            let d = base[i]
            if d &- UInt8(ascii: "0") < 10 || d == UInt8(ascii: ".") || d | 0x20 == UInt8(ascii: "e") || d == UInt8(ascii: "+")
                || d == UInt8(ascii: "-")
            {
                throw FastPathBail()
            }
        }
        return negative ? -value : value
    }

    /// An `Int` written as plain digits.
    @inlinable public mutating func int() throws(FastPathBail) -> Int { Int(try int64()) }

    /// An `Int`, or nil for `null`.
    @inlinable public mutating func optionalInt() throws(FastPathBail) -> Int? {
        try null() ? nil : Int(try int64())
    }

    /// An RFC 3339 timestamp written without escapes.
    @inlinable public mutating func timestamp() throws(FastPathBail) -> Timestamp {
        if discardsValues {
            try skipTimestamp()
            return .unread
        }
        let raw = try timestampText()
        guard let parsed = Timestamp.parse(raw) else { throw FastPathBail() }
        return Timestamp(bytes: raw, parsed)
    }

    /// Validates a timestamp exactly as ``timestamp()`` does and moves past it; the instant and the text
    /// are not made. For a reader that discards values: it leaves its placeholder where it is instead of
    /// assigning another (a `Timestamp` holds an inline string: its assignment is not a plain copy).
    @inlinable public mutating func skipTimestamp() throws(FastPathBail) {
        guard Timestamp.isValid(try timestampText()) else { throw FastPathBail() }
    }

    /// A timestamp's text: a string value without escapes (an escaped one goes to the general decoder).
    @inlinable @inline(__always) mutating func timestampText() throws(FastPathBail) -> UnsafeBufferPointer<UInt8> {
        guard try peek() == UInt8(ascii: "\"") else { throw FastPathBail() }
        let (start, end, escaped) = try scanString()
        guard !escaped else { throw FastPathBail() }
        return UnsafeBufferPointer(start: base + start, count: end - start)
    }

    // MARK: - Strings

    /// A string without escapes (a key): its bytes between the quotes.
    @inlinable mutating func plainString() throws(FastPathBail) -> UnsafeBufferPointer<UInt8> {
        let (start, end, escaped) = try scanString()
        guard !escaped else { throw FastPathBail() }
        return UnsafeBufferPointer(start: base + start, count: end - start)
    }

    /// Validates the string at `i` (which holds `"`) and moves past it.
    ///
    /// - Returns: the range between the quotes, and whether it holds an escape.
    @inlinable @inline(__always) mutating func scanString() throws(FastPathBail) -> (start: Int, end: Int, escaped: Bool) {
        i += 1
        let start = i
        // Straight to the first byte that needs a look (sixteen bytes per step): in most strings, the quote.
        i += sy_json_plain_prefix(base + i, count - i)
        if i < count && base[i] == UInt8(ascii: "\"") {
            i += 1
            return (start, i - 1, false)
        }
        return try scanStringRest(start: start)
    }

    /// ``scanString()`` from a byte other than the closing quote: escapes, UTF-8 sequences, the end.
    @usableFromInline mutating func scanStringRest(start: Int) throws(FastPathBail) -> (start: Int, end: Int, escaped: Bool) {
        var escaped = false
        while true {
            guard i < count else { throw FastPathBail() }
            let c = base[i]
            if c == UInt8(ascii: "\"") { break }
            if c == UInt8(ascii: "\\") {
                escaped = true
                try skipEscape()
            } else if c >= 0x80 {
                try skipUTF8Sequence()
            } else if c < 0x20 {
                throw FastPathBail()
            } else {
                i += 1
            }
            i += sy_json_plain_prefix(base + i, count - i)
        }
        let end = i
        i += 1
        return (start, end, escaped)
    }

    /// Validates one escape at `i` (which holds the backslash) and moves past it.
    @usableFromInline mutating func skipEscape() throws(FastPathBail) {
        guard case .valid(let length) = JSONValidation.escape(base, count: count, at: i) else { throw FastPathBail() }
        i += length
    }

    /// Validates one multi-byte UTF-8 sequence at `i` and moves past it.
    @usableFromInline mutating func skipUTF8Sequence() throws(FastPathBail) {
        let length = JSONValidation.utf8SequenceLength(base, count: count, at: i)
        guard length > 0 else { throw FastPathBail() }
        i += length
    }

    // MARK: - Skipping

    /// Validates the value at the cursor and moves past it; objects must not repeat a key.
    @usableFromInline mutating func skipValue(depth: Int) throws(FastPathBail) {
        switch try peek() {
        case UInt8(ascii: "\""):
            _ = try scanString()
        case UInt8(ascii: "{"):
            guard depth <= maxDepth else { throw FastPathBail() }
            i += 1
            var keys: [UnsafeBufferPointer<UInt8>] = []
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
                let key = try plainString()
                guard keys.count < Self.maxComparedKeys else { throw FastPathBail() }
                for other in keys where other.count == key.count && memcmp(other.baseAddress!, key.baseAddress!, key.count) == 0 {
                    throw FastPathBail()
                }
                keys.append(key)
                guard try peek() == UInt8(ascii: ":") else { throw FastPathBail() }
                i += 1
                try skipValue(depth: depth + 1)
            }
        case UInt8(ascii: "["):
            guard depth <= maxDepth else { throw FastPathBail() }
            i += 1
            var elements = ArrayElements()
            while try nextElement(&elements) { try skipValue(depth: depth + 1) }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try skipNumber()
        case UInt8(ascii: "t"):
            try skipLiteral("true")
        case UInt8(ascii: "f"):
            try skipLiteral("false")
        case UInt8(ascii: "n"):
            try skipLiteral("null")
        default:
            throw FastPathBail()
        }
    }

    @usableFromInline mutating func skipLiteral(_ text: StaticString) throws(FastPathBail) {
        let length = text.utf8CodeUnitCount
        guard i + length <= count, memcmp(base + i, text.utf8Start, length) == 0 else { throw FastPathBail() }
        i += length
    }

    /// Validates a number (RFC 8259 grammar) and moves past it.
    @usableFromInline mutating func skipNumber() throws(FastPathBail) {
        func digits() -> Int {
            let start = i
            while i < count && base[i] &- UInt8(ascii: "0") < 10 { i += 1 }
            return i - start
        }
        if base[i] == UInt8(ascii: "-") { i += 1 }
        guard i < count else { throw FastPathBail() }
        if base[i] == UInt8(ascii: "0") {
            i += 1
        } else {
            guard digits() > 0 else { throw FastPathBail() }
        }
        if i < count && base[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { throw FastPathBail() }
        }
        if i < count && base[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < count && (base[i] == UInt8(ascii: "+") || base[i] == UInt8(ascii: "-")) { i += 1 }
            guard digits() > 0 else { throw FastPathBail() }
        }
        if i < count {
            let d = base[i]
            if d &- UInt8(ascii: "0") < 10 || d == UInt8(ascii: ".") || d | 0x20 == UInt8(ascii: "e") || d == UInt8(ascii: "+")
                || d == UInt8(ascii: "-")
            {
                throw FastPathBail()
            }
        }
    }

    // MARK: - Whole records

    /// The tag's bytes (a string without escapes) in the root object, which is validated up to it.
    /// The cursor is left where it was.
    @usableFromInline mutating func findTag(_ tagKey: String) throws(FastPathBail) -> UnsafeBufferPointer<UInt8> {
        let start = i
        defer { i = start }
        // The usual layout, compact with the tag first (`{"type":"`): its key compared in place, no scan.
        let leads = tagKey.utf8.withContiguousStorageIfAvailable { key in
            let n = key.count
            guard count - i > n + 4, base[i] == UInt8(ascii: "{"), base[i + 1] == UInt8(ascii: "\""),
                base[i + n + 2] == UInt8(ascii: "\""), base[i + n + 3] == UInt8(ascii: ":"), base[i + n + 4] == UInt8(ascii: "\"")
            else { return false }
            return memcmp(base + i + 2, key.baseAddress!, n) == 0
        }
        if leads == true {
            i += tagKey.utf8.count + 4
            let tag = try plainString()
            resumeAfterTag = i
            return tag
        }
        guard try peek() == UInt8(ascii: "{") else { throw FastPathBail() }
        i += 1
        var started = false
        var first = true
        while true {
            var c = try peek()
            if started {
                guard c == UInt8(ascii: ",") else { throw FastPathBail() }
                i += 1
                c = try peek()
            }
            started = true
            guard c == UInt8(ascii: "\"") else { throw FastPathBail() }
            let key = try plainString()
            guard try peek() == UInt8(ascii: ":") else { throw FastPathBail() }
            i += 1
            let isTag = tagKey.utf8.withContiguousStorageIfAvailable { tag in
                tag.count == key.count && memcmp(tag.baseAddress!, key.baseAddress!, key.count) == 0
            } ?? key.elementsEqual(tagKey.utf8)
            if isTag {
                guard try peek() == UInt8(ascii: "\"") else { throw FastPathBail() }
                let tag = try plainString()
                // The usual layout, tag first: the event's reader starts after it instead of reading it again.
                if first { resumeAfterTag = i }
                return tag
            }
            first = false
            try skipValue(depth: 1)
        }
    }

    /// Whether `bytes` is one valid JSON value without repeated keys, as far as the fast path decides
    /// (false also for valid input it leaves to ``JSONReader``, such as nesting deeper than 64).
    public static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        do throws(FastPathBail) {
            var cursor = try JSONCursor(bytes)
            try cursor.validateDocument()
            return true
        } catch {
            return false
        }
    }

    /// Validates the whole input as one JSON value (no repeated keys).
    @usableFromInline mutating func validateDocument() throws(FastPathBail) {
        i = 0
        try skipValue(depth: 1)
        try finish()
    }
}

/// Where a cursor is inside an object (see ``JSONCursor/nextField(_:_:)``).
public struct ObjectMembers {
    @usableFromInline var started = false
    /// The table entries seen so far, one bit each.
    @usableFromInline var seen: UInt64 = 0
    /// The entry to try first: members usually come in the model's order.
    @usableFromInline var hint = 0
    /// The members the table did not name, in order.
    public var unknown = UnknownFields()
    @inlinable init(hint: Int) { self.hint = hint }
}

/// Where a cursor is inside an array (see ``JSONCursor/nextElement(_:)``).
public struct ArrayElements {
    @usableFromInline var started = false
    @inlinable init() {}
}

/// The member names of one model, matched against raw key bytes: its coding keys, plus the catalog's tag
/// for an event. Members are required unless named in `optional`.
///
/// - Important: a table's memory is never freed: keep each table in a `static let` (one per model).
///   That makes reading it free of reference counting on the hot path.
public struct FieldTable<Key: CodingKey & CaseIterable>: @unchecked Sendable where Key: Sendable {
    // @unchecked: the pointers are written once in `init` and only read afterwards.

    /// The keys, in table order; the tag, if any, is the entry after them.
    @usableFromInline let keys: UnsafePointer<Key>
    @usableFromInline let keyCount: Int
    /// Each name as its length and its first and last eight bytes (zero-padded when shorter).
    @usableFromInline let entries: UnsafePointer<Entry>
    @usableFromInline let entryCount: Int
    /// The entries a valid object must have, one bit each.
    @usableFromInline let required: UInt64
    /// The entry expected first: the tag for an event (producers write it first), else the first key.
    @usableFromInline let firstHint: Int
    /// For an event's table: how its canonical encoding starts, `{"type":"payment.captured"`.
    @usableFromInline let eventPrefix: UnsafeRawBufferPointer

    @usableFromInline struct Entry {
        @usableFromInline let length: Int
        @usableFromInline let first: UInt64
        @usableFromInline let last: UInt64
        /// The name's bytes, for names longer than 16 bytes (the two words do not cover them).
        @usableFromInline let long: UnsafePointer<UInt8>?
        /// The member as compact JSON writes it after another: `,"name":`, as its first eight bytes
        /// (zero-padded), its last eight and the eight after the first (for patterns over 16 bytes).
        @usableFromInline let pattern: (UInt64, UInt64, UInt64)
        /// The pattern's length (the name's plus 4); 0 for names too long to match this way.
        @usableFromInline let patternLength: Int
        /// The bytes of the first word that belong to the pattern.
        @usableFromInline let headMask: UInt64
    }

    /// The table of `Key`'s cases; `tag` names the catalog's tag member and `type` the event's tag value
    /// when the model is an event.
    public init(_ key: Key.Type, tag: String? = nil, type: String? = nil, optional: [Key] = []) {
        let keys = Array(Key.allCases)
        var entries: [Entry] = []
        var required: UInt64 = 0
        for (index, name) in (keys.map(\.stringValue) + (tag.map { [$0] } ?? [])).enumerated() {
            let bytes = Array(name.utf8)
            precondition(
                !bytes.isEmpty && bytes.allSatisfy { $0 >= 0x20 && $0 != 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") },
                "a field name must need no escaping in JSON: \(name)")
            let (first, last) = bytes.withUnsafeBufferPointer { JSONCursor.words($0) }
            var long: UnsafePointer<UInt8>?
            if bytes.count > 16 {
                let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
                copy.initialize(from: bytes, count: bytes.count)
                long = UnsafePointer(copy)
            }
            let member = Array(",\"".utf8) + bytes + Array("\":".utf8)
            let fits = member.count <= 24
            func word(_ offset: Int) -> UInt64 {
                member[offset..<min(offset + 8, member.count)].enumerated().reduce(0) { $0 | UInt64($1.element) << UInt64($1.offset * 8) }
            }
            entries.append(
                Entry(
                    length: bytes.count, first: first, last: last, long: long,
                    pattern: (word(0), member.count >= 8 ? word(member.count - 8) : 0, member.count > 16 ? word(8) : 0),
                    patternLength: fits ? member.count : 0,
                    headMask: member.count >= 8 ? ~0 : (UInt64(1) << UInt64(member.count * 8)) - 1))
            if index < keys.count && !optional.contains(where: { $0.stringValue == name }) { required |= 1 << UInt64(index) }
        }
        precondition(entries.count <= 64, "a field table holds at most 64 names")
        let keyStorage = UnsafeMutablePointer<Key>.allocate(capacity: max(keys.count, 1))
        keyStorage.initialize(from: keys, count: keys.count)
        let entryStorage = UnsafeMutablePointer<Entry>.allocate(capacity: max(entries.count, 1))
        entryStorage.initialize(from: entries, count: entries.count)
        self.keys = UnsafePointer(keyStorage)
        keyCount = keys.count
        self.entries = UnsafePointer(entryStorage)
        entryCount = entries.count
        self.required = required
        firstHint = tag == nil ? 0 : keys.count
        var prefix: [UInt8] = []
        if let tag, let type {
            prefix.append(UInt8(ascii: "{"))
            JSONString.appendQuoted(tag, to: &prefix)
            prefix.append(UInt8(ascii: ":"))
            JSONString.appendQuoted(type, to: &prefix)
        }
        let prefixStorage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(prefix.count, 1), alignment: 1)
        prefixStorage.copyBytes(from: prefix)
        eventPrefix = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(prefixStorage)[..<prefix.count])
    }

    /// The entry `hint` (or the one after it) if the bytes at `start` are its member pattern, `,"name":`
    /// (`available` bytes may be read from `start`). Before the first member (`started` false) the first
    /// byte is not compared. Names need no escaping and are valid UTF-8 (checked in `init`), so bytes that match one need
    /// no validation.
    @inlinable @inline(__always) func quickMatch(_ start: UnsafePointer<UInt8>, available: Int, hint: Int, started: Bool) -> Int? {
        // The expected member, or the one after it (an optional member left out).
        let n = entryCount
        let first = hint < n ? hint : 0
        if matches(first, start, available: available, started: started) { return first }
        let second = first &+ 1 < n ? first &+ 1 : 0
        if matches(second, start, available: available, started: started) { return second }
        return nil
    }

    /// Whether the bytes at `start` are entry `index`'s member pattern, `,"name":` (see ``quickMatch``).
    @inlinable @inline(__always) func matches(_ index: Int, _ start: UnsafePointer<UInt8>, available: Int, started: Bool) -> Bool {
        let e = entries[index]
        let n = e.patternLength
        // Eight bytes are read even for a shorter pattern (its mask drops the rest): they must be there.
        guard n > 0, available >= 8, available >= n else { return false }
        let raw = UnsafeRawPointer(start)
        let mask = e.headMask & (started ? ~0 : ~0xFF)
        guard raw.loadUnaligned(as: UInt64.self) & mask == e.pattern.0 & mask else { return false }
        if n <= 8 { return true }
        guard raw.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self) == e.pattern.1 else { return false }
        return n <= 16 || raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self) == e.pattern.2
    }

    /// The index of the entry whose name is `key` (whose words are `words`), trying `hint` first.
    @inlinable func index(of key: UnsafeBufferPointer<UInt8>, words: (UInt64, UInt64), hint: Int) -> Int? {
        @inline(__always) func matches(_ e: Entry) -> Bool {
            guard e.length == key.count, e.first == words.0, e.last == words.1 else { return false }
            guard let long = e.long else { return true }
            return memcmp(long, key.baseAddress!, key.count) == 0
        }
        if hint < entryCount && matches(entries[hint]) { return hint }
        for k in 0..<entryCount where matches(entries[k]) { return k }
        return nil
    }
}
