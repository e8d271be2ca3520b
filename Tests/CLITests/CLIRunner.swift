import Foundation
import SwitchyardTestSupport
import Testing

/// Runs the built `switchyard` binary, like swift-argument-parser's `AssertExecuteCommand`.
enum CLI {
    /// The package root and the built binary: the test support module's, one definition for all targets.
    static let packageRoot = SwitchyardTestSupport.packageRoot
    static let binary = switchyardBinary

    struct Result {
        var exitCode: Int32
        var stdout: String
        var stderr: String
        var stdoutLines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
    }

    /// Runs `switchyard ARGS` with `stdin` as standard input; fails the test after `timeout` seconds.
    /// `environment` replaces the inherited one when given.
    static func run(_ arguments: [String], stdin: Data? = nil, timeout: TimeInterval = 60, environment: [String: String]? = nil) throws -> Result {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.currentDirectoryURL = packageRoot
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        // Drain both pipes concurrently so a large output cannot block the child.
        let group = DispatchGroup()
        nonisolated(unsafe) var stdoutData = Data()
        nonisolated(unsafe) var stderrData = Data()
        DispatchQueue.global().async(group: group) { stdoutData = out.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { stderrData = err.fileHandleForReading.readDataToEndOfFile() }
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        if group.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            Issue.record("switchyard \(arguments.joined(separator: " ")) did not finish within \(timeout) s")
        }
        process.waitUntilExit()
        return Result(
            exitCode: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
            stderr: String(decoding: stderrData, as: UTF8.self))
    }
}
