import Foundation
@testable import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// A revocation served inside the poll thread's batch call: the records the call took before it belong to the
/// revoked assignment.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct RevokeInPollTests {
    /// The first member's poll thread holds while both partitions' records are fetched and a second member's
    /// join starts a rebalance (eager protocol). librdkafka serves the revocation ahead of the records queued
    /// before it and then discards them, so the batch call takes none of them; a revocation that arrives while
    /// a call drains the queue is served after the records the call already took, which the poll thread drops
    /// (``KafkaConsumer/PollInProgress``). The first member then gets one partition back and reads it again from
    /// its start (nothing was committed): the reader sees each offset of the partition it keeps once, in order,
    /// never a record of the revoked assignment as current.
    @Test func recordsTakenBeforeARevocationInsideTheBatchCallAreNotCurrent() async throws {
        let topic = unique("revoke")
        let broker = try EmbeddedBroker.make(topics: [topic: 2])
        let producer = try KafkaProducer.make(configuration: producerConfiguration(broker), logger: NoOpKafkaLogger())
        let group = unique("g")
        let properties = ["partition.assignment.strategy": "range", "heartbeat.interval.ms": "500", "session.timeout.ms": "6000"]
        let first = try KafkaConsumer.make(
            configuration: consumerConfiguration(broker, group: group, topics: [topic], properties: properties), logger: NoOpKafkaLogger())
        try await eventually(.seconds(30), "both partitions assigned to the first member") { first.assignment.count == 2 }
        first.holdPolls(true)
        try await Task.sleep(for: .milliseconds(300))  // the turn in progress ends
        for i in 0..<10 {
            for partition in Int32(0)..<2 {
                _ = try await producer.send(KafkaProducerRecord(topic: topic, partition: partition, value: Array("\(i)".utf8)))
            }
        }
        try await Task.sleep(for: .seconds(2))  // fetched into librdkafka's queue
        let second = try KafkaConsumer.make(
            configuration: consumerConfiguration(broker, group: group, topics: [topic], properties: properties), logger: NoOpKafkaLogger())
        try await Task.sleep(for: .seconds(3))  // the revocation queued behind the records
        first.holdPolls(false)
        try await eventually(.seconds(30), "one partition each") { first.assignment.count == 1 && second.assignment.count == 1 }
        let kept = try #require(first.assignment.first)

        // Read as the worker does: a record of a partition revoked since its batch was taken is stale.
        let current = Locked<[Int64]>([])
        let reader = Task {
            for try await batch in first.batches {
                let offsets = batch.records.filter { !first.isStale($0.topicPartition, generation: batch.generation) && $0.topicPartition == kept }
                current.withLock { $0 += offsets.map(\.offset) }
            }
        }
        try await eventually(.seconds(30), "\(kept) read") { current.withLock { $0.count } >= 10 }
        try await Task.sleep(for: .seconds(2))
        await first.close()
        await second.close()
        _ = await reader.result
        await producer.close(timeout: .seconds(5))
        let offsets = current.withLock { $0 }
        #expect(offsets == Array(0..<10), "\(kept) read as current: \(offsets)")
    }
}
