import Foundation
import SwitchyardCLI
import SwitchyardHTTP

/// `orders-switchyard inventory-stub [--port N] [--stock SKU=UNITS]…`: a local stand-in for the inventory
/// service, for trying the service on a laptop (`GET /stock/{sku}` answers the units; an unknown SKU 404).
/// Runs until interrupted.
struct InventoryStubCommand: Command {
    static let spec = CommandSpec(
        ["inventory-stub"], abstract: "Serve a local stand-in for the inventory service (GET /stock/SKU), until interrupted.",
        discussion: "Without --stock, every SKU of Fixtures/orders.ndjson has 100 units.",
        options: [
            OptionSpec("--port", .integer("N", minimum: 1), help: "The port on 127.0.0.1. Default: 8080 (config/orders.json's service.inventoryURL)."),
            OptionSpec("--stock", .text("SKU=UNITS"), repeatable: true, help: "A SKU and its units in stock."),
        ],
        examples: [Example("orders-switchyard inventory-stub --port 8080 --stock SKU-TEA-01=5", "Serve one SKU with 5 units.")],
        exitCodes: [(.success, "interrupted"), (.usage, "usage"), (.config, "the port cannot be bound")])

    var port: Int
    var stock: [String: Int]

    init(_ arguments: ParsedArguments) throws {
        port = arguments.option("--port").flatMap { Int($0) } ?? 8080
        var stock: [String: Int] = [:]
        for item in arguments.options("--stock") {
            let parts = item.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let units = Int(parts[1]), units >= 0 else {
                throw CommandError.usage("--stock takes SKU=UNITS, not '\(item)'")
            }
            stock[String(parts[0])] = units
        }
        self.stock = stock.isEmpty ? ["SKU-TEA-01": 100, "SKU-MUG-02": 100, "SKU-KETTLE-9": 100] : stock
    }

    func run() async throws -> ExitCode {
        var routes = HTTPRoutes()
        for (sku, units) in stock {
            routes.get("/stock/\(sku)") { _ in .text("\(units)\n") }
        }
        let server: HTTPServer
        do {
            server = try HTTPServer.start(host: "127.0.0.1", port: port, routes: routes)
        } catch {
            throw CommandError(.config, "127.0.0.1:\(port): \(error)")
        }
        FileHandle.standardOutput.write(Data("inventory-stub: http://127.0.0.1:\(server.port) (\(stock.count) SKUs)\n".utf8))
        while true { try await Task.sleep(for: .seconds(3600)) }
    }
}
