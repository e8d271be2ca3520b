import Foundation
import Testing

@testable import SwitchyardKafka

/// librdkafka's statistics document: the lag per assigned partition, and a document that cannot be read
/// is an error the client logs, not a silent nil.
@Suite struct StatisticsTests {
    @Test func lagPerPartitionSkipsTheUnassignedPartitionAndUnknownLag() throws {
        let json = Data("""
            {"name": "c#consumer-1", "topics": {"feeds": {"partitions": {
                "0": {"consumer_lag": 12}, "1": {"consumer_lag": -1}, "-1": {"consumer_lag": 5}, "2": {"consumer_lag": 0},
                "4": {"consumer_lag": -1, "committed_offset": -1001, "lo_offset": 4, "hi_offset": 31, "ls_offset": 30},
                "5": {"consumer_lag": -1, "committed_offset": -1001, "lo_offset": -1, "hi_offset": -1, "ls_offset": -1}
            }}, "other": {"partitions": {"3": {"consumer_lag": 7}}}}}
            """.utf8)
        let statistics = try RDKafkaStatistics(json: json)
        #expect(statistics.consumerLag == [
            KafkaTopicPartition(topic: "feeds", partition: 0): 12,
            KafkaTopicPartition(topic: "feeds", partition: 2): 0,
            // Nothing committed yet: the last stable offset minus the log's start.
            KafkaTopicPartition(topic: "feeds", partition: 4): 26,
            KafkaTopicPartition(topic: "other", partition: 3): 7,
        ])
    }

    @Test(arguments: ["{\"topics\": ", "[1, 2]", "\"text\""])
    func anUnreadableDocumentThrows(_ text: String) {
        #expect(throws: (any Error).self) { try RDKafkaStatistics(json: Data(text.utf8)) }
    }
}
