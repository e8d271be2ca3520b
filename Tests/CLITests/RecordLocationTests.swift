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
