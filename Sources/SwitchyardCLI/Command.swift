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
    /// Stopped by SIGINT or SIGTERM before the end (128 + SIGINT, as shells report it): the result is incomplete.
    case interrupted = 130
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

/// One subcommand: its declaration, then construction from the parsed arguments, validation, run.
///
/// The declaration (``spec``) is the only list of the command's options: parsing, "did you mean",
/// `--help`, `switchyard help X` and the completion scripts are derived from it.
public protocol Command: Sendable {
    /// The options, positionals, subcommands, help, examples and exit codes.
    static var spec: CommandSpec { get }

    /// Takes the parsed arguments (already checked against ``spec``); throws `CommandError.usage` on bad ones.
    init(_ arguments: ParsedArguments) throws
    /// Checks the parsed options together; throws `CommandError.usage` on a bad combination.
    func validate() throws
    /// Runs the command and returns the exit code.
    func run() async throws -> ExitCode
}

extension Command {
    public func validate() throws {}
}

/// Writes to stderr, unbuffered.
public func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
