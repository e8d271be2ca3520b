import Foundation
import Switchyard

/// The whole `switchyard` command line as a library: a team's own executable runs it over its own
/// catalogs.
///
/// ```swift
/// // Sources/orders-switchyard/main.swift
/// import SwitchyardCLI
/// import Orders
///
/// await SwitchyardCommand.main(catalogs: [OrderEvent.self])
/// ```
///
/// Every subcommand (consume, replay, dlq, release, demo, broker, version) then names catalogs
/// through these: a config's `topics.<t>.catalog`, `replay --catalog`, `replay --topic`.
public enum SwitchyardCommand {
    /// The catalogs of the running command line.
    @TaskLocal public static var catalogs = CatalogRegistry([Catalog]())

    /// Runs the command line of this process over `catalogs` and exits with its exit code.
    public static func main(catalogs: [any EventCatalog.Type]) async -> Never {
        let code = await run(Array(CommandLine.arguments.dropFirst()), catalogs: catalogs)
        exit(code)
    }

    /// Runs a command line (without the program name) over `catalogs`; returns the exit code.
    public static func run(_ arguments: [String], catalogs: [any EventCatalog.Type]) async -> Int32 {
        await $catalogs.withValue(CatalogRegistry(catalogs)) {
            await Root.main(arguments)
        }
    }
}
