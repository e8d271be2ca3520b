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
    /// `bank_transfer`, `expMonth` → [payment, captured], [bank, transfer], [exp, Month]. Letters and digits
    /// of any script are word characters (`größe`, `商品名`).
    static func words(_ name: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previousLower = false
        for c in name {
            if !(c.isLetter || c.isNumber) {
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

    /// A word as it goes inside a camel-case name: `PROGRESS` → `Progress`, `captured` → `Captured`.
    static func capitalized(_ word: String) -> String {
        let normalized = isAllCaps(word) ? word.lowercased() : word
        return normalized.prefix(1).uppercased() + normalized.dropFirst()
    }

    static func isAllCaps(_ word: String) -> Bool {
        word.contains(where: \.isUppercase) && !word.contains(where: \.isLowercase) && word.count > 1
    }

    static func upperCamel(_ words: [String]) -> String {
        words.map(capitalized).joined()
    }

    static func lowerCamel(_ words: [String]) -> String {
        guard let first = words.first else { return "" }
        let head = isAllCaps(first) ? first.lowercased() : first.prefix(1).lowercased() + first.dropFirst()
        return head + upperCamel(Array(words.dropFirst()))
    }

    /// A member's Swift name for its JSON name: kept when it already is a lowerCamelCase identifier
    /// (`paymentId`, `userID`; `_name` is `name_`), else camel-cased (`node_id` → `nodeId`, `ORDER-TOTAL` → `orderTotal`,
    /// `größe` stays). Not escaped (see ``escaped(_:)``); `self`, which cannot be a member, is `self_`.
    static func memberName(_ json: String) -> String {
        var name: String
        let body = json.drop { $0 == "_" }
        if isIdentifier(json), !body.contains("_"), let first = body.first, !first.isUppercase {
            // A leading underscore goes to the end: `_name` beside `name` would be its property wrapper's storage.
            name = String(body) + String(repeating: "_", count: json.count - body.count)
        } else {
            name = lowerCamel(words(json))
        }
        if name.isEmpty { name = "_" + json.unicodeScalars.map { String($0.value, radix: 16) }.joined() }
        if let first = name.first, first.isNumber { name = "_" + name }
        if name == "self" { name = "self_" }
        return name
    }

    /// A name as Swift source: keywords in backticks.
    static func escaped(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.first, first == "_" || first.isLetter else { return false }
        return name.allSatisfy { $0 == "_" || $0.isLetter || $0.isNumber }
    }

    /// A type name for `x-swift-type`: identifiers joined by dots (`Module.Type`).
    static func isTypeName(_ name: String) -> Bool {
        !name.isEmpty && name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { isIdentifier(String($0)) }
    }

    /// An open enum's case for a raw value: `bank_transfer` → `bankTransfer`, `public` → `` `public` ``,
    /// `3ds` → `_3ds`.
    static func caseName(_ value: String) -> String {
        var name = lowerCamel(words(value))
        if name == "self" { name = "self_" }
        if name.isEmpty { name = "_" + String(value.unicodeScalars.map { String($0.value, radix: 16) }.joined()) }
        if let first = name.first, first.isNumber { name = "_" + name }
        return keywords.contains(name) ? "`\(name)`" : name
    }

    /// A Swift string literal.
    static func stringLiteral(_ s: String) -> String {
        quoted(s) { $0.value < 0x20 || $0.value == 0x7F ? "\\u{\(String($0.value, radix: 16))}" : nil }
    }

    /// A JSON string.
    static func jsonString(_ s: String) -> String {
        quoted(s) { $0.value < 0x20 ? "\\u" + String(repeating: "0", count: 4 - String($0.value, radix: 16).count) + String($0.value, radix: 16) : nil }
    }

    /// `s` in double quotes with quotes, backslashes and the usual control characters escaped as both Swift and
    /// JSON write them; `other` escapes what else it returns an escape for.
    private static func quoted(_ s: String, other: (Unicode.Scalar) -> String?) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if let escape = other(scalar) { out += escape } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }
}
