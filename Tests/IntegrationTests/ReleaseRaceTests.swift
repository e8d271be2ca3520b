import Foundation
@testable import Switchyard
import SwitchyardCatalog
@testable import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// Releases and revocations race with the record loop: what was read before a release's seek or from a revoked
/// assignment is never stored, and a release its partition's revocation kept from applying applies when the
/// partition comes back.
@Suite(.serialized, .timeLimit(.minutes(4)))
struct ReleaseRaceTests {
    static let good = try! Harness.fixture("payment-captured-v2.json")
    static let bad = try! Harness.fixture("fail-missing-id.json")

    /// Reads batches from `consumer` until `count` records arrived; returns them and the last batch's generation.
    static func read(_ count: Int, from consumer: KafkaConsumer) async throws -> (records: [KafkaRecord], generation: UInt64) {
        try await withDeadline(.seconds(60), "reading \(count) records") {
            var records: [KafkaRecord] = []
            var generation: UInt64 = 0
            var batches = consumer.batches.makeAsyncIterator()
            while records.count < count, let batch = try await batches.next() {
                records += batch.records
                generation = batch.generation
            }
            return (records, generation)
        }
    }

    /// The record loop holds a batch with two runs of payments/0, offsets 0-2 and 3-4, with payments/1 between
    /// (librdkafka hands a fetch over partition by partition, and a poll may take two fetches). Offset 1 halts
    /// the partition in the first run; its halt becomes durable and a release applies (it seeks to 2) before
    /// the loop reaches the second run. That run was read before the seek: it is dropped, not handed over,
    /// so the stored offset stays the release's (2) instead of passing records 2-4 that were never handled,
    /// and the seek reads 2-4 again.
    @Test func aReleaseDuringItsHaltsBatchDropsTheRecordsReadBeforeItsSeek() async throws {
        let harness = try Harness(topics: ["payments": 2, "payments.dlq": 1])
        let p0 = KafkaTopicPartition(topic: "payments", partition: 0)
        for value in [Self.good, Self.bad, Self.good, Self.good, Self.good] { try await harness.produce("payments", partition: 0, value: value) }
        try await harness.produce("payments", partition: 1, value: Self.good)
        let logs = InMemoryLogHandler()
        let worker = try Worker(
            configuration: harness.configuration(["payments": TopicConfiguration(catalog: .payments, deadLetterTopic: "payments.dlq")]),
            logger: SwitchyardLogger(handler: logs, level: .debug))
        let consumer = try KafkaConsumer.make(
            configuration: KafkaConsumerConfiguration(groupID: harness.group, topics: ["payments"], kafka: worker.consumerKafkaConfiguration),
            logger: NoOpKafkaLogger(), rebalanceListener: { worker.rebalanced($0) })
        let producer = try KafkaProducer.make(
            configuration: KafkaProducerConfiguration(kafka: worker.producerKafkaConfiguration), logger: NoOpKafkaLogger())
        let (read, generation) = try await Self.read(6, from: consumer)
        let of0 = read.filter { $0.partition == 0 }.sorted { $0.offset < $1.offset }
        let of1 = read.filter { $0.partition == 1 }
        try #require(of0.map(\.offset) == [0, 1, 2, 3, 4] && of1.count == 1)
        let batch = KafkaRecordBatch(records: Array(of0[0...2]) + of1 + Array(of0[3...4]), generation: generation)

        let released = Locked(false)
        worker.raceHooks.set(.afterRun) { tp in
            guard tp == p0, !released.withLock({ $0 }) else { return }
            // The halt at offset 1 becomes durable (its dead letter acknowledged), then its release applies.
            let deadline = ContinuousClock.now + .seconds(30)
            while worker.status.halted[p0] == nil, ContinuousClock.now < deadline {
                do { try await Task.sleep(for: .milliseconds(20)) } catch { return }
            }
            let release = ReleaseRequest(
                group: harness.group, topic: "payments", partition: 0, offset: 1, reason: "test: release during its batch", operator: "tests",
                recordTimestamp: of0[1].timestampMilliseconds)
            await worker.apply(PendingRelease(request: release, writtenAt: Date()), consumer: consumer)
            released.withLock { $0 = worker.status.halted[p0] == nil }
        }
        var loop = RecordLoop(worker: worker, consumer: consumer, producer: producer, partitionCounts: ["payments": 2, "payments.dlq": 1])
        _ = try await loop.process(batch)
        #expect(released.withLock { $0 }, "the halt at payments/0@1 was released while the batch was in the loop")
        #expect(consumer.storedOffsets[p0] == 2, "stored \(consumer.storedOffsets[p0].map(String.init) ?? "nothing") past records the release's seek reads again")
        // The seek reads 2-4 again: nothing is lost.
        let again = try await Self.read(3, from: consumer).records
        #expect(again.filter { $0.partition == 0 }.map(\.offset) == [2, 3, 4])
        await consumer.close()
        await producer.close(timeout: .seconds(5))
    }

    /// A release arrives for halted payments/1, and the partition is revoked before the release moves past the
    /// record (the coordinator starts a rebalance and holds the worker's rejoin). The release
    /// cannot apply then; it is kept, and when the partition comes back to this worker and the record halts
    /// again, the release applies: the next record is handled and the committed offset passes both.
    @Test func aReleaseRevokedBeforeItAppliesAppliesWhenThePartitionComesBack() async throws {
        let harness = try Harness(topics: ["payments": 2, "payments.dlq": 1, "switchyard.control": 1])
        let p1 = KafkaTopicPartition(topic: "payments", partition: 1)
        for value in [Self.good, Self.bad, Self.good] { try await harness.produce("payments", partition: 1, value: value) }
        var config = harness.configuration(["payments": TopicConfiguration(catalog: .payments, deadLetterTopic: "payments.dlq")])
        config.kafka["partition.assignment.strategy"] = "range"
        let worker = try RunningWorker(config)
        try await eventually(.seconds(60), "payments/1 halted at 1") { worker.worker.status.halted[p1]?.offset == 1 }

        let reached = Locked(false)
        let proceed = Locked(false)
        worker.worker.raceHooks.set(.beforeReleaseApplies) { _ in
            reached.withLock { $0 = true }
            while !proceed.withLock({ $0 }) {
                do { try await Task.sleep(for: .milliseconds(20)) } catch { return }
            }
        }
        let release = ReleaseRequest(group: harness.group, topic: "payments", partition: 1, offset: 1, reason: "test: revoked before it applies", operator: "tests")
        _ = try await harness.producer.send(KafkaProducerRecord(topic: "switchyard.control", value: try CanonicalJSONEncoder().encode(release)))
        try await eventually(.seconds(30), "the release matched its halt") { reached.withLock { $0 } }

        // The coordinator answers a heartbeat with REBALANCE_IN_PROGRESS (the worker revokes its assignment and
        // rejoins) and refuses the rejoin (COORDINATOR_NOT_AVAILABLE, retried) until the release was tried.
        // The broker gives an error to whichever member's heartbeat comes next, and the worker's control-topic
        // reader is a member of a group too (its own): three, so that the worker gets one even when the reader,
        // heartbeating at the same interval, took one or two (a member already rebalancing that gets another
        // only rejoins again).
        harness.broker.pushRequestErrors(.joinGroup, Array(repeating: EmbeddedBroker.ErrorCode(rawValue: 15), count: 10_000))
        harness.broker.pushRequestErrors(.heartbeat, Array(repeating: EmbeddedBroker.ErrorCode(rawValue: 27), count: 3))
        try await eventually(.seconds(30), "payments/1 revoked from the worker") { !worker.worker.status.assignment.contains(p1) }
        proceed.withLock { $0 = true }
        try await eventually(.seconds(30), "the release tried") {
            worker.logs.entries.contains { $0.message.hasPrefix("release kept for the record's next halt") || $0.message == "release not applied" }
        }
        harness.broker.clearRequestErrors(.joinGroup)
        harness.broker.clearRequestErrors(.heartbeat)
        try await eventually(.seconds(60), "payments/1 released once it came back") {
            worker.counter("switchyard_releases_total", ["topic": "payments"]) == 1 && worker.worker.status.halted[p1] == nil
                && worker.worker.status.assignment.contains(p1)
        }
        try await eventually(.seconds(30), "the record after the released one handled") {
            worker.counter("switchyard_events_decoded_total", ["topic": "payments", "type": "payment.captured"]) >= 2
        }
        try await worker.stop()
        #expect(try await harness.committed([p1])[p1] == 3)
    }

    /// The record loop holds a batch with a run of payments/0 and then one of payments/1, whose lane does not
    /// exist yet. Between the two runs the coordinator starts a rebalance: the consumer revokes both partitions,
    /// then gets both back. The payments/1 run was read from the revoked assignment: the loop's check and the
    /// watermark's registration (one step under the lock the revocation takes) make no lane for it, so nothing
    /// of it is handled or stored, and the new assignment reads it again from the committed offset.
    @Test func aRunOfAPartitionRevokedSinceItsBatchRegistersNoWatermark() async throws {
        let harness = try Harness(topics: ["payments": 2, "payments.dlq": 1])
        let p1 = KafkaTopicPartition(topic: "payments", partition: 1)
        for partition in Int32(0)..<2 {
            for _ in 0..<2 { try await harness.produce("payments", partition: partition, value: Self.good) }
        }
        let worker = try Worker(
            configuration: harness.configuration(["payments": TopicConfiguration(catalog: .payments, deadLetterTopic: "payments.dlq")]),
            logger: SwitchyardLogger(handler: InMemoryLogHandler(), level: .debug))
        let consumer = try KafkaConsumer.make(
            configuration: KafkaConsumerConfiguration(groupID: harness.group, topics: ["payments"], kafka: worker.consumerKafkaConfiguration),
            logger: NoOpKafkaLogger(), rebalanceListener: { worker.rebalanced($0) })
        let producer = try KafkaProducer.make(
            configuration: KafkaProducerConfiguration(kafka: worker.producerKafkaConfiguration), logger: NoOpKafkaLogger())
        let (read, generation) = try await Self.read(4, from: consumer)
        let sorted = read.sorted { ($0.partition, $0.offset) < ($1.partition, $1.offset) }
        try #require(sorted.map(\.partition) == [0, 0, 1, 1])
        let batch = KafkaRecordBatch(records: sorted, generation: generation)

        let rebalanced = Locked(false)
        worker.raceHooks.set(.afterRun) { tp in
            guard tp.partition == 0, !rebalanced.withLock({ $0 }) else { return }
            harness.broker.pushRequestErrors(.joinGroup, Array(repeating: EmbeddedBroker.ErrorCode(rawValue: 15), count: 10_000))
            harness.broker.pushRequestErrors(.heartbeat, [EmbeddedBroker.ErrorCode(rawValue: 27)])
            let deadline = ContinuousClock.now + .seconds(30)
            while !consumer.assignment.isEmpty, ContinuousClock.now < deadline {
                do { try await Task.sleep(for: .milliseconds(20)) } catch { return }
            }
            harness.broker.clearRequestErrors(.joinGroup)
            while consumer.assignment.count < 2, ContinuousClock.now < deadline {
                do { try await Task.sleep(for: .milliseconds(20)) } catch { return }
            }
            rebalanced.withLock { $0 = consumer.assignment.count == 2 }
        }
        var loop = RecordLoop(worker: worker, consumer: consumer, producer: producer, partitionCounts: ["payments": 2, "payments.dlq": 1])
        _ = try await loop.process(batch)
        #expect(rebalanced.withLock { $0 }, "both partitions revoked and assigned again between the runs")
        #expect(worker.progress.withLock { $0[p1] } == nil, "a watermark registered for a run of the revoked assignment")
        #expect(consumer.storedOffsets[p1] == nil)
        #expect(worker.handled.load(ordering: .relaxed) == 2, "only payments/0's run handled")
        // The new assignment reads payments/1 again from its start (nothing was committed).
        let again = try await Self.read(2, from: consumer).records
        #expect(again.filter { $0.partition == 1 }.map(\.offset) == [0, 1])
        await consumer.close()
        await producer.close(timeout: .seconds(5))
    }
}
