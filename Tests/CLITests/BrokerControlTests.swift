import Dispatch
import Foundation
import SwitchyardTestSupport
import Testing

/// `switchyard broker --control`: a command on stdin takes effect in the running cluster, as other clients see it,
/// and every line is answered on stdout.
@Suite(.serialized, .timeLimit(.minutes(3))) struct BrokerControlTests {
    @Test func aLeaderChangeShowsInTheMetadata() async throws {
        let broker = try await ControlledBroker.start(["--brokers", "3", "-t", "feeds:2", "--control"])
        defer { broker.stop() }
        let kcat = try kcatPath()

        for leader in [3, 2] {
            #expect(try await broker.send("leader feeds 0 \(leader)") == "ok")
            let metadata = try await runTool(kcat, ["-b", broker.bootstrap, "-L", "-J", "-t", "feeds", "-m", "10"])
            #expect(metadata.status == 0, "\(metadata.stderr)")
            let document = try ReplayCommandTests.object(metadata.stdout)
            let topics = try #require(document["topics"] as? [[String: Any]], "\(metadata.stdout)")
            let partitions = try #require(topics.first?["partitions"] as? [[String: Any]], "\(metadata.stdout)")
            let zero = try #require(partitions.first { $0["partition"] as? Int == 0 }, "\(metadata.stdout)")
            #expect(zero["leader"] as? Int == leader, "\(metadata.stdout)")
        }
    }

    @Test func queuedProduceErrorsReachAProducer() async throws {
        let broker = try await ControlledBroker.start(["-t", "feeds:1", "--control"])
        defer { broker.stop() }
        let kcat = try kcatPath()
        let input = temporaryFile("record.txt")
        try Data("{\"n\":1}\n".utf8).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }

        // A permanent error: the producer gives up on the record and says why.
        #expect(try await broker.send("request-errors produce TOPIC_AUTHORIZATION_FAILED") == "ok")
        let refused = try await runTool(kcat, ["-b", broker.bootstrap, "-P", "-t", "feeds", "-p", "0"], input: input)
        #expect(refused.stderr.contains("Topic authorization failed"), "\(refused.status) \(refused.stderr)")

        // The queue is used up: the next produce goes through.
        let produced = try await runTool(kcat, ["-b", broker.bootstrap, "-P", "-t", "feeds", "-p", "0"], input: input)
        #expect(produced.status == 0, "\(produced.stderr)")
        #expect(!produced.stderr.contains("failed"), "\(produced.stderr)")
        let consumed = try await runTool(kcat, ["-b", broker.bootstrap, "-C", "-t", "feeds", "-p", "0", "-o", "beginning", "-e", "-m", "10"])
        #expect(consumed.stdout == "{\"n\":1}\n", "\(consumed.stdout)\(consumed.stderr)")
    }

    @Test func aBadLineIsAnsweredWithAnErrorAndTheBrokerGoesOn() async throws {
        let broker = try await ControlledBroker.start(["--brokers", "2", "--control"])
        defer { broker.stop() }
        #expect(try await broker.send("leader") == "error: leader takes TOPIC PARTITION BROKER, got 0 argument(s)")
        #expect(try await broker.send("broker-down 3") == "error: a broker id is 1…2, got '3'")
        #expect(try await broker.send("request-errors produce NO_SUCH_ERROR").hasPrefix("error: unknown error 'NO_SUCH_ERROR'"))
        #expect(try await broker.send("request-errors pruduce REQUEST_TIMED_OUT").hasPrefix("error: unknown request type 'pruduce'"))
        #expect(try await broker.send("reboot").hasPrefix("error: unknown command 'reboot'"))
        #expect(try await broker.send("broker-down 2") == "ok")
        #expect(try await broker.send("broker-up 2") == "ok")
        #expect(try await broker.send("create-topic orders:3") == "ok")
        #expect(try await broker.send("coordinator g 2") == "ok")
        #expect(broker.isRunning)
    }
}

/// `switchyard broker --control` with a pipe on stdin: ``send(_:)`` writes a line and returns the answer line.
final class ControlledBroker: @unchecked Sendable {
    // @unchecked: Process and the file handles are not Sendable; a test uses them from one task at a time.
    let process: Process
    let bootstrap: String
    private let commands: FileHandle
    private let answers: FileHandle

    private init(process: Process, bootstrap: String, commands: FileHandle, answers: FileHandle) {
        self.process = process
        self.bootstrap = bootstrap
        self.commands = commands
        self.answers = answers
    }

    static func start(_ arguments: [String]) async throws -> ControlledBroker {
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = ["broker"] + arguments
        let stdout = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardInput = stdin
        process.standardError = FileHandle.nullDevice
        try process.run()
        let answers = stdout.fileHandleForReading
        let line = try await readLine(answers, "the first line of `switchyard broker`")
        guard line.hasPrefix("bootstrap.servers=") else { throw TestFailure("unexpected first line: \(line)") }
        return ControlledBroker(
            process: process, bootstrap: String(line.dropFirst("bootstrap.servers=".count)),
            commands: stdin.fileHandleForWriting, answers: answers)
    }

    var isRunning: Bool { process.isRunning }

    func send(_ command: String) async throws -> String {
        commands.write(Data((command + "\n").utf8))
        return try await Self.readLine(answers, "the answer to '\(command)'")
    }

    /// One line of `handle`, read a byte at a time so nothing after it is consumed.
    private static func readLine(_ handle: FileHandle, _ what: String) async throws -> String {
        return try await withDeadline(.seconds(30), what) {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
                DispatchQueue.global().async {
                    var bytes: [UInt8] = []
                    while true {
                        let byte: Data?
                        do { byte = try handle.read(upToCount: 1) } catch { return continuation.resume(throwing: error) }
                        guard let first = byte?.first else {
                            return continuation.resume(throwing: TestFailure("switchyard broker closed stdout"))
                        }
                        if first == 0x0A { return continuation.resume(returning: String(decoding: bytes, as: UTF8.self)) }
                        bytes.append(first)
                    }
                }
            }
        }
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
