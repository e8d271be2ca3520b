import Dispatch
import Foundation
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

extension KafkaIntegrationTests {
    @Test("`switchyard broker` serves kcat and SwitchyardKafka alike: keys, values, headers intact both ways")
    func kcatInterop() async throws {
        let kcat = try requireKcat()
        let broker = try BrokerProcess.start(arguments: ["--topic", "interop:1"])
        defer { broker.terminateIfRunning() }
        let servers = try await withDeadline(.seconds(30), "the first stdout line of `switchyard broker`") {
            try await broker.firstLine()
        }
        #expect(servers.hasPrefix("bootstrap.servers="))
        let bootstrap = String(servers.dropFirst("bootstrap.servers=".count))
        #expect(!bootstrap.isEmpty)

        // kcat → SwitchyardKafka. `-H name` (no `=`) is a null header value in kcat.
        let produced = try await runProcess(
            kcat,
            ["-b", bootstrap, "-P", "-t", "interop", "-K:", "-H", "trace=abc", "-H", "dup=1", "-H", "dup=2", "-H", "nil"],
            stdin: Data("k1:v1\nk2:{\"type\":\"x\",\"n\":1}\n".utf8)
        )
        #expect(produced.status == 0, "kcat -P failed: \(produced.stderr)")

        let consumer = try KafkaConsumer.make(
            configuration: KafkaConsumerConfiguration(
                groupID: unique("interop"),
                topics: ["interop"],
                kafka: KafkaConfiguration(bootstrapServers: [bootstrap], logLevel: .error),
                sessionTimeout: .seconds(6)
            ),
            logger: logger
        )
        let records = try await take(2, from: consumer)
        let expectedHeaders = [
            KafkaHeader(name: "trace", string: "abc"),
            KafkaHeader(name: "dup", string: "1"),
            KafkaHeader(name: "dup", string: "2"),
            KafkaHeader(name: "nil", value: nil),
        ]
        #expect(records.map(\.key) == ["k1".bytes, "k2".bytes])
        #expect(records.map(\.value) == ["v1".bytes, #"{"type":"x","n":1}"#.bytes])
        #expect(records.map(\.headers) == [expectedHeaders, expectedHeaders])
        await consumer.close()

        // SwitchyardKafka → kcat.
        let producer = try KafkaProducer.make(
            configuration: KafkaProducerConfiguration(kafka: KafkaConfiguration(bootstrapServers: [bootstrap], logLevel: .error)),
            logger: logger
        )
        let report = try await withDeadline(.seconds(60), "a send to `switchyard broker`") {
            try await producer.send(
                KafkaProducerRecord(
                    topic: "interop",
                    key: "k3".bytes,
                    value: #"{"type":"payment.failed"}"#.bytes,
                    headers: [
                        KafkaHeader(name: "h", string: "one"),
                        KafkaHeader(name: "h", string: "two"),
                        KafkaHeader(name: "gone", value: nil),
                    ]
                )
            )
        }
        #expect(report.offset == 2)
        await producer.close()

        let consumed = try await runProcess(kcat, ["-b", bootstrap, "-C", "-t", "interop", "-J", "-e", "-o", "beginning"])
        #expect(consumed.status == 0, "kcat -C failed: \(consumed.stderr)")
        let lines = consumed.stdout.split(separator: "\n").map { Data($0.utf8) }
        let envelopes = try lines.map { try JSONSerialization.jsonObject(with: $0) as? [String: Any] ?? [:] }
        #expect(envelopes.count == 3)
        let last = try #require(envelopes.first { ($0["offset"] as? Int) == 2 })
        #expect(last["key"] as? String == "k3")
        #expect(last["payload"] as? String == #"{"type":"payment.failed"}"#)
        let headers = try #require(last["headers"] as? [Any])
        #expect(headers.count == 6)
        #expect(headers[0] as? String == "h")
        #expect(headers[1] as? String == "one")
        #expect(headers[2] as? String == "h")
        #expect(headers[3] as? String == "two")
        #expect(headers[4] as? String == "gone")
        #expect(headers[5] is NSNull)

        // SIGTERM: a clean exit 0.
        let status = try await withDeadline(.seconds(30), "`switchyard broker` to exit on SIGTERM") {
            try await broker.terminate()
        }
        #expect(status == 0, "switchyard broker stderr: \(broker.standardError)")
    }

    @Test("`switchyard broker` rejects bad arguments with exit 64 and prints help")
    func brokerUsage() async throws {
        let binary = try switchyardBinary()
        let bad = try await runProcess(binary, ["broker", "--topic", "no-partitions"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("NAME:PARTITIONS"))
        let help = try await runProcess(binary, ["broker", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("bootstrap.servers="))
    }
}

// MARK: - Processes

/// The built `switchyard` executable: next to the test bundle (same build directory), else
/// `<package>/.build/debug/switchyard`. `make test` builds it first.
func switchyardBinary() throws -> URL {
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    var candidates = [executable.deletingLastPathComponent().appendingPathComponent("switchyard")]
    let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    candidates.append(packageRoot.appendingPathComponent(".build/debug/switchyard"))
    for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate.path) {
        return candidate
    }
    throw TestFailure("the switchyard binary is not built (looked at \(candidates.map(\.path))); run `swift build` first")
}

/// kcat from PATH; its absence fails the test (scripts/install-deps.sh installs it).
func requireKcat() throws -> URL {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    let directories = path.split(separator: ":").map { String($0) } + ["/usr/bin", "/usr/local/bin"]
    for directory in directories {
        let candidate = URL(fileURLWithPath: directory + "/kcat")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    throw TestFailure("kcat is not installed: run scripts/install-deps.sh (the interop test needs it and is never skipped)")
}

struct ProcessResult: Sendable {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs a process to completion with stdin, capturing stdout and stderr (via files: no pipe deadlocks).
/// Killed after `limit`.
func runProcess(
    _ executable: URL,
    _ arguments: [String],
    stdin: Data = Data(),
    limit: Duration = .seconds(60)
) async throws -> ProcessResult {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(unique("proc"))
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let inURL = directory.appendingPathComponent("stdin")
    let outURL = directory.appendingPathComponent("stdout")
    let errURL = directory.appendingPathComponent("stderr")
    try stdin.write(to: inURL)
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)

    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.standardInput = try FileHandle(forReadingFrom: inURL)
    process.standardOutput = try FileHandle(forWritingTo: outURL)
    process.standardError = try FileHandle(forWritingTo: errURL)
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    try process.run()
    let finished = await waitOffPool { exited.wait(timeout: .now() + .milliseconds(Int(limit.components.seconds * 1000))) }
    if finished == .timedOut {
        process.terminate()
        _ = await waitOffPool { exited.wait(timeout: .now() + 5) }
        throw TestFailure("\(executable.lastPathComponent) \(arguments.joined(separator: " ")) did not finish within \(limit)")
    }
    return ProcessResult(
        status: process.terminationStatus,
        stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
        stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
    )
}

/// Runs a blocking wait on a Dispatch thread, off the cooperative pool.
func waitOffPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: body()) }
    }
}

/// `switchyard broker` as a child process.
final class BrokerProcess: @unchecked Sendable {
    // @unchecked: Process is not Sendable; this test helper only touches it from one task at a time.
    private let process: Process
    private let stdout: FileHandle
    private let stderrURL: URL
    private let exited = DispatchSemaphore(value: 0)

    private init(process: Process, stdout: FileHandle, stderrURL: URL) {
        self.process = process
        self.stdout = stdout
        self.stderrURL = stderrURL
    }

    static func start(arguments: [String]) throws -> BrokerProcess {
        let pipe = Pipe()
        let stderrURL = FileManager.default.temporaryDirectory.appendingPathComponent(unique("broker-stderr"))
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        let process = Process()
        process.executableURL = try switchyardBinary()
        process.arguments = ["broker"] + arguments
        process.standardOutput = pipe
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        process.standardInput = FileHandle.nullDevice
        let broker = BrokerProcess(process: process, stdout: pipe.fileHandleForReading, stderrURL: stderrURL)
        let exited = broker.exited
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        return broker
    }

    /// Reads stdout up to the first newline (blocking read off the pool; EOF ends it).
    func firstLine() async throws -> String {
        let stdout = self.stdout
        let line = await waitOffPool { () -> String? in
            var bytes: [UInt8] = []
            while true {
                let chunk = stdout.availableData
                if chunk.isEmpty { return nil }
                bytes += chunk
                if let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) {
                    return String(decoding: bytes[..<newline], as: UTF8.self)
                }
            }
        }
        guard let line else { throw TestFailure("switchyard broker closed stdout early: \(standardError)") }
        return line
    }

    /// Sends SIGTERM and returns the exit status.
    func terminate() async throws -> Int32 {
        process.terminate()
        let exited = self.exited
        let result = await waitOffPool { exited.wait(timeout: .now() + 20) }
        guard result == .success else { throw TestFailure("switchyard broker ignored SIGTERM") }
        return process.terminationStatus
    }

    func terminateIfRunning() {
        if process.isRunning {
            process.terminate()
        }
    }

    var standardError: String {
        (try? String(decoding: Data(contentsOf: stderrURL), as: UTF8.self)) ?? ""
    }
}
