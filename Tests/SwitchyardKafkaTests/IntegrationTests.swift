import Foundation
import Synchronization
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// Producer and consumer over TCP against the embedded broker (librdkafka's mock cluster).
@Suite("Kafka integration (embedded broker)", .serialized, .timeLimit(.minutes(5)))
struct KafkaIntegrationTests {
    let logger = CollectingLogger()

    @Test("produce → consume keeps keys, headers (duplicates, null values) and tombstones, copied or in librdkafka's message",
          arguments: [false, true])
    func roundTrip(keepsMessages: Bool) async throws {
        let topic = unique("roundtrip")
        let broker = try EmbeddedBroker.make(topics: [topic: 1])
        let producer = try KafkaProducer.make(configuration: producerConfiguration(broker), logger: logger)
        let sent = [
            KafkaProducerRecord(
                topic: topic,
                key: "order-1".bytes,
                value: #"{"type":"payment.captured"}"#.bytes,
                headers: [
                    KafkaHeader(name: "trace", string: "a"),
                    KafkaHeader(name: "dup", string: "first"),
                    KafkaHeader(name: "dup", string: "second"),
                    KafkaHeader(name: "null", value: nil),
                    KafkaHeader(name: "empty", value: []),
                ]
            ),
            KafkaProducerRecord(topic: topic, key: "order-1".bytes, value: nil),
            KafkaProducerRecord(topic: topic, key: nil, value: []),
            KafkaProducerRecord(topic: topic, key: [], value: [0, 255, 10, 13]),
        ]
        var reports: [KafkaDeliveryReport] = []
        for record in sent {
            reports.append(try await producer.send(record))
        }
        #expect(reports.map(\.offset) == [0, 1, 2, 3])
        #expect(reports.allSatisfy { $0.topic == topic && $0.partition == 0 })

        var configuration = consumerConfiguration(broker, group: unique("g"), topics: [topic])
        configuration.keepsMessages = keepsMessages
        let consumer = try KafkaConsumer.make(configuration: configuration, logger: logger)
        let received = try await take(sent.count, from: consumer)
        #expect(received.map(\.offset) == [0, 1, 2, 3])
        for (record, original) in zip(received, sent) {
            #expect(record.topic == topic)
            #expect(record.key == original.key)
            #expect(record.value == original.value)
            #expect(record.headers == original.headers)
            #expect(record.timestampMilliseconds != nil)
            #expect(record.bytes.isMessage == keepsMessages)
            // A detached copy has bytes of its own and equals the record it was made from.
            let detached = record.detached()
            #expect(!detached.bytes.isMessage)
            #expect(detached == record && detached.hashValue == record.hashValue)
            #expect(detached.headers == original.headers)
        }
        #expect(received[1].isTombstone)
        #expect(received[0].headers.map(\.name) == ["trace", "dup", "dup", "null", "empty"])
        #expect(received[0].headers[3].value == nil)
        #expect(received[0].headers[4].value == [])
        #expect(received[2].key == nil)
        #expect(received[3].key == [])
        await consumer.close()
        await producer.close()
    }

    @Test(
        "two consumers in a group split the partitions; when one leaves the other takes over, nothing skipped",
        arguments: ["range,roundrobin", "cooperative-sticky"]
    )
    func groupRebalance(assignor: String) async throws {
        let topic = unique("split")
        let broker = try EmbeddedBroker.make(topics: [topic: 4])
        let producer = try KafkaProducer.make(configuration: producerConfiguration(broker), logger: logger)
        let group = unique("g")
        let seen = Locked<[String: Set<String>]>([:])

        func start(_ name: String) throws -> (KafkaConsumer, Task<Void, any Error>) {
            let consumer = try KafkaConsumer.make(
                configuration: consumerConfiguration(
                    broker,
                    group: group,
                    topics: [topic],
                    properties: ["partition.assignment.strategy": assignor]
                ),
                logger: logger
            )
            let task = Task {
                for try await record in consumer.records {
                    seen.withLock { _ = $0[name, default: []].insert("\(record.partition)@\(record.offset)") }
                    // Ignore a store for a partition revoked meanwhile: the new owner reads the record again.
                    try? consumer.storeOffset(record)
                }
            }
            return (consumer, task)
        }

        let (a, taskA) = try start("a")
        let (b, taskB) = try start("b")
        let all = Set((0..<4).map { KafkaTopicPartition(topic: topic, partition: Int32($0)) })
        try await eventually(.seconds(60), "both members assigned, partitions split") {
            let (pa, pb) = (a.assignment, b.assignment)
            return !pa.isEmpty && !pb.isEmpty && pa.isDisjoint(with: pb) && pa.union(pb) == all
        }

        var expected: Set<String> = []
        for i in 0..<40 {
            let report = try await producer.send(
                KafkaProducerRecord(topic: topic, partition: Int32(i % 4), key: "k\(i)".bytes, value: "v\(i)".bytes)
            )
            expected.insert("\(report.partition)@\(report.offset)")
        }
        try await eventually(.seconds(60), "the first batch consumed by both members") {
            seen.withLock { $0["a", default: []].union($0["b", default: []]) }.isSuperset(of: expected)
        }
        #expect(!seen.withLock { $0["a", default: []] }.isEmpty)
        #expect(!seen.withLock { $0["b", default: []] }.isEmpty)

        // A leaves: commits what it stored and revokes; B takes every partition over.
        await a.close()
        _ = try await taskA.value
        try await eventually(.seconds(60), "the remaining member owns all partitions") { b.assignment == all }

        for i in 40..<80 {
            let report = try await producer.send(
                KafkaProducerRecord(topic: topic, partition: Int32(i % 4), key: "k\(i)".bytes, value: "v\(i)".bytes)
            )
            expected.insert("\(report.partition)@\(report.offset)")
        }
        try await eventually(.seconds(60), "every produced offset seen at least once") {
            seen.withLock { $0["a", default: []].union($0["b", default: []]) }.isSuperset(of: expected)
        }
        await b.close()
        _ = try await taskB.value
        await producer.close()
    }

    @Test("a record whose offset was not stored is consumed again after a restart")
    func unstoredOffsetRedelivered() async throws {
        let topic = unique("restart")
        let broker = try EmbeddedBroker.make(topics: [topic: 1])
        let producer = try KafkaProducer.make(configuration: producerConfiguration(broker), logger: logger)
        for i in 0..<5 {
            _ = try await producer.send(KafkaProducerRecord(topic: topic, key: nil, value: "v\(i)".bytes))
        }
        let group = unique("g")
        let first = try KafkaConsumer.make(
            configuration: consumerConfiguration(broker, group: group, topics: [topic]),
            logger: logger
        )
        let records = try await take(5, from: first, store: false)
        #expect(records.map(\.offset) == [0, 1, 2, 3, 4])
        // Only records 0…2 had a durable outcome. No explicit commit: close() commits what was stored.
        try first.storeOffset(records[2])
        await first.close()

        let second = try KafkaConsumer.make(
            configuration: consumerConfiguration(broker, group: group, topics: [topic]),
            logger: logger
        )
        let committed = try await second.committedOffsets([records[0].topicPartition])
        #expect(committed[records[0].topicPartition] == 3)
        let again = try await take(2, from: second)
        #expect(again.map(\.offset) == [3, 4])
        #expect(again.map(\.value) == ["v3".bytes, "v4".bytes])
        await second.close()
        await producer.close()
    }

    @Test("a broker taken down and brought back: consumption resumes, nothing lost")
    func brokerDownAndUp() async throws {
        let topic = unique("outage")
        let broker = try EmbeddedBroker.make(brokers: 1, topics: [topic: 2])
        let producer = try KafkaProducer.make(configuration: producerConfiguration(broker), logger: logger)
        let consumer = try KafkaConsumer.make(
            configuration: consumerConfiguration(broker, group: unique("g"), topics: [topic]),
            logger: logger
        )
        for i in 0..<10 {
            _ = try await producer.send(KafkaProducerRecord(topic: topic, key: "k\(i)".bytes, value: "v\(i)".bytes))
        }
        let before = try await take(10, from: consumer)
        #expect(Set(before.compactMap(\.value)) == Set((0..<10).map { "v\($0)".bytes }))

        try broker.setBrokerDown(1)
        // Sends issued while the broker is down wait (librdkafka retries) and complete once it is back.
        let sends = Task {
            var reports: [KafkaDeliveryReport] = []
            for i in 10..<20 {
                reports.append(try await producer.send(KafkaProducerRecord(topic: topic, key: "k\(i)".bytes, value: "v\(i)".bytes)))
            }
            return reports
        }
        try await Task.sleep(for: .seconds(2))
        try broker.setBrokerUp(1)
        let reports = try await withDeadline(.seconds(90), "sends after the broker came back") { try await sends.value }
        #expect(reports.count == 10)

        let after = try await take(10, from: consumer, within: .seconds(90))
        #expect(Set(after.compactMap(\.value)) == Set((10..<20).map { "v\($0)".bytes }))
        await consumer.close()
        await producer.close()
    }

    @Test("an injected produce error is thrown to the caller of send")
    func produceErrorSurfaces() async throws {
        let topic = unique("reject")
        let broker = try EmbeddedBroker.make(topics: [topic: 1])
        let producer = try KafkaProducer.make(configuration: producerConfiguration(broker), logger: logger)
        // Warm up: the idempotent producer has its id and the topic's metadata.
        _ = try await producer.send(KafkaProducerRecord(topic: topic, value: "ok".bytes))

        broker.pushRequestErrors(.produce, [.topicAuthorizationFailed])
        let error = await #expect(throws: KafkaError.self) {
            _ = try await withDeadline(.seconds(60), "the failing send") {
                try await producer.send(KafkaProducerRecord(topic: topic, value: "rejected".bytes))
            }
        }
        #expect(error?.code == .delivery)
        #expect(error?.rdKafkaName == "TOPIC_AUTHORIZATION_FAILED")
        #expect(error?.isRetriable == false)
        #expect(error?.isFatal == false)

        // The producer stays usable. librdkafka caches the permanent topic error until its next metadata refresh
        // (sends fail fast meanwhile), so retry for a while.
        let report = try await withDeadline(.seconds(60), "a send after the error") {
            while true {
                do {
                    return try await producer.send(KafkaProducerRecord(topic: topic, value: "after".bytes))
                } catch let error as KafkaError where error.rdKafkaName == "TOPIC_AUTHORIZATION_FAILED" {
                    try await Task.sleep(for: .milliseconds(200))
                }
            }
        }
        #expect(report.offset >= 1)
        await producer.close()
    }

    @Test("pause holds records back, resume delivers them, seek rewinds")
    func pauseResumeSeek() async throws {
        let topic = unique("flow")
        let broker = try EmbeddedBroker.make(topics: [topic: 1])
        let producer = try KafkaProducer.make(configuration: producerConfiguration(broker), logger: logger)
        for i in 0..<3 {
            _ = try await producer.send(KafkaProducerRecord(topic: topic, value: "v\(i)".bytes))
        }
        let consumer = try KafkaConsumer.make(
            configuration: consumerConfiguration(broker, group: unique("g"), topics: [topic]),
            logger: logger
        )
        let first = try await take(3, from: consumer, store: false)
        #expect(first.map(\.offset) == [0, 1, 2])
        let partition = first[0].topicPartition

        try consumer.pause([partition])
        for i in 3..<6 {
            _ = try await producer.send(KafkaProducerRecord(topic: topic, value: "v\(i)".bytes))
        }
        // Nothing arrives while paused.
        let whilePaused = await #expect(throws: TestFailure.self) {
            _ = try await take(1, from: consumer, within: .seconds(2))
        }
        #expect(whilePaused != nil)
        try consumer.resume([partition])
        let resumed = try await take(3, from: consumer, store: false)
        #expect(resumed.map(\.offset) == [3, 4, 5])

        try await consumer.seek(partition, to: 1)
        let rewound = try await take(2, from: consumer, store: false)
        #expect(rewound.map(\.offset) == [1, 2])
        let afterRewind = try await take(3, from: consumer, store: false)
        #expect(afterRewind.map(\.offset) == [3, 4, 5])

        // A partition this member does not have cannot be paused or resumed: an error, not a silent no-op.
        let elsewhere = KafkaTopicPartition(topic: topic, partition: 7)
        let notAssigned = #expect(throws: KafkaError.self) { try consumer.pause([elsewhere]) }
        #expect(notAssigned?.code == .state)
        #expect(throws: KafkaError.self) { try consumer.resume([elsewhere]) }

        // Pauses and resumes while librdkafka has a backlog queued (the batch call beside pause): every record
        // arrives once, in order, none skipped.
        let backlog = 2000
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<backlog {
                group.addTask { _ = try await producer.send(KafkaProducerRecord(topic: topic, value: "b\(i)".bytes)) }
                if i % 200 == 199 { try await group.waitForAll() }
            }
            try await group.waitForAll()
        }
        let offsets = try await withDeadline(.seconds(60), "reading \(backlog) records with pauses") {
            var offsets: [Int64] = []
            for try await record in consumer.records {
                offsets.append(record.offset)
                if offsets.count == backlog { break }
                if offsets.count % 97 == 0 {
                    try consumer.pause([partition])
                    try await Task.sleep(for: .milliseconds(20))
                    try consumer.resume([partition])
                }
            }
            return offsets
        }
        #expect(offsets == Array(6..<Int64(6 + backlog)))
        await consumer.close()
        await producer.close()
    }

    @Test("a backlog far beyond queued.min.messages streams on: no one-second fetch pause each time librdkafka's queue was full")
    func backlogBeyondPrefetchLimit() async throws {
        let topic = unique("backlog")
        let broker = try EmbeddedBroker.make(topics: [topic: 2])
        // Sets of 50 records: the mock broker answers a fetch with one set per partition, so each fetch adds at
        // most 100 records to librdkafka's queue, and the queue reaches its limit (300) many times over.
        var producerSettings = producerConfiguration(broker)
        producerSettings.kafka.properties["batch.num.messages"] = "50"
        let producer = try KafkaProducer.make(configuration: producerSettings, logger: logger)
        let count = 3000
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<count {
                group.addTask {
                    let value = #"{"type":"post.liked","postId":"p-\#(i)","userId":"u-\#(i % 97)"}"#
                    _ = try await producer.send(KafkaProducerRecord(topic: topic, partition: Int32(i % 2), value: value.bytes))
                }
                if i % 200 == 199 { try await group.waitForAll() }
            }
            try await group.waitForAll()
        }
        // Heartbeats and commits wake librdkafka's broker thread too (a request to send): at librdkafka's default
        // intervals, as a worker runs, they are seconds apart.
        var configuration = consumerConfiguration(
            broker, group: unique("g"), topics: [topic], maxBuffered: 50, properties: ["heartbeat.interval.ms": "3000"])
        configuration.commitInterval = .seconds(5)
        configuration.sessionTimeout = .seconds(30)
        configuration.prefetchMinRecords = 300
        let consumer = try KafkaConsumer.make(configuration: configuration, logger: logger)
        // A reader slower than the fetches (about 20,000 records/s), as a worker catching up is: the queue fills.
        let (records, arrivals) = try await withDeadline(.seconds(60), "reading \(count) records") {
            var records: [KafkaRecord] = []
            var arrivals: [ContinuousClock.Instant] = []
            for try await record in consumer.records {
                arrivals.append(.now)
                records.append(record)
                if records.count % 20 == 0 { try await Task.sleep(for: .milliseconds(1)) }
                if records.count == count { break }
            }
            return (records, arrivals)
        }
        #expect(Set(records.map { "\($0.partition)/\($0.offset)" }).count == count)
        let gaps = zip(arrivals.dropFirst(), arrivals).map { $0.0 - $0.1 }
        let longest = try #require(gaps.max())
        let at = try #require(gaps.firstIndex(of: longest))
        // Where it was: which records came before and after, and how many of each partition had come.
        let before = records[...at]
        let place = "after \(records[at].partition)/\(records[at].offset), before \(records[at + 1].partition)/\(records[at + 1].offset); "
            + "\(before.filter { $0.partition == 0 }.count) of partition 0 and \(before.filter { $0.partition == 1 }.count) of partition 1 had come"
        // librdkafka 2.0 decides again only when its broker thread wakes: without a wake, up to a second later.
        #expect(longest < .milliseconds(500), "longest wait between two records: \(longest), \(place); all \(count) in \(arrivals.last! - arrivals[0])")
        await consumer.close()
        await producer.close()
    }

    @Test("a recycled batch is emptied, records kept from it stay intact after the poll thread frees it; the poll threads carry their names")
    func recycleAndThreadNames() async throws {
        let topic = unique("recycle")
        let broker = try EmbeddedBroker.make(topics: [topic: 1])
        let producer = try KafkaProducer.make(configuration: producerConfiguration(broker), logger: logger)
        for i in 0..<3 {
            _ = try await producer.send(KafkaProducerRecord(topic: topic, key: "k\(i)".bytes, value: "v\(i)".bytes))
        }
        let consumer = try KafkaConsumer.make(
            configuration: consumerConfiguration(broker, group: unique("g"), topics: [topic]),
            logger: logger
        )
        var batches = consumer.batches.makeAsyncIterator()
        var kept: [KafkaRecord] = []
        while kept.count < 3, var batch = try await batches.next() {
            kept += batch.records
            consumer.recycle(&batch)
            #expect(batch.records.isEmpty)
        }
        // The poll thread frees what it was handed between two polls: this record arrives after that.
        _ = try await producer.send(KafkaProducerRecord(topic: topic, key: "k3".bytes, value: "v3".bytes))
        let later = try #require(try await batches.next())
        #expect(later.records.map(\.offset) == [3])
        #expect(kept.map(\.offset) == [0, 1, 2])
        #expect(kept.map(\.key) == ["k0".bytes, "k1".bytes, "k2".bytes])
        #expect(kept.map(\.value) == ["v0".bytes, "v1".bytes, "v2".bytes])

        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
        // A thread of another test may end between the listing and the read: its name is not needed.
        let names = Set(tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        #expect(names.contains("kafka-consumer"), "\(names.sorted())")
        #expect(names.contains("kafka-producer"), "\(names.sorted())")
        await consumer.close()
        await producer.close()
    }

    @Test("records that keep librdkafka's message stay readable after the consumer is gone; records held back for a paused partition are detached")
    func keptMessages() async throws {
        let topic = unique("kept")
        let broker = try EmbeddedBroker.make(topics: [topic: 1])
        let producer = try KafkaProducer.make(configuration: producerConfiguration(broker), logger: logger)
        for i in 0..<5 {
            _ = try await producer.send(KafkaProducerRecord(
                topic: topic, key: "k\(i)".bytes, value: "v\(i)".bytes, headers: [KafkaHeader(name: "n", string: "h\(i)")]))
        }
        var configuration = consumerConfiguration(broker, group: unique("g"), topics: [topic])
        configuration.keepsMessages = true
        configuration.maxBatchRecords = 1
        var consumer: KafkaConsumer? = try KafkaConsumer.make(configuration: configuration, logger: logger)
        var batches = consumer!.batches.makeAsyncIterator()
        let first = try #require(try await batches.next()).records
        #expect(first.map(\.offset) == [0])
        #expect(first[0].bytes.isMessage)
        // The other four came in the same fetch: the poll thread buffers them at once. Paused, they are held
        // back, and held back they are copies.
        try await Task.sleep(for: .seconds(1))
        let partition = first[0].topicPartition
        try consumer!.pause([partition])
        try consumer!.resume([partition])
        var rest: [KafkaRecord] = []
        while rest.count < 4, let batch = try await batches.next() {
            rest += batch.records
        }
        #expect(rest.map(\.offset) == [1, 2, 3, 4])
        #expect(rest.allSatisfy { !$0.bytes.isMessage })
        #expect(rest.map(\.value) == (1..<5).map { "v\($0)".bytes })

        // The consumer closed and released: the kept message still reads, and its headers, never read
        // before, are parsed now.
        await consumer!.close()
        consumer = nil
        #expect(first[0].key == "k0".bytes)
        #expect(first[0].value == "v0".bytes)
        #expect(first[0].headers == [KafkaHeader(name: "n", string: "h0")])
        await producer.close()
    }

    @Test("consumer lag comes from librdkafka statistics; assignment changes are events")
    func lagAndEvents() async throws {
        let topic = unique("lag")
        let broker = try EmbeddedBroker.make(topics: [topic: 1])
        let producer = try KafkaProducer.make(configuration: producerConfiguration(broker), logger: logger)
        for i in 0..<20 {
            _ = try await producer.send(KafkaProducerRecord(topic: topic, value: "v\(i)".bytes))
        }
        let consumer = try KafkaConsumer.make(
            configuration: consumerConfiguration(broker, group: unique("g"), topics: [topic]),
            logger: logger
        )
        let partition = KafkaTopicPartition(topic: topic, partition: 0)
        let events = Task {
            for await event in consumer.events {
                if case .assigned(let partitions) = event { return partitions }
            }
            return []
        }
        _ = try await take(20, from: consumer)
        try await consumer.commit()
        #expect(try await consumer.committedOffsets([partition]) == [partition: 20])
        #expect(try await withDeadline(.seconds(30), "an assigned event") { await events.value } == [partition])
        #expect(consumer.assignment == [partition])
        try await eventually(.seconds(30), "lag 0 reported after reading everything") { consumer.lag[partition] == 0 }
        await consumer.close()
        #expect(consumer.assignment.isEmpty)
        await producer.close()
    }

    @Test("topics not created up front are created by the first metadata request, a subscriber's too")
    func topicCreatedOnDemand() async throws {
        let topic = unique("ondemand")
        let broker = try EmbeddedBroker.make()
        let consumer = try KafkaConsumer.make(
            configuration: consumerConfiguration(broker, group: unique("g"), topics: [topic]),
            logger: logger
        )
        // The mock cluster auto-creates on any metadata request (it ignores allow.auto.create.topics), with its
        // default of 4 partitions: the subscription alone creates the topic.
        let all = Set((0..<4).map { KafkaTopicPartition(topic: topic, partition: Int32($0)) })
        try await eventually(.seconds(60), "the auto-created topic assigned") { consumer.assignment == all }

        let producer = try KafkaProducer.make(configuration: producerConfiguration(broker), logger: logger)
        let report = try await producer.send(KafkaProducerRecord(topic: topic, key: "k".bytes, value: "v".bytes))
        let metadata = try await producer.metadata()
        #expect(metadata.topics.first { $0.name == topic }?.partitionCount == 4)

        let records = try await take(1, from: consumer)
        #expect(records.first?.partition == report.partition)
        #expect(records.first?.value == "v".bytes)
        await consumer.close()
        await producer.close()
    }
}
