import CJSONScan

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Text kept in the value itself when it is short: up to 40 bytes of UTF-8 (identifiers such as
/// `evt_01J5Z4MXX80X6ZZN04H6P493P6` or a UUID, codes, names, timestamps). Longer text is a `String`.
///
/// A Swift `String` longer than 15 bytes lives on the heap, so decoding a record with three 30-byte
/// identifiers meant three allocations, and dropping it three more calls to free them: a fifth of the
/// decode. As a property wrapper it keeps the models' public API in `String`s:
///
/// ```swift
/// @InlineString public var paymentId: String   // the API: a String, made when it is read
/// $paymentId                                    // the storage, without making a String
/// ```
///
/// Reading `paymentId` makes a `String` each time (an allocation above 15 bytes); keep it in a local
/// when a handler reads it often. Two values are equal when their UTF-8 bytes are: the bytes as they
/// came on the wire, not Unicode canonical equivalence (`String`'s `==`).
@propertyWrapper
public struct InlineString: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    @usableFromInline enum Storage: Sendable {
        case inline(Inline)
        case string(String)
    }

    /// Up to ``capacity`` bytes and their count; the bytes after `count` are zero.
    @usableFromInline struct Inline: Sendable {
        @usableFromInline var words: (UInt64, UInt64, UInt64, UInt64, UInt64)
        @usableFromInline var count: UInt8
        /// Whether JSON writes the bytes as they are (no `"`, `\` or control character): a writer then
        /// copies the words without a look.
        @usableFromInline var isPlain: Bool

        @inlinable init(words: (UInt64, UInt64, UInt64, UInt64, UInt64), count: UInt8, isPlain: Bool) {
            self.words = words
            self.count = count
            self.isPlain = isPlain
        }
    }

    @usableFromInline var storage: Storage

    /// The most UTF-8 bytes kept inline.
    public static let capacity = 40

    /// Text from UTF-8 bytes that are known to be valid (checked by the reader that found them);
    /// `isPlain` when they are known to hold no `"`, `\` or control character.
    @inlinable init(validUTF8 bytes: UnsafeBufferPointer<UInt8>, isPlain: Bool? = nil) {
        guard bytes.count <= Self.capacity else {
            storage = .string(String(decoding: bytes, as: UTF8.self))
            return
        }
        var words: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
        if let source = bytes.baseAddress {
            withUnsafeMutableBytes(of: &words) { sy_copy($0.baseAddress!.assumingMemoryBound(to: UInt8.self), source, bytes.count) }
        }
        let plain = isPlain ?? !JSONString.needsEscaping(bytes)
        storage = .inline(Inline(words: words, count: UInt8(truncatingIfNeeded: bytes.count), isPlain: plain))
    }

    /// Empty text.
    @inlinable public init() {
        storage = .inline(Inline(words: (0, 0, 0, 0, 0), count: 0, isPlain: true))
    }

    /// The text of `string`.
    @inlinable public init(_ string: String) {
        var string = string
        self = string.withUTF8 { InlineString(validUTF8: $0) }
    }

    @inlinable public init(stringLiteral value: String) { self.init(value) }

    @inlinable public init(wrappedValue: String) { self.init(wrappedValue) }

    /// The text as a `String` (made on each read when the text is inline).
    @inlinable public var wrappedValue: String {
        get { string }
        set { self = InlineString(newValue) }
    }

    /// The storage itself: compare, hash or write the text without making a `String`.
    @inlinable public var projectedValue: InlineString {
        get { self }
        set { self = newValue }
    }

    /// The text as a `String`.
    @inlinable public var string: String {
        switch storage {
        case .inline: return withUTF8 { String(decoding: $0, as: UTF8.self) }
        case .string(let text): return text
        }
    }

    public var description: String { string }

    /// The number of UTF-8 bytes.
    @inlinable public var utf8Count: Int {
        switch storage {
        case .inline(let inline): return Int(inline.count)
        case .string(let text): return text.utf8.count
        }
    }

    @inlinable public var isEmpty: Bool { utf8Count == 0 }

    /// Calls `body` with the text's UTF-8 bytes.
    @inlinable public func withUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        switch storage {
        case .inline(let inline):
            var words = inline.words
            return try withUnsafeBytes(of: &words) {
                try body(UnsafeBufferPointer(start: $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: Int(inline.count)))
            }
        case .string(var text):
            return try text.withUTF8(body)
        }
    }

    public static func == (a: InlineString, b: InlineString) -> Bool {
        switch (a.storage, b.storage) {
        case (.inline(let x), .inline(let y)):
            // The bytes after the count are zero: comparing all five words compares the text.
            return x.count == y.count && x.words.0 == y.words.0 && x.words.1 == y.words.1 && x.words.2 == y.words.2
                && x.words.3 == y.words.3 && x.words.4 == y.words.4
        case (.string(let x), .string(let y)):
            return x.utf8.elementsEqual(y.utf8)
        default:
            // Text that fits is always inline: one of each cannot hold the same bytes.
            return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Orders by UTF-8 bytes (code point order).
    public static func < (a: InlineString, b: InlineString) -> Bool {
        a.withUTF8 { x in
            b.withUTF8 { y in
                let n = min(x.count, y.count)
                let order = n == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, n)
                return order < 0 || (order == 0 && x.count < y.count)
            }
        }
    }
}

/// ``InlineString`` for an optional member: `@OptionalInlineString public var country: String?`. Like
/// ``Nullable``, it keeps an explicit `null` apart from an absent member.
@propertyWrapper
public struct OptionalInlineString: Sendable, Hashable {
    /// The text without making a `String`, or nil when absent or `null`.
    public var value: InlineString?
    /// Whether the member was (or is to be written as) an explicit `null`.
    public var isNull: Bool

    /// Absent.
    @inlinable public init() {
        value = nil
        isNull = false
    }

    /// A text.
    @inlinable public init(_ value: InlineString) {
        self.value = value
        isNull = false
    }

    @inlinable public init(wrappedValue: String?) {
        value = wrappedValue.map { InlineString($0) }
        isNull = false
    }

    /// An explicit `null`.
    @inlinable public static var null: Self {
        var member = Self()
        member.isNull = true
        return member
    }

    /// The text as a `String` (made on each read), or nil. Assigning nil makes the member absent unless it
    /// was `null`.
    @inlinable public var wrappedValue: String? {
        get { value?.string }
        set {
            value = newValue.map { InlineString($0) }
            if newValue != nil { isNull = false }
        }
    }

    /// The member itself: `$country.value`, `$country.isNull`.
    @inlinable public var projectedValue: Self {
        get { self }
        set { self = newValue }
    }
}
