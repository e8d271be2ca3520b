/// A coding key built at run time: an object key or an array index.
public struct JSONKey: CodingKey, Sendable, Hashable {
    public var stringValue: String
    public var intValue: Int?

    public init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    public init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }

    /// An array position, rendered `[n]` in paths.
    public static func index(_ i: Int) -> JSONKey { JSONKey(intValue: i) }
}

/// Renders coding paths the way Switchyard's diagnostics show them.
///
/// `amount.value`, `tags[2]`, `items[0].address.zip`; the root is the empty string; a key that is not
/// identifier-like is rendered `["a.b"]`.
public enum CodingPathRenderer {
    /// Renders a coding path.
    public static func render(_ path: [any CodingKey]) -> String {
        var out = ""
        for key in path {
            if let index = key.intValue {
                out += "[\(index)]"
            } else if isIdentifier(key.stringValue) {
                out += out.isEmpty ? key.stringValue : "." + key.stringValue
            } else {
                var quoted: [UInt8] = []
                JSONString.appendQuoted(key.stringValue, to: &quoted)
                out += "[" + String(decoding: quoted, as: UTF8.self) + "]"
            }
        }
        return out
    }

    /// True for `[A-Za-z_$][A-Za-z0-9_$]*`.
    static func isIdentifier(_ s: String) -> Bool {
        guard let first = s.utf8.first else { return false }
        func letter(_ c: UInt8) -> Bool {
            (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
                || c == UInt8(ascii: "_") || c == UInt8(ascii: "$")
        }
        guard letter(first) else { return false }
        return s.utf8.allSatisfy { letter($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) }
    }
}
