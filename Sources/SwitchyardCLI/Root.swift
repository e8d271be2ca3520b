import Foundation

/// The `switchyard` root command: dispatches to a subcommand, prints help, maps errors to exit codes.
public enum Root {
    /// Every subcommand, in the order `--help` lists them.
    // Immutable after initialization; metatypes of a non-Sendable protocol are not Sendable to the compiler.
    static let commands: [any Command.Type] = [
        ConsumeCommand.self,
        ReplayCommand.self,
        DLQCommand.self,
        ReleaseCommand.self,
        SchemaCommand.self,
        DemoCommand.self,
        BrokerCommand.self,
        VersionCommand.self,
    ]

    static var help: String {
        var text = """
            OVERVIEW: Switchyard — a Kafka consumer for polymorphic JSON events.

            USAGE: switchyard <subcommand> [options]

            SUBCOMMANDS:

            """
        let width = commands.map { $0.name.count }.max() ?? 0
        for command in commands {
            text += "  " + command.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + command.abstract + "\n"
        }
        text += "\n  See 'switchyard <subcommand> --help' for the options of each.\n"
        return text
    }

    /// Runs the command line (without the program name) and returns the process exit code.
    public static func main(_ argv: [String]) async -> Int32 {
        guard let name = argv.first else {
            printError(help)
            return ExitCode.usage.rawValue
        }
        if name == "--help" || name == "-h" || name == "help" {
            print(help, terminator: "")
            return ExitCode.success.rawValue
        }
        if name == "--version" {
            return await main(["version"])
        }
        guard let type = commands.first(where: { $0.name == name }) else {
            printError("error: unknown subcommand '\(name)'\n\n" + help)
            return ExitCode.usage.rawValue
        }
        var arguments = Arguments(Array(argv.dropFirst()))
        if arguments.wantsHelp {
            print(type.usage)
            return ExitCode.success.rawValue
        }
        do {
            let command = try type.init(arguments: &arguments)
            try arguments.finish()
            try command.validate()
            return try await command.run().rawValue
        } catch let error as CommandError {
            printError("error: \(error.message)")
            if error.exitCode == .usage { printError("\nUSAGE:\n" + type.usage) }
            return error.exitCode.rawValue
        } catch {
            printError("error: internal: \(error)")
            return ExitCode.software.rawValue
        }
    }
}

/// `switchyard version`: prints the version.
struct VersionCommand: Command {
    static let name = "version"
    static let abstract = "Print the version."
    static let usage = "switchyard version"

    /// The version of this build.
    static let version = "0.1.0"

    init(arguments: inout Arguments) throws {}

    func run() async throws -> ExitCode {
        print("switchyard \(Self.version)")
        return .success
    }
}
