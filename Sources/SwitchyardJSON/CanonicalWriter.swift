/// Writes canonical JSON directly, for ``FastCodable`` values: the same bytes as ``CanonicalJSONEncoder``
/// (compact, members in model order, unknown members last and verbatim), without encoder containers.
///
/// Commas are placed by the writer: call ``key(_:)`` before each member's value and ``element()``
/// before each array element.
@frozen public struct CanonicalWriter {
    /// The bytes written so far.
    public var bytes: [UInt8]
    /// Whether the next member or element needs a comma before it.
    @usableFromInline var needsComma = false

    /// A writer with room for `capacity` bytes.
    public init(capacity: Int = 512) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    @inlinable public mutating func beginObject() {
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Closes the object, after the unknown members kept when it was read.
    @inlinable public mutating func endObject(unknown: UnknownFields) {
        if let members = unknown.members {
            if needsComma { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: members.text)
        }
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Starts a member: `"name":`. The name must need no escaping (a coding key).
    @inlinable public mutating func key(_ name: StaticString) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    @inlinable public mutating func beginArray() {
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    /// Starts an array element.
    @inlinable public mutating func element() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    @inlinable public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    @inlinable public mutating func string(_ value: String) {
        JSONString.appendQuoted(value, to: &bytes)
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
        JSONNumber.appendInteger(value, to: &bytes)
    }

    /// A timestamp, as it was written.
    @inlinable public mutating func timestamp(_ value: Timestamp) {
        JSONString.appendQuoted(value.text, to: &bytes)
    }

    /// Bytes that already are a JSON value (an unknown event's record).
    @inlinable public mutating func raw(_ value: RawJSON) {
        bytes.append(contentsOf: value.bytes)
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
        if value == 0 {
            out.append(UInt8(ascii: "0"))
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch
        withUnsafeMutableBytes(of: &digits) { buffer in
            var i = buffer.count
            var magnitude = value.magnitude
            while magnitude > 0 {
                i -= 1
                buffer[i] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            }
            if value < 0 { out.append(UInt8(ascii: "-")) }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[i...]))
        }
    }
}

extension CanonicalWriter {
    /// Starts an event's object with its tag member: `{"type":"payment.captured"`.
    @inlinable public mutating func beginEvent(tagKey: String, type: String) {
        beginObject()
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        JSONString.appendQuoted(tagKey, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        JSONString.appendQuoted(type, to: &bytes)
        needsComma = true
    }
}

// MARK: - The envelope

extension Envelope {
    /// Writes the envelope members into the event's object (defaults written out).
    @inlinable public func write(to writer: inout CanonicalWriter) {
        writer.key("id")
        writer.string(id)
        writer.key("occurredAt")
        writer.timestamp(occurredAt)
        writer.key("schemaVersion")
        writer.int(schemaVersion)
    }
}

/// The envelope members of an event that the fast path is reading (they sit flat in the event's object).
///
/// - Important: `id` and `occurredAt` must be required entries of the event's ``FieldTable``: this type
///   holds placeholders until they are read.
public struct EnvelopeFields {
    @usableFromInline var id = ""
    @usableFromInline var occurredAt = Timestamp(text: "", (0, 0, 0))
    @usableFromInline var schemaVersion = 1

    @inlinable public init() {}

    /// Reads the value of the envelope member `key` (`id`, `occurredAt` or `schemaVersion`).
    @inlinable public mutating func read<Key: EnvelopeCodingKey & Equatable>(_ key: Key, _ cursor: inout JSONCursor) throws(FastPathBail) {
        if key == .id {
            id = try cursor.identifier()
        } else if key == .occurredAt {
            occurredAt = try cursor.timestamp()
        } else {
            schemaVersion = try cursor.optionalInt() ?? 1
        }
    }

    /// The envelope.
    @inlinable public var envelope: Envelope {
        Envelope(id: id, occurredAt: occurredAt, schemaVersion: schemaVersion)
    }
}
