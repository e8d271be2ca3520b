import Foundation
import SwitchyardKafka

/// An operator's release of exactly one halted offset, recorded in the control topic (the audit trail).
public struct ReleaseRequest: Codable, Sendable, Equatable {
    /// Always `release`.
    public var action: String = "release"
    /// The consumer group whose halt this releases.
    public var group: String
    public var topic: String
    public var partition: Int32
    /// The halted record's offset: consumption resumes after it.
    public var offset: Int64
    /// Why (free text, required): goes to logs and the control topic.
    public var reason: String
    /// Who (from `--operator`, else `$USER`).
    public var `operator`: String
    /// When the release was requested (RFC 3339).
    public var at: String

    public init(group: String, topic: String, partition: Int32, offset: Int64, reason: String, operator: String, at: Date = Date()) {
        self.group = group
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.reason = reason
        self.operator = `operator`
        self.at = Timestamp(at).text
    }

    enum CodingKeys: String, CodingKey { case action, group, topic, partition, offset, reason, `operator`, at }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        action = try c.decode(String.self, forKey: .action)
        group = try c.decodeIdentifier(forKey: .group)
        topic = try c.decodeIdentifier(forKey: .topic)
        partition = try c.decode(Int32.self, forKey: .partition)
        offset = try c.decode(Int64.self, forKey: .offset)
        reason = try c.decodeIdentifier(forKey: .reason)
        `operator` = try c.decode(String.self, forKey: .operator)
        at = try c.decode(String.self, forKey: .at)
    }
}

extension Worker {
    /// Reads the control topic from its beginning (a private group per process, no commits matter) and
    /// applies releases for this worker's group.
    func watchControlTopic(kafka: KafkaConfiguration, consumer: KafkaConsumer, logger kafkaLogger: any KafkaLogger) async {
        let control: KafkaConsumer
        do {
            control = try KafkaConsumer.make(
                configuration: KafkaConsumerConfiguration(
                    groupID: "\(configuration.groupId).control.\(UUID().uuidString.lowercased())", topics: [configuration.controlTopic],
                    kafka: kafka, offsetReset: .earliest, statisticsInterval: nil),
                logger: kafkaLogger)
        } catch {
            noteError("control topic consumer not started", ["error": "\(error)", "kafka.topic": configuration.controlTopic])
            return
        }
        await withTaskCancellationHandler {
            let decoder = SwitchyardJSONDecoder()
            do {
                for try await record in control.records {
                    guard let value = record.value else { continue }
                    let request: ReleaseRequest
                    do {
                        request = try decoder.decode(ReleaseRequest.self, from: value)
                    } catch {
                        logger.warning("control record ignored: not a release", [
                            "kafka.offset": String(record.offset), "error": "\(error)",
                        ])
                        continue
                    }
                    guard request.action == "release", request.group == configuration.groupId else { continue }
                    await apply(request, consumer: consumer)
                }
            } catch {
                noteError("control topic consumer stopped", ["error": "\(error)"])
            }
        } onCancel: {
            // Closing ends `records`, which ends the loop above.
            Task { await control.close() }
        }
        // Wait until it has left its group, so nothing outlives the worker's run().
        await control.close()
    }

    /// Applies one release: remembers it, and if the partition is halted at that offset, moves past it.
    func apply(_ request: ReleaseRequest, consumer: KafkaConsumer) async {
        let key = ReleaseKey(topic: request.topic, partition: request.partition, offset: request.offset)
        let isNew = control.withLock { $0.released.insert(key).inserted }
        guard isNew else { return }
        let tp = KafkaTopicPartition(topic: request.topic, partition: request.partition)
        let audit = [
            "kafka.topic": request.topic, "kafka.partition": String(request.partition), "kafka.offset": String(request.offset),
            "release.reason": request.reason, "release.operator": request.operator, "release.at": request.at,
        ]
        guard state.withLock({ $0.halted[tp]?.offset == request.offset }) else {
            logger.info("release recorded", audit)
            return
        }
        do {
            try consumer.storeOffset(tp, nextOffset: request.offset + 1)
            try await consumer.seek(tp, to: request.offset + 1)
            state.withLock { $0.halted[tp] = nil }
            try consumer.resume([tp])
        } catch {
            noteError("release not applied", audit.merging(["error": "\(error)"]) { a, _ in a })
            return
        }
        metrics.halted.labels(request.topic, String(request.partition)).set(0)
        metrics.releases.labels(request.topic).increment()
        logger.notice("halted offset released", audit)
    }
}
