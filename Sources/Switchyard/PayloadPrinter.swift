/// Pretty-prints a record payload for `switchyard dlq show`, with values redacted unless revealed: keys and
/// structure stay (so a failure's path can be found), strings become `"***"`, numbers `<number>` (or
/// `<fractional number>` when they had a fraction or exponent): never a number, which would read as the
/// record's value. `true`, `false` and `null` are kept (they say which shape a field had), and so is the root
/// `type` tag (the event type, already in the headers).
///
/// Tolerant: a dead-lettered payload is often not valid JSON. Whatever parses is printed, then a note says
/// where and why reading stopped.
package struct PayloadPrinter {
    /// One printed line and the path of the value that starts on it (PRODUCT.md path syntax).
    package struct Line: Sendable, Equatable {
        package var text: String
        package var path: String
    }

    /// Print values as they are.
    package var reveal: Bool
    /// The tag key left visible at the root.
    package var tagKey: String
    /// Deepest nesting printed.
    package var maxDepth = 512

    package init(reveal: Bool, tagKey: String = "type") {
        self.reveal = reveal
        self.tagKey = tagKey
    }

    /// The lines, and a note when the payload is not (entirely) valid JSON.
    package func render(_ bytes: [UInt8]) -> (lines: [Line], problem: String?) {
        var parser = Parser(bytes: bytes, printer: self)
        parser.skipSpace()
        do {
            try parser.value(path: [], prefix: "", depth: 0, suffix: "")
            parser.skipSpace()
            if parser.i < bytes.count { throw Parser.Stop(offset: parser.i, reason: "unexpected bytes after the value") }
        } catch let stop as Parser.Stop {
            parser.flushPending()
            return (parser.lines, "not valid JSON from byte \(stop.offset): \(stop.reason)")
        } catch {
            return (parser.lines, "\(error)")
        }
        return (parser.lines, nil)
    }

    /// The line to highlight for a failure at `path`: the value's own line, else its nearest ancestor's
    /// (a missing key is reported at the object that lacks it).
    package static func highlightIndex(_ lines: [Line], failurePath: String) -> Int? {
        if let exact = lines.firstIndex(where: { $0.path == failurePath }) { return exact }
        var best: (index: Int, length: Int)?
        for (i, line) in lines.enumerated() {
            let p = line.path
            let isAncestor =
                p.isEmpty || failurePath.hasPrefix(p + ".") || failurePath.hasPrefix(p + "[")
            // Only the line that opens a container: a closing bracket has the same path.
            if isAncestor && (best == nil || p.count > best!.length) && !line.text.trimmingPrefixSpaces.hasPrefix("}")
                && !line.text.trimmingPrefixSpaces.hasPrefix("]")
            {
                best = (i, p.count)
            }
        }
        return best?.index
    }

    struct Parser {
        struct Stop: Error {
            var offset: Int
            var reason: String
        }

        let bytes: [UInt8]
        let printer: PayloadPrinter
        var i = 0
        var lines: [Line] = []
        /// The line being written (when a value was cut short).
        var pending: Line?

        init(bytes: [UInt8], printer: PayloadPrinter) {
            self.bytes = bytes
            self.printer = printer
        }

        mutating func flushPending() {
            if let pending { lines.append(pending) }
            pending = nil
        }

        mutating func skipSpace() {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
        }

        func indent(_ depth: Int) -> String { String(repeating: "  ", count: depth) }

        func render(_ path: [PathComponent]) -> String {
            var out = ""
            for component in path {
                switch component {
                case .index(let n): out += "[\(n)]"
                case .key(let k):
                    if CodingPathRenderer.isIdentifierKey(k) {
                        out += out.isEmpty ? k : "." + k
                    } else {
                        var quoted: [UInt8] = []
                        JSONString.appendQuoted(k, to: &quoted)
                        out += "[" + String(decoding: quoted, as: UTF8.self) + "]"
                    }
                }
            }
            return out
        }

        enum PathComponent {
            case key(String)
            case index(Int)
        }

        /// Prints one value; `prefix` is the text before it on its line (indent and key), `suffix` a comma.
        mutating func value(path: [PathComponent], prefix: String, depth: Int, suffix: String) throws {
            guard i < bytes.count else {
                pending = Line(text: prefix, path: render(path))
                throw Stop(offset: i, reason: "the input ends where a value should be")
            }
            guard depth <= printer.maxDepth else { throw Stop(offset: i, reason: "nesting deeper than \(printer.maxDepth)") }
            let rendered = render(path)
            switch bytes[i] {
            case UInt8(ascii: "{"):
                i += 1
                skipSpace()
                if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
                    i += 1
                    lines.append(Line(text: prefix + "{}" + suffix, path: rendered))
                    return
                }
                lines.append(Line(text: prefix + "{", path: rendered))
                while true {
                    skipSpace()
                    guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else {
                        throw Stop(offset: i, reason: i < bytes.count ? "expected a key" : "the input ends inside an object")
                    }
                    let (raw, key) = try string()
                    skipSpace()
                    guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw Stop(offset: i, reason: "expected ':'") }
                    i += 1
                    skipSpace()
                    let memberPath = path + [.key(key)]
                    let memberPrefix = indent(depth + 1) + raw + ": "
                    // Peek past the value for a comma: print it on the value's last line.
                    let keepTag = path.isEmpty && key == printer.tagKey
                    try member(path: memberPath, prefix: memberPrefix, depth: depth + 1, keepString: keepTag)
                    skipSpace()
                    guard i < bytes.count else { throw Stop(offset: i, reason: "the input ends inside an object") }
                    if bytes[i] == UInt8(ascii: ",") {
                        i += 1
                        lines[lines.count - 1].text += ","
                        continue
                    }
                    guard bytes[i] == UInt8(ascii: "}") else { throw Stop(offset: i, reason: "expected ',' or '}'") }
                    i += 1
                    lines.append(Line(text: indent(depth) + "}" + suffix, path: rendered))
                    return
                }
            case UInt8(ascii: "["):
                i += 1
                skipSpace()
                if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
                    i += 1
                    lines.append(Line(text: prefix + "[]" + suffix, path: rendered))
                    return
                }
                lines.append(Line(text: prefix + "[", path: rendered))
                var index = 0
                while true {
                    skipSpace()
                    try member(path: path + [.index(index)], prefix: indent(depth + 1), depth: depth + 1, keepString: false)
                    index += 1
                    skipSpace()
                    guard i < bytes.count else { throw Stop(offset: i, reason: "the input ends inside an array") }
                    if bytes[i] == UInt8(ascii: ",") {
                        i += 1
                        lines[lines.count - 1].text += ","
                        continue
                    }
                    guard bytes[i] == UInt8(ascii: "]") else { throw Stop(offset: i, reason: "expected ',' or ']'") }
                    i += 1
                    lines.append(Line(text: indent(depth) + "]" + suffix, path: rendered))
                    return
                }
            default:
                try member(path: path, prefix: prefix, depth: depth, keepString: false)
                lines[lines.count - 1].text += suffix
            }
        }

        /// A value inside a container (or a scalar at the root).
        mutating func member(path: [PathComponent], prefix: String, depth: Int, keepString: Bool) throws {
            guard i < bytes.count else {
                pending = Line(text: prefix, path: render(path))
                throw Stop(offset: i, reason: "the input ends where a value should be")
            }
            let rendered = render(path)
            switch bytes[i] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                try value(path: path, prefix: prefix, depth: depth, suffix: "")
            case UInt8(ascii: "\""):
                let start = i
                do {
                    let (raw, _) = try string()
                    lines.append(Line(text: prefix + (printer.reveal || keepString ? raw : "\"***\""), path: rendered))
                } catch let stop as Stop {
                    pending = Line(text: prefix + (printer.reveal ? String(decoding: bytes[start...], as: UTF8.self) : "\"***"), path: rendered)
                    throw stop
                }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = i
                var fractional = false
                while i < bytes.count, let c = Optional(bytes[i]),
                    c == UInt8(ascii: "-") || c == UInt8(ascii: "+") || c == UInt8(ascii: ".") || c == UInt8(ascii: "e")
                        || c == UInt8(ascii: "E") || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
                {
                    if c == UInt8(ascii: ".") || c == UInt8(ascii: "e") || c == UInt8(ascii: "E") { fractional = true }
                    i += 1
                }
                let raw = String(decoding: bytes[start..<i], as: UTF8.self)
                lines.append(Line(text: prefix + (printer.reveal ? raw : fractional ? "<fractional number>" : "<number>"), path: rendered))
            default:
                for literal in ["true", "false", "null"] where bytes[i...].starts(with: literal.utf8) {
                    i += literal.utf8.count
                    lines.append(Line(text: prefix + literal, path: rendered))
                    return
                }
                pending = Line(text: prefix, path: rendered)
                throw Stop(offset: i, reason: "expected a value")
            }
        }

        /// Reads a string token: its raw text (quotes included) and its decoded value.
        mutating func string() throws -> (raw: String, value: String) {
            let start = i
            i += 1
            var decoded: [UInt8] = []
            while i < bytes.count {
                let c = bytes[i]
                if c == UInt8(ascii: "\"") {
                    i += 1
                    return (String(decoding: bytes[start..<i], as: UTF8.self), String(decoding: decoded, as: UTF8.self))
                }
                if c == UInt8(ascii: "\\") {
                    guard i + 1 < bytes.count else { break }
                    let e = bytes[i + 1]
                    i += 2
                    switch e {
                    case UInt8(ascii: "n"): decoded.append(0x0A)
                    case UInt8(ascii: "t"): decoded.append(0x09)
                    case UInt8(ascii: "r"): decoded.append(0x0D)
                    case UInt8(ascii: "b"): decoded.append(0x08)
                    case UInt8(ascii: "f"): decoded.append(0x0C)
                    case UInt8(ascii: "u"):
                        guard i + 4 <= bytes.count, var scalar = UInt32(String(decoding: bytes[i..<i + 4], as: UTF8.self), radix: 16) else {
                            throw Stop(offset: i, reason: "bad \\u escape")
                        }
                        i += 4
                        if (0xD800..<0xDC00).contains(scalar), i + 6 <= bytes.count, bytes[i] == UInt8(ascii: "\\"),
                            bytes[i + 1] == UInt8(ascii: "u"),
                            let low = UInt32(String(decoding: bytes[i + 2..<i + 6], as: UTF8.self), radix: 16), (0xDC00..<0xE000).contains(low)
                        {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                            i += 6
                        }
                        decoded.append(contentsOf: String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8)
                    default: decoded.append(e)
                    }
                    continue
                }
                decoded.append(c)
                i += 1
            }
            throw Stop(offset: start, reason: "unterminated string")
        }
    }
}

extension CodingPathRenderer {
    /// Whether a key is rendered bare (`a.b`) rather than quoted (`["a.b"]`).
    package static func isIdentifierKey(_ key: String) -> Bool {
        render([JSONKey(stringValue: key)]) == key
    }
}

extension String {
    fileprivate var trimmingPrefixSpaces: Substring { drop { $0 == " " } }
}

// MARK: - Payloads that are not JSON, and payloads carried in JSON output

extension PayloadPrinter {
    /// The bytes as `xxd` prints them: the offset, 16 bytes in groups of two, then the printable ASCII
    /// characters ('.' for the others).
    package static func hexDump(_ bytes: [UInt8]) -> [String] {
        stride(from: 0, to: bytes.count, by: 16).map { start in
            let row = bytes[start..<min(start + 16, bytes.count)]
            var hexColumn = ""
            for (i, byte) in row.enumerated() {
                if i > 0 && i % 2 == 0 { hexColumn += " " }
                hexColumn += hexDigits(byte)
            }
            let ascii = String(decoding: row.map { (0x20..<0x7F).contains($0) ? $0 : UInt8(ascii: ".") }, as: UTF8.self)
            let offset = String(start, radix: 16)
            return String(repeating: "0", count: max(0, 8 - offset.count)) + offset + ": "
                + hexColumn.padding(toLength: 39, withPad: " ", startingAt: 0) + "  " + ascii
        }
    }

    /// The bytes as lowercase hex, two digits each.
    package static func hex(_ bytes: [UInt8]) -> String {
        bytes.map(hexDigits).joined()
    }

    private static func hexDigits(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }

    /// The payload as compact JSON text (whitespace between tokens removed, so it fits one output line) when it
    /// is one valid JSON value; nil otherwise.
    package static func compactJSON(_ bytes: [UInt8]) -> [UInt8]? {
        // The full reader, not the fast path's check: that one also says no to valid input it leaves to the reader.
        do {
            _ = try JSONReader().parse(bytes)
        } catch {
            return nil
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                out.append(byte)
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                continue
            } else {
                if byte == UInt8(ascii: "\"") { inString = true }
                out.append(byte)
            }
        }
        return out
    }
}
