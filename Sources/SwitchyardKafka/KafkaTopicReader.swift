import Foundation
import Synchronization

/// Reads a topic's partitions once, read-only: partitions are assigned directly (no group is joined, no member of
/// any group is disturbed, nothing is committed), each from a start position to an end fixed when the read
/// opens, so the read terminates; or, with ``End/never``, follows the topic until closed.
///
/// `switchyard replay --brokers` and `switchyard dlq` read with it.
///
/// - Important: one reader at a time: call ``next(maxRecords:timeout:)`` from one task, and ``close()`` once.
public final class KafkaTopicReader: Sendable {
    /// Where each partition's read starts.
    public enum Start: Sendable, Hashable {
        /// The first retained record (the low watermark).
        case beginning
        /// This offset (clamped to the retained range).
        case offset(Int64)
        /// The first record whose timestamp is at or after this time, in ms since the epoch
        /// (`rd_kafka_offsets_for_times`); a partition with no record that recent reads nothing.
        case timestamp(milliseconds: Int64)
    }

    /// Where each partition's read ends. Every end but ``never`` is at most the high watermark read when the
    /// reader opens: records written later are not read.
    public enum End: Sendable, Hashable {
        /// The high watermark when the reader opens.
        case highWatermark
        /// This offset, included.
        case offset(Int64)
        /// Before the first record whose timestamp is at or after this time, in ms since the epoch.
        case timestamp(milliseconds: Int64)
        /// No end: records written after the reader opened are read too, until ``close()``.
        case never
    }

    /// What to read.
    public struct Configuration: Sendable {
        /// Brokers, client id, passthrough properties (security).
        public var kafka: KafkaConfiguration
        /// The topic. Required.
        public var topic: String
        /// The partitions to read; `nil` reads every partition. Default: `nil`.
        public var partitions: [Int32]?
        /// Default: ``Start/beginning``.
        public var start: Start
        /// Default: ``End/highWatermark``.
        public var end: End
        /// How long the metadata, watermark and offsets-for-times requests may take. Default: 10 seconds.
        public var connectTimeout: Duration

        /// Makes a configuration; every argument but the Kafka settings and the topic has the documented default.
        public init(
            kafka: KafkaConfiguration, topic: String, partitions: [Int32]? = nil, start: Start = .beginning,
            end: End = .highWatermark, connectTimeout: Duration = .seconds(10)
        ) {
            self.kafka = kafka
            self.topic = topic
            self.partitions = partitions
            self.start = start
            self.end = end
            self.connectTimeout = connectTimeout
        }
    }

    /// One partition's part of the read.
    public struct PartitionRange: Sendable, Hashable {
        public var partition: KafkaTopicPartition
        /// The partition's watermarks when the reader opened.
        public var watermarks: KafkaWatermarks
        /// The first offset read.
        public var start: Int64
        /// The offset the read stops before; `nil` when following.
        public var end: Int64?

        /// How many offsets the range spans (`nil` when following); transaction markers and compacted records
        /// make the count of records smaller.
        public var count: Int64? { end.map { max(0, $0 - start) } }
    }

    /// What one ``next(maxRecords:timeout:)`` returned.
    public struct Batch: Sendable {
        /// The records, in order per partition.
        public var records: [KafkaRecord]
        /// Whether every partition reached its end: the read is complete (never with ``End/never``).
        public var isFinished: Bool
    }

    /// A partition still short of its end.
    struct Progress: Sendable {
        var start: Int64
        var end: Int64?
        /// Drop records older than this until the first that is not (a broker that cannot look offsets up by
        /// time, such as librdkafka's mock cluster, answers "none": the read then starts at the beginning).
        var startTime: Int64?
        /// The first record at or after this time ends the partition (same fallback, for `--until WHEN`).
        var stopTime: Int64?
    }

    private struct State {
        var open: [KafkaTopicPartition: Progress]
        var closed = false

        /// Whether `record` is part of the read; ends its partition when it is the last.
        mutating func admit(_ record: KafkaRecord) -> Bool {
            let tp = record.topicPartition
            guard var p = open[tp], record.offset >= p.start else { return false }
            if let end = p.end, record.offset >= end {
                open[tp] = nil
                return false
            }
            let time = record.timestampMilliseconds ?? Int64.max
            if let stop = p.stopTime, time >= stop {
                open[tp] = nil
                return false
            }
            if let end = p.end, record.offset + 1 >= end { open[tp] = nil } else {
                if let startTime = p.startTime {
                    if time < startTime { return false }
                    p.startTime = nil
                }
                open[tp] = p
                return true
            }
            if let startTime = p.startTime, time < startTime { return false }
            return true
        }
    }

    private let client: RDKafkaClient
    private let state: Mutex<State>
    /// The configuration the reader was opened with.
    public let configuration: Configuration
    /// Each partition's range, in partition order.
    public let ranges: [PartitionRange]

    private init(client: RDKafkaClient, configuration: Configuration, ranges: [(PartitionRange, Progress)]) {
        self.client = client
        self.configuration = configuration
        self.ranges = ranges.map(\.0)
        var open: [KafkaTopicPartition: Progress] = [:]
        for (range, progress) in ranges where range.count != 0 { open[range.partition] = progress }
        self.state = Mutex(State(open: open))
    }

    /// Opens the read: the topic's partitions (metadata), their watermarks and start positions, then the
    /// assignment.
    ///
    /// - Throws: ``KafkaError/Code/unavailable`` when the brokers cannot be reached (fast, with the cause: see
    ///   ``KafkaCluster/metadata(kafka:timeout:logger:)``); ``KafkaError/Code/unknownTopic`` when the topic does not
    ///   exist, ``KafkaError/Code/state`` when a named partition does not; ``KafkaError/Code/configuration`` for a rejected property.
    public static func open(_ configuration: Configuration, logger: any KafkaLogger = NoOpKafkaLogger()) async throws -> KafkaTopicReader {
        let metadata = try await KafkaCluster.metadata(kafka: configuration.kafka, timeout: configuration.connectTimeout, logger: logger)
        let topic = configuration.topic
        guard let entry = metadata.topics.first(where: { $0.name == topic }), entry.errorName == nil, entry.partitionCount > 0 else {
            throw KafkaError.unknownTopic(topic, on: configuration.kafka.bootstrapServers)
        }
        let all = (0..<Int32(entry.partitionCount)).map { KafkaTopicPartition(topic: topic, partition: $0) }
        if let wanted = configuration.partitions, let missing = wanted.first(where: { $0 < 0 || Int($0) >= entry.partitionCount }) {
            throw KafkaError.state(reason: "topic '\(topic)' has no partition \(missing) (it has \(entry.partitionCount): 0-\(entry.partitionCount - 1))")
        }
        let partitions = configuration.partitions.map { wanted in all.filter { wanted.contains($0.partition) } } ?? all
        // A consumer handle that only assigns: its private group id is never joined, and commits are off.
        var properties = KafkaConsumerConfiguration(
            groupID: "switchyard-reader-\(UUID().uuidString.prefix(8).lowercased())", topics: [], kafka: configuration.kafka,
            statisticsInterval: nil
        ).rdKafkaProperties
        properties.insert(contentsOf: [("enable.auto.commit", "false"), ("enable.partition.eof", "true")], at: 3)
        let client = try RDKafkaClient.make(
            kind: .consumer, properties: properties, callbacks: RDKafkaCallbacks(logger: logger, secrets: configuration.kafka.secretValues))
        let milliseconds = Int32(clamping: configuration.connectTimeout.milliseconds)
        let ranges = try await runBlocking { () throws -> [(PartitionRange, Progress)] in
            var marks: [KafkaTopicPartition: KafkaWatermarks] = [:]
            for partition in partitions {
                let (low, high) = try client.watermarks(partition, timeoutMilliseconds: milliseconds)
                marks[partition] = KafkaWatermarks(low: low, high: high)
            }
            func offsets(at time: Int64) throws -> [KafkaTopicPartition: Int64?] {
                try client.offsetsForTimes(partitions, timestampMilliseconds: time, timeoutMilliseconds: milliseconds)
            }
            let startTimes: [KafkaTopicPartition: Int64?] = if case .timestamp(let time) = configuration.start { try offsets(at: time) } else { [:] }
            let endTimes: [KafkaTopicPartition: Int64?] = if case .timestamp(let time) = configuration.end { try offsets(at: time) } else { [:] }
            // "No record that recent" from a partition that has records: is it so? Its last record says.
            var doubtful = Set<KafkaTopicPartition>()
            for partition in partitions where !marks[partition]!.isEmpty {
                if case .timestamp = configuration.start, Self.found(startTimes, partition) == nil { doubtful.insert(partition) }
                if case .timestamp = configuration.end, Self.found(endTimes, partition) == nil { doubtful.insert(partition) }
            }
            let last = try Self.lastTimestamps(of: doubtful, marks: marks, client: client, timeout: configuration.connectTimeout)
            var ranges: [(PartitionRange, Progress)] = []
            for partition in partitions {
                let mark = marks[partition]!
                var startTime: Int64?
                var stopTime: Int64?
                var start: Int64
                switch configuration.start {
                case .beginning: start = mark.low
                case .offset(let offset): start = min(max(offset, mark.low), mark.high)
                case .timestamp(let time):
                    if let found = Self.found(startTimes, partition) {
                        start = max(found, mark.low)
                    } else if let newest = last[partition], newest >= time {
                        (start, startTime) = (mark.low, time)
                    } else {
                        start = mark.high
                    }
                }
                var end: Int64?
                switch configuration.end {
                case .highWatermark: end = mark.high
                case .offset(let lastOffset): end = min(max(lastOffset + 1, start), mark.high)
                case .timestamp(let time):
                    if let found = Self.found(endTimes, partition) {
                        end = max(min(found, mark.high), start)
                    } else {
                        end = mark.high
                        if let newest = last[partition], newest >= time { stopTime = time }
                    }
                case .never: end = nil
                }
                ranges.append(
                    (PartitionRange(partition: partition, watermarks: mark, start: start, end: end),
                     Progress(start: start, end: end, startTime: startTime, stopTime: stopTime)))
            }
            let reading = ranges.filter { $0.0.count != 0 }.map(\.0)
            if !reading.isEmpty { try client.assign(reading.map { ($0.partition, $0.start) }) }
            return ranges
        }
        return KafkaTopicReader(client: client, configuration: configuration, ranges: ranges)
    }

    /// The timestamp of each partition's last record (fetched at `high - 1`); absent when it is not a record.
    private static func lastTimestamps(
        of partitions: Set<KafkaTopicPartition>, marks: [KafkaTopicPartition: KafkaWatermarks], client: RDKafkaClient,
        timeout: Duration
    ) throws -> [KafkaTopicPartition: Int64] {
        guard !partitions.isEmpty else { return [:] }
        try client.assign(partitions.map { ($0, marks[$0]!.high - 1) })
        var result: [KafkaTopicPartition: Int64] = [:]
        var ended = Set<KafkaTopicPartition>()
        let deadline = ContinuousClock.now + timeout
        while result.count + ended.count < partitions.count, ContinuousClock.now < deadline {
            switch client.readerPoll(timeoutMilliseconds: 100) {
            case .record(let record) where partitions.contains(record.topicPartition):
                if result[record.topicPartition] == nil { result[record.topicPartition] = record.timestampMilliseconds ?? Int64.max }
            case .endOfPartition(let partition, _):
                if result[partition] == nil { ended.insert(partition) }
            case .error(let error) where error.isFatal:
                throw error
            default:
                continue
            }
        }
        try client.assign([])
        return result
    }

    /// An offsets-for-times answer for one partition: `nil` when no record is that recent.
    private static func found(_ offsets: [KafkaTopicPartition: Int64?], _ partition: KafkaTopicPartition) -> Int64? {
        offsets[partition] ?? nil
    }

    /// Whether every partition reached its end (never with ``End/never``).
    public var isFinished: Bool { state.withLock { $0.open.isEmpty } }

    /// The next records: waits up to `timeout` for the first, then takes what is already fetched, up to
    /// `maxRecords`. An empty batch that is not finished means nothing arrived within `timeout` (an idle
    /// topic, or transaction markers at a partition's end).
    ///
    /// - Throws: a ``KafkaError`` with ``KafkaError/isFatal`` on a fatal error; other errors librdkafka
    ///   reports while reading (a broker that went away and comes back) are retried by librdkafka and not thrown.
    public func next(maxRecords: Int = 500, timeout: Duration) async throws -> Batch {
        if isFinished { return Batch(records: [], isFinished: true) }
        let client = self.client
        let deadline = ContinuousClock.now + timeout
        return try await runBlocking { [self] () throws -> Batch in
            var records: [KafkaRecord] = []
            while records.count < maxRecords, !state.withLock({ $0.open.isEmpty || $0.closed }) {
                // Until the first record, wait out what is left of the timeout (ends of partitions and errors
                // come in between); after it, take only what is already fetched.
                let wait = records.isEmpty ? Int32(clamping: (deadline - ContinuousClock.now).milliseconds) : 0
                guard let result = client.readerPoll(timeoutMilliseconds: wait) else {
                    if records.isEmpty && ContinuousClock.now < deadline { continue }
                    break
                }
                switch result {
                case .record(let record):
                    if state.withLock({ $0.admit(record) }) { records.append(record) }
                case .endOfPartition(let partition, let offset):
                    state.withLock { s in
                        if let end = s.open[partition]?.end, offset >= end { s.open[partition] = nil }
                    }
                case .error(let error):
                    if error.isFatal { throw error }
                }
            }
            return Batch(records: records, isFinished: state.withLock { $0.open.isEmpty })
        }
    }

    /// Ends the read and frees the client (off the cooperative pool). Nothing is committed.
    public func close() async {
        state.withLock { $0.closed = true }
        let client = self.client
        _ = await runBlocking { client.consumerClose() }
    }
}
