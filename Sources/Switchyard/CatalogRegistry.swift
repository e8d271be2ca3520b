/// The catalogs a binary was built with, by name: what a config's `topics.<t>.catalog`, `replay
/// --catalog` and `--topic` resolve against. There is no other list of catalogs below the executable.
public struct CatalogRegistry: Sendable {
    /// The catalogs, in the order they were given.
    public let catalogs: [Catalog]

    /// A registry of `catalogs`; two catalogs with one name are a programming error.
    public init(_ catalogs: [Catalog]) {
        var seen: Set<String> = []
        for catalog in catalogs {
            precondition(seen.insert(catalog.name).inserted, "two catalogs are named '\(catalog.name)'")
        }
        self.catalogs = catalogs
    }

    /// A registry of catalog enums: `CatalogRegistry([PaymentEvent.self, FeedEvent.self])`.
    public init(_ types: [any EventCatalog.Type]) {
        self.init(types.map(Catalog.init))
    }

    /// The catalog named `name`.
    public subscript(name: String) -> Catalog? {
        catalogs.first { $0.name == name }
    }

    /// The names, in order.
    public var names: [String] { catalogs.map(\.name) }

    /// The nearest name to a misspelt one, if one is close.
    public func suggestion(for name: String) -> String? {
        nearestName(to: name, among: names)
    }

    /// "unknown catalog 'paymnts'; did you mean 'payments'? (this binary has: payments, feeds)".
    public func unknownNameReason(_ name: String) -> String {
        var reason = "unknown catalog '\(name)'"
        if let nearest = suggestion(for: name) { reason += "; did you mean '\(nearest)'?" }
        return reason + " (this binary has: \(names.joined(separator: ", ")))"
    }
}
