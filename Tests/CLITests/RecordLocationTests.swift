import Switchyard
import Testing

/// One way to name a record: `topic/partition@offset`, printed and parsed the same.
@Suite struct RecordLocationTests {
    @Test func printsAndParsesTheSameForm() throws {
        let location = RecordLocation(topic: "payments.dlq", partition: 1, offset: 20)
        #expect(location.description == "payments.dlq/1@20")
        #expect(RecordLocation("payments.dlq/1@20") == location)
        #expect(RecordLocation(location.description) == location)
    }

    @Test(arguments: ["payments[0]@99", "1:0", "feeds[0]", "feeds/0", "feeds@3", "/0@1", "feeds/-1@0", "feeds/0@-2", "feeds/x@1", "feeds/0@1x", ""])
    func rejectsEveryOtherForm(_ text: String) {
        #expect(RecordLocation(text) == nil)
    }
}

/// `replay --records` names records the one way.
@Suite struct ReplayRecordNamingTests {
    @Test func aKcatEnvelopesOwnTopicIsKeptNotReplacedByTopic() throws {
        let file = OnCallTests.fixture("payments-two-partitions.kcat.jsonl")
        let result = try CLI.run(["replay", "--catalog", "payments", "-t", "payments-eu", "--records", file])
        let lines = try result.stdoutLines.map(ReplayCommandTests.object)
        #expect(!lines.isEmpty, "\(result.stderr)")
        #expect(lines.allSatisfy { $0["topic"] as? String == "payments" }, "the envelope says payments")
        #expect(lines.first?["location"] as? String == "payments/0@0")
        #expect(lines.allSatisfy { $0["file"] == nil }, "one input file: no file field")
        let human = try CLI.run(["replay", "--catalog", "payments", "-t", "payments-eu", file])
        #expect(!human.stdout.contains("payments-eu/"), "locations use the record's own topic: \(human.stdout)")
    }

    @Test func withSeveralFilesEachLineNamesItsFileAndLine() throws {
        let first = OnCallTests.fixture("payments-two-partitions.kcat.jsonl")
        let second = OnCallTests.fixture("payments-strict-failure-in-partition-0.kcat.jsonl")
        let result = try CLI.run(["replay", "--records", first, second])
        let lines = try result.stdoutLines.map(ReplayCommandTests.object)
        let firstCount = try String(contentsOfFile: first, encoding: .utf8).split(separator: "\n").count
        #expect(lines.count > firstCount, "\(result.stderr)")
        #expect(lines[0]["file"] as? String == first && lines[0]["line"] as? Int == 1 && lines[0]["topic"] as? String == "payments")
        #expect(lines[1]["line"] as? Int == 2)
        #expect(lines[firstCount]["file"] as? String == second && lines[firstCount]["line"] as? Int == 1)
        #expect(lines[firstCount]["location"] as? String == "payments/0@0" && lines[firstCount]["index"] as? Int == firstCount, "\(lines[firstCount])")
    }
}
