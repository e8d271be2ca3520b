// The `switchyard` command line over this service's catalogs, running its handlers:
//   orders-switchyard consume --config config/orders.json
//   orders-switchyard replay --catalog orders --records Fixtures/orders.ndjson
//   orders-switchyard inventory-stub --port 8080                              (this service's own subcommands)
//   orders-switchyard stock --inventory http://127.0.0.1:8080 SKU-TEA-01
import Orders
import SwitchyardCLI

await SwitchyardCommand.main(catalogs: [OrderEvent.self, ReservationEvent.self], commands: [StockCommand.self, InventoryStubCommand.self]) { setup in
    // The config file's "service" section: this service's own settings.
    let settings = try setup.configuration.service(as: OrdersSettings.self)
    return OrderHandlers(inventory: HTTPInventory(baseURL: settings.inventoryURL), reservationsTopic: settings.reservationsTopic).handlers
}
