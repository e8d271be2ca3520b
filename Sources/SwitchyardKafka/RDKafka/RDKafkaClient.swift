import CRdKafka
import Foundation

/// What librdkafka's C callbacks call into. Retained by its ``RDKafkaClient`` for as long as the `rd_kafka_t` lives,
/// and handed to librdkafka as the configuration opaque.
final class RDKafkaCallbacks: Sendable {
    /// A rebalance, after librdkafka's assignment was updated (assign) or before it is (revoke).
    enum Rebalance: Sendable {
        case assigned([KafkaTopicPartition])
        case revoked([KafkaTopicPartition], lost: Bool)
        case failed(KafkaError)
    }

    let logger: any KafkaLogger
    /// Secret property values: scrubbed from log lines and error reasons, whatever librdkafka puts in them.
    let secrets: [String]
    let onRebalance: (@Sendable (Rebalance) -> Void)?
    let onStatistics: (@Sendable (RDKafkaStatistics) -> Void)?
    let onError: (@Sendable (KafkaError) -> Void)?

    init(
        logger: any KafkaLogger,
        secrets: [String] = [],
        onRebalance: (@Sendable (Rebalance) -> Void)? = nil,
        onStatistics: (@Sendable (RDKafkaStatistics) -> Void)? = nil,
        onError: (@Sendable (KafkaError) -> Void)? = nil
    ) {
        self.logger = logger
        self.secrets = secrets
        self.onRebalance = onRebalance
        self.onStatistics = onStatistics
        self.onError = onError
    }

    func scrub(_ text: String) -> String {
        var text = text
        for secret in secrets where text.contains(secret) {
            text = text.replacingOccurrences(of: secret, with: "<redacted>")
        }
        return text
    }

    static func from(_ opaque: UnsafeMutableRawPointer?) -> RDKafkaCallbacks? {
        opaque.map { Unmanaged<RDKafkaCallbacks>.fromOpaque($0).takeUnretainedValue() }
    }
}

/// The per-record opaque of a produced record: its delivery report completes it exactly once.
final class RDKafkaDeliveryBox: Sendable {
    let complete: @Sendable (Result<KafkaDeliveryReport, KafkaError>) -> Void

    init(_ complete: @escaping @Sendable (Result<KafkaDeliveryReport, KafkaError>) -> Void) {
        self.complete = complete
    }
}

/// One thing `rd_kafka_consumer_poll` returned.
enum RDKafkaPollResult: Sendable {
    case record(KafkaRecord)
    case error(KafkaError)
}

/// Owns an `rd_kafka_t` (consumer or producer) and every C call made on it.
///
/// `@unchecked Sendable`: librdkafka documents its client API as thread-safe; this wrapper holds nothing but the
/// immutable handle and the retained callbacks opaque, both released exactly once in `deinit`.
final class RDKafkaClient: @unchecked Sendable {
    enum Kind {
        case consumer
        case producer
    }

    /// Internal (not private) so the C calls of other `RDKafka/` files (the topic reader's) reach it.
    let handle: OpaquePointer
    private let callbacks: Unmanaged<RDKafkaCallbacks>
    let kind: Kind
    /// `bootstrap.servers`, for error messages.
    let bootstrapDescription: String
    /// A consumer's queue (`rd_kafka_queue_get_consumer`): every assigned partition's fetched records, where
    /// librdkafka counts them against `queued.min.messages`. `nil` for a producer.
    private let consumerQueue: OpaquePointer?

    private init(handle: OpaquePointer, callbacks: Unmanaged<RDKafkaCallbacks>, kind: Kind, bootstrap: String) {
        self.handle = handle
        self.callbacks = callbacks
        self.kind = kind
        self.bootstrapDescription = bootstrap
        self.consumerQueue = kind == .consumer ? rd_kafka_queue_get_consumer(handle) : nil
    }

    deinit {
        // The queue reference goes first: rd_kafka_destroy waits for every reference to the client's queues.
        if let consumerQueue { rd_kafka_queue_destroy(consumerQueue) }
        // The client before the callbacks: librdkafka may call back (logs, errors) until rd_kafka_destroy returns.
        rd_kafka_destroy(handle)
        callbacks.release()
    }

    /// Creates the client; a rejected property is a ``KafkaError/Code/configuration`` error naming the property
    /// (secret values redacted).
    static func make(kind: Kind, properties: [(String, String)], callbacks: RDKafkaCallbacks) throws -> RDKafkaClient {
        guard let conf = rd_kafka_conf_new() else {
            throw KafkaError.configuration(reason: "rd_kafka_conf_new failed")
        }
        do {
            for (name, value) in properties {
                try set(conf, name, value)
            }
        } catch {
            rd_kafka_conf_destroy(conf)
            throw error
        }
        let opaque = Unmanaged.passRetained(callbacks)
        rd_kafka_conf_set_opaque(conf, opaque.toOpaque())
        rd_kafka_conf_set_log_cb(conf, logCallback)
        rd_kafka_conf_set_error_cb(conf, errorCallback)
        if callbacks.onStatistics != nil {
            rd_kafka_conf_set_stats_cb(conf, statisticsCallback)
        }
        switch kind {
        case .consumer:
            rd_kafka_conf_set_rebalance_cb(conf, rebalanceCallback)
        case .producer:
            rd_kafka_conf_set_dr_msg_cb(conf, deliveryCallback)
        }

        var errstr = [CChar](repeating: 0, count: 512)
        let type = kind == .consumer ? RD_KAFKA_CONSUMER : RD_KAFKA_PRODUCER
        guard let handle = rd_kafka_new(type, conf, &errstr, errstr.count) else {
            // rd_kafka_new takes ownership of conf only on success.
            rd_kafka_conf_destroy(conf)
            opaque.release()
            let message = String(cBuffer: errstr)
            throw KafkaError.configuration(reason: redact(message, properties: properties))
        }
        if kind == .consumer {
            // Route every event (rebalances, errors, statistics) to rd_kafka_consumer_poll on the poll thread.
            rd_kafka_poll_set_consumer(handle)
        }
        let bootstrap = properties.last { $0.0 == "bootstrap.servers" }?.1 ?? ""
        return RDKafkaClient(handle: handle, callbacks: opaque, kind: kind, bootstrap: bootstrap)
    }

    private static func set(_ conf: OpaquePointer, _ name: String, _ value: String) throws {
        var errstr = [CChar](repeating: 0, count: 512)
        let result = rd_kafka_conf_set(conf, name, value, &errstr, errstr.count)
        guard result == RD_KAFKA_CONF_OK else {
            let message = String(cBuffer: errstr)
            throw KafkaError.configuration(reason: redact(message, properties: [(name, value)]))
        }
    }

    /// librdkafka quotes rejected values in its messages; secret values must not reach logs.
    private static func redact(_ message: String, properties: [(String, String)]) -> String {
        var message = message
        for (name, value) in properties where KafkaConfiguration.isSecret(name) && !value.isEmpty {
            message = message.replacingOccurrences(of: value, with: "<redacted>")
        }
        return message
    }

    /// The client's name (`rd_kafka_name`), e.g. `switchyard#consumer-1`.
    var name: String { String(cString: rd_kafka_name(handle)) }

    /// Raises a fatal error (`FENCED_INSTANCE_ID`) through librdkafka's test hook, reported like a real one.
    func raiseFatalErrorForTesting(reason: String) {
        _ = rd_kafka_test_fatal_error(handle, RD_KAFKA_RESP_ERR_FENCED_INSTANCE_ID, reason)
    }

    // MARK: - Metadata

    /// Fetches cluster metadata, blocking up to `timeoutMilliseconds`. Unreachable brokers are
    /// ``KafkaError/Code/unavailable``. Call it off the cooperative pool.
    func metadata(timeoutMilliseconds: Int32) throws -> KafkaClusterMetadata {
        var metadata: UnsafePointer<rd_kafka_metadata_t>?
        let err = rd_kafka_metadata(handle, 1, nil, &metadata, timeoutMilliseconds)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR, let metadata else {
            var error = KafkaError.rdKafka(err, code: .unavailable, context: "cluster metadata request failed")
            if err == RD_KAFKA_RESP_ERR__TIMED_OUT || err == RD_KAFKA_RESP_ERR__TRANSPORT {
                error = .unavailable(
                    reason: "no broker of \(bootstrapDescription) answered within \(timeoutMilliseconds) ms",
                    rdKafkaName: error.rdKafkaName,
                    rdKafkaCode: error.rdKafkaCode
                )
            }
            throw error
        }
        defer { rd_kafka_metadata_destroy(metadata) }
        let md = metadata.pointee
        var brokers: [KafkaClusterMetadata.Broker] = []
        for i in 0..<Int(md.broker_cnt) {
            let b = md.brokers[i]
            brokers.append(.init(id: b.id, host: String(cString: b.host), port: b.port))
        }
        var topics: [KafkaClusterMetadata.Topic] = []
        for i in 0..<Int(md.topic_cnt) {
            let t = md.topics[i]
            let errorName = t.err == RD_KAFKA_RESP_ERR_NO_ERROR ? nil : String(cString: rd_kafka_err2name(t.err))
            topics.append(.init(name: String(cString: t.topic), partitionCount: Int(t.partition_cnt), errorName: errorName))
        }
        return KafkaClusterMetadata(brokers: brokers, topics: topics)
    }

    /// The consumer groups the brokers know (ListGroups), or nil when the brokers do not support the request
    /// (librdkafka's mock cluster does not).
    func groupNames(timeoutMilliseconds: Int32) throws -> [String]? {
        var list: UnsafePointer<rd_kafka_group_list>?
        let err = rd_kafka_list_groups(handle, nil, &list, timeoutMilliseconds)
        if err == RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE { return nil }
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR, let list else {
            throw KafkaError.rdKafka(err, code: .unavailable, context: "listing the consumer groups failed")
        }
        defer { rd_kafka_group_list_destroy(list) }
        let groups = list.pointee
        return (0..<Int(groups.group_cnt)).map { String(cString: groups.groups[$0].group) }
    }


    // MARK: - Consumer

    /// Subscribes to the topics (the group assigns partitions on the next polls).
    func subscribe(topics: [String]) throws {
        let list = RDKafkaTopicPartitionList(topics.map { ($0, RD_KAFKA_PARTITION_UA, nil) })
        let err = list.withPointer { rd_kafka_subscribe(handle, $0) }
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError.rdKafka(err, code: .consumer, context: "subscribe failed")
        }
    }

    /// Takes up to `count` messages from the consumer queue (`rd_kafka_consume_batch_queue`) into `messages`
    /// slots from `start` on and returns how many; serves rebalance, error and statistics callbacks on the
    /// calling thread. Waits up to `timeoutMilliseconds` for the batch to fill (0: only what is queued now), or
    /// until ``wakeConsumer()``. Pass each taken slot to ``take(_:at:topicNames:keepingMessages:)``.
    ///
    /// Must run on the dedicated poll thread, and pause, resume and seek must run there too, between these
    /// calls: librdkafka 2.0 documents the batch call as unsafe beside those calls on other threads (a
    /// partition's messages taken into a batch before a pause could be dropped with its position already past
    /// them). In sequence they are safe: a pause or seek makes the partition's queued messages outdated at
    /// once, and the next call discards them before it takes any.
    func consumeBatch(timeoutMilliseconds: Int32, into messages: RDKafkaMessages, from start: Int, count: Int) -> Int {
        precondition(start >= 0 && start + count <= messages.capacity, "slots \(start)..<\(start + count) of \(messages.capacity)")
        guard let consumerQueue, count > 0 else { return 0 }
        return max(rd_kafka_consume_batch_queue(consumerQueue, timeoutMilliseconds, messages.slots + start, count), 0)
    }

    /// Wakes a ``consumeBatch(timeoutMilliseconds:into:from:count:)`` waiting on another thread: it returns at
    /// once with what it has (the next call does, if none is waiting).
    func wakeConsumer() {
        if let consumerQueue { rd_kafka_queue_yield(consumerQueue) }
    }

    /// The message in slot `index` of `messages` as a record or an error. With `keepingMessages` a record reads
    /// its bytes in the message (``RDKafkaMessage``), which `messages` keeps; otherwise, and for an error, the
    /// message is copied and destroyed at once.
    func take(_ messages: RDKafkaMessages, at index: Int, topicNames: inout RDKafkaTopicNames, keepingMessages: Bool) -> RDKafkaPollResult? {
        guard let message = messages.slots[index] else { return nil }
        if keepingMessages, message.pointee.err == RD_KAFKA_RESP_ERR_NO_ERROR {
            return .record(record(message, bytes: KafkaRecordBytes(RDKafkaMessage(messages, message)), topicNames: &topicNames))
        }
        defer { messages.destroy(at: index) }
        return pollResult(message, topicNames: &topicNames)
    }

    /// A polled message as a record (its bytes copied) or an error; the caller destroys the message.
    func pollResult(_ message: UnsafeMutablePointer<rd_kafka_message_t>, topicNames: inout RDKafkaTopicNames) -> RDKafkaPollResult {
        let m = message.pointee
        guard m.err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            var context = "consumer error"
            if let rkt = m.rkt {
                context += " on \(String(cString: rd_kafka_topic_name(rkt)))/\(m.partition)"
            }
            if let detail = rd_kafka_message_errstr(message) {
                context += ": \(String(cString: detail))"
            }
            if m.err == RD_KAFKA_RESP_ERR__FATAL {
                return .error(fatalError(context: context))
            }
            return .error(KafkaError.rdKafka(m.err, code: .consumer, context: context))
        }
        // One allocation for key, value and headers: the headers are walked twice, to size it, then to copy.
        var headerCount = 0
        var headerBytes = 0
        Self.forEachHeader(of: message) { name, value in
            headerBytes += 8 + name.count + (value?.count ?? 0)
            headerCount += 1
        }
        let bytes = KafkaRecordStorage.begin(
            key: m.key.map { UnsafeRawBufferPointer(start: $0, count: m.key_len) },
            value: m.payload.map { UnsafeRawBufferPointer(start: $0, count: m.len) },
            headerCount: headerCount, headerBytes: headerBytes)
        if headerCount > 0 {
            var cursor = bytes.header.headersStart
            Self.forEachHeader(of: message) { name, value in
                cursor = bytes.appendHeader(at: cursor, name: name, value: value)
            }
        }
        return .record(record(message, bytes: KafkaRecordBytes(bytes), topicNames: &topicNames))
    }

    /// A record of `bytes` at `message`'s topic, partition and offset, with its timestamp.
    private func record(
        _ message: UnsafeMutablePointer<rd_kafka_message_t>, bytes: KafkaRecordBytes, topicNames: inout RDKafkaTopicNames
    ) -> KafkaRecord {
        let m = message.pointee
        var timestampType = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
        let timestamp = rd_kafka_message_timestamp(message, &timestampType)
        return KafkaRecord(
            topic: m.rkt.map { topicNames.name(of: $0) } ?? "",
            partition: m.partition,
            offset: m.offset,
            bytes: bytes,
            timestampMilliseconds: timestampType == RD_KAFKA_TIMESTAMP_NOT_AVAILABLE ? nil : timestamp
        )
    }

    /// Stores offsets for the next commit (`enable.auto.offset.store=false`); each offset is the next to read.
    func storeOffsets(_ offsets: [(KafkaTopicPartition, Int64)]) throws {
        let list = RDKafkaTopicPartitionList(offsets.map { ($0.0.topic, $0.0.partition, $0.1) })
        try list.withPointer { pointer in
            let err = rd_kafka_offsets_store(handle, pointer)
            let partitionErrors = RDKafkaTopicPartitionList.errors(pointer)
            if let (tp, perr) = partitionErrors.first {
                throw KafkaError.rdKafka(perr, code: .state, context: "cannot store the offset of \(tp) (not assigned?)")
            }
            guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
                throw KafkaError.rdKafka(err, code: .consumer, context: "offset store failed")
            }
        }
    }

    /// Commits the stored offsets, blocking until the coordinator answers. Nothing stored is not an error.
    func commitStored() throws {
        let err = rd_kafka_commit(handle, nil, 0)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR || err == RD_KAFKA_RESP_ERR__NO_OFFSET else {
            throw KafkaError.rdKafka(err, code: .consumer, context: "commit failed")
        }
    }

    /// The committed offsets of these partitions (-1001 when none), blocking up to the timeout.
    func committed(_ partitions: [KafkaTopicPartition], timeoutMilliseconds: Int32) throws -> [KafkaTopicPartition: Int64] {
        let list = RDKafkaTopicPartitionList(partitions.map { ($0.topic, $0.partition, nil) })
        return try list.withPointer { pointer in
            let err = rd_kafka_committed(handle, pointer, timeoutMilliseconds)
            guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
                throw KafkaError.rdKafka(err, code: .consumer, context: "committed offsets request failed")
            }
            var result: [KafkaTopicPartition: Int64] = [:]
            for (tp, offset) in RDKafkaTopicPartitionList.offsets(pointer) { result[tp] = offset }
            return result
        }
    }

    func pause(_ partitions: [KafkaTopicPartition]) throws {
        let list = RDKafkaTopicPartitionList(partitions.map { ($0.topic, $0.partition, nil) })
        try list.withPointer { pointer in
            let err = rd_kafka_pause_partitions(handle, pointer)
            if let (tp, perr) = RDKafkaTopicPartitionList.errors(pointer).first {
                throw KafkaError.rdKafka(perr, code: .state, context: "cannot pause \(tp)")
            }
            guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
                throw KafkaError.rdKafka(err, code: .consumer, context: "pause failed")
            }
        }
    }

    func resume(_ partitions: [KafkaTopicPartition]) throws {
        let list = RDKafkaTopicPartitionList(partitions.map { ($0.topic, $0.partition, nil) })
        try list.withPointer { pointer in
            let err = rd_kafka_resume_partitions(handle, pointer)
            if let (tp, perr) = RDKafkaTopicPartitionList.errors(pointer).first {
                throw KafkaError.rdKafka(perr, code: .state, context: "cannot resume \(tp)")
            }
            guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
                throw KafkaError.rdKafka(err, code: .consumer, context: "resume failed")
            }
        }
    }

    /// Moves the fetch position of an assigned partition; asynchronous (errors surface on the poll thread).
    func seek(_ partition: KafkaTopicPartition, to offset: Int64) throws {
        let list = RDKafkaTopicPartitionList([(partition.topic, partition.partition, offset)])
        try list.withPointer { pointer in
            if let error = rd_kafka_seek_partitions(handle, pointer, 0) {
                throw KafkaError.rdKafka(consuming: error, code: .consumer, context: "cannot seek \(partition)")
            }
            // With timeout 0 the seek is asynchronous: _IN_PROGRESS is success. librdkafka bumps the partition's
            // op version right away, so records fetched before the seek are discarded by later polls.
            let failures = RDKafkaTopicPartitionList.errors(pointer).filter { $0.1 != RD_KAFKA_RESP_ERR__IN_PROGRESS }
            if let (tp, perr) = failures.first {
                throw KafkaError.rdKafka(perr, code: .state, context: "cannot seek \(tp)")
            }
        }
    }

    /// The current assignment as librdkafka sees it.
    func assignment() throws -> [KafkaTopicPartition] {
        var pointer: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        let err = rd_kafka_assignment(handle, &pointer)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR, let pointer else {
            throw KafkaError.rdKafka(err, code: .consumer, context: "assignment query failed")
        }
        defer { rd_kafka_topic_partition_list_destroy(pointer) }
        return RDKafkaTopicPartitionList.offsets(pointer).map(\.0)
    }

    /// Leaves the group: revokes the assignment (the rebalance callback commits), commits, closes.
    /// Blocks; call it on the poll thread.
    func consumerClose() -> KafkaError? {
        let err = rd_kafka_consumer_close(handle)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            return KafkaError.rdKafka(err, code: .consumer, context: "consumer close failed")
        }
        return nil
    }

    /// The low and high watermarks (first retained offset, next offset to be written) of a partition, asked of
    /// its leader; blocks up to `timeoutMilliseconds`.
    func watermarks(_ partition: KafkaTopicPartition, timeoutMilliseconds: Int32) throws -> (low: Int64, high: Int64) {
        var low: Int64 = -1
        var high: Int64 = -1
        let err = rd_kafka_query_watermark_offsets(handle, partition.topic, partition.partition, &low, &high, timeoutMilliseconds)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            let code: KafkaError.Code = err == RD_KAFKA_RESP_ERR__TIMED_OUT || err == RD_KAFKA_RESP_ERR__TRANSPORT ? .unavailable : .consumer
            throw KafkaError.rdKafka(err, code: code, context: "watermark query for \(partition) failed")
        }
        return (low, high)
    }

    /// How many records (and events) wait in the consumer queue for the poll thread: the count librdkafka
    /// compares with `queued.min.messages` before each fetch. 0 for a producer.
    var consumerQueueLength: Int {
        consumerQueue.map { Int(rd_kafka_queue_length($0)) } ?? 0
    }

    /// Wakes the broker threads that lead `partitions`, so that they decide again whether to fetch: one
    /// ListOffsets request (the latest offset) to each leader, answers awaited up to `timeoutMilliseconds`.
    ///
    /// librdkafka 2.0 stops fetching a partition whenever the consumer queue holds `queued.min.messages` records or
    /// `queued.max.messages.kbytes`, and decides again only when its broker thread next wakes: on a response, a
    /// request to send, or after a second. Draining the queue wakes nothing, so a consumer catching up on a
    /// backlog waits up to a second each time the queue filled (2.1 made the second `fetch.queue.backoff.ms`).
    func wakeFetchers(_ partitions: [KafkaTopicPartition], timeoutMilliseconds: Int32) throws {
        guard !partitions.isEmpty else { return }
        // For rd_kafka_offsets_for_times the offset field holds a timestamp: -1 asks for the latest offset.
        let list = RDKafkaTopicPartitionList(partitions.map { ($0.topic, $0.partition, -1) })
        try list.withPointer { pointer in
            let err = rd_kafka_offsets_for_times(handle, pointer, timeoutMilliseconds)
            guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
                throw KafkaError.rdKafka(err, code: .consumer, context: "waking the fetchers of \(partitions.count) partitions failed")
            }
        }
    }

    // MARK: - Producer

    /// Enqueues a record; its delivery report completes `box` (retained here, released by the callback).
    /// A failure to enqueue throws and does not complete the box.
    func produce(_ record: KafkaProducerRecord, box: RDKafkaDeliveryBox) throws {
        guard let headers = rd_kafka_headers_new(record.headers.count) else {
            throw KafkaError.state(reason: "rd_kafka_headers_new failed")
        }
        for header in record.headers {
            // The name's UTF-8 bytes with their length: no C string made per header.
            var name = header.name
            name.withUTF8 { name in
                name.withMemoryRebound(to: CChar.self) { name in
                    if let value = header.value {
                        _ = value.withUnsafeBytes { rd_kafka_header_add(headers, name.baseAddress, name.count, $0.baseAddress, $0.count) }
                    } else {
                        _ = rd_kafka_header_add(headers, name.baseAddress, name.count, nil, 0)
                    }
                }
            }
        }
        let opaque = Unmanaged.passRetained(box)
        let error: OpaquePointer? = record.topic.withCString { topic in
            withOptionalBytes(record.key) { key in
                withOptionalBytes(record.value) { value in
                    // At most eight arguments, on the stack.
                    withUnsafeTemporaryAllocation(of: rd_kafka_vu_t.self, capacity: 8) { vus in
                        var count = 0
                        func append(_ fill: (inout rd_kafka_vu_t) -> Void) {
                            var vu = rd_kafka_vu_t()
                            fill(&vu)
                            vus.initializeElement(at: count, to: vu)
                            count += 1
                        }
                        append { $0.vtype = RD_KAFKA_VTYPE_TOPIC; $0.u.cstr = topic }
                        append { $0.vtype = RD_KAFKA_VTYPE_PARTITION; $0.u.i32 = record.partition ?? RD_KAFKA_PARTITION_UA }
                        append { $0.vtype = RD_KAFKA_VTYPE_MSGFLAGS; $0.u.i = RD_KAFKA_MSG_F_COPY }
                        if let key {
                            append {
                                $0.vtype = RD_KAFKA_VTYPE_KEY
                                $0.u.mem.ptr = UnsafeMutableRawPointer(mutating: key.baseAddress ?? UnsafeRawPointer(emptyBytes))
                                $0.u.mem.size = key.count
                            }
                        }
                        append {
                            $0.vtype = RD_KAFKA_VTYPE_VALUE
                            if let value {
                                $0.u.mem.ptr = UnsafeMutableRawPointer(mutating: value.baseAddress ?? UnsafeRawPointer(emptyBytes))
                                $0.u.mem.size = value.count
                            } else {
                                // A null payload is a tombstone.
                                $0.u.mem.ptr = nil
                                $0.u.mem.size = 0
                            }
                        }
                        append { $0.vtype = RD_KAFKA_VTYPE_HEADERS; $0.u.headers = headers }
                        if let timestamp = record.timestampMilliseconds {
                            append { $0.vtype = RD_KAFKA_VTYPE_TIMESTAMP; $0.u.i64 = timestamp }
                        }
                        append { $0.vtype = RD_KAFKA_VTYPE_OPAQUE; $0.u.ptr = opaque.toOpaque() }
                        defer { vus.baseAddress!.deinitialize(count: count) }
                        return rd_kafka_produceva(handle, vus.baseAddress, count)
                    }
                }
            }
        }
        if let error {
            // On failure the headers and the opaque stay ours.
            rd_kafka_headers_destroy(headers)
            opaque.release()
            throw KafkaError.rdKafka(
                consuming: error,
                code: .delivery,
                context: "cannot enqueue a record for \(record.topic)"
            )
        }
    }

    /// Serves delivery reports and other callbacks, blocking up to `timeoutMilliseconds`.
    func poll(timeoutMilliseconds: Int32) {
        _ = rd_kafka_poll(handle, timeoutMilliseconds)
    }

    /// Waits until every enqueued record was acknowledged or failed; false on timeout.
    func flush(timeoutMilliseconds: Int32) -> Bool {
        rd_kafka_flush(handle, timeoutMilliseconds) == RD_KAFKA_RESP_ERR_NO_ERROR
    }

    /// Fails every queued and in-flight record (their delivery reports say purged).
    func purge() {
        _ = rd_kafka_purge(handle, Int32(RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT))
    }

    /// How many records and requests wait for delivery reports.
    var outstanding: Int { Int(rd_kafka_outq_len(handle)) }

    // MARK: - Fatal errors

    fileprivate func fatalError(context: String) -> KafkaError {
        Self.fatalError(handle, context: context)
    }

    fileprivate static func fatalError(_ handle: OpaquePointer, context: String) -> KafkaError {
        var errstr = [CChar](repeating: 0, count: 512)
        let err = rd_kafka_fatal_error(handle, &errstr, errstr.count)
        let message = String(cBuffer: errstr)
        return KafkaError(
            code: .fatal,
            reason: "\(context): \(message)",
            rdKafkaName: String(cString: rd_kafka_err2name(err)),
            rdKafkaCode: err.rawValue,
            isFatal: true,
            isRetriable: false,
            file: #fileID,
            line: #line
        )
    }
}

private nonisolated(unsafe) let emptyBytes = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)

private func withOptionalBytes<R>(_ bytes: [UInt8]?, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
    guard let bytes else { return body(nil) }
    return bytes.withUnsafeBytes { body($0) }
}

// MARK: - C callbacks

private let logCallback: @convention(c) (OpaquePointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Void = {
    rk, level, facility, message in
    guard let rk, let callbacks = RDKafkaCallbacks.from(rd_kafka_opaque(rk)) else { return }
    callbacks.logger.log(
        level: KafkaLogLevel(syslog: level),
        message: callbacks.scrub(message.map { String(cString: $0) } ?? ""),
        metadata: [
            "kafka.client": String(cString: rd_kafka_name(rk)),
            "kafka.facility": facility.map { String(cString: $0) } ?? "",
        ]
    )
}

private let errorCallback: @convention(c) (OpaquePointer?, Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void = {
    rk, err, reason, opaque in
    guard let rk, let callbacks = RDKafkaCallbacks.from(opaque) else { return }
    let code = rd_kafka_resp_err_t(rawValue: err)
    let context = callbacks.scrub(reason.map { String(cString: $0) } ?? "client error")
    let error: KafkaError =
        code == RD_KAFKA_RESP_ERR__FATAL
        ? RDKafkaClient.fatalError(rk, context: context)
        : .rdKafka(code, code: code == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN ? .unavailable : .underlying, context: context)
    callbacks.onError?(error)
}

private let statisticsCallback: @convention(c) (OpaquePointer?, UnsafeMutablePointer<CChar>?, Int, UnsafeMutableRawPointer?) -> Int32 = {
    _, json, length, opaque in
    guard let json, let callbacks = RDKafkaCallbacks.from(opaque) else { return 0 }
    let data = Data(bytes: json, count: length)
    do {
        let statistics = try RDKafkaStatistics(json: data)
        callbacks.onStatistics?(statistics)
    } catch {
        callbacks.logger.log(
            level: .warning, message: "librdkafka statistics unreadable; consumer lag not updated",
            metadata: ["error.message": "\(error)", "kafka.statistics.bytes": String(length)])
    }
    // 0: librdkafka frees the JSON buffer.
    return 0
}

private let rebalanceCallback: @convention(c) (
    OpaquePointer?, rd_kafka_resp_err_t, UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?, UnsafeMutableRawPointer?
) -> Void = { rk, err, partitions, opaque in
    guard let rk, let callbacks = RDKafkaCallbacks.from(opaque) else { return }
    let list = partitions.map { RDKafkaTopicPartitionList.offsets($0).map(\.0) } ?? []
    // The cooperative-sticky assignor hands out increments; the eager ones (range, roundrobin) the whole assignment.
    let cooperative = rd_kafka_rebalance_protocol(rk).map { String(cString: $0) } == "COOPERATIVE"
    switch err {
    case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
        var failure: KafkaError?
        if cooperative {
            if let error = rd_kafka_incremental_assign(rk, partitions) {
                failure = .rdKafka(consuming: error, code: .consumer, context: "incremental assign failed")
            }
        } else {
            let e = rd_kafka_assign(rk, partitions)
            if e != RD_KAFKA_RESP_ERR_NO_ERROR { failure = .rdKafka(e, code: .consumer, context: "assign failed") }
        }
        if let failure {
            callbacks.onRebalance?(.failed(failure))
        } else {
            // librdkafka keeps a partition's pause flag across revoke and assign: a partition paused by the
            // application (a halt) or for backpressure would come back paused, and no record would ever arrive.
            // A newly assigned partition starts resumed, from its committed offset; the application pauses it
            // again if it needs to.
            if let partitions { _ = rd_kafka_resume_partitions(rk, partitions) }
            callbacks.onRebalance?(.assigned(list))
        }
    case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
        let lost = rd_kafka_assignment_lost(rk) != 0
        // Tell the consumer first, so it drops buffered records of these partitions; then commit what was
        // stored (a lost assignment may already belong to another member: committing would fail or clobber).
        callbacks.onRebalance?(.revoked(list, lost: lost))
        if !lost {
            let e = rd_kafka_commit(rk, nil, 0)
            if e != RD_KAFKA_RESP_ERR_NO_ERROR && e != RD_KAFKA_RESP_ERR__NO_OFFSET {
                callbacks.onError?(.rdKafka(e, code: .consumer, context: "commit on revocation failed"))
            }
        }
        if cooperative {
            if let error = rd_kafka_incremental_unassign(rk, partitions) {
                callbacks.onError?(.rdKafka(consuming: error, code: .consumer, context: "incremental unassign failed"))
            }
        } else {
            _ = rd_kafka_assign(rk, nil)
        }
    default:
        // librdkafka's contract: on a rebalance error, drop the assignment.
        _ = rd_kafka_assign(rk, nil)
        callbacks.onRebalance?(.failed(.rdKafka(err, code: .consumer, context: "rebalance failed")))
    }
}

private let deliveryCallback: @convention(c) (OpaquePointer?, UnsafePointer<rd_kafka_message_t>?, UnsafeMutableRawPointer?) -> Void = {
    rk, message, _ in
    guard let message, let opaque = message.pointee._private else { return }
    let box = Unmanaged<RDKafkaDeliveryBox>.fromOpaque(opaque).takeRetainedValue()
    let m = message.pointee
    let topic = m.rkt.map { String(cString: rd_kafka_topic_name($0)) } ?? ""
    if m.err == RD_KAFKA_RESP_ERR_NO_ERROR {
        box.complete(.success(KafkaDeliveryReport(topic: topic, partition: m.partition, offset: m.offset)))
    } else if m.err == RD_KAFKA_RESP_ERR__FATAL, let rk {
        box.complete(.failure(RDKafkaClient.fatalError(rk, context: "delivery to \(topic) failed")))
    } else {
        box.complete(.failure(.rdKafka(m.err, code: .delivery, context: "delivery to \(topic)/\(m.partition) failed")))
    }
}

extension String {
    /// The NUL-terminated text in a C character buffer.
    init(cBuffer: [CChar]) {
        self = String(decoding: cBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// The topic name of polled messages, kept by one poll loop: the previous name again while the topic does not
/// change (compared by bytes, not by pointer: a freed topic's address can be reused), so consecutive records
/// share one String and none is made per record.
struct RDKafkaTopicNames {
    private var name = ""
    private var bytes: [UInt8] = []

    mutating func name(of rkt: OpaquePointer) -> String {
        guard let cName = rd_kafka_topic_name(rkt) else { return "" }
        let length = strlen(cName)
        if bytes.count == length, bytes.withUnsafeBytes({ length == 0 || memcmp($0.baseAddress!, cName, length) == 0 }) {
            return name
        }
        name = String(cString: cName)
        bytes = Array(UnsafeRawBufferPointer(start: cName, count: length))
        return name
    }
}
