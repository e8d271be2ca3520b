import SwitchyardCLI
import SwitchyardCatalog

// The shipped `switchyard`: the command line over the catalogs this package ships. A team's binary
// makes the same call with its own catalogs.
await SwitchyardCommand.main(catalogs: [PaymentEvent.self, FeedEvent.self])
