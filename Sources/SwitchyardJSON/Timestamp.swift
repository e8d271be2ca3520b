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
        func pad(_ v: Int64, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        let text = "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(millis, 3))Z"
        storage = InlineString(text)
        epochSeconds = seconds
        nanoseconds = Int32(millis * 1_000_000)
        utcOffsetSeconds = 0
    }

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

    @usableFromInline static func parse(_ s: UnsafeBufferPointer<UInt8>) -> (Int64, Int32, Int32)? {
        // The fixed part, `YYYY-MM-DDTHH:MM:SS`, then fractions and the offset. The digit positions are
        // checked together: a byte that is not a digit has `&- 48` above 9, so the maximum is.
        let n = s.count
        guard n >= 20 else { return nil }
        @inline(__always) func digit(_ k: Int) -> UInt8 { s[k] &- UInt8(ascii: "0") }
        guard max(digit(0), digit(1), digit(2), digit(3)) < 10, max(digit(5), digit(6), digit(8), digit(9)) < 10,
            max(digit(11), digit(12), digit(14), digit(15), digit(17), digit(18)) < 10
        else { return nil }
        @inline(__always) func two(_ k: Int) -> Int64 { Int64(digit(k)) &* 10 &+ Int64(digit(k + 1)) }
        let year = two(0) &* 100 &+ two(2)
        let month = two(5)
        let day = two(8)
        let hour = two(11)
        let minute = two(14)
        let second = two(17)
        guard s[4] == UInt8(ascii: "-"), s[7] == UInt8(ascii: "-"), s[10] | 0x20 == UInt8(ascii: "t"),
            s[13] == UInt8(ascii: ":"), s[16] == UInt8(ascii: ":")
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year, month), hour <= 23, minute <= 59, second <= 60
        else { return nil }
        var i = 19
        var nanos: Int64 = 0
        if s[i] == UInt8(ascii: ".") {
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
        let days = daysFromCivil(year, month, day)
        let seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset
        return (seconds, Int32(nanos), Int32(offset))
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
