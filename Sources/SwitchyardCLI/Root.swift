import Foundation
import Switchyard
import SwitchyardKafka

/// The `switchyard` root command: dispatches to a subcommand, prints help, maps errors to exit codes.
public enum Root {
    /// Every subcommand, in the order `--help` lists them.
    // Immutable after initialization; metatypes of a non-Sendable protocol are not Sendable to the compiler.
    static let commands: [any Command.Type] = [
        ConsumeCommand.self,
        ReplayCommand.self,
        DLQCommand.self,
        ReleaseCommand.self,
        ReleasesCommand.self,
        StatusCommand.self,
        SchemaCommand.self,
        DemoCommand.self,
        BrokerCommand.self,
        VersionCommand.self,
        HelpCommand.self,
        CompletionCommand.self,
    ]

    /// The built-in subcommands, then the team's own (``SwitchyardCommand/main(catalogs:handlers:commands:)``).
    static var allCommands: [any Command.Type] { commands + SwitchyardCommand.commands.types }

    /// Every command's declaration, in order.
    static var specs: [CommandSpec] { allCommands.map { $0.spec } }

    /// The root help page.
    static var help: String {
        var text = """
            OVERVIEW: Switchyard — a Kafka consumer for polymorphic JSON events.

            USAGE: switchyard <subcommand> [options]

            SUBCOMMANDS:

            """
        text += CommandSpec.columns(specs.map { ($0.path[0], $0.abstract) })
        text += """

              See 'switchyard help <subcommand>' or 'switchyard <subcommand> --help' for the options of each.

            EXIT CODES (every subcommand's help says which it uses):
              0 success; 1 the data had findings (or a refusal); 64 usage; 65 unreadable input;
              69 broker unavailable; 70 internal error; 78 bad configuration.

            """
        return text
    }

    /// The root's "see" hint.
    static let helpHint = "see 'switchyard --help'"

    /// Prints a usage error: one line saying what is wrong, one hint line.
    static func usageError(_ message: String, hint: String) -> Int32 {
        printError("error: \(message)")
        printError(hint)
        return ExitCode.usage.rawValue
    }

    /// The command (or subcommand) that `words` name, and the remaining arguments; nil when the words
    /// name none (the error is then printed).
    static func resolve(_ argv: [String]) -> Result<(type: any Command.Type, spec: CommandSpec, arguments: [String]), CommandError> {
        guard let name = argv.first else {
            return .failure(.usage("name a subcommand: \(specs.map { $0.path[0] }.joined(separator: ", "))"))
        }
        guard let type = allCommands.first(where: { $0.spec.path[0] == name }) else {
            return .failure(.usage("unknown subcommand '\(name)'" + didYouMean(name, among: specs.map { $0.path[0] })))
        }
        var arguments = Array(argv.dropFirst())
        let spec = type.spec
        guard !spec.subcommands.isEmpty else { return .success((type, spec, arguments)) }
        // The subcommand is the first word that is neither an option nor an option's value.
        let all = spec.options + spec.subcommands.flatMap(\.options)
        var i = 0
        while i < arguments.count {
            let item = arguments[i]
            if item == "--" { break }
            if item.hasPrefix("-") && item != "-" {
                if !item.contains("="), let option = all.first(where: { $0.long == item || $0.short == item }), option.kind.takesValue { i += 1 }
                i += 1
                continue
            }
            guard let sub = spec.subcommand(named: item) else {
                let names = spec.subcommands.map { $0.path.last! }
                return .failure(.usage("unknown \(name) subcommand '\(item)'" + didYouMean(item, among: names)))
            }
            arguments.remove(at: i)
            return .success((type, sub, arguments))
        }
        return .success((type, spec, arguments))
    }

    /// Whether `--help` or `-h` is among the options (before `--`).
    static func wantsHelp(_ arguments: [String]) -> Bool {
        for item in arguments {
            if item == "--" { return false }
            if item == "--help" || item == "-h" { return true }
        }
        return false
    }

    /// Runs the command line (without the program name) and returns the process exit code.
    public static func main(_ argv: [String]) async -> Int32 {
        if let first = argv.first, first == "--help" || first == "-h" {
            print(help, terminator: "")
            return ExitCode.success.rawValue
        }
        if argv.first == "--version" {
            return await main(["version"] + argv.dropFirst())
        }
        let resolved: (type: any Command.Type, spec: CommandSpec, arguments: [String])
        switch resolve(argv) {
        case .success(let value): resolved = value
        case .failure(let error):
            let hint = argv.first.flatMap { name in specs.first { $0.path[0] == name } }?.helpHint ?? helpHint
            return usageError(error.message, hint: hint)
        }
        let spec = resolved.spec
        if wantsHelp(resolved.arguments) {
            print(spec.help, terminator: "")
            return ExitCode.success.rawValue
        }
        if !spec.subcommands.isEmpty {
            let names = spec.subcommands.map { $0.path.last! }.joined(separator: ", ")
            return usageError("name a \(spec.path[0]) subcommand: \(names)", hint: spec.helpHint)
        }
        do {
            let parsed = try ParsedArguments(resolved.arguments, spec: spec)
            let command = try resolved.type.init(parsed)
            try command.validate()
            return try await command.run().rawValue
        } catch let error as CommandError {
            if error.exitCode == .usage { return usageError(error.message, hint: spec.helpHint) }
            printError("error: \(error.message)")
            return error.exitCode.rawValue
        } catch {
            printError("error: internal: \(error)")
            return ExitCode.software.rawValue
        }
    }
}

/// `switchyard help [SUBCOMMAND [SUBCOMMAND]]`: the help page of a command, as `--help` prints it.
struct HelpCommand: Command {
    static let spec = CommandSpec(
        ["help"], abstract: "Show the help of a subcommand (switchyard help dlq list).",
        positionals: [PositionalSpec("SUBCOMMAND", optional: true, repeatable: true, help: "A subcommand, and a dlq or schema subcommand.")],
        examples: [Example("switchyard help replay", "Replay's options, examples and exit codes.")],
        exitCodes: [(.success, "the help was printed"), (.usage, "no such subcommand")])

    var words: [String]

    init(_ arguments: ParsedArguments) throws {
        words = arguments.positionals
    }

    func run() async throws -> ExitCode {
        guard !words.isEmpty else {
            print(Root.help, terminator: "")
            return .success
        }
        guard words.count <= 2 else { throw CommandError.usage("help takes a subcommand and at most one of its subcommands") }
        switch Root.resolve(words) {
        case .failure(let error):
            throw error
        case .success(let resolved):
            if words.count == 2 && resolved.spec.path.count < 2 {
                throw CommandError.usage("'\(words[0])' has no subcommand '\(words[1])'")
            }
            print(resolved.spec.help, terminator: "")
            return .success
        }
    }
}

/// `switchyard completion bash|zsh|fish`: a completion script derived from the command declarations.
struct CompletionCommand: Command {
    static let spec = CommandSpec(
        ["completion"], abstract: "Print a shell completion script (bash, zsh or fish).",
        discussion: "The script completes subcommands, dlq and schema subcommands, options and their enumerated values, and file names.",
        positionals: [PositionalSpec("SHELL", help: "bash, zsh or fish.")],
        examples: [
            Example("switchyard completion bash > /tmp/switchyard.bash", "Then: source /tmp/switchyard.bash (or install it in /etc/bash_completion.d/)."),
            Example("switchyard completion zsh > /tmp/_switchyard", "Put _switchyard in a directory of $fpath."),
            Example("switchyard completion fish > /tmp/switchyard.fish", "Put it in ~/.config/fish/completions/."),
        ],
        exitCodes: [(.success, "the script was printed"), (.usage, "an unknown shell")])

    var shell: String

    init(_ arguments: ParsedArguments) throws {
        shell = arguments.positionals[0]
        guard Completion.shells.contains(shell) else {
            throw CommandError.usage("no completion for '\(shell)': bash, zsh or fish" + didYouMean(shell, among: Completion.shells))
        }
    }

    func run() async throws -> ExitCode {
        print(Completion.script(for: shell, commands: Root.specs), terminator: "")
        return .success
    }
}

/// `switchyard version [--json]`: the version, librdkafka's, and this binary's catalogs.
struct VersionCommand: Command {
    static let spec = CommandSpec(
        ["version"], abstract: "Print the version (--json: with librdkafka's and the catalogs and their event types).",
        options: [OptionSpec("--json", help: "One object: version, librdkafka, catalogs (name, policy, eventTypes).")],
        examples: [Example("switchyard version --json", "What a bug report needs.")],
        exitCodes: [(.success, "printed")])

    /// The version of this build.
    static let version = "0.1.0"

    var json: Bool

    init(_ arguments: ParsedArguments) throws {
        json = arguments.flag("--json")
    }

    func run() async throws -> ExitCode {
        guard json else {
            print("switchyard \(Self.version) (librdkafka \(KafkaClientLibrary.version))")
            return .success
        }
        var o = JSONObject()
        o.set("version", Self.version)
        o.set("librdkafka", KafkaClientLibrary.version)
        o.set("catalogs", SwitchyardCommand.catalogs.catalogs.map { catalog -> JSONObject in
            var c = JSONObject()
            c.set("name", catalog.name)
            c.set("policy", catalog.defaultPolicy.rawValue)
            c.set("eventTypes", catalog.eventTypes)
            return c
        })
        print(String(decoding: o.bytes, as: UTF8.self))
        return .success
    }
}
