/// Swift names from schema names.
enum Naming {
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout", "internal",
        "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows", "static", "struct",
        "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer", "do", "else",
        "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while", "Any", "as",
        "await", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try", "_", "consume", "copy", "borrowing",
        "consuming", "some", "any", "Type", "Protocol",
    ]

    /// Splits a name into words at non-alphanumerics and lower-to-upper changes: `payment.captured`,
    /// `bank_transfer`, `expMonth` → [payment, captured], [bank, transfer], [exp, Month].
    static func words(_ name: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previousLower = false
        for c in name {
            if !(c.isASCII && (c.isLetter || c.isNumber)) {
                if !current.isEmpty { words.append(current) }
                current = ""
                previousLower = false
                continue
            }
            if c.isUppercase && previousLower {
                words.append(current)
                current = ""
            }
            current.append(c)
            previousLower = c.isLowercase || c.isNumber
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    static func upperCamel(_ words: [String]) -> String {
        words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    static func lowerCamel(_ words: [String]) -> String {
        guard let first = words.first else { return "" }
        return first.prefix(1).lowercased() + first.dropFirst() + upperCamel(Array(words.dropFirst()))
    }

    /// `items` → `Item`, `OrderPlacedItems` → `OrderPlacedItem`; otherwise `…Element`.
    static func singular(_ name: String) -> String {
        name.count > 1 && name.hasSuffix("s") && !name.hasSuffix("ss") ? String(name.dropLast()) : name + "Element"
    }

    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil)) }
    }

    /// A type name for `x-swift-type`: identifiers joined by dots (`Module.Type`).
    static func isTypeName(_ name: String) -> Bool {
        !name.isEmpty && name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { isIdentifier(String($0)) }
    }

    /// An open enum's case for a raw value: `bank_transfer` → `bankTransfer`, `public` → `` `public` ``,
    /// `3ds` → `_3ds`.
    static func caseName(_ value: String) -> String {
        var name = lowerCamel(words(value))
        if name.isEmpty { name = "_" + String(value.unicodeScalars.map { String($0.value, radix: 16) }.joined()) }
        if let first = name.first, first.isNumber { name = "_" + name }
        return keywords.contains(name) ? "`\(name)`" : name
    }

    /// A Swift string literal.
    static func stringLiteral(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
