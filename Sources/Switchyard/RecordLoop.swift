import Foundation
import SwitchyardKafka
import SwitchyardMetrics
import Synchronization

/// The consuming loop: takes the consumer's records a batch at a time, decodes each with its partition's lane,
/// decides what to do with it (``RecordAction/decide(_:)``) and carries that out without waiting for the broker:
/// dead letters and republishes are produced in the background, handlers run in per-partition (or per-key)
/// lanes, and each partition's ``PartitionProgress`` stores the offset below which every outcome is durable.
///
/// Per batch, not per record: one hand-over from the poll thread, one clock read, one lock for the status and
/// one metrics update per lane and label. Per record: the decode, the decision, and for a record with an
/// effect (a dead letter, a republish, a handler) that effect.
struct RecordLoop {
    let worker: Worker
    let consumer: KafkaConsumer
    let effects: Effects
    /// Partition counts from metadata at start, to keep republished records in their partition.
    let partitionCounts: [String: Int]
    private let topics: [String: TopicRuntime]
    private var lanes: [KafkaTopicPartition: Lane] = [:]

    init(worker: Worker, consumer: KafkaConsumer, producer: KafkaProducer, partitionCounts: [String: Int]) {
        self.worker = worker
        self.consumer = consumer
        self.partitionCounts = partitionCounts
        self.effects = Effects(worker: worker, producer: producer)
        var topics: [String: TopicRuntime] = [:]
        for (name, topic) in worker.configuration.topics {
            topics[name] = TopicRuntime(name: name, configuration: topic, metrics: worker.metrics)
        }
        self.topics = topics
    }

    var logger: SwitchyardLogger { worker.logger }

    /// What became of a batch.
    enum Outcome: Equatable {
        /// Every record was handed on (its outcome durable or on its way), held, or skipped.
        case done
        /// An outcome will never be durable in this run (shutdown, cancellation): the loop ends; nothing at or
        /// after that record is stored.
        case abandoned
    }

    mutating func run() async throws {
        var batches = consumer.batches.makeAsyncIterator()
        while var batch = try await batches.next() {
            let proceed = worker.stopSignal.withLock { s -> Bool in
                if s.requested || Task.isCancelled { return false }
                s.busy = true
                return true
            }
            guard proceed else { break }
            let outcome = try await process(batch)
            consumer.recycle(&batch)
            let stop = worker.stopSignal.withLock { s -> Bool in
                s.busy = false
                return s.requested
            }
            if outcome == .abandoned || effects.isAbandoned {
                logger.notice("record abandoned: it and everything after it on its partition will be read again", [:])
                break
            }
            if stop || Task.isCancelled { break }
        }
        try effects.throwIfFailed()
    }

    // MARK: - One batch

    mutating func process(_ batch: KafkaRecordBatch) async throws -> Outcome {
        try effects.throwIfFailed()
        let start = ContinuousClock.now
        let records = batch.records
        // Memory is bounded per partition (``PartitionProgress/handOver(pending:processedThrough:haltAt:haltDone:limits:)``):
        // a partition over its share is paused, and the others go on.
        let configuration = worker.configuration
        let limits = PartitionProgress.Limits(
            records: configuration.maxPendingRecordsPerPartition,
            bytes: configuration.maxPendingBytes / max(1, consumer.assignment.count))
        var touched: [Lane] = []
        var completed = 0
        var i = records.startIndex
        while i < records.endIndex {
            // A run: consecutive records of one partition (librdkafka hands a fetch over partition by partition).
            let first = records[i]
            var j = i + 1
            while j < records.endIndex, records[j].partition == first.partition, records[j].topic == first.topic { j += 1 }
            defer { i = j }
            guard let lane = lane(for: first, generation: batch.generation) else { continue }
            if !lane.isTouched {
                lane.isTouched = true
                touched.append(lane)
            }
            completed += try lane.process(records[i..<j], loop: self, limits: limits, generation: batch.generation)
            if worker.raceHooks.isArmed { await worker.raceHooks.run(.afterRun, first.topicPartition) }
        }
        for lane in touched { lane.flushMetrics(worker.metrics) }
        // Records durable within the batch; the others are observed when their outcome is (``Effects/durable(readAt:)``).
        if completed > 0 { effects.processing.observe(start.duration(to: .now) / max(records.count, 1), count: completed) }
        if completed > 0 { worker.handled.add(completed, ordering: .relaxed) }
        return effects.isAbandoned ? .abandoned : .done
    }

    /// The lane of a record's partition, made on its first record; nil for a stale record (its partition was
    /// revoked after the batch was handed over) or a topic that is not configured.
    private mutating func lane(for record: KafkaRecord, generation: UInt64) -> Lane? {
        let tp = record.topicPartition
        if consumer.isStale(tp, generation: generation) { return nil }
        if let lane = lanes[tp], lane.progress.isOpen { return lane }
        guard let topic = topics[record.topic] else {
            logger.warning("record from a topic that is not configured", ["kafka.topic": record.topic])
            return nil
        }
        let progress = PartitionProgress(partition: tp, consumer: consumer)
        guard worker.register(progress, generation: generation, consumer: consumer) else { return nil }
        let lane = Lane(
            partition: tp, topic: topic, progress: progress,
            codec: TopicCodec(
                catalog: topic.configuration.catalog, policy: topic.configuration.policy,
                readerOptions: JSONReader.Options(maxBytes: worker.configuration.maxRecordBytes, rejectDuplicateKeys: true),
                keepsEvents: !worker.handlers.isEmpty || topic.configuration.republishTo != nil),
            republishPartition: topic.configuration.republishTo.flatMap { target in
                (partitionCounts[target] ?? 0) > Int(tp.partition) ? tp.partition : nil
            })
        lanes[tp] = lane
        return lane
    }
}

// MARK: - Per topic

/// A topic's configuration and its label-resolved metric series, looked up once.
struct TopicRuntime: Sendable {
    let name: String
    let configuration: TopicConfiguration
    let records: SwitchyardCounter
    let tombstones: SwitchyardCounter
    let deadLetterErrors: SwitchyardCounter
    let republishErrors: SwitchyardCounter
    let republished: SwitchyardCounter?
    let published: SwitchyardCounter

    init(name: String, configuration: TopicConfiguration, metrics: WorkerMetrics) {
        self.name = name
        self.configuration = configuration
        records = metrics.records.labels(name)
        tombstones = metrics.tombstones.labels(name)
        deadLetterErrors = metrics.deadLetterErrors.labels(name)
        republishErrors = metrics.republishErrors.labels(name)
        republished = configuration.republishTo.map { metrics.republished.labels(name, $0) }
        published = metrics.published.labels(name)
    }
}

/// Counts per event type for one batch, without hashing: types are mostly the catalog's own static strings,
/// found by identity, and a batch sees few of them.
struct TypeCounts {
    /// A type's count since the last flush, and its counter once the first flush has looked it up: the
    /// entries stay between flushes, so a flush adds to counters it holds, with no label lookup (which hashes
    /// the label values under the family's lock).
    struct Entry {
        let type: String
        var count: Int
        var counter: SwitchyardCounter?
    }

    private(set) var entries: [Entry] = []
    private var overflow: [String: Int] = [:]

    mutating func add(_ type: String, _ n: Int = 1) {
        // The same string (a catalog's tag) is found by its two words, with no comparison of contents: an event
        // type's string differs from the others' in them, and `==` would compare the bytes of every other type.
        let bits = unsafeBitCast(type, to: (UInt, UInt).self)
        for k in entries.indices where unsafeBitCast(entries[k].type, to: (UInt, UInt).self) == bits {
            entries[k].count += n
            return
        }
        for k in entries.indices where entries[k].type == type {
            entries[k].count += n
            return
        }
        if entries.count < 16 {
            entries.append(Entry(type: type, count: n, counter: nil))
        } else {
            overflow[type, default: 0] += n
        }
    }

    /// Adds every type's count to its counter (`counter(type)` finds it, once per type in the table) and
    /// starts again from zero.
    mutating func flush(_ counter: (String) -> SwitchyardCounter) {
        for k in entries.indices where entries[k].count > 0 {
            let target = entries[k].counter ?? counter(entries[k].type)
            entries[k].counter = target
            target.increment(by: Int64(entries[k].count))
            entries[k].count = 0
        }
        for (type, count) in overflow { counter(type).increment(by: Int64(count)) }
        overflow.removeAll()
    }
}

/// A lane's counts since its last metrics flush (once per batch).
struct LaneCounts {
    var records = 0
    var tombstones = 0
    var decoded = TypeCounts()
    var unknown = TypeCounts()
    var unknownFields = TypeCounts()

    /// Counts a record handed on: its type, and the unknown fields kept.
    mutating func handedOn(_ record: DecodedRecord, type: String) {
        if case .unknown = record.outcome {
            unknown.add(type)
        } else {
            decoded.add(type)
            if record.unknownFields > 0 { unknownFields.add(type, record.unknownFields) }
        }
    }

    /// Adds the counts to the metrics and starts again from zero.
    mutating func flush(_ topic: TopicRuntime, _ metrics: WorkerMetrics) {
        let name = topic.name
        if records > 0 { topic.records.increment(by: Int64(records)) }
        if tombstones > 0 { topic.tombstones.increment(by: Int64(tombstones)) }
        records = 0
        tombstones = 0
        decoded.flush { metrics.decoded.labels(name, $0) }
        unknown.flush { metrics.unknownEvents.labels(name, $0) }
        unknownFields.flush { metrics.unknownFields.labels(name, $0) }
    }
}

// MARK: - Per partition

/// One partition's decoder, counters and handler lanes. Used by the record loop's task only, one batch at a
/// time; what other threads touch (the watermark) is in ``PartitionProgress``.
final class Lane {
    let partition: KafkaTopicPartition
    let topic: TopicRuntime
    let progress: PartitionProgress
    var codec: TopicCodec
    let republishPartition: Int32?
    var isTouched = false
    private var counts = LaneCounts()
    /// Handler lanes: one (ordering `partition`) or one per key hash (ordering `key`), made when first needed.
    private var handlerLanes: [HandlerLane] = []
    /// The partition's sends, when there are no handler lanes (they have their own), made when first needed.
    private var sendSequence: SendSequence?
    /// Reused per run.
    private var pending: [PartitionProgress.PendingRecord] = []
    private var sends: [Effects.Send] = []
    private var handlerItems: [HandlerItem] = []

    /// Key ordering: records with different keys run concurrently in this many lanes.
    static let keyLanes = 32

    init(partition: KafkaTopicPartition, topic: TopicRuntime, progress: PartitionProgress, codec: TopicCodec, republishPartition: Int32?) {
        self.partition = partition
        self.topic = topic
        self.progress = progress
        self.codec = codec
        self.republishPartition = republishPartition
    }

    /// Where a run stands after each record.
    private struct RunState {
        /// Records completed at once (no effect to wait for).
        var completed = 0
        /// The offset after the last record processed (nil: none was).
        var next: Int64?
        /// A halt at this offset; `done`: already dead-lettered (no dead letter to wait for).
        var halt: (offset: Int64, done: Bool)?
        /// The partition is halted at an earlier record: nothing from here on is processed.
        var held = false
        /// The halting record and its failure: the halt starts once the run is handed over.
        var halting: (record: KafkaRecord, failure: DecodeFailure, since: Timestamp)?

        /// Whether nothing after the last record is processed in this run.
        var stopped: Bool { halt != nil || held }
    }

    /// Decodes and decides every record of one run, then hands the effects over: pending offsets to the
    /// watermark, sends to the producer, handler calls to the handler lanes.
    ///
    /// `generation`: the batch's (``KafkaRecordBatch/generation``). A run of a partition halted at an earlier
    /// record, or released since the batch was taken, is not processed: its records are read again after the
    /// release's seek.
    ///
    /// - Returns: How many records completed at once (no effect to wait for).
    func process(_ run: ArraySlice<KafkaRecord>, loop: RecordLoop, limits: PartitionProgress.Limits, generation: UInt64) throws -> Int {
        guard progress.admitsRun(batchStamp: generation) else { return 0 }
        let worker = loop.worker
        let configuration = topic.configuration
        let hasHandlers = !worker.handlers.isEmpty
        var state = RunState()
        pending.removeAll(keepingCapacity: true)
        sends.removeAll(keepingCapacity: true)
        handlerItems.removeAll(keepingCapacity: true)
        // The decoder and the counts as locals while the run lasts: no exclusivity check on the lane's stored
        // properties per record. The counts are moved out and back (their tables are not copied).
        var codec = self.codec
        var counts = self.counts
        self.counts = LaneCounts()
        defer {
            self.codec = codec
            self.counts = counts
        }

        // Each record is read in place (`records[index]`), not bound to a loop variable or read through the
        // slice's subscript: a copy of a record costs two reference counts each way.
        try run.withUnsafeBufferPointer { records in
            for index in records.indices {
                counts.records += 1
                let decoded = records[index].withUnsafeValue { codec.decode($0) }
                var facts = RecordFacts(
                    outcome: RecordFacts.Outcome(decoded.outcome), onFailure: configuration.onFailure,
                    republishes: configuration.republishTo != nil)
                // When a halting topic's record failed (a `Date`, not a `Timestamp`: a trivial value costs nothing
                // to drop on every other record, where a `Timestamp?` was destroyed through its value witness).
                var failedAt: Date?
                if case .failed(let failure) = decoded.outcome {
                    worker.metrics.failures.labels(topic.name, failure.kind.rawValue, failure.type ?? "").increment()
                    if configuration.onFailure == .halt {
                        let now = Date()
                        failedAt = now
                        (facts.deadLettered, facts.releasePending) = worker.haltFacts(records[index], failure: failure, since: Timestamp(now))
                    }
                }
                let action = RecordAction.decide(facts)
                if action == .handOn, !hasHandlers, let type = decoded.outcome.type {
                    // The common case: counted and complete, nothing to wait for.
                    counts.handedOn(decoded, type: type)
                    state.completed += 1
                } else {
                    try carryOut(action, records[index], decoded, failedAt: failedAt, &state, &counts, loop: loop)
                    if state.stopped { break }
                }
                state.next = records[index].offset + 1
            }
        }
        guard let next = state.next else { return state.completed }
        // Refused when a release (or a revocation) came while the run was decoded: nothing of it is carried out.
        guard progress.handOver(
            pending: pending, processedThrough: next, haltAt: state.halt?.offset, haltDone: state.halt?.done ?? false, limits: limits,
            batchStamp: generation)
        else { return 0 }
        if let halting = state.halting {
            startHalt(halting.record, failure: halting.failure, since: halting.since, worker: worker, consumer: loop.consumer)
        }
        if !sends.isEmpty {
            let sequence = sendSequence ?? SendSequence(effects: loop.effects, progress: progress)
            sendSequence = sequence
            for send in sends { sequence.submit(send) }
        }
        for var item in handlerItems {
            item.generation = generation
            loop.effects.started()
            handlerLane(for: item.record, worker: worker, effects: loop.effects).enqueue(item)
        }
        return state.completed
    }

    /// Carries out `action` for one record: everything but a hand-on without a handler (``process(_:loop:)``).
    /// Effects are queued (`pending`, `sends`, `handlerItems`) and handed over after the run; a halt or a hold
    /// stops the run (`state.stopped`), and `state.next` is where it stopped.
    private func carryOut(
        _ action: RecordAction, _ record: KafkaRecord, _ decoded: DecodedRecord, failedAt: Date?, _ state: inout RunState,
        _ counts: inout LaneCounts, loop: RecordLoop
    ) throws {
        let worker = loop.worker
        let configuration = topic.configuration
        let hasHandlers = !worker.handlers.isEmpty
        switch action {
        case .hold:
            // Nothing from here on is processed or stored; what came before is handed over.
            state.held = true
        case .skipTombstone:
            counts.tombstones += 1
            state.completed += 1
        case .handOn, .handOnThenRepublish:
            guard let type = decoded.outcome.type else { return }
            counts.handedOn(decoded, type: type)
            // The codec keeps events only where a handler or a republish needs them (`keepsEvents`).
            let republish = action == .handOnThenRepublish ? try republishRecord(record, event: decoded.event, decoded: decoded, worker: worker) : nil
            let handler = hasHandlers ? decoded.event.flatMap { worker.handlers.handler(for: $0) } : nil
            if hasHandlers, handler != nil || republish != nil {
                // Through the handler lane, so effects keep the partition's (or the key's) order.
                pending.append(PartitionProgress.PendingRecord(offset: record.offset, bytes: record.pendingBytes))
                handlerItems.append(HandlerItem(record: record, type: type, handler: handler, republish: republish))
            } else if let republish {
                pending.append(PartitionProgress.PendingRecord(offset: record.offset, bytes: record.pendingBytes))
                sends.append(republish)
            } else {
                state.completed += 1
            }
        case .deadLetter, .deadLetterThenHalt:
            guard case .failed(let failure) = decoded.outcome else { return }
            let dead = Effects.Send(
                record: Self.deadLetter(record, failure: failure, topic: configuration, group: worker.configuration.groupID),
                source: record.recordLocation,
                kind: action == .deadLetter ? .deadLetter(failure, halts: false) : .deadLetter(failure, halts: true),
                topic: topic)
            if hasHandlers {
                handlerItems.append(HandlerItem(record: record, type: failure.type ?? "", handler: nil, republish: dead))
            } else {
                sends.append(dead)
            }
            if action == .deadLetterThenHalt {
                state.halt = (record.offset, false)
                state.next = record.offset
                state.halting = (record, failure, Timestamp(failedAt ?? Date()))
            } else {
                pending.append(PartitionProgress.PendingRecord(offset: record.offset, bytes: record.pendingBytes))
            }
        case .halt:
            guard case .failed(let failure) = decoded.outcome else { return }
            state.halt = (record.offset, true)
            state.next = record.offset
            state.halting = (record, failure, Timestamp(failedAt ?? Date()))
        case .skipReleased:
            worker.metrics.releases.labels(record.topic).increment()
            worker.logger.notice("halted offset released", record.position)
            state.completed += 1
        }
    }

    /// A strict failure, once its run is handed over: pause the partition (nothing after the record is
    /// delivered; what was read after it is held), and once the record and everything before it is durable,
    /// halt there or apply a release that was already read.
    private func startHalt(_ record: KafkaRecord, failure: DecodeFailure, since: Timestamp, worker: Worker, consumer: KafkaConsumer) {
        Self.startHalt(record, progress: progress, failure: failure, handlerKind: nil, since: since, worker: worker, consumer: consumer)
    }

    /// ``startHalt(_:failure:since:worker:consumer:)`` for `progress`'s partition; `handlerKind`: a handler's
    /// failure halts it.
    static func startHalt(
        _ record: KafkaRecord, progress: PartitionProgress, failure: DecodeFailure, handlerKind: DeadLetterKind?, since: Timestamp, worker: Worker,
        consumer: KafkaConsumer
    ) {
        let tp = progress.partition
        do {
            try consumer.pause([tp])
        } catch {
            worker.logger.info("halt not applied: partition no longer assigned", record.position)
            return
        }
        let offset = record.offset
        let timestamp = record.timestampMilliseconds
        let position = record.position
        Task {
            guard await progress.waitForHalt() else { return }
            let key = Worker.ReleaseKey(topic: tp.topic, partition: tp.partition, offset: offset)
            let coordinates = worker.control.withLock { $0.deadLettered[key] }
            let info = HaltInfo(
                offset: offset, failure: failure, handlerKind: handlerKind, since: since, timestampMilliseconds: timestamp, deadLetter: coordinates)
            switch worker.haltOrTakeRelease(tp, info, consumer: consumer) {
            case .notAssigned:
                worker.logger.info("halt not applied: partition no longer assigned", position)
            case .halted:
                var metadata = Effects.failureMetadata(failure, adding: position)
                if let handlerKind { metadata["error.kind"] = handlerKind.rawValue }
                worker.noteError("partition halted", metadata)
            case .released(let release):
                do {
                    try await worker.movePast(offset, of: tp, consumer: consumer)
                } catch {
                    worker.logger.info("release not applied: partition no longer assigned", position)
                    return
                }
                worker.metrics.releases.labels(tp.topic).increment()
                worker.logger.notice("halted offset released", release.audit)
            }
        }
    }

    private func handlerLane(for record: KafkaRecord, worker: Worker, effects: Effects) -> HandlerLane {
        let count = topic.configuration.ordering == .key ? Self.keyLanes : 1
        if handlerLanes.isEmpty {
            handlerLanes = (0..<count).map { _ in HandlerLane(progress: progress, topic: topic, effects: effects) }
        }
        guard count > 1, let hash = record.withUnsafeKey({ key in
            key.map { key in
                var hasher = Hasher()
                hasher.combine(bytes: key)
                return hasher.finalize()
            }
        }) else { return handlerLanes[0] }
        return handlerLanes[Int(UInt(bitPattern: hash) % UInt(count))]
    }

    /// What republishing sends for this record.
    private func republishRecord(_ record: KafkaRecord, event: (any EventCatalog)?, decoded: DecodedRecord, worker: Worker) throws -> Effects.Send {
        let configuration = topic.configuration
        let value: [UInt8]
        // Unknown events are handed on untouched; known ones as configured.
        if case .unknown = decoded.outcome {
            value = record.value ?? []
        } else if configuration.republishMode == .passthrough {
            value = record.value ?? []
        } else {
            do {
                guard let event else { throw WorkerError.fatal("the topic's codec kept no event to republish") }
                value = try TopicCodec.canonicalBytes(of: event)
            } catch {
                worker.noteError("canonical encoding failed", record.position.merging(["error": "\(error)"]) { a, _ in a })
                throw WorkerError.fatal("canonical encoding failed at \(record.location): \(error)")
            }
        }
        var headers = record.headers
        headers.append(KafkaHeader(name: DeadLetterHeaders.republishedFrom, string: "\(record.topic)/\(record.partition)/\(record.offset)"))
        let out = KafkaProducerRecord(
            topic: configuration.republishTo!, partition: republishPartition, key: record.key, value: value, headers: headers)
        return Effects.Send(record: out, source: record.recordLocation, kind: .republish, topic: topic)
    }

    /// Adds this batch's counts to the metrics.
    func flushMetrics(_ metrics: WorkerMetrics) {
        isTouched = false
        counts.flush(topic, metrics)
    }

    /// The dead letter for `record`: original key, value and headers, with the diagnosis added. Earlier
    /// `switchyard.*` headers are replaced (not stacked), except the redrive count and the link to the dead
    /// letter a redrive sent it from, which are kept (`dlq redrive` counts redrives by them).
    static func deadLetter(_ record: KafkaRecord, failure: DecodeFailure, topic: TopicConfiguration, group: String) -> KafkaProducerRecord {
        deadLetter(record, kind: failure.kind.rawValue, failure: failure, topic: topic, group: group)
    }

    /// The dead letter for `record` with `kind` in `switchyard.error.kind` (a decode failure's, or a handler's)
    /// and `failure`'s path, type and message.
    static func deadLetter(_ record: KafkaRecord, kind: String, failure: DecodeFailure, topic: TopicConfiguration, group: String) -> KafkaProducerRecord {
        var redriveCount = "0"
        var headers: [KafkaHeader] = []
        for header in record.headers {
            if header.name == DeadLetterHeaders.redriveCount {
                redriveCount = header.value.map { String(decoding: $0, as: UTF8.self) } ?? "0"
            } else if header.name == DeadLetterHeaders.redriveOf || !header.name.hasPrefix("switchyard.") {
                headers.append(header)
            }
        }
        func add(_ name: String, _ value: String) { headers.append(KafkaHeader(name: name, string: value)) }
        add(DeadLetterHeaders.originalTopic, record.topic)
        add(DeadLetterHeaders.originalPartition, String(record.partition))
        add(DeadLetterHeaders.originalOffset, String(record.offset))
        if let ts = record.timestampMilliseconds { add(DeadLetterHeaders.originalTimestamp, String(ts)) }
        add(DeadLetterHeaders.errorKind, kind)
        add(DeadLetterHeaders.errorPath, failure.path)
        if let type = failure.type { add(DeadLetterHeaders.errorType, type) }
        add(DeadLetterHeaders.errorMessage, failure.message)
        add(DeadLetterHeaders.consumerGroup, group)
        add(DeadLetterHeaders.failedAt, Timestamp(Date()).text)
        add(DeadLetterHeaders.redriveCount, redriveCount)
        return KafkaProducerRecord(topic: topic.deadLetterTopic, key: record.key, value: record.value, headers: headers)
    }
}

extension Worker {
    /// For a failure on a halting topic: whether this process dead-lettered this very record already, and
    /// whether an operator's release of it was read and not yet applied.
    func haltFacts(_ record: KafkaRecord, failure: DecodeFailure, since: Timestamp) -> (deadLettered: Bool, releasePending: Bool) {
        let key = ReleaseKey(topic: record.topic, partition: record.partition, offset: record.offset)
        let halt = HaltInfo(offset: record.offset, failure: failure, since: since, timestampMilliseconds: record.timestampMilliseconds)
        return control.withLock { c in (c.deadLettered[key] != nil, c.pending[key]?.contains { $0.applies(to: halt) } ?? false) }
    }
}

// MARK: - Handlers

/// One handler call to make, then complete (or republish) its record.
struct HandlerItem: Sendable {
    /// Detached (``KafkaRecord/detached()``): a handler lane may keep it long after its batch.
    let record: KafkaRecord
    let type: String
    /// Nil for a record that only has something to send (a dead letter, a republish), queued here so that
    /// sends keep their order behind the handlers of earlier records.
    let handler: (@Sendable (RecordContext) async throws -> HandlerOutcome)?
    /// What to send once the handler succeeded (a republish, or a dead letter when there is no handler).
    let republish: Effects.Send?
    /// When the record was read: its processing time, handler and sends included, is measured from here.
    let readAt: ContinuousClock.Instant = .now
    /// Its batch's generation (``KafkaRecordBatch/generation``): a release of the partition since then drops
    /// it (it is read again after the release's seek).
    var generation: UInt64 = 0

    init(record: KafkaRecord, type: String, handler: (@Sendable (RecordContext) async throws -> HandlerOutcome)?, republish: Effects.Send?) {
        self.record = record.detached()
        self.type = type
        self.handler = handler
        self.republish = republish
    }
}

/// Runs handler calls one after another, in the order they were enqueued, in its own task; several of these
/// per partition run concurrently under key ordering.
///
/// A handler runs in the lane's task itself: no task, timer or thread hop of its own per call. At the shutdown
/// deadline for work in flight (``Worker/abandonWatch``) the lane's task is cancelled: a handler still running
/// is abandoned (logged; its record stays unstored, and nothing after it on the lane is started), and a handler
/// that ignores the cancellation only keeps the lane's task, not the shutdown, waiting.
///
/// - Important: When the partition is revoked (``PartitionProgress/close()``) the lane's task is cancelled too,
///   and the revocation waits for it to end: a handler that returns after that publishes nothing, its record
///   and those queued behind it are left to the partition's next owner.
final class HandlerLane: Sendable {
    private let continuation: AsyncStream<HandlerItem>.Continuation
    private let abandonWatch: DeadlineWatch
    private let watchToken: Int?
    /// Items enqueued and not yet finished: what a cancelled lane leaves in its stream is finished when it ends.
    private let queued = QueuedItems()
    private let effects: Effects

    init(progress: PartitionProgress, topic: TopicRuntime, effects: Effects) {
        self.effects = effects
        let (stream, continuation) = AsyncStream.makeStream(of: HandlerItem.self)
        self.continuation = continuation
        // The record whose handler is running, for the deadline's log line.
        let running = Mutex<RecordLocation?>(nil)
        let queued = self.queued
        // The lane's sends keep its order, also when one fails and is retried.
        let sends = SendSequence(effects: effects, progress: progress)
        let task = Task {
            defer {
                // Cancelled (revoked, or the shutdown deadline): the stream drops what it still holds.
                let left = queued.count.exchange(0, ordering: .relaxed)
                for _ in 0..<max(left, 0) { effects.finished() }
                progress.laneEnded()
            }
            for await item in stream {
                queued.count.subtract(1, ordering: .relaxed)
                // After an abandoned record or a stop, nothing more is started: the record stays pending (never
                // stored) and is read again by the partition's next owner. Behind a halt (a handler's, at an
                // earlier record), nothing runs: these records are read again after the release.
                guard !effects.isAbandoned, !effects.isPastAbandonTime,
                    progress.admitsHandler(offset: item.record.offset, batchStamp: item.generation)
                else {
                    effects.finished()
                    continue
                }
                guard let handler = item.handler else {
                    if let send = item.republish { sends.submit(send) }
                    effects.finished()
                    continue
                }
                running.withLock { $0 = item.record.recordLocation }
                let done = await effects.runHandler(handler, for: item, topic: topic, progress: progress, sends: sends)
                running.withLock { $0 = nil }
                // Given up at the shutdown deadline: the loop ends. Revoked: the partition's next owner has it.
                if !done && progress.isOpen { effects.abandon() }
                effects.finished()
            }
        }
        progress.laneStarted { task.cancel() }
        abandonWatch = effects.worker.abandonWatch
        let expire: @Sendable () -> Void = {
            if let location = running.withLock({ $0 }) {
                effects.logAbandoned("handler", location.position)
                effects.abandon()
            }
            task.cancel()
        }
        watchToken = abandonWatch.register(expire)
    }

    deinit {
        continuation.finish()
        if let watchToken { abandonWatch.unregister(watchToken) }
    }

    func enqueue(_ item: HandlerItem) {
        queued.count.add(1, ordering: .relaxed)
        if case .terminated = continuation.yield(item) {
            // The lane's task ended (revoked): the item is dropped like those it left behind.
            queued.count.subtract(1, ordering: .relaxed)
            effects.finished()
        }
    }
}

/// A handler lane's items enqueued and not yet taken, shared by the lane and its task.
final class QueuedItems: Sendable {
    let count = Atomic<Int>(0)
}

// MARK: - Effects

/// What the loop starts and finishes elsewhere: produces (dead letters, republishes) completed by delivery
/// reports on the producer's thread, with retries; handler calls; and what ends the loop (a permanent error,
/// an abandoned record).
final class Effects: Sendable {
    let worker: Worker
    let producer: KafkaProducer
    private let active = Atomic<Int>(0)
    private let abandoned = Atomic<Bool>(false)
    private let failure = Mutex<(any Error)?>(nil)
    /// `switchyard_processing_seconds`: a record whose outcome is on its way is observed when it is durable.
    let processing: SwitchyardHistogram

    init(worker: Worker, producer: KafkaProducer) {
        self.worker = worker
        self.producer = producer
        processing = worker.metrics.processing.labels()
    }

    /// A record read at `readAt` is durable now: counted as processed, its time observed.
    func durable(readAt: ContinuousClock.Instant) {
        worker.handled.add(1, ordering: .relaxed)
        processing.observe(readAt.duration(to: .now))
    }

    /// Records whose outcome is on its way: sends in flight, handler calls queued or running.
    var inFlight: Int { active.load(ordering: .relaxed) }
    var isAbandoned: Bool { abandoned.load(ordering: .relaxed) }

    /// The line for an outcome given up at shutdown (`what`: "handler", "dead letter", "republish").
    func logAbandoned(_ what: String, _ position: [String: String]) {
        worker.logger.warning("\(what) abandoned at shutdown; the record will be read again", position)
    }

    /// Whether the shutdown deadline for work in flight has passed: nothing more is started.
    var isPastAbandonTime: Bool {
        guard let abandonAt = worker.abandonWatch.deadline else { return false }
        return ContinuousClock.now >= abandonAt
    }

    func started() { active.add(1, ordering: .relaxed) }
    func finished() { active.subtract(1, ordering: .relaxed) }

    func abandon() {
        abandoned.store(true, ordering: .relaxed)
    }

    /// A permanent error: the worker stops (exit 70); what is not durable is not stored.
    func fail(_ error: any Error) {
        failure.withLock { if $0 == nil { $0 = error } }
        abandon()
        worker.stop()
    }

    func throwIfFailed() throws {
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// Waits until nothing is in flight, or `deadline`.
    func drain(until deadline: ContinuousClock.Instant) async {
        while inFlight > 0, ContinuousClock.now < deadline {
            do { try await Task.sleep(for: .milliseconds(5)) } catch { return }
        }
    }

    /// One record to produce for a consumed record.
    struct Send: Sendable {
        enum Kind: Sendable {
            case deadLetter(DecodeFailure, halts: Bool)
            /// A dead letter a handler asked for (or whose retries ran out): its kind is the handler's.
            case handlerDeadLetter(kind: String, failure: DecodeFailure, halts: Bool)
            case republish
            /// A record a handler published through its context.
            case publish
        }

        let record: KafkaProducerRecord
        /// The consumed record, whose offset is completed once this is acknowledged.
        let source: RecordLocation
        let kind: Kind
        let topic: TopicRuntime
        /// When one consumed record has several sends (a handler's publications, its republish): the offset is
        /// completed when the group's last one is acknowledged.
        var group: CompletionGroup? = nil

        /// When the consumed record was read (its batch began): its processing time ends when the send is acknowledged.
        var readAt: ContinuousClock.Instant = .now

        var offset: Int64 { source.offset }
        /// Where the configuration names the target topic.
        var configurationKey: String {
            switch kind {
            case .deadLetter, .handlerDeadLetter: "topics.\(topic.name).deadLetterTopic"
            case .republish: "topics.\(topic.name).republishTo"
            case .publish: "handler publication"
            }
        }
        /// Log metadata naming the consumed record: made only when a line is written (a dead letter's
        /// warning is rate-limited), not for every send.
        var position: [String: String] { source.position }
    }

    /// Hands `send` to the producer; `report` gets its delivery report (on the producer's thread). False, and
    /// nothing produced, once the partition is revoked (``PartitionProgress/beginProduce()``). Orders and
    /// retries are the caller's (``SendSequence``).
    func produce(
        _ send: Send, progress: PartitionProgress, _ report: @escaping @Sendable (Result<KafkaDeliveryReport, any Error>) -> Void
    ) -> Bool {
        guard progress.beginProduce() else { return false }
        do {
            try producer.send(send.record) { result in
                progress.endProduce()
                report(result.mapError { $0 as any Error })
            }
        } catch {
            progress.endProduce()
            report(.failure(error))
        }
        return true
    }

    /// A send was acknowledged: counted, and its record completed in `progress` (its offset may be stored).
    func acknowledged(_ send: Send, report: KafkaDeliveryReport, progress: PartitionProgress) {
        worker.targetWritten(progress.partition, target: send.record.topic)
        var halts = false
        switch send.kind {
        case .deadLetter(let failure, let halting):
            halts = halting
            worker.metrics.deadLetters.labels(send.topic.name, failure.kind.rawValue).increment()
            worker.logDeadLetter(failure, at: send.source)
        case .handlerDeadLetter(let kind, let failure, let halting):
            halts = halting
            worker.metrics.deadLetters.labels(send.topic.name, kind).increment()
            worker.logDeadLetter(failure, kind: kind, at: send.source)
        case .republish:
            send.topic.republished?.increment()
        case .publish:
            send.topic.published.increment()
        }
        if halts {
            let key = Worker.ReleaseKey(topic: progress.partition.topic, partition: progress.partition.partition, offset: send.offset)
            let coordinates = DeadLetterCoordinates(topic: report.topic, partition: report.partition, offset: report.offset)
            worker.control.withLock { $0.deadLettered[key] = coordinates }
        }
        // With several sends for one record (a handler's publications, its republish), the last one completes it.
        if send.group?.arrive() ?? true {
            progress.complete(send.offset)
            // A halting record's dead letter makes the halt durable, not the record handled.
            if !halts { durable(readAt: send.readAt) }
        }
        finished()
    }

    /// What becomes of a failed send.
    enum SendFailure {
        /// Retried after this long.
        case retry(Duration)
        /// Sent again at once as this instead (a dead letter too large to write, without its payload).
        case replace(Send)
        /// Never retried: a permanent error (the worker ends, exit 70), the partition was revoked, or the
        /// shutdown deadline for work in flight comes first. The record stays unstored.
        case givenUp
    }

    /// Counts and logs a failed send and decides whether it is retried (with backoff: 100 ms doubling up to 5 s).
    func failed(_ send: Send, error: any Error, attempt: Int, progress: PartitionProgress) -> SendFailure {
        let what: String
        switch send.kind {
        case .deadLetter, .handlerDeadLetter:
            what = "dead letter"
            send.topic.deadLetterErrors.increment()
        case .republish:
            what = "republish"
            send.topic.republishErrors.increment()
        case .publish:
            what = "publish"
            send.topic.republishErrors.increment()
        }
        if send.isDeadLetter, Self.isTooLarge(error), !send.omitsPayload, progress.isOpen {
            // A dead letter must always be writable: one oversized record must not stop the worker (and again
            // after every restart). Written without the value; the record stays in the source topic.
            let reason = "the dead letter with the record (\(send.record.value?.count ?? 0) bytes) is larger than the producer's "
                + "message.max.bytes or the dead-letter topic's max.message.bytes"
            worker.noteError("dead letter too large; writing it without the record's value", send.position.merging([
                "error": "\(error)", "payload.size": String(send.record.value?.count ?? 0),
            ]) { a, _ in a })
            return .replace(send.withoutPayload(because: reason))
        }
        if let permanent = Self.permanentFailure(send.record, error) {
            worker.noteError("\(what) failed permanently", send.position.merging(["error": "\(error)", "fix": permanent]) { a, _ in a })
            fail(WorkerError.fatal("\(what) of \(send.position["kafka.record"] ?? "") failed permanently: \(error). \(permanent)"))
            return .givenUp
        }
        let delay = min(Duration.milliseconds(100 * (1 << min(attempt, 6))), .seconds(5))
        let abandonAt = worker.abandonWatch.deadline
        if isAbandoned || !progress.isOpen || (abandonAt.map { ContinuousClock.now + delay > $0 } ?? false) {
            if progress.isOpen { logAbandoned(what, send.position) }
            return .givenUp
        }
        if Worker.isTargetUnavailable(error) {
            // The topic is missing or forbidden: the partition halts visibly (logged when it begins, then
            // rarely) and the send keeps being retried, so it goes on once someone creates the topic or grants
            // the ACL.
            worker.targetUnavailable(
                progress.partition, offset: send.offset, target: send.record.topic, configurationKey: send.configurationKey, error: error,
                position: send.position)
            return .retry(delay)
        }
        worker.noteError("\(what) failed; retrying", send.position.merging(["error": "\(error)"]) { a, _ in a })
        return .retry(delay)
    }

    /// librdkafka errors that no retry can fix, with what to fix instead; nil for the others.
    static func permanentFailure(_ record: KafkaProducerRecord, _ error: any Error) -> String? {
        guard let error = error as? KafkaError else { return nil }
        if error.isFatal {
            return "librdkafka raised a fatal error (the producer's idempotence state is lost, or the client is unusable); restart the worker"
        }
        switch error.rdKafkaName {
        case "MSG_SIZE_TOO_LARGE", "_MSG_SIZE_TOO_LARGE", "RECORD_LIST_TOO_LARGE":
            return "the record (\(record.value?.count ?? 0) bytes) with its headers is larger than the producer's message.max.bytes "
                + "or the target topic's max.message.bytes: raise message.max.bytes in the kafka map (and the topic's "
                + "max.message.bytes), or lower maxRecordBytes"
        case "INVALID_RECORD", "_INVALID_ARG":
            return "the broker refuses this record as invalid for the target topic (e.g. a compacted topic needs a key); fix the topic's configuration"
        default:
            return nil
        }
    }

    /// `metadata` with the failure's kind, path, message and type added (what `metadata` has already wins).
    static func failureMetadata(_ failure: DecodeFailure, adding metadata: [String: String]) -> [String: String] {
        var m = metadata
        m.reserveCapacity(metadata.count + 4)
        func add(_ key: String, _ value: String) { if m[key] == nil { m[key] = value } }
        add("error.kind", failure.kind.rawValue)
        add("error.path", failure.path)
        add("error.message", failure.message)
        if let type = failure.type { add("event.type", type) }
        return m
    }
}

extension KafkaRecord {
    /// What the record takes in memory while its outcome is on its way: its value and key.
    var pendingBytes: Int { (valueCount ?? 0) + withUnsafeKey { $0?.count ?? 0 } }

    var recordLocation: RecordLocation { RecordLocation(topic: topic, partition: partition, offset: offset) }

    /// The record named as everywhere else: `topic/partition@offset`.
    var location: String { recordLocation.description }

    /// Log metadata naming the record.
    var position: [String: String] { recordLocation.position }
}

extension RecordLocation {
    /// Log metadata naming the record: `kafka.topic`, `kafka.partition`, `kafka.offset`, `kafka.record`.
    var position: [String: String] {
        ["kafka.topic": topic, "kafka.partition": String(partition), "kafka.offset": String(offset), "kafka.record": description]
    }
}

/// The dead-letter header names (PRODUCT.md, "Dead-letter records").
public enum DeadLetterHeaders {
    public static let originalTopic = "switchyard.original.topic"
    public static let originalPartition = "switchyard.original.partition"
    public static let originalOffset = "switchyard.original.offset"
    public static let originalTimestamp = "switchyard.original.timestamp"
    public static let errorKind = "switchyard.error.kind"
    public static let errorPath = "switchyard.error.path"
    public static let errorType = "switchyard.error.type"
    public static let errorMessage = "switchyard.error.message"
    public static let consumerGroup = "switchyard.consumer.group"
    public static let failedAt = "switchyard.failed.at"
    public static let redriveCount = "switchyard.redrive.count"
    /// On a redriven record and its next dead letter: the dead letter it was redriven from (`payments.dlq/0@3`).
    public static let redriveOf = "switchyard.redrive.of"
    public static let republishedFrom = "switchyard.republished.from"
}
