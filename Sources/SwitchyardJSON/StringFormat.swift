/// The `format`s Switchyard can check, for a catalog that turns format validation on
/// (`"validateFormats": true` in switchyard-codegen.json). Without it a format is an annotation, as JSON
/// Schema 2020-12 says; `date-time` is always checked, as it is read into a ``Timestamp``.
///
/// Each check follows the format's RFC on the text as written, ASCII only:
/// - `uuid`: RFC 9562's 8-4-4-4-12 hexadecimal digits (either case).
/// - `date`, `time`: RFC 3339 `full-date` (a real day: February 29 only in leap years) and `full-time`
///   (the offset required; second 60 allowed for a leap second).
/// - `duration`: RFC 3339 appendix A (`P1D`, `PT1H30M`, `P2W`; at least one part, `T` before time parts).
/// - `email`: one `@` between a non-empty local part and a domain of non-empty dot-separated labels; no
///   spaces or control characters (the addresses RFC 5321 delivers, without quoted local parts).
/// - `ipv4`: four decimal numbers 0–255, no leading zeros. `ipv6`: RFC 4291 text (`::` at most once, an
///   IPv4 tail allowed), no zone.
/// - `uri`: an RFC 3986 URI with a scheme: only the characters it allows, `%` followed by two hex digits.
/// - `hostname`: RFC 1123 labels of letters, digits and `-` (1–63 each, not starting or ending with `-`),
///   253 characters at most.
public enum StringFormat: String, Sendable, CaseIterable {
    case uuid, date, time, duration, email, ipv4, ipv6, uri, hostname

    /// Whether `value` is written in this format.
    public func accepts(_ value: String) -> Bool {
        var value = value
        return value.withUTF8 { accepts(bytes: $0) }
    }

    func accepts(bytes s: UnsafeBufferPointer<UInt8>) -> Bool {
        switch self {
        case .uuid: Self.isUUID(s)
        case .date: Self.isDate(s[...])
        case .time: Self.isTime(s[...])
        case .duration: Self.isDuration(s)
        case .email: Self.isEmail(s)
        case .ipv4: Self.isIPv4(s[...])
        case .ipv6: Self.isIPv6(s)
        case .uri: Self.isURI(s)
        case .hostname: Self.isHostname(s[...])
        }
    }

    typealias Bytes = Slice<UnsafeBufferPointer<UInt8>>

    static func isDigit(_ c: UInt8) -> Bool { c &- UInt8(ascii: "0") < 10 }
    static func isHex(_ c: UInt8) -> Bool { isDigit(c) || (c | 0x20) &- UInt8(ascii: "a") < 6 }
    static func isAlpha(_ c: UInt8) -> Bool { (c | 0x20) &- UInt8(ascii: "a") < 26 }

    /// The number written by `count` digits at `start`; nil when one is not a digit.
    static func number(_ s: Bytes, _ start: Int, _ count: Int) -> Int? {
        guard start >= s.startIndex, start + count <= s.endIndex else { return nil }
        var n = 0
        for i in start..<(start + count) {
            guard isDigit(s[i]) else { return nil }
            n = n * 10 + Int(s[i] &- UInt8(ascii: "0"))
        }
        return n
    }

    static func isUUID(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        guard s.count == 36 else { return false }
        for (i, c) in s.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard c == UInt8(ascii: "-") else { return false }
            } else if !isHex(c) {
                return false
            }
        }
        return true
    }

    static func isDate(_ s: Bytes) -> Bool {
        guard s.count == 10, s[s.startIndex + 4] == UInt8(ascii: "-"), s[s.startIndex + 7] == UInt8(ascii: "-"),
            let year = number(s, s.startIndex, 4), let month = number(s, s.startIndex + 5, 2), let day = number(s, s.startIndex + 8, 2),
            (1...12).contains(month), day >= 1
        else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return day <= days[month - 1]
    }

    static func isTime(_ s: Bytes) -> Bool {
        let b = s.startIndex
        guard s.count >= 9, s[b + 2] == UInt8(ascii: ":"), s[b + 5] == UInt8(ascii: ":"),
            let hour = number(s, b, 2), let minute = number(s, b + 3, 2), let second = number(s, b + 6, 2),
            hour <= 23, minute <= 59, second <= 60
        else { return false }
        var i = b + 8
        if i < s.endIndex, s[i] == UInt8(ascii: ".") {
            i += 1
            let digits = i
            while i < s.endIndex, isDigit(s[i]) { i += 1 }
            guard i > digits else { return false }
        }
        guard i < s.endIndex else { return false }
        switch s[i] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"): return i + 1 == s.endIndex
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard s.endIndex - i == 6, s[i + 3] == UInt8(ascii: ":"), let h = number(s, i + 1, 2), let m = number(s, i + 4, 2) else { return false }
            return h <= 23 && m <= 59
        default: return false
        }
    }

    static func isDuration(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        guard s.count >= 3, s[0] == UInt8(ascii: "P") else { return false }
        // Weeks stand alone: PnW.
        if s[s.count - 1] == UInt8(ascii: "W") {
            return s[1..<(s.count - 1)].allSatisfy(isDigit)
        }
        var i = 1
        var inTime = false
        var order = "YMD"[...].utf8.map { $0 }
        var parts = 0
        var timeParts = 0
        while i < s.count {
            if s[i] == UInt8(ascii: "T") {
                guard !inTime else { return false }
                inTime = true
                order = Array("HMS".utf8)
                i += 1
                continue
            }
            let start = i
            while i < s.count, isDigit(s[i]) { i += 1 }
            guard i > start, i < s.count, let k = order.firstIndex(of: s[i]) else { return false }
            // Each part once, in order: Y M D, then H M S.
            order.removeFirst(k + 1)
            parts += 1
            if inTime { timeParts += 1 }
            i += 1
        }
        return parts > 0 && (!inTime || timeParts > 0)
    }

    static func isEmail(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let at = s.firstIndex(of: UInt8(ascii: "@")), at > 0, at < s.count - 1,
            !s[(at + 1)...].contains(UInt8(ascii: "@")),
            !s.contains(where: { $0 <= 32 || $0 == 127 })
        else { return false }
        // The domain: dot-separated labels, none empty.
        var label = 0
        for c in s[(at + 1)...] {
            if c == UInt8(ascii: ".") {
                guard label > 0 else { return false }
                label = 0
            } else {
                label += 1
            }
        }
        return label > 0
    }

    static func isIPv4(_ s: Bytes) -> Bool {
        var parts = 0
        var i = s.startIndex
        while parts < 4 {
            let start = i
            while i < s.endIndex, isDigit(s[i]), i - start < 3 { i += 1 }
            guard i > start, let n = number(s, start, i - start), n <= 255, i - start == 1 || s[start] != UInt8(ascii: "0") else { return false }
            parts += 1
            if parts < 4 {
                guard i < s.endIndex, s[i] == UInt8(ascii: ".") else { return false }
                i += 1
            }
        }
        return i == s.endIndex
    }

    static func isIPv6(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        guard s.count >= 2 else { return false }
        var groups = 0
        var compressed = false
        var i = 0
        if s[0] == UInt8(ascii: ":") {
            guard s[1] == UInt8(ascii: ":") else { return false }
            compressed = true
            i = 2
            if i == s.count { return true }
        }
        while i < s.count {
            let start = i
            while i < s.count, isHex(s[i]), i - start < 5 { i += 1 }
            if i < s.count, s[i] == UInt8(ascii: "."), i > start {
                // An IPv4 tail: two groups' worth.
                guard isIPv4(s[start...]) else { return false }
                groups += 2
                i = s.count
                break
            }
            guard i > start, i - start <= 4 else { return false }
            groups += 1
            if i == s.count { break }
            guard s[i] == UInt8(ascii: ":") else { return false }
            i += 1
            if i < s.count, s[i] == UInt8(ascii: ":") {
                guard !compressed else { return false }
                compressed = true
                i += 1
                if i == s.count { break }
            } else if i == s.count {
                return false
            }
        }
        return compressed ? groups <= 7 : groups == 8
    }

    static func isURI(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let colon = s.firstIndex(of: UInt8(ascii: ":")), colon > 0, isAlpha(s[0]) else { return false }
        for c in s[1..<colon] where !(isAlpha(c) || isDigit(c) || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") || c == UInt8(ascii: ".")) {
            return false
        }
        let allowed = Set("-._~:/?#[]@!$&'()*+,;=".utf8)
        var i = colon + 1
        while i < s.count {
            let c = s[i]
            if c == UInt8(ascii: "%") {
                guard i + 2 < s.count, isHex(s[i + 1]), isHex(s[i + 2]) else { return false }
                i += 3
                continue
            }
            guard isAlpha(c) || isDigit(c) || allowed.contains(c) else { return false }
            i += 1
        }
        return true
    }

    static func isHostname(_ s: Bytes) -> Bool {
        guard !s.isEmpty, s.count <= 253 else { return false }
        var start = s.startIndex
        while true {
            var end = start
            while end < s.endIndex, s[end] != UInt8(ascii: ".") { end += 1 }
            let label = s[start..<end]
            guard (1...63).contains(label.count), label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-"),
                label.allSatisfy({ isAlpha($0) || isDigit($0) || $0 == UInt8(ascii: "-") })
            else { return false }
            if end == s.endIndex { return true }
            start = end + 1
        }
    }
}

extension SchemaRule {
    /// Whether `value` is written in `format` (a catalog that validates formats).
    @inlinable public static func isValid(_ value: String, format: StringFormat) -> Bool { format.accepts(value) }
}
