import CJSONScan

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes canonical JSON directly, for ``FastCodable`` values: the same bytes as ``CanonicalJSONEncoder``
/// (compact, members in model order, unknown members last and verbatim), without encoder containers.
///
/// It writes into memory of its own (no array uniqueness checks per byte); ``bytes`` copies the result
/// out. Commas are placed by the writer: call ``key(_:)`` before each member's value and ``element()``
/// before each array element.
public struct CanonicalWriter: ~Copyable {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    /// The number of bytes written.
    @usableFromInline var count = 0
    /// Whether the next member or element needs a comma before it.
    @usableFromInline var needsComma = false

    /// A writer with room for `capacity` bytes to start with.
    public init(capacity: Int = 512) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The bytes written so far.
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    // MARK: Bytes

    @inlinable @inline(__always) mutating func reserve(_ n: Int) {
        if count &+ n > capacity { grow(n) }
    }

    @usableFromInline mutating func grow(_ n: Int) {
        let newCapacity = max(capacity * 2, count + n)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inlinable @inline(__always) mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count &+= 1
    }

    @inlinable @inline(__always) mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: bytes.count)
        count &+= bytes.count
    }

    @inlinable mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    // MARK: Structure

    @inlinable public mutating func beginObject() {
        append(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Closes the object, after the unknown members kept when it was read.
    @inlinable public mutating func endObject(unknown: UnknownFields) {
        if let members = unknown.members {
            if needsComma { append(UInt8(ascii: ",")) }
            append(members.text)
        }
        append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Starts a member: `"name":`. The name must need no escaping (a coding key).
    @inlinable @inline(__always) public mutating func key(_ name: StaticString) {
        let n = name.utf8CodeUnitCount
        reserve(n &+ 4)
        if needsComma {
            base[count] = UInt8(ascii: ",")
            count &+= 1
        }
        needsComma = true
        base[count] = UInt8(ascii: "\"")
        sy_copy(base + count + 1, name.utf8Start, n)
        base[count &+ n &+ 1] = UInt8(ascii: "\"")
        base[count &+ n &+ 2] = UInt8(ascii: ":")
        count &+= n &+ 3
    }

    @inlinable public mutating func beginArray() {
        append(UInt8(ascii: "["))
        needsComma = false
    }

    /// Starts an array element.
    @inlinable public mutating func element() {
        if needsComma { append(UInt8(ascii: ",")) }
        needsComma = true
    }

    @inlinable public mutating func endArray() {
        append(UInt8(ascii: "]"))
        needsComma = true
    }

    // MARK: Values

    /// A string, quoted, with minimal escaping (as ``JSONString/appendQuoted(_:to:)``).
    @inlinable public mutating func string(_ value: String) {
        let written: Void? = value.utf8.withContiguousStorageIfAvailable { quoted($0) }
        if written == nil {
            // A string without contiguous UTF-8 (bridged): the general routine.
            var quoted: [UInt8] = []
            JSONString.appendQuoted(value, to: &quoted)
            append(quoted)
        }
    }

    /// A string kept inline, quoted, with minimal escaping.
    @inlinable public mutating func string(_ value: InlineString) {
        if case .inline(let inline) = value.storage, inline.isPlain {
            // All five words at once: the bytes past the text are overwritten by what comes next.
            let n = Int(inline.count)
            reserve(InlineString.capacity &+ 2)
            base[count] = UInt8(ascii: "\"")
            UnsafeMutableRawPointer(base + count + 1).storeBytes(of: inline.words, as: (UInt64, UInt64, UInt64, UInt64, UInt64).self)
            base[count &+ n &+ 1] = UInt8(ascii: "\"")
            count &+= n &+ 2
            return
        }
        value.withUTF8 { quoted($0) }
    }

    /// UTF-8 text, quoted, with minimal escaping.
    @inlinable @inline(__always) mutating func quoted(_ utf8: UnsafeBufferPointer<UInt8>) {
        guard JSONString.needsEscaping(utf8) else {
            reserve(utf8.count &+ 2)
            base[count] = UInt8(ascii: "\"")
            if let source = utf8.baseAddress { sy_copy(base + count + 1, source, utf8.count) }
            base[count &+ utf8.count &+ 1] = UInt8(ascii: "\"")
            count &+= utf8.count &+ 2
            return
        }
        reserve(utf8.count &* 6 &+ 2)
        count &+= JSONString.writeQuoted(utf8, to: base + count)
    }

    @inlinable public mutating func strings(_ values: [String]) {
        beginArray()
        for value in values {
            element()
            string(value)
        }
        endArray()
    }

    @inlinable public mutating func int<T: FixedWidthInteger>(_ value: T) {
        reserve(21)
        count &+= JSONNumber.writeInteger(value, to: base + count)
    }

    /// A timestamp, as it was written (RFC 3339 text needs no escaping).
    @inlinable public mutating func timestamp(_ value: Timestamp) {
        // Its text is an inline string, marked plain when parsed: written as five words.
        string(value.storage)
    }

    /// Bytes that already are a JSON value (an unknown event's record).
    @inlinable public mutating func raw(_ value: RawJSON) {
        append(value.bytes)
    }

    /// A nested value.
    @inlinable public mutating func value<T: FastCodable>(_ value: T) {
        value.write(to: &self)
    }
}

/// Number text shared by the encoders.
public enum JSONNumber {
    /// Appends the decimal digits of `value`.
    @inlinable public static func appendInteger<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
            let n = writeInteger(value, to: buffer.baseAddress!)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<n]))
        }
    }

    /// Writes the decimal digits of `value` at `out` (room for 21 bytes); returns how many.
    @inlinable public static func writeInteger<T: FixedWidthInteger>(_ value: T, to out: UnsafeMutablePointer<UInt8>) -> Int {
        if value == 0 {
            out[0] = UInt8(ascii: "0")
            return 1
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch
        return withUnsafeMutableBytes(of: &digits) { buffer in
            var i = buffer.count
            var magnitude = value.magnitude
            while magnitude > 0 {
                i -= 1
                buffer[i] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            }
            var n = 0
            if value < 0 {
                out[0] = UInt8(ascii: "-")
                n = 1
            }
            let length = buffer.count - i
            (out + n).update(from: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self) + i, count: length)
            return n + length
        }
    }
}

extension CanonicalWriter {
    /// Starts an event's object with its tag member, as the event's field table holds it:
    /// `{"type":"payment.captured"`.
    @inlinable public mutating func beginEvent<Key>(_ fields: FieldTable<Key>) {
        append(fields.eventPrefix)
        needsComma = true
    }
}

// MARK: - The envelope

extension Envelope {
    /// Writes the envelope members into the event's object (defaults written out).
    @inlinable public func write(to writer: inout CanonicalWriter) {
        writer.key("id")
        writer.string($id)
        writer.key("occurredAt")
        writer.timestamp(occurredAt)
        writer.key("schemaVersion")
        writer.int(schemaVersion)
    }
}

extension Envelope {
    /// The placeholder an event read by the fast path starts from; `id` and `occurredAt` must be required
    /// entries of the event's ``FieldTable``, so that a record without them is not decided on the fast path.
    /// Made in place each time: a stored one would be copied, inline strings and all.
    @inlinable public static var unread: Envelope { Envelope(unread: ()) }

    /// Every member at its default (an empty `id`, no timestamp, version 1).
    @inlinable init(unread: Void) {}

    /// Reads the value of the envelope member `key` (`id`, `occurredAt` or `schemaVersion`): the envelope's
    /// members sit flat in the event's object.
    ///
    /// A cursor that discards values only validates `id` and `occurredAt`: they keep their placeholders.
    @inlinable @inline(__always) public mutating func read<Key: EnvelopeCodingKey & Equatable>(_ key: Key, _ cursor: inout JSONCursor) throws(FastPathBail) {
        if key == .id {
            if cursor.discardsValues { try cursor.skipIdentifier() } else { $id = try cursor.inlineIdentifier() }
        } else if key == .occurredAt {
            if cursor.discardsValues { try cursor.skipTimestamp() } else { occurredAt = try cursor.timestamp() }
        } else {
            schemaVersion = try cursor.null() ? 1 : try cursor.int(minimum: 1)
        }
    }

    /// Checks the value of the envelope member `key` exactly as ``read(_:_:)`` does, making nothing (see
    /// ``FastCodable/validate(_:)``).
    @inlinable @inline(__always) public static func validate<Key: EnvelopeCodingKey & Equatable>(_ key: Key, _ cursor: inout JSONCursor) throws(FastPathBail) {
        if key == .id {
            try cursor.skipIdentifier()
        } else if key == .occurredAt {
            try cursor.skipTimestamp()
        } else if try !cursor.null() {
            _ = try cursor.int(minimum: 1)
        }
    }
}
