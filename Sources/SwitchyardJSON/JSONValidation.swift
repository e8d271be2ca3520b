/// The checks on the pieces of a JSON string, shared by ``JSONReader`` (which reports why and where) and
/// ``JSONCursor`` (which only needs whether).
enum JSONValidation {
    /// An escape, a `\uXXXX` unit: its length in bytes, or why it is invalid and at which offset.
    enum Check {
        case valid(Int)
        case invalid(JSONSyntaxError.Reason, at: Int)
    }

    /// Checks the escape at `i` (which holds the backslash), surrogate pairs included.
    @inline(__always) static func escape(_ base: UnsafePointer<UInt8>, count: Int, at i: Int) -> Check {
        guard i + 1 < count else { return .invalid(.unexpectedEnd, at: count) }
        switch base[i + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return .valid(2)
        case UInt8(ascii: "u"):
            let unit: UInt32
            switch hex4(base, count: count, at: i + 2) {
            case .valid(let value): unit = UInt32(value)
            case .invalid(let reason, let offset): return .invalid(reason, at: offset)
            }
            if unit >= 0xD800 && unit <= 0xDBFF {
                // A high surrogate must be followed by an escaped low surrogate.
                guard i + 7 < count, base[i + 6] == UInt8(ascii: "\\"), base[i + 7] == UInt8(ascii: "u") else {
                    return .invalid(.loneSurrogate, at: i)
                }
                switch hex4(base, count: count, at: i + 8) {
                case .valid(let low) where low >= 0xDC00 && low <= 0xDFFF: return .valid(12)
                case .valid: return .invalid(.loneSurrogate, at: i)
                case .invalid(let reason, let offset): return .invalid(reason, at: offset)
                }
            }
            if unit >= 0xDC00 && unit <= 0xDFFF { return .invalid(.loneSurrogate, at: i) }
            return .valid(6)
        default:
            return .invalid(.invalidEscape, at: i)
        }
    }

    /// The four hex digits at `offset`: `.valid(value)`.
    @inline(__always) static func hex4(_ base: UnsafePointer<UInt8>, count: Int, at offset: Int) -> Check {
        guard offset + 4 <= count else { return .invalid(.unexpectedEnd, at: count) }
        var value = 0
        for k in 0..<4 {
            let c = base[offset + k]
            let digit: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c - UInt8(ascii: "A") + 10
            default: return .invalid(.invalidUnicodeEscape, at: offset + k)
            }
            value = value << 4 | Int(digit)
        }
        return .valid(value)
    }

    /// The length of the multi-byte UTF-8 sequence at `i` (RFC 3629 table 3-7), or 0 when it is invalid.
    @inline(__always) static func utf8SequenceLength(_ base: UnsafePointer<UInt8>, count: Int, at i: Int) -> Int {
        @inline(__always) func cont(_ k: Int, _ lo: UInt8 = 0x80, _ hi: UInt8 = 0xBF) -> Bool {
            i + k < count && base[i + k] >= lo && base[i + k] <= hi
        }
        switch base[i] {
        case 0xC2...0xDF: return cont(1) ? 2 : 0
        case 0xE0: return cont(1, 0xA0) && cont(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF: return cont(1) && cont(2) ? 3 : 0
        case 0xED: return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0
        case 0xF0: return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0
        case 0xF1...0xF3: return cont(1) && cont(2) && cont(3) ? 4 : 0
        case 0xF4: return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0
        default: return 0
        }
    }
}
