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
    /// The halted record's timestamp (ms since the epoch), read from `/status` or its dead letter: with the
    /// offset, the record's identity. A release with it applies only to that record (never to another
    /// record at the same offset of a recreated topic); without it (`--force` with nothing to read), only to
    /// a halt that began before the release was written.
    public var recordTimestamp: Int64?
    /// The dead letter the operator looked at (audit).
    public var deadLetter: DeadLetterCoordinates?
    /// Written with `--force`: the CLI did not check that the partition is halted at this offset.
    public var force: Bool?
    /// Hex HMAC-SHA256 of every other field under the control topic's shared secret (``ReleaseSigning``).
    public var signature: String?

    public init(
        group: String, topic: String, partition: Int32, offset: Int64, reason: String, operator: String, at: Date = Date(),
        recordTimestamp: Int64? = nil, deadLetter: DeadLetterCoordinates? = nil, force: Bool? = nil
    ) {
        self.group = group
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.reason = reason
        self.operator = `operator`
        self.at = Timestamp(at).text
        self.recordTimestamp = recordTimestamp
        self.deadLetter = deadLetter
        self.force = force
    }

    enum CodingKeys: String, CodingKey {
        case action, group, topic, partition, offset, reason, `operator`, at, recordTimestamp, deadLetter, force, signature
    }

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
        recordTimestamp = try c.decodeIfPresent(Int64.self, forKey: .recordTimestamp)
        deadLetter = try c.decodeIfPresent(DeadLetterCoordinates.self, forKey: .deadLetter)
        force = try c.decodeIfPresent(Bool.self, forKey: .force)
        signature = try c.decodeIfPresent(String.self, forKey: .signature)
    }

    /// Log metadata for the audit trail (no record values).
    var audit: [String: String] {
        var m = [
            "kafka.topic": topic, "kafka.partition": String(partition), "kafka.offset": String(offset),
            "release.reason": reason, "release.operator": `operator`, "release.at": at,
        ]
        if let recordTimestamp { m["release.record_timestamp"] = String(recordTimestamp) }
        if let deadLetter { m["release.dead_letter"] = deadLetter.description }
        if force == true { m["release.force"] = "true" }
        return m
    }
}

/// A release read from the control topic, with when it was written.
struct PendingRelease: Sendable {
    var request: ReleaseRequest
    /// The control record's timestamp (else the request's `at`).
    var writtenAt: Date?

    var audit: [String: String] { request.audit }

    /// Whether this release applies to `halt`: same offset, and the same record (its timestamp), or — for a
    /// release without the record's identity — a halt that began before the release was written.
    func applies(to halt: HaltInfo) -> Bool {
        guard request.offset == halt.offset else { return false }
        if let timestamp = request.recordTimestamp { return timestamp == halt.timestampMilliseconds }
        guard let writtenAt else { return false }
        return writtenAt >= halt.since.date
    }
}

extension Worker {
    enum HaltDecision {
        case halted
        case released(PendingRelease)
        case notAssigned
    }

    /// Decides, atomically with releases arriving and rebalances, whether a record whose dead letter was
    /// acknowledged halts its partition or is released by a release already read.
    func haltOrTakeRelease(_ tp: KafkaTopicPartition, _ info: HaltInfo, consumer: KafkaConsumer) -> HaltDecision {
        let key = ReleaseKey(topic: tp.topic, partition: tp.partition, offset: info.offset)
        return control.withLock { c in
            guard consumer.assignment.contains(tp) else { return .notAssigned }
            if let release = c.pending[key]?.first(where: { $0.applies(to: info) }) { return .released(release) }
            state.withLock { s in
                s.halted[tp] = info
                // Under the lock: a revocation in between cannot leave 1 for a partition no longer owned.
                setHaltedGauge(tp, in: s)
            }
            return .halted
        }
    }
}

extension Worker {
    /// Moves a halted partition past its record at `offset` (a release): the seek first, which makes the
    /// partition's records already read stale (a batch still in the record loop, records queued in a handler
    /// lane: read before the seek, they are read again after it), then the watermark, the stored offset, and
    /// the resume. The partition is paused until then, so nothing of it is read in between.
    ///
    /// - Throws: When the partition is no longer assigned (revoked meanwhile).
    func movePast(_ offset: Int64, of tp: KafkaTopicPartition, consumer: KafkaConsumer) async throws {
        let generation = try await consumer.seek(tp, to: offset + 1)
        progress.withLock { $0[tp] }?.release(at: offset, stamp: generation)
        try consumer.storeOffset(tp, nextOffset: offset + 1)
        try consumer.resume([tp])
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
                    groupID: "\(configuration.groupID).control.\(UUID().uuidString.lowercased())", topics: [configuration.controlTopic],
                    kafka: kafka, offsetReset: .earliest, statisticsInterval: nil),
                logger: kafkaLogger)
        } catch {
            noteError("control topic consumer not started", ["error": "\(error)", "kafka.topic": configuration.controlTopic])
            return
        }
        // Releases written before this process started are read again at every start: most were applied long
        // ago, and one that still applies is applied (and logged) when its record halts.
        let started = Date()
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
                    guard request.action == "release", request.group == configuration.groupID else { continue }
                    if let secret = configuration.controlTopicSecret, !ReleaseSigning.verify(request, secret: secret) {
                        // Never applied: anyone who can write to the control topic could otherwise release any halt.
                        let reason = request.signature == nil ? "unsigned" : "bad_signature"
                        metrics.releasesRejected.labels(reason).increment()
                        noteError("release rejected", request.audit.merging(["release.rejected": reason, "kafka.offset.control": String(record.offset)]) { a, _ in a })
                        continue
                    }
                    let writtenAt = record.timestampMilliseconds.map { Date(timeIntervalSince1970: Double($0) / 1000) }
                        ?? Timestamp(rfc3339: request.at)?.date
                    await apply(
                        PendingRelease(request: request, writtenAt: writtenAt), consumer: consumer,
                        writtenBeforeStart: writtenAt.map { $0 < started } ?? false)
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

    /// Applies one release: if its partition is halted at exactly its record (which this process
    /// dead-lettered before halting), moves past it; otherwise keeps it for a halt to come (the record may
    /// be being dead-lettered right now), where it applies only to the same record.
    ///
    /// A release written before this process started that matches no halt is kept without a log line: it was
    /// most likely applied by an earlier run.
    func apply(_ release: PendingRelease, consumer: KafkaConsumer, writtenBeforeStart: Bool = false) async {
        let request = release.request
        let key = ReleaseKey(topic: request.topic, partition: request.partition, offset: request.offset)
        let tp = KafkaTopicPartition(topic: request.topic, partition: request.partition)
        let audit = release.audit
        let current: HaltInfo? = control.withLock { c in
            state.withLock { s -> HaltInfo? in
                if let halt = s.halted[tp], release.applies(to: halt) {
                    s.halted[tp] = nil
                    setHaltedGauge(tp, in: s)
                    return halt
                }
                c.pending[key, default: []].append(release)
                return nil
            }
        }
        guard let current else {
            if let halt = state.withLock({ $0.halted[tp] }) {
                logger.warning("release does not match the halt", audit.merging(["halt.offset": String(halt.offset)]) { a, _ in a })
            } else if writtenBeforeStart {
                logger.debug("release kept for a halt to come", audit)
            } else {
                logger.info("release waiting for its halt", audit)
            }
            return
        }
        await raceHooks.run(.beforeReleaseApplies, tp)
        do {
            try await movePast(current.offset, of: tp, consumer: consumer)
        } catch {
            // Revoked before the release moved past its record: the release is kept, for that record only (its
            // identity is the halt's), so the record's next halt here (the partition assigned again) applies it;
            // another member that takes the partition applies it from the control topic, which it reads too.
            var kept = release
            if kept.request.recordTimestamp == nil { kept.request.recordTimestamp = current.timestampMilliseconds }
            control.withLock { $0.pending[key, default: []].append(kept) }
            logger.info("release kept for the record's next halt: its partition was revoked before it applied", audit.merging(["error": "\(error)"]) { a, _ in a })
            return
        }
        metrics.releases.labels(request.topic).increment()
        logger.notice("halted offset released", audit)
    }
}
