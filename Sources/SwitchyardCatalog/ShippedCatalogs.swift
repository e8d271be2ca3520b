import SwitchyardJSON

// The catalogs this package ships, generated from `Schemas/` (Generated/, by `switchyard-codegen`
// from switchyard-codegen.json). The `switchyard` executable is built with them; a team's own binary
// lists its own catalogs instead (`SwitchyardCommand.main(catalogs:)`).

extension Catalog {
    /// The `payments` catalog (strict).
    public static let payments = Catalog(PaymentEvent.self)
    /// The `feeds` catalog (lenient).
    public static let feeds = Catalog(FeedEvent.self)
    /// Both shipped catalogs, as the `switchyard` executable is built with them.
    public static let shipped: [Catalog] = [.payments, .feeds]
}
