// The `switchyard` command line over this service's catalog:
//   orders-switchyard replay --catalog orders --records Fixtures/orders.ndjson
//   orders-switchyard consume --config config/orders.json
import Orders
import SwitchyardCLI

await SwitchyardCommand.main(catalogs: [OrderEvent.self])
