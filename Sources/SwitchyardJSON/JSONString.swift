import CJSONScan

/// String escaping and unescaping for JSON text.
public enum JSONString {
    /// Unescapes the contents of a JSON string (without its quotes) that the reader validated.
    public static func unescape(_ raw: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        guard raw.count > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: raw.count) { buffer, count in
            count = unescape(raw, into: buffer.baseAddress!)
        }
    }

    /// Unescapes the contents of a JSON string (without its quotes) that the reader validated into `out`,
    /// which has room for `raw.count` bytes (unescaping never lengthens); returns how many it wrote.
    public static func unescape(_ raw: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) -> Int {
        guard let p = raw.baseAddress else { return 0 }
        let n = raw.count
        var i = 0
        var o = 0
        while true {
            // Up to the next backslash (validated contents hold no bare quote or control character).
            let run = sy_json_unescaped_prefix(p + i, n - i)
            (out + o).update(from: p + i, count: run)
            o += run
            i += run
            guard i < n else { return o }
            let e = p[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "b"): out[o] = 0x08
            case UInt8(ascii: "f"): out[o] = 0x0C
            case UInt8(ascii: "n"): out[o] = 0x0A
            case UInt8(ascii: "r"): out[o] = 0x0D
            case UInt8(ascii: "t"): out[o] = 0x09
            case UInt8(ascii: "u"):
                var scalar = hex4(raw, i)
                i += 4
                if scalar >= 0xD800 && scalar <= 0xDBFF && i + 6 <= n && p[i] == UInt8(ascii: "\\") {
                    let low = hex4(raw, i + 2)
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
                }
                o += writeUTF8(scalar, to: out + o)
                continue
            default: out[o] = e  // " \ /
            }
            o += 1
        }
    }

    @inline(__always) static func hex4(_ raw: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt32 {
        var value: UInt32 = 0
        for k in 0..<4 {
            let c = raw[at + k]
            let digit: UInt8 =
                c <= UInt8(ascii: "9") ? c - UInt8(ascii: "0") : (c | 0x20) - UInt8(ascii: "a") + 10
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// Writes `scalar` as UTF-8 at `out` (room for 4 bytes); returns how many bytes.
    static func writeUTF8(_ scalar: UInt32, to out: UnsafeMutablePointer<UInt8>) -> Int {
        switch scalar {
        case 0..<0x80:
            out[0] = UInt8(scalar)
            return 1
        case 0x80..<0x800:
            out[0] = UInt8(0xC0 | (scalar >> 6))
            out[1] = UInt8(0x80 | (scalar & 0x3F))
            return 2
        case 0x800..<0x10000:
            out[0] = UInt8(0xE0 | (scalar >> 12))
            out[1] = UInt8(0x80 | ((scalar >> 6) & 0x3F))
            out[2] = UInt8(0x80 | (scalar & 0x3F))
            return 3
        default:
            out[0] = UInt8(0xF0 | (scalar >> 18))
            out[1] = UInt8(0x80 | ((scalar >> 12) & 0x3F))
            out[2] = UInt8(0x80 | ((scalar >> 6) & 0x3F))
            out[3] = UInt8(0x80 | (scalar & 0x3F))
            return 4
        }
    }

    /// Appends `string` as a quoted JSON string with minimal escaping: `"`, `\` and control
    /// characters; everything else (including `/` and non-ASCII) as UTF-8.
    @inline(__always) public static func appendQuoted(_ string: String, to out: inout [UInt8]) {
        var string = string
        string.withUTF8 { appendQuoted(utf8: $0, to: &out) }
    }

    /// Whether `utf8` holds a byte that a JSON string must escape: `"`, `\\` or a control character.
    @inlinable public static func needsEscaping(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let p = utf8.baseAddress else { return false }
        return sy_json_unescaped_prefix(p, utf8.count) < utf8.count
    }

    /// Appends already-valid UTF-8 bytes as a quoted JSON string with minimal escaping.
    public static func appendQuoted(utf8: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        // Most strings need no escape: one scan, then one copy with the quotes.
        let n = utf8.count
        if !needsEscaping(utf8) {
            out.append(UInt8(ascii: "\""))
            if n > 0 { out.append(contentsOf: utf8) }
            out.append(UInt8(ascii: "\""))
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: n * 6 + 2) { buffer in
            let written = writeQuoted(utf8, to: buffer.baseAddress!)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<written]))
        }
    }

    /// Writes `utf8` quoted, with minimal escaping, at `out` (room for `6 * utf8.count + 2` bytes);
    /// returns how many bytes it wrote. The one escaping routine of both encoders.
    @inlinable public static func writeQuoted(_ utf8: UnsafeBufferPointer<UInt8>, to out: UnsafeMutablePointer<UInt8>) -> Int {
        let n = utf8.count
        var o = 0
        out[o] = UInt8(ascii: "\"")
        o += 1
        guard let p = utf8.baseAddress else {
            out[o] = UInt8(ascii: "\"")
            return o + 1
        }
        var i = 0
        while true {
            let run = sy_json_unescaped_prefix(p + i, n - i)
            sy_copy(out + o, p + i, run)
            o += run
            i += run
            guard i < n else { break }
            let c = p[i]
            i += 1
            out[o] = UInt8(ascii: "\\")
            let short: UInt8
            switch c {
            case UInt8(ascii: "\""): short = UInt8(ascii: "\"")
            case UInt8(ascii: "\\"): short = UInt8(ascii: "\\")
            case 0x0A: short = UInt8(ascii: "n")
            case 0x0D: short = UInt8(ascii: "r")
            case 0x09: short = UInt8(ascii: "t")
            case 0x08: short = UInt8(ascii: "b")
            case 0x0C: short = UInt8(ascii: "f")
            default: short = 0
            }
            if short != 0 {
                out[o + 1] = short
                o += 2
            } else {
                let hex = (c >> 4, c & 0xF)
                out[o + 1] = UInt8(ascii: "u")
                out[o + 2] = UInt8(ascii: "0")
                out[o + 3] = UInt8(ascii: "0")
                out[o + 4] = hex.0 < 10 ? UInt8(ascii: "0") + hex.0 : UInt8(ascii: "a") + hex.0 - 10
                out[o + 5] = hex.1 < 10 ? UInt8(ascii: "0") + hex.1 : UInt8(ascii: "a") + hex.1 - 10
                o += 6
            }
        }
        out[o] = UInt8(ascii: "\"")
        return o + 1
    }

    /// Appends valid JSON text without the whitespace between tokens; strings, numbers and
    /// literals are copied byte for byte.
    public static func appendCompact(_ text: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        var inString = false
        var escaped = false
        var runStart = 0
        for (i, c) in text.enumerated() {
            if inString {
                if escaped { escaped = false } else if c == UInt8(ascii: "\\") { escaped = true } else if c == UInt8(ascii: "\"") { inString = false }
            } else if c == UInt8(ascii: "\"") {
                inString = true
            } else if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 {
                if i > runStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<i])) }
                runStart = i + 1
            }
        }
        if runStart < text.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart...])) }
    }
}
