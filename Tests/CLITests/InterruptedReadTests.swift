import Foundation
import SwitchyardTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C during `dlq stats`, `dlq list` or `replay` prints what was read so far (whole rows; the counts),
/// marked incomplete, and exits 130: never nothing, never a partial answer with exit 0.
@Suite(.serialized, .timeLimit(.minutes(3))) struct InterruptedReadTests {
    /// Runs `switchyard ARGS` with `input` on a standard input that stays open (the command has read it and
    /// waits for more), sends SIGINT, then closes standard input.
    static func interrupted(_ arguments: [String], input: Data) async throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = arguments
        process.currentDirectoryURL = CLI.packageRoot
        let stdin = Pipe()
        let out = Pipe()
        let err = Pipe()
        process.standardInput = stdin
        process.standardOutput = out
        process.standardError = err
        let stdout = Locked(Data())
        let stderr = Locked(Data())
        out.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            stdout.withLock { $0.append(data) }
        }
        err.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            stderr.withLock { $0.append(data) }
        }
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try await Task.sleep(for: .seconds(2))
        #expect(process.isRunning, "still waiting for more input")
        kill(process.processIdentifier, SIGINT)
        try await Task.sleep(for: .milliseconds(300))
        try stdin.fileHandleForWriting.close()
        let deadline = ContinuousClock.now + .seconds(20)
        while process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning {
            process.terminate()
            throw TestFailure("switchyard \(arguments.joined(separator: " ")) did not exit after SIGINT")
        }
        try await Task.sleep(for: .milliseconds(200))
        return (
            process.terminationStatus, String(decoding: stdout.withLock { $0 }, as: UTF8.self),
            String(decoding: stderr.withLock { $0 }, as: UTF8.self)
        )
    }

    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: OnCallTests.fixture(name)))
    }

    @Test func dlqStatsPrintsTheCountsSoFarMarkedIncomplete() async throws {
        let result = try await Self.interrupted(["dlq", "stats", "--file", "-"], input: try Self.fixture("feeds-dlq-two-partitions.kcat.jsonl"))
        #expect(result.status == 130, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("4 dead letter(s)"), "\(result.stdout)")
        #expect(result.stdout.contains("INCOMPLETE: interrupted; these counts are partial"), "\(result.stdout)")
        #expect(result.stderr.contains("error: incomplete: interrupted by SIGINT after 4 dead letter(s); the rest was not read"), "\(result.stderr)")
        let json = try await Self.interrupted(["dlq", "stats", "--file", "-", "-o", "json"], input: try Self.fixture("feeds-dlq-two-partitions.kcat.jsonl"))
        #expect(json.status == 130)
        let o = try ReplayCommandTests.object(json.stdout)
        #expect(o["complete"] as? Bool == false && o["records"] as? Int == 4, "\(json.stdout)")
    }

    @Test func dlqListPrintsWholeRowsThenTheCountMarkedIncomplete() async throws {
        let result = try await Self.interrupted(["dlq", "list", "--file", "-"], input: try Self.fixture("feeds-dlq-two-partitions.kcat.jsonl"))
        #expect(result.status == 130, "\(result.stdout)\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("DEAD LETTER") == true, "\(result.stdout)")
        #expect(lines.dropFirst().prefix(4).allSatisfy { $0.hasPrefix("feeds.dlq/") }, "whole rows: \(result.stdout)")
        #expect(lines.last == "4 of 4 dead letter(s) (INCOMPLETE: interrupted)", "\(result.stdout)")
        #expect(result.stderr.contains("error: incomplete: interrupted by SIGINT"), "\(result.stderr)")
    }

    @Test func replayPrintsTheSummarySoFarMarkedIncomplete() async throws {
        let result = try await Self.interrupted(["replay", "-t", "feeds", "-"], input: try Self.fixture("feeds.ndjson"))
        #expect(result.status == 130, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("INCOMPLETE: interrupted; these counts are partial"), "\(result.stdout)")
        #expect(result.stdout.contains("16 records"), "\(result.stdout)")
        #expect(result.stderr.contains("error: incomplete: interrupted by SIGINT after 16 record(s); the rest was not read"), "\(result.stderr)")
        let json = try await Self.interrupted(["replay", "-t", "feeds", "-o", "json", "-"], input: try Self.fixture("feeds.ndjson"))
        #expect(json.status == 130)
        let o = try ReplayCommandTests.object(json.stdout)
        #expect(o["complete"] as? Bool == false && o["records"] as? Int == 16, "\(json.stdout)")
    }
}
