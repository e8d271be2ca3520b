import Foundation

/// Exit codes from sysexits(3), as PRODUCT.md lists them.
public enum ExitCode: Int32, Sendable {
    /// Success.
    case success = 0
    /// The data had findings: a strict failure or a lossy round trip.
    case findings = 1
    /// The command line was wrong.
    case usage = 64
    /// The input could not be read or parsed.
    case dataError = 65
    /// The broker could not be reached.
    case unavailable = 69
    /// A bug or an unexpected condition.
    case software = 70
    /// The configuration is wrong.
    case config = 78
}

/// An error that ends a command with a message on stderr and a given exit code.
public struct CommandError: Error, CustomStringConvertible {
    /// The exit code the process ends with.
    public var exitCode: ExitCode
    /// The message printed on stderr (no record values).
    public var message: String

    public init(_ exitCode: ExitCode, _ message: String) {
        self.exitCode = exitCode
        self.message = message
    }

    /// A usage error (exit 64), like swift-argument-parser's `ValidationError`.
    public static func usage(_ message: String) -> CommandError { CommandError(.usage, message) }

    public var description: String { message }
}

/// One subcommand: it parses its own arguments, validates them, then runs.
public protocol Command: Sendable {
    /// The subcommand's name on the command line.
    static var name: String { get }
    /// One line for the root `--help`.
    static var abstract: String { get }
    /// The full `--help` text.
    static var usage: String { get }

    /// Parses arguments (after the subcommand name); throws `CommandError.usage` on bad ones.
    init(arguments: inout Arguments) throws
    /// Checks the parsed options together; throws `CommandError.usage` on a bad combination.
    func validate() throws
    /// Runs the command and returns the exit code.
    func run() async throws -> ExitCode
}

extension Command {
    public func validate() throws {}
}

/// A small argument cursor: flags, options with values (`--x v` or `--x=v`), positionals.
public struct Arguments {
    private var items: [String]
    private var consumed: [Bool]

    public init(_ items: [String]) {
        self.items = items
        self.consumed = Array(repeating: false, count: items.count)
    }

    /// Whether `--help`/`-h` was given.
    public var wantsHelp: Bool { items.contains("--help") || items.contains("-h") }

    /// Takes a boolean flag; true if present.
    public mutating func flag(_ name: String) -> Bool {
        var found = false
        for (i, item) in items.enumerated() where !consumed[i] && item == name {
            consumed[i] = true
            found = true
        }
        return found
    }

    /// Takes every value of a repeatable option.
    public mutating func options(_ name: String) throws -> [String] {
        var values: [String] = []
        var i = 0
        while i < items.count {
            defer { i += 1 }
            guard !consumed[i] else { continue }
            let item = items[i]
            if item == name {
                guard i + 1 < items.count, !consumed[i + 1] else {
                    throw CommandError.usage("option \(name) needs a value")
                }
                consumed[i] = true
                consumed[i + 1] = true
                values.append(items[i + 1])
                i += 1
            } else if item.hasPrefix(name + "=") {
                consumed[i] = true
                values.append(String(item.dropFirst(name.count + 1)))
            }
        }
        return values
    }

    /// Takes a single-valued option; a repeated one is a usage error.
    public mutating func option(_ name: String) throws -> String? {
        let values = try options(name)
        guard values.count <= 1 else { throw CommandError.usage("option \(name) given more than once") }
        return values.first
    }

    /// Takes an integer option.
    public mutating func intOption(_ name: String) throws -> Int? {
        guard let text = try option(name) else { return nil }
        guard let value = Int(text) else { throw CommandError.usage("option \(name) needs an integer, got '\(text)'") }
        return value
    }

    /// Takes every remaining argument as a positional; an unknown `--option` is a usage error.
    public mutating func positionals() throws -> [String] {
        var values: [String] = []
        var afterDashDash = false
        for (i, item) in items.enumerated() where !consumed[i] {
            consumed[i] = true
            if !afterDashDash && item == "--" {
                afterDashDash = true
                continue
            }
            if !afterDashDash && item.hasPrefix("-") && item != "-" {
                throw CommandError.usage("unknown option '\(item)'")
            }
            values.append(item)
        }
        return values
    }

    /// Fails when something was not taken by the command.
    public mutating func finish() throws {
        for (i, item) in items.enumerated() where !consumed[i] {
            throw CommandError.usage("unexpected argument '\(item)'")
        }
    }
}

/// Writes to stderr, unbuffered.
public func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
