import Foundation

/// An RFC 3339 timestamp that re-encodes exactly as it was written.
///
/// Accepts `2024-03-01T12:30:00Z`, fractional seconds of any length, `z`/`t` in lower case, and
/// numeric offsets (`+05:30`). The instant is available as ``date``; the text is kept so that a
/// decode → encode round trip changes nothing. Only a deliberate assignment changes it.
public struct Timestamp: Codable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The text as written: in the value itself when it fits (any timestamp up to nanoseconds with an
    /// offset), so that decoding one allocates nothing.
    @usableFromInline let storage: InlineString

    /// The timestamp as written.
    public var text: String { storage.string }

    /// Calls `body` with the text's UTF-8 bytes.
    @inlinable public func withText<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        storage.withUTF8(body)
    }

    /// Whole seconds since 1970-01-01T00:00:00Z.
    public let epochSeconds: Int64
    /// Nanoseconds within the second (fractions beyond nanoseconds are truncated).
    public let nanoseconds: Int32
    /// The UTC offset that was written, in seconds east of UTC.
    public let utcOffsetSeconds: Int32

    /// The instant.
    public var date: Date {
        Date(timeIntervalSince1970: Double(epochSeconds) + Double(nanoseconds) / 1e9)
    }

    public var description: String { text }

    /// Parses RFC 3339 text; nil when it is not a valid timestamp.
    public init?(rfc3339 text: String) {
        var text = text
        guard let value = text.withUTF8({ bytes in Self.parse(bytes).map { Timestamp(bytes: bytes, $0) } }) else { return nil }
        self = value
    }

    /// A UTC timestamp for `date`, written with millisecond precision (`2024-03-01T12:30:00.123Z`).
    public init(_ date: Date) {
        let interval = date.timeIntervalSince1970
        var seconds = Int64(interval.rounded(.down))
        var millis = Int64(((interval - Double(seconds)) * 1000).rounded())
        if millis == 1000 {
            seconds += 1
            millis = 0
        }
        let (y, m, d) = Self.civil(fromDays: seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400)
        let secondOfDay = ((seconds % 86400) + 86400) % 86400
        storage = Self.utcText(year: y, month: m, day: d, secondOfDay: secondOfDay, millis: millis)
        epochSeconds = seconds
        nanoseconds = Int32(millis * 1_000_000)
        utcOffsetSeconds = 0
    }

    /// `yyyy-MM-ddTHH:mm:ss.SSSZ`, written digit by digit: a log line and a dead letter each make one, and string
    /// padding and interpolation cost microseconds. A year outside 0...9999 keeps all its digits.
    private static func utcText(year: Int64, month: Int64, day: Int64, secondOfDay: Int64, millis: Int64) -> InlineString {
        guard (0...9999).contains(year) else {
            func pad(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
            let fraction = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
            return InlineString(
                "\(year)-\(pad(month))-\(pad(day))T\(pad(secondOfDay / 3600)):\(pad(secondOfDay / 60 % 60)):\(pad(secondOfDay % 60)).\(fraction)Z")
        }
        var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &text) { out in
            var cursor = 0
            func put(_ value: Int64, _ width: Int) {
                var v = value
                for k in stride(from: width - 1, through: 0, by: -1) {
                    out[cursor + k] = UInt8(ascii: "0") + UInt8(v % 10)
                    v /= 10
                }
                cursor += width
            }
            func put(_ byte: Unicode.Scalar) {
                out[cursor] = UInt8(ascii: byte)
                cursor += 1
            }
            put(year, 4); put("-"); put(month, 2); put("-"); put(day, 2); put("T")
            put(secondOfDay / 3600, 2); put(":"); put(secondOfDay / 60 % 60, 2); put(":"); put(secondOfDay % 60, 2)
            put("."); put(millis, 3); put("Z")
        }
        return withUnsafeBytes(of: &text) { raw in
            InlineString(validUTF8: UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: 24), isPlain: true)
        }
    }

    /// The placeholder a reader starts from: no text.
    @inlinable public static var unread: Timestamp { Timestamp(bytes: UnsafeBufferPointer(start: nil, count: 0), (0, 0, 0)) }

    /// A timestamp from text that ``parse(_:)`` accepted.
    @usableFromInline init(bytes: UnsafeBufferPointer<UInt8>, _ parsed: (Int64, Int32, Int32)) {
        storage = InlineString(validUTF8: bytes, isPlain: true)  // parsed: digits, signs, `T`, `Z`, `:` and `.`
        (epochSeconds, nanoseconds, utcOffsetSeconds) = parsed
    }

    public init(from decoder: any Decoder) throws {
        if let fast = _JSONDecoder.unwrap(decoder) {
            // Parse the bytes in place; make the String only for a valid timestamp.
            let node = fast.state.nodes[fast.node]
            if node.kind == .string && !node.isEscaped {
                let raw = fast.state.raw(node)
                guard let parsed = Self.parse(raw) else {
                    throw DecodingError.dataCorrupted(.init(codingPath: fast.codingPath, debugDescription: "Expected an RFC 3339 timestamp."))
                }
                self.init(bytes: raw, parsed)
                return
            }
        }
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Timestamp(rfc3339: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Expected an RFC 3339 timestamp.")
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    public static func < (a: Timestamp, b: Timestamp) -> Bool {
        (a.epochSeconds, a.nanoseconds) < (b.epochSeconds, b.nanoseconds)
    }

    /// Equal instants written differently are different timestamps: the text is part of the value.
    public static func == (a: Timestamp, b: Timestamp) -> Bool { a.storage == b.storage }
    public func hash(into hasher: inout Hasher) { hasher.combine(storage) }

    // MARK: - Parsing

    /// Parses RFC 3339 text: whole seconds since the epoch, nanoseconds and the UTC offset in seconds; nil when
    /// it is not a valid timestamp.
    @usableFromInline static func parse(_ s: UnsafeBufferPointer<UInt8>) -> (Int64, Int32, Int32)? {
        guard let f = fields(s) else { return nil }
        let days = daysFromCivil(f.year, f.month, f.day)
        let seconds = days * 86400 + f.secondOfDay - f.offset
        return (seconds, Int32(f.nanos), Int32(f.offset))
    }

    /// Whether `s` is a valid RFC 3339 timestamp: what ``parse(_:)`` accepts, without computing the instant
    /// (a reader that discards values only validates).
    @usableFromInline static func isValid(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        fields(s) != nil
    }

    /// The checked parts of RFC 3339 text: the date, the second of the (local) day, nanoseconds and the offset
    /// in seconds east of UTC.
    @inline(__always)
    private static func fields(
        _ s: UnsafeBufferPointer<UInt8>
    ) -> (year: Int64, month: Int64, day: Int64, secondOfDay: Int64, nanos: Int64, offset: Int64)? {
        // The fixed part, `YYYY-MM-DDTHH:MM:SS`, as three overlapping eight-byte words ("YYYY-MM-",
        // "DDTHH:MM", "HH:MM:SS"): the separators compared under a mask, then every other byte checked to be
        // a digit at once (its high nibble is 3, and adding 6 keeps it 3).
        let n = s.count
        guard n >= 20, let start = s.baseAddress else { return nil }
        let raw = UnsafeRawPointer(start)
        @inline(__always) func load(_ offset: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
        @inline(__always) func lane(_ k: Int, _ byte: UInt64) -> UInt64 { byte << UInt64(k * 8) }
        /// The word with its separators (`mask`) as expected, the separators replaced by `0`; nil otherwise.
        @inline(__always) func digits(_ w: UInt64, _ mask: UInt64, _ separators: UInt64) -> UInt64? {
            let zeros: UInt64 = 0x3030_3030_3030_3030
            let high: UInt64 = 0xF0F0_F0F0_F0F0_F0F0
            let d = (w & ~mask) | (zeros & mask)
            guard w & mask == separators, d & high == zeros, (d &+ 0x0606_0606_0606_0606) & high == zeros else { return nil }
            return d
        }
        let pair = lane(2, 0xFF) | lane(5, 0xFF)
        // `T` or `t`: with 0x20 set, only those two read `t`.
        guard let date = digits(load(0), lane(4, 0xFF) | lane(7, 0xFF), lane(4, 0x2D) | lane(7, 0x2D)),
            let dayTime = digits(load(8) | lane(2, 0x20), pair, lane(2, 0x74) | lane(5, 0x3A)),
            let time = digits(load(11), pair, lane(2, 0x3A) | lane(5, 0x3A))
        else { return nil }
        @inline(__always) func number(_ w: UInt64, _ k: Int) -> Int64 {
            Int64((w >> UInt64(k * 8)) & 0x0F) &* 10 &+ Int64((w >> UInt64(k * 8 + 8)) & 0x0F)
        }
        let year = number(date, 0) &* 100 &+ number(date, 2)
        let month = number(date, 5)
        let day = number(dayTime, 0)
        let hour = number(time, 0)
        let minute = number(time, 3)
        let second = number(time, 6)
        guard month >= 1, month <= 12, day >= 1, day <= daysInMonth(year, month), hour <= 23, minute <= 59, second <= 60
        else { return nil }
        @inline(__always) func digit(_ k: Int) -> UInt8 { s[k] &- UInt8(ascii: "0") }
        @inline(__always) func two(_ k: Int) -> Int64 { Int64(digit(k)) &* 10 &+ Int64(digit(k + 1)) }
        var i = 19
        var nanos: Int64 = 0
        if s[i] == UInt8(ascii: "."), n >= 24, max(digit(20), digit(21), digit(22)) < 10, digit(23) >= 10 {
            // Milliseconds, the usual spelling, at once.
            nanos = (Int64(digit(20)) &* 100 &+ Int64(digit(21)) &* 10 &+ Int64(digit(22))) &* 1_000_000
            i = 23
        } else if s[i] == UInt8(ascii: ".") {
            i += 1
            let start = i
            while i < n, s[i] &- UInt8(ascii: "0") < 10 {
                if i - start < 9 { nanos = nanos * 10 + Int64(s[i] - UInt8(ascii: "0")) }
                i += 1
            }
            guard i > start else { return nil }
            for _ in min(i - start, 9)..<9 { nanos *= 10 }
        }
        var offset: Int64 = 0
        guard i < n else { return nil }
        if s[i] | 0x20 == UInt8(ascii: "z") {
            i += 1
        } else if s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-") {
            guard i + 6 == n, s[i + 3] == UInt8(ascii: ":"), max(digit(i + 1), digit(i + 2), digit(i + 4), digit(i + 5)) < 10 else {
                return nil
            }
            let sign: Int64 = s[i] == UInt8(ascii: "-") ? -1 : 1
            let oh = two(i + 1)
            let om = two(i + 4)
            guard oh <= 23, om <= 59 else { return nil }
            offset = sign * (oh * 3600 + om * 60)
            i += 6
        } else {
            return nil
        }
        guard i == n else { return nil }
        return (year, month, day, hour * 3600 + minute * 60 + second, nanos, offset)
    }

    static func daysInMonth(_ y: Int64, _ m: Int64) -> Int64 {
        switch m {
        case 2: return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 for a proleptic Gregorian date (H. Hinnant's algorithm).
    static func daysFromCivil(_ y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}
