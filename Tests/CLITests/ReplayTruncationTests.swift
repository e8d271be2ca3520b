import Foundation
import SwitchyardTestSupport
import Testing

/// A dump whose last line was cut short (a capture stopped mid-write) is replayed up to it, with a warning that
/// names the file and line; `replay -o json` names where each failure was.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ReplayTruncationTests {
    static func lines(_ fixture: String) throws -> [String] {
        try String(contentsOfFile: OnCallTests.fixture(fixture), encoding: .utf8).split(separator: "\n").map(String.init)
    }

    @Test func aTruncatedLastLineIsAWarningWithItsLocation() throws {
        let lines = try Self.lines("payments-two-partitions.kcat.jsonl")
        let dump = temporaryFile("cut.kcat.jsonl")
        let cut = String(lines[0].prefix(lines[0].count / 2))
        try Data((lines.joined(separator: "\n") + "\n" + cut).utf8).write(to: dump)
        defer { try? FileManager.default.removeItem(at: dump) }
        let warning = "warning: \(dump.path):\(lines.count + 1): the last line ends without a newline and is not complete JSON "
            + "(\(cut.utf8.count) bytes; a dump cut short?): not replayed"

        let result = try CLI.run(["replay", dump.path])
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains(warning), "\(result.stderr)")
        #expect(result.stdout.contains("\(lines.count) records"), "every complete record replayed: \(result.stdout)")
        let gated = try CLI.run(["replay", dump.path, "--fail-on", "warnings"])
        #expect(gated.exitCode == 1, "\(gated.stderr)")
        let json = try CLI.run(["replay", dump.path, "-o", "json"])
        #expect(json.exitCode == 0, "\(json.stderr)")
        let o = try ReplayCommandTests.object(json.stdout)
        #expect(o["records"] as? Int == lines.count)
        #expect((o["warnings"] as? [String])?.contains(String(warning.dropFirst("warning: ".count))) == true, "\(json.stdout)")

        // A last line without a newline that is complete is a record like the others.
        let whole = temporaryFile("whole.kcat.jsonl")
        try Data(lines.joined(separator: "\n").utf8).write(to: whole)
        defer { try? FileManager.default.removeItem(at: whole) }
        let complete = try CLI.run(["replay", whole.path])
        #expect(complete.exitCode == 0 && !complete.stderr.contains("warning"), "\(complete.stderr)")
    }

    @Test func jsonFailuresCarryTheirLocation() throws {
        let fixture = OnCallTests.fixture("payments-strict-failure-in-partition-0.kcat.jsonl")
        let result = try CLI.run(["replay", fixture, "-o", "json"])
        #expect(result.exitCode == 1, "\(result.stderr)")
        let o = try ReplayCommandTests.object(result.stdout)
        let failure = try #require((o["failures"] as? [[String: Any]])?.first, "\(result.stdout)")
        let location = try #require(failure["firstLocation"] as? String, "\(result.stdout)")
        let line = try #require(failure["firstLine"] as? Int)
        #expect(failure["firstFile"] == nil, "one file: the command line names it")
        // The location is the record on that line of the file.
        let lines = try Self.lines("payments-strict-failure-in-partition-0.kcat.jsonl")
        let envelope = try ReplayCommandTests.object(lines[line - 1])
        #expect(location == "payments/\(envelope["partition"] as? Int ?? -1)@\(envelope["offset"] as? Int ?? -1)", "\(result.stdout)")

        // Several files: the file too.
        let two = try CLI.run(["replay", OnCallTests.fixture("payments-two-partitions.kcat.jsonl"), fixture, "-o", "json"])
        let first = try #require((try ReplayCommandTests.object(two.stdout)["failures"] as? [[String: Any]])?.first, "\(two.stdout)")
        #expect(first["firstFile"] as? String == fixture && first["firstLine"] as? Int == line && first["firstLocation"] as? String == location, "\(two.stdout)")
    }
}
