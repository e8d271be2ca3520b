import Orders
import SwitchyardCLI

/// `orders-switchyard stock --inventory URL SKU…`: asks the inventory service what the `order.placed` handler
/// would ask, one line per SKU. A subcommand of this service's own, beside Switchyard's.
struct StockCommand: Command {
    static let spec = CommandSpec(
        ["stock"], abstract: "Print the units in stock per SKU, as the order.placed handler sees them.",
        options: [OptionSpec("--inventory", .text("URL"), help: "The inventory service's base URL (the config's service.inventoryURL).")],
        positionals: [PositionalSpec("SKU", repeatable: true, help: "A SKU.")],
        examples: [Example("orders-switchyard stock --inventory http://127.0.0.1:8080 SKU-TEA-01", "Units of SKU-TEA-01 in stock.")],
        exitCodes: [(.success, "every SKU answered"), (.findings, "a SKU is unknown"), (.usage, "usage"), (.unavailable, "the inventory did not answer")])

    var inventory: String
    var skus: [String]

    init(_ arguments: ParsedArguments) throws {
        guard let inventory = arguments.option("--inventory") else { throw CommandError.usage("--inventory URL is required") }
        self.inventory = inventory
        skus = arguments.positionals
    }

    func run() async throws -> ExitCode {
        let client = HTTPInventory(baseURL: inventory)
        var code = ExitCode.success
        for sku in skus {
            do {
                print("\(sku)\t\(try await client.available(sku: sku))")
            } catch InventoryError.unknownSku {
                print("\(sku)\tunknown")
                code = .findings
            } catch {
                throw CommandError(.unavailable, "\(inventory): \(error)")
            }
        }
        return code
    }
}
