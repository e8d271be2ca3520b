import Dispatch
import Foundation
import SwitchyardTestSupport
import Testing

extension CLI {
    /// ``run(_:stdin:timeout:)`` on a Dispatch thread, so an async test does not block the cooperative pool
    /// (which the worker under test needs).
    static func runOffPool(
        _ arguments: [String], stdin: Data? = nil, timeout: TimeInterval = 90, environment: [String: String]? = nil
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Swift.Result { try CLI.run(arguments, stdin: stdin, timeout: timeout, environment: environment) })
            }
        }
    }
}

/// Runs an executable to completion (stdin from `input`, stdout to `output` when given), off the pool.
func runTool(_ path: String, _ arguments: [String], input: URL? = nil, output: URL? = nil) async throws -> (status: Int32, stdout: String, stderr: String) {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            do {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: path)
                process.arguments = arguments
                process.standardInput = try input.map { try FileHandle(forReadingFrom: $0) } ?? FileHandle.nullDevice
                let out = Pipe()
                let err = Pipe()
                if let output {
                    _ = FileManager.default.createFile(atPath: output.path, contents: nil)
                    process.standardOutput = try FileHandle(forWritingTo: output)
                } else {
                    process.standardOutput = out
                }
                process.standardError = err
                try process.run()
                nonisolated(unsafe) var stdoutData = Data()
                let group = DispatchGroup()
                if output == nil {
                    DispatchQueue.global().async(group: group) { stdoutData = out.fileHandleForReading.readDataToEndOfFile() }
                }
                let stderrData = err.fileHandleForReading.readDataToEndOfFile()
                group.wait()
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, String(decoding: stdoutData, as: UTF8.self), String(decoding: stderrData, as: UTF8.self)))
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }
}

/// Runs an executable to completion on the calling thread, stdout and stderr together in `stdout` (stderr is
/// empty), stdin closed; in `cwd` and with `environment` when given.
func awaitTool(
    _ path: String, _ arguments: [String], cwd: URL? = nil, environment: [String: String]? = nil
) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if let cwd { process.currentDirectoryURL = cwd }
    if let environment { process.environment = environment }
    let out = Pipe()
    process.standardOutput = out
    process.standardError = out
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self), "")
}

/// `switchyard broker` as a child process, stopped with SIGTERM.
final class BrokerProcess: @unchecked Sendable {
    // @unchecked: Process is not Sendable; a test touches it from one task at a time.
    let process: Process
    let bootstrap: String

    private init(process: Process, bootstrap: String) {
        self.process = process
        self.bootstrap = bootstrap
    }

    static func start(_ arguments: [String]) async throws -> BrokerProcess {
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = ["broker"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let handle = pipe.fileHandleForReading
        let line = try await withDeadline(.seconds(30), "the first line of `switchyard broker`") {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
                DispatchQueue.global().async {
                    var bytes: [UInt8] = []
                    while true {
                        let chunk = handle.availableData
                        if chunk.isEmpty { return continuation.resume(throwing: TestFailure("switchyard broker closed stdout")) }
                        bytes += chunk
                        if let newline = bytes.firstIndex(of: 0x0A) {
                            return continuation.resume(returning: String(decoding: bytes[..<newline], as: UTF8.self))
                        }
                    }
                }
            }
        }
        guard line.hasPrefix("bootstrap.servers=") else { throw TestFailure("unexpected first line: \(line)") }
        return BrokerProcess(process: process, bootstrap: String(line.dropFirst("bootstrap.servers=".count)))
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

/// kcat's path, or a test failure naming the package to install.
func kcatPath() throws -> String {
    for path in ["/usr/bin/kcat", "/usr/local/bin/kcat", "/usr/bin/kafkacat"] where FileManager.default.isExecutableFile(atPath: path) {
        return path
    }
    throw TestFailure("kcat is not installed (apt-get install kcat)")
}

func temporaryFile(_ name: String) -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-\(UUID().uuidString.prefix(8))-\(name)")
}
