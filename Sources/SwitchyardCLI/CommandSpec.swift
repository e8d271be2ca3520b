import Foundation
import Switchyard

// How a command's options are declared, once (in the spirit of swift-argument-parser):
//
//     static let spec = CommandSpec(
//         ["replay"], abstract: "…",
//         options: [OptionSpec("--topic", short: "-t", .text("TOPIC"), help: "…"),
//                   OptionSpec("--policy", .choice(["strict", "lenient"]), help: "…")],
//         positionals: [PositionalSpec("FILE", optional: true, repeatable: true, isFile: true, help: "…")],
//         examples: [Example("switchyard replay -t feeds feeds.ndjson", "…")],   // run by DocumentedCommandsTests
//         exitCodes: [(.success, "…"), (.usage, "…")])
//
//     init(_ arguments: ParsedArguments) throws {
//         topic = arguments.option("--topic")   // reading an undeclared option is a programming error
//     }
//
// Root parses the command line against `spec` (unknown options, missing values, kinds, allowed values,
// repeats, positionals: usage errors with "did you mean"), then calls `init`, `validate()`, `run()`.
// `--help`, `switchyard help X` and `switchyard completion bash|zsh|fish` read the same declaration.

// MARK: - Declarations

/// What an option takes on the command line; parsing, validation, help and completion all read it.
public enum ValueKind: Sendable, Equatable {
    /// A flag without a value (`--json`).
    case flag
    /// Free text, shown as `meta` in help (`--topic NAME`).
    case text(String)
    /// A file path (completion offers files).
    case file(String)
    /// An integer, at least `minimum` (`--partition P`).
    case integer(String, minimum: Int? = nil)
    /// A non-negative number (`--timeout S`).
    case number(String)
    /// One of `values` (`--policy strict|lenient`); anything else is a usage error with "did you mean".
    case choice([String])
    /// A comma-separated list of `values` (`--fail-on unknown,failed`); each is checked like a choice.
    case list([String])
    /// Free text whose likely values completion offers (`--catalog NAME`: this binary's catalogs); the command
    /// checks the value itself, with its own message.
    case named(String, NameSource)

    /// Whether the option is followed by a value.
    var takesValue: Bool { self != .flag }

    /// The placeholder in help: `NAME`, `strict|lenient`.
    var meta: String {
        switch self {
        case .flag: ""
        case .text(let m), .file(let m), .integer(let m, _), .number(let m), .named(let m, _): m
        case .choice(let values): values.joined(separator: "|")
        case .list(let values): values.joined(separator: ",")
        }
    }

    /// The allowed values, for completion (nil: any).
    var values: [String]? {
        switch self {
        case .choice(let values), .list(let values): values
        case .named(_, let source): source.names
        default: nil
        }
    }
}

/// Where a ``ValueKind/named(_:_:)`` option's values come from: read when a completion script is made, so they
/// are the catalogs of the running command line (a team's binary has its own).
public enum NameSource: Sendable, Equatable {
    /// The catalogs' names.
    case catalogs
    /// The catalogs' event types.
    case eventTypes

    var names: [String] {
        switch self {
        case .catalogs: SwitchyardCommand.catalogs.catalogs.map(\.name)
        case .eventTypes: Array(Set(SwitchyardCommand.catalogs.catalogs.flatMap(\.eventTypes))).sorted()
        }
    }
}

/// One option, declared once: its names, what it takes, its help line.
public struct OptionSpec: Sendable {
    /// `--topic`.
    public var long: String
    /// `-t`, for the common ones.
    public var short: String?
    /// What it takes.
    public var kind: ValueKind
    /// One line for `--help` (may be longer; it is wrapped).
    public var help: String
    /// Whether it may be given more than once.
    public var repeatable: Bool

    public init(_ long: String, short: String? = nil, _ kind: ValueKind = .flag, repeatable: Bool = false, help: String) {
        precondition(long.hasPrefix("--"), "an option's long name starts with --: \(long)")
        self.long = long
        self.short = short
        self.kind = kind
        self.help = help
        self.repeatable = repeatable
    }

    /// `-t, --topic NAME`.
    var signature: String {
        let names = (short.map { "\($0), " } ?? "    ") + long
        return kind.takesValue ? "\(names) \(kind.meta)" : names
    }
}

/// A positional argument.
public struct PositionalSpec: Sendable {
    /// `FILE`.
    public var name: String
    /// One help line.
    public var help: String
    /// Whether it may be omitted.
    public var optional: Bool
    /// Whether more than one may be given (only the last positional).
    public var repeatable: Bool
    /// Whether completion offers files.
    public var isFile: Bool

    public init(_ name: String, optional: Bool = false, repeatable: Bool = false, isFile: Bool = false, help: String) {
        self.name = name
        self.help = help
        self.optional = optional
        self.repeatable = repeatable
        self.isFile = isFile
    }

    var usage: String {
        let text = repeatable ? "\(name)…" : name
        return optional ? "[\(text)]" : text
    }
}

/// One example in a help page: a command line that runs as printed (CLI tests run each), and what it does.
public struct Example: Sendable {
    public var command: String
    public var explanation: String

    public init(_ command: String, _ explanation: String) {
        self.command = command
        self.explanation = explanation
    }
}

/// A command (or a subcommand such as `dlq list`), declared once: its options, positionals, help,
/// examples and exit codes. Parsing, validation with "did you mean", `--help`, `switchyard help X` and
/// the completion scripts are all derived from it.
public struct CommandSpec: Sendable {
    /// The words after `switchyard`: `["dlq", "list"]`.
    public var path: [String]
    /// One line for the parent's list.
    public var abstract: String
    /// Usage lines after `switchyard` (default: derived from the options and positionals).
    public var synopsis: [String]
    /// Paragraphs shown after USAGE.
    public var discussion: String
    /// Options, in help order.
    public var options: [OptionSpec]
    /// Positionals, in order.
    public var positionals: [PositionalSpec]
    /// Subcommands (`dlq list`, …); a command with subcommands takes one first.
    public var subcommands: [CommandSpec]
    /// Examples that run as printed.
    public var examples: [Example]
    /// Exit codes and what each means here.
    public var exitCodes: [(code: ExitCode, meaning: String)]

    public init(
        _ path: [String], abstract: String, synopsis: [String] = [], discussion: String = "", options: [OptionSpec] = [],
        positionals: [PositionalSpec] = [], subcommands: [CommandSpec] = [], examples: [Example] = [],
        exitCodes: [(code: ExitCode, meaning: String)] = []
    ) {
        self.path = path
        self.abstract = abstract
        self.synopsis = synopsis
        self.discussion = discussion
        self.options = options
        self.positionals = positionals
        self.subcommands = subcommands
        self.examples = examples
        self.exitCodes = exitCodes
        var seen: Set<String> = ["--help", "-h"]
        for option in options {
            precondition(seen.insert(option.long).inserted, "\(path.joined(separator: " ")): \(option.long) declared twice")
            if let short = option.short { precondition(seen.insert(short).inserted, "\(path.joined(separator: " ")): \(short) declared twice") }
        }
    }

    /// `switchyard dlq list`.
    public var commandLine: String { (["switchyard"] + path).joined(separator: " ") }

    /// The hint line of a usage error: `see 'switchyard replay --help'`.
    public var helpHint: String { "see '\(commandLine) --help'" }

    /// The option named `name` (long or short).
    func option(named name: String) -> OptionSpec? {
        options.first { $0.long == name || $0.short == name }
    }

    /// The subcommand named `name`.
    func subcommand(named name: String) -> CommandSpec? {
        subcommands.first { $0.path.last == name }
    }
}

// MARK: - Did you mean

/// The nearest of `candidates` to a misspelt `word`, if one is close (edit distance at most a third of
/// the word, and at least 2; a prefix counts as close).
func nearest(_ word: String, among candidates: [String]) -> String? {
    let lowered = word.lowercased()
    if let exactCase = candidates.first(where: { $0.lowercased() == lowered }) { return exactCase }
    guard let best = candidates.min(by: { editDistance($0, word) < editDistance($1, word) }) else { return nil }
    if editDistance(best, word) <= max(2, word.count / 3) { return best }
    let prefixed = candidates.filter { $0.lowercased().hasPrefix(lowered) }
    return prefixed.count == 1 ? prefixed[0] : nil
}

/// " (did you mean 'X'?)" or "".
func didYouMean(_ word: String, among candidates: [String]) -> String {
    nearest(word, among: candidates).map { " (did you mean '\($0)'?)" } ?? ""
}

// MARK: - Parsing

/// The arguments of one command, parsed and checked against its ``CommandSpec``: every option is
/// declared, every value has its kind, every enumerated value is allowed.
public struct ParsedArguments: Sendable {
    /// The command (or subcommand) the arguments were parsed for.
    public let spec: CommandSpec
    /// Long name → every value given, in order (flags: one empty string per occurrence).
    private var values: [String: [String]]
    /// The positionals, in order.
    public let positionals: [String]

    /// Parses `arguments` (after the command's words) against `spec`.
    public init(_ arguments: [String], spec: CommandSpec) throws {
        self.spec = spec
        var values: [String: [String]] = [:]
        var positionals: [String] = []
        var i = 0
        var afterDashDash = false
        while i < arguments.count {
            let item = arguments[i]
            i += 1
            if afterDashDash || item == "-" || !item.hasPrefix("-") || Self.isNegativeNumber(item) {
                positionals.append(item)
                continue
            }
            if item == "--" {
                afterDashDash = true
                continue
            }
            var name = item
            var inline: String?
            if item.hasPrefix("--"), let equals = item.firstIndex(of: "=") {
                name = String(item[..<equals])
                inline = String(item[item.index(after: equals)...])
            }
            guard let option = spec.option(named: name) else {
                let names = spec.options.map(\.long) + ["--help"]
                throw CommandError.usage("unknown option '\(name)' for '\(spec.commandLine)'" + didYouMean(name, among: names))
            }
            guard option.kind.takesValue else {
                if inline != nil { throw CommandError.usage("\(option.long) takes no value") }
                values[option.long, default: []].append("")
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else if i < arguments.count, !(arguments[i].hasPrefix("-") && arguments[i] != "-" && !Self.isNegativeNumber(arguments[i])) {
                value = arguments[i]
                i += 1
            } else {
                throw CommandError.usage("\(option.long) needs a value (\(option.kind.meta))")
            }
            try Self.check(value, for: option)
            values[option.long, default: []].append(value)
        }
        for option in spec.options where !option.repeatable {
            if let given = values[option.long], given.count > 1 {
                throw CommandError.usage("\(option.long) given more than once")
            }
        }
        let required = spec.positionals.filter { !$0.optional }
        if positionals.count < required.count {
            throw CommandError.usage("missing \(required[positionals.count].name): \(spec.commandLine) \(spec.positionals.map(\.usage).joined(separator: " "))")
        }
        if spec.positionals.last?.repeatable != true, positionals.count > spec.positionals.count {
            throw CommandError.usage("unexpected argument '\(positionals[spec.positionals.count])'")
        }
        self.values = values
        self.positionals = positionals
    }

    private static func isNegativeNumber(_ text: String) -> Bool {
        text.count > 1 && text.hasPrefix("-") && Double(text.dropFirst()) != nil
    }

    /// Checks a value against its option's kind.
    private static func check(_ value: String, for option: OptionSpec) throws {
        switch option.kind {
        case .flag, .text, .file, .named:
            break
        case .integer(let meta, let minimum):
            guard let number = Int(value) else { throw CommandError.usage("\(option.long) needs an integer \(meta), not '\(value)'") }
            if let minimum, number < minimum { throw CommandError.usage("\(option.long) must be ≥ \(minimum), not \(number)") }
        case .number(let meta):
            guard let number = Double(value), number >= 0, number.isFinite else {
                throw CommandError.usage("\(option.long) needs a number \(meta) ≥ 0, not '\(value)'")
            }
        case .choice(let allowed):
            // A repeatable choice also takes a comma-separated list (`--kind a,b` is `--kind a --kind b`).
            let elements = option.repeatable ? value.split(separator: ",", omittingEmptySubsequences: false).map(String.init) : [value]
            for element in elements where !allowed.contains(element) {
                throw CommandError.usage(
                    "\(option.long) must be one of \(allowed.joined(separator: ", ")), not '\(element)'" + didYouMean(element, among: allowed))
            }
        case .list(let allowed):
            for element in value.split(separator: ",", omittingEmptySubsequences: false).map(String.init) where !allowed.contains(element) {
                throw CommandError.usage(
                    "\(option.long) takes a comma-separated list of \(allowed.joined(separator: ", ")), not '\(element)'"
                        + didYouMean(element, among: allowed))
            }
        }
    }

    private func declared(_ long: String, _ function: StaticString = #function) -> OptionSpec {
        guard let option = spec.option(named: long) else {
            preconditionFailure("\(spec.commandLine) reads \(long), which it does not declare (\(function))")
        }
        return option
    }

    /// Whether the flag was given.
    public func flag(_ long: String) -> Bool {
        let option = declared(long)
        precondition(!option.kind.takesValue, "\(long) takes a value")
        return values[long] != nil
    }

    /// The value of a single-valued option.
    public func option(_ long: String) -> String? {
        _ = declared(long)
        return values[long]?.last
    }

    /// Every value of a repeatable option, in order.
    public func options(_ long: String) -> [String] {
        _ = declared(long)
        return values[long] ?? []
    }

    /// An integer option (checked while parsing).
    public func integer(_ long: String) -> Int? {
        option(long).flatMap { Int($0) }
    }

    /// A number option (checked while parsing).
    public func number(_ long: String) -> Double? {
        option(long).flatMap { Double($0) }
    }

    /// A list option's elements, over every occurrence (`--fail-on unknown --fail-on failed` as
    /// `--fail-on unknown,failed`).
    public func list(_ long: String) -> [String] {
        options(long).flatMap { $0.split(separator: ",").map(String.init) }
    }

    /// Whether the option was given at all.
    public func given(_ long: String) -> Bool {
        _ = declared(long)
        return values[long] != nil
    }
}
