import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

// Small helpers for running the built `orders-switchyard`, the embedded broker and kcat, copied in spirit
// from Switchyard's own CLI and integration tests (which a package outside the repository cannot import).

/// A test failure with a message (timeouts, missing tools).
struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The example's root: `Tests/OrdersTests/Support.swift` → three levels up.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The built `orders-switchyard`: beside the test bundle, else `.build/debug/orders-switchyard`.
let ordersBinary: URL = {
    let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("orders-switchyard")
    if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
    return packageRoot.appendingPathComponent(".build/debug/orders-switchyard")
}()

/// What a finished process wrote and how it exited.
struct ProcessResult: Sendable {
    var exitCode: Int32
    var stdout: String
    var stderr: String
    var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }
}

/// Runs `executable ARGS` in the package root to completion on a Dispatch thread (not the cooperative
/// pool); terminates it and fails after `timeout` seconds.
func run(_ executable: URL, _ arguments: [String], stdin: Data? = nil, timeout: TimeInterval = 60) async throws -> ProcessResult {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            do {
                let process = Process()
                process.executableURL = executable
                process.arguments = arguments
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
                    Issue.record("\(executable.lastPathComponent) \(arguments.joined(separator: " ")) did not finish within \(timeout) s")
                    group.wait()
                }
                process.waitUntilExit()
                continuation.resume(returning: ProcessResult(
                    exitCode: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
                    stderr: String(decoding: stderrData, as: UTF8.self)))
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }
}

/// Runs the built `orders-switchyard ARGS`.
func ordersSwitchyard(_ arguments: [String], stdin: Data? = nil, timeout: TimeInterval = 60) async throws -> ProcessResult {
    guard FileManager.default.isExecutableFile(atPath: ordersBinary.path) else {
        throw TestFailure("\(ordersBinary.path) is not built: run `swift build` first")
    }
    return try await run(ordersBinary, arguments, stdin: stdin, timeout: timeout)
}

/// A long-running child process (the broker, the worker) whose output is collected as it comes;
/// terminated when released.
final class ChildProcess: Sendable {
    /// What the process wrote so far, appended to by the pipes' handlers.
    private final class Output: Sendable {
        let data = Mutex<(stdout: Data, stderr: Data)>((Data(), Data()))
    }

    private let process: Process
    private let output = Output()

    init(_ executable: URL, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = packageRoot
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let output = self.output
        out.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            output.data.withLock { $0.stdout.append(data) }
        }
        err.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            output.data.withLock { $0.stderr.append(data) }
        }
        try process.run()
        self.process = process
    }

    var stdout: String { output.data.withLock { String(decoding: $0.stdout, as: UTF8.self) } }
    var stderr: String { output.data.withLock { String(decoding: $0.stderr, as: UTF8.self) } }
    var isRunning: Bool { process.isRunning }

    func signal(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Waits for the process to exit; fails after `limit`.
    func waitForExit(within limit: Duration = .seconds(30)) async throws -> Int32 {
        try await eventually(limit, "\(process.executableURL?.lastPathComponent ?? "process") to exit") { !self.process.isRunning }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}

/// `orders-switchyard broker`: the embedded Kafka-protocol broker, whose first stdout line is
/// `bootstrap.servers=HOST:PORT`.
struct Broker {
    let process: ChildProcess
    let bootstrap: String

    static func start(_ arguments: [String]) async throws -> Broker {
        let process = try ChildProcess(ordersBinary, ["broker"] + arguments)
        var line = ""
        try await eventually(.seconds(30), "the first line of `orders-switchyard broker`") {
            guard let first = process.stdout.split(separator: "\n", omittingEmptySubsequences: true).first,
                process.stdout.contains("\n")
            else { return !process.isRunning }
            line = String(first)
            return true
        }
        guard line.hasPrefix("bootstrap.servers=") else {
            throw TestFailure("unexpected first line of the broker: '\(line)'; stderr: \(process.stderr)")
        }
        return Broker(process: process, bootstrap: String(line.dropFirst("bootstrap.servers=".count)))
    }

    func stop() async throws {
        process.signal(SIGTERM)
        _ = try await process.waitForExit()
    }
}

/// kcat's path, or a failure naming the package to install.
func kcatPath() throws -> URL {
    for path in ["/usr/bin/kcat", "/usr/local/bin/kcat", "/usr/bin/kafkacat"] where FileManager.default.isExecutableFile(atPath: path) {
        return URL(fileURLWithPath: path)
    }
    throw TestFailure("kcat is not installed (apt-get install kcat)")
}

/// Polls `condition` every 100 ms until it holds; fails after `limit`.
func eventually(_ limit: Duration, _ what: String, _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(100))
    }
    if try await condition() { return }
    throw TestFailure("timed out after \(limit) waiting for: \(what)")
}

/// A TCP port that is free now (bound and released).
func freePort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// GETs `http://127.0.0.1:port/path`; nil when nothing answers.
func httpGet(port: Int, _ path: String) async -> (status: Int, body: String)? {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
    request.timeoutInterval = 5
    do {
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    } catch {
        return nil
    }
}

/// The fixture records, one per line.
func fixtureLines() throws -> [String] {
    let text = try String(contentsOf: packageRoot.appendingPathComponent("Fixtures/orders.ndjson"), encoding: .utf8)
    return text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
}

import SwitchyardHTTP

/// The inventory service the handlers ask (`GET /stock/{sku}` → units as text), on a local port: SKUs it
/// knows answer their stock, after `unavailableFirst[sku]` answers of 503; SKUs in `refused` answer 400;
/// the others 404.
final class FakeInventory: Sendable {
    let server: HTTPServer
    private let calls: Calls

    /// Requests per SKU.
    final class Calls: Sendable {
        let counts = Mutex<[String: Int]>([:])
    }

    init(stock: [String: Int], unavailableFirst: [String: Int] = [:], refused: Set<String> = []) throws {
        let calls = Calls()
        self.calls = calls
        var routes = HTTPRoutes()
        for sku in Set(stock.keys).union(refused) {
            routes.get("/stock/\(sku)") { _ in
                let n = calls.counts.withLock { c -> Int in
                    c[sku, default: 0] += 1
                    return c[sku]!
                }
                if refused.contains(sku) { return .text("bad request\n", status: .badRequest) }
                if n <= unavailableFirst[sku, default: 0] { return .text("busy\n", status: .serviceUnavailable) }
                return .text("\(stock[sku]!)\n")
            }
        }
        server = try HTTPServer.start(host: "127.0.0.1", port: 0, routes: routes)
    }

    /// `http://127.0.0.1:PORT`.
    var url: String { "http://127.0.0.1:\(server.port)" }

    /// Requests for `sku` so far.
    func calls(_ sku: String) -> Int { calls.counts.withLock { $0[sku, default: 0] } }

    deinit { server.stop() }
}
