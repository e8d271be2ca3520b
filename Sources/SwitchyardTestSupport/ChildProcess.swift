import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// The package root (for fixtures and the built binary).
public let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The built `switchyard` binary: beside the test bundle, else `.build/debug/switchyard`.
public let switchyardBinary: URL = {
    let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("switchyard")
    if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
    return packageRoot.appendingPathComponent(".build/debug/switchyard")
}()

/// A child process whose output is collected as it comes, for tests that signal or kill it.
public final class ChildProcess: Sendable {
    private let process: Process
    private let output = Locked<Output>(Output())

    struct Output: Sendable {
        var stdout = Data()
        var stderr = Data()
    }

    /// Starts `executable` (default: the built `switchyard`) with `arguments` and extra environment variables.
    public init(_ arguments: [String], executable: URL = switchyardBinary, environment: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = packageRoot
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let output = self.output
        out.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            output.withLock { $0.stdout.append(data) }
        }
        err.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            output.withLock { $0.stderr.append(data) }
        }
        self.process = process
        try process.run()
    }

    public var stdout: String { output.withLock { String(decoding: $0.stdout, as: UTF8.self) } }
    public var stderr: String { output.withLock { String(decoding: $0.stderr, as: UTF8.self) } }
    public var isRunning: Bool { process.isRunning }
    public var pid: Int32 { process.processIdentifier }

    /// Sends a signal (SIGTERM, SIGKILL, …).
    public func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// Waits for the exit and returns its status; fails after `limit`.
    public func waitForExit(within limit: Duration = .seconds(60)) async throws -> Int32 {
        let deadline = ContinuousClock.now + limit
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                process.terminate()
                throw TestFailure("process did not exit within \(limit); stderr:\n\(stderr.suffix(2000))")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        // Let the readability handlers drain what is left.
        try await Task.sleep(for: .milliseconds(100))
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}

/// A TCP port that is free now (bound and released).
public func freePort() -> Int {
    let (fd, port) = boundLoopbackSocket()
    close(fd)
    return port
}

/// A TCP socket bound to a free port on 127.0.0.1, not listening (the caller closes it), and the port.
public func boundLoopbackSocket() -> (fd: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}

/// GETs `http://127.0.0.1:port/path`; returns the status and body, or nil when nothing answers.
public func httpGet(port: Int, _ path: String) async -> (status: Int, body: String)? {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
    request.timeoutInterval = 5
    do {
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    } catch {
        return nil
    }
}
