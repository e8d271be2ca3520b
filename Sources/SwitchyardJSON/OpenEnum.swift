/// A string enum that stays open: an unrecognised value decodes, shows a fallback, and re-encodes as
/// the original string (PRODUCT.md, decoding rule 3).
///
/// A conforming type stores the raw string and names its known cases in ``Known``:
/// ```swift
/// public struct PaymentMethod: OpenEnum {
///     public enum Known: String, CaseIterable, Sendable { case card, bankTransfer = "bank_transfer", wallet }
///     public var rawValue: String
///     public init(rawValue: String) { self.rawValue = rawValue }
/// }
/// ```
public protocol OpenEnum: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible
where RawValue == String {
    /// The values this build knows.
    associatedtype Known: RawRepresentable, CaseIterable, Sendable where Known.RawValue == String
    init(rawValue: String)
}

extension OpenEnum {
    /// A known value.
    public init(_ known: Known) { self.init(rawValue: known.rawValue) }

    /// The known case, or nil for a value from a newer producer.
    public var known: Known? { Known(rawValue: rawValue) }

    /// Whether this build recognises the value.
    public var isKnown: Bool { known != nil }

    /// The known case's name, or `unrecognized(<raw>)` as the fallback shown to people.
    public var description: String { known.map { "\($0)" } ?? "unrecognized(\(rawValue))" }

    public init(from decoder: any Decoder) throws {
        if let fast = _JSONDecoder.unwrap(decoder) {
            // The same read as the single-value container's, without the container.
            self.init(rawValue: try fast.decodeString(at: fast.node, path: fast.codingPath))
            return
        }
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
