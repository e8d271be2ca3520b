import Foundation
import Switchyard

/// The whole `switchyard` command line as a library: a team's own executable runs it over its own
/// catalogs, its own handlers and its own subcommands.
///
/// ```swift
/// // Sources/orders-switchyard/main.swift
/// import Orders
/// import SwitchyardCLI
///
/// await SwitchyardCommand.main(catalogs: [OrderEvent.self]) { setup in
///     let settings = try setup.configuration.service(as: OrdersSettings.self)   // the file's "service" section
///     return OrderHandlers(inventory: InventoryClient(url: settings.inventoryURL)).handlers
/// }
/// ```
///
/// Every subcommand (consume, replay, dlq, release, demo, broker, version) then names catalogs
/// through these: a config's `topics.<t>.catalog`, `replay --catalog`, `replay --topic`; `consume` runs
/// the handlers the factory makes from the loaded configuration.
public enum SwitchyardCommand {
    /// The catalogs of the running command line.
    public static var catalogs: CatalogRegistry { invocation.catalogs }

    /// The handler factory of the running command line (nil: `consume` runs no handlers).
    public static var handlers: HandlerFactory? { invocation.handlers }

    /// The team's own subcommands of the running command line.
    static var commands: CommandList { invocation.commands }

    /// What the running command line was given. One task-local value, not one per item: nested
    /// `withValue` calls crashed the release build (`swift_task_localValuePush`).
    @TaskLocal static var invocation = Invocation(catalogs: CatalogRegistry([Catalog]()), handlers: nil, commands: CommandList([]))

    struct Invocation: Sendable {
        var catalogs: CatalogRegistry
        var handlers: HandlerFactory?
        var commands: CommandList
    }

    /// Runs the command line of this process and exits with its exit code.
    ///
    /// - Parameters:
    ///   - catalogs: The catalog enums this binary was built with.
    ///   - commands: The team's own subcommands, listed after the built-in ones (a name a built-in
    ///     subcommand has is a programming error: exit 70).
    ///   - handlers: Makes the handlers `consume` runs, from the loaded configuration; called once per
    ///     `consume`, before the worker connects. A ``Switchyard/ConfigurationError`` it throws exits 78 with
    ///     its path; any other error exits 78 too.
    public static func main(
        catalogs: [any EventCatalog.Type], commands: [any Command.Type] = [], handlers: HandlerFactory? = nil
    ) async -> Never {
        let code = await run(Array(CommandLine.arguments.dropFirst()), catalogs: catalogs, commands: commands, handlers: handlers)
        exit(code)
    }

    /// Runs a command line (without the program name); returns the exit code.
    public static func run(
        _ arguments: [String], catalogs: [any EventCatalog.Type], commands: [any Command.Type] = [], handlers: HandlerFactory? = nil
    ) async -> Int32 {
        let builtIn = Set(Root.commands.map { $0.spec.path[0] })
        if let clash = commands.first(where: { builtIn.contains($0.spec.path[0]) }) {
            printError("error: internal: the subcommand '\(clash.spec.path[0])' is built in; give yours another name")
            return ExitCode.software.rawValue
        }
        let invocation = Invocation(catalogs: CatalogRegistry(catalogs), handlers: handlers, commands: CommandList(commands))
        return await $invocation.withValue(invocation) {
            await Root.main(arguments)
        }
    }
}

/// Makes a team's handlers from what `consume` loaded: see ``HandlerSetup``.
public typealias HandlerFactory = @Sendable (HandlerSetup) async throws -> EventHandlers

/// What a handler factory gets from `consume`: the loaded configuration (the team's `service` section in
/// it) and the worker's logger.
public struct HandlerSetup: Sendable {
    /// The worker's configuration, environment overrides and secrets applied.
    public var configuration: WorkerConfiguration
    /// The worker's logger (the handlers may keep it).
    public var logger: SwitchyardLogger

    /// A setup for `configuration` (tests call factories with one).
    public init(configuration: WorkerConfiguration, logger: SwitchyardLogger = SwitchyardLogger()) {
        self.configuration = configuration
        self.logger = logger
    }
}

/// A list of command types: metatypes of a non-`Sendable`-checked protocol are not `Sendable` to the
/// compiler, but the list is immutable.
struct CommandList: @unchecked Sendable {
    let types: [any Command.Type]

    init(_ types: [any Command.Type]) {
        self.types = types
    }
}
