import Foundation

/// The Foundation values of the formats Swift has a type for, read by the generated typed accessors
/// (`idUUID`, `callbackURL`, `birthDate`): each reads the text by its format's rule (``StringFormat``) and
/// is nil for any other text. The member itself keeps the text exactly as written.
extension StringFormat {
    /// `format: uuid`: RFC 9562's 8-4-4-4-12 hexadecimal digits, either case; nil for any other text.
    public static func parseUUID(_ text: String) -> UUID? {
        guard StringFormat.uuid.accepts(text) else { return nil }
        return UUID(uuidString: text)
    }

    /// `format: uri`: an RFC 3986 URI with a scheme (the ``uri`` rule); nil for any other text, and for a
    /// text `URL` would not keep exactly.
    public static func parseURL(_ text: String) -> URL? {
        guard StringFormat.uri.accepts(text) else { return nil }
        return parseURLReference(text)
    }

    /// `format: uri-reference`: a URI or a relative reference (`../x`), as `URL(string:)` reads it; nil
    /// when it does not, or when it would change the text (`URL` escaping a space, say).
    public static func parseURLReference(_ text: String) -> URL? {
        guard let url = URL(string: text), url.relativeString == text else { return nil }
        return url
    }

    /// `format: date`: an RFC 3339 `full-date` (a real day, the ``date`` rule) as the start of that day in
    /// UTC; nil for any other text.
    public static func parseDate(_ text: String) -> Date? {
        guard StringFormat.date.accepts(text) else { return nil }
        let digits = Array(text.utf8).map { Int($0) - Int(UInt8(ascii: "0")) }
        func number(_ range: Range<Int>) -> Int { range.reduce(0) { $0 * 10 + digits[$1] } }
        let days = Timestamp.daysFromCivil(Int64(number(0..<4)), Int64(number(5..<7)), Int64(number(8..<10)))
        return Date(timeIntervalSince1970: TimeInterval(days) * 86_400)
    }
}
