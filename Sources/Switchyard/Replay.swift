/// Where replayed records come from and how they are judged.
public struct ReplayOptions: Sendable {
    /// The catalog and policy for every record; nil to take each record's topic from the dump.
    public var topic: (name: String, catalog: CatalogName, policy: TopicPolicy)?
    /// Topic name → catalog and policy, for dumps that name their topics (from a worker config).
    public var topics: [String: (catalog: CatalogName, policy: TopicPolicy)] = [:]
    /// Check the encoding rules on every decoded record.
    public var roundTrip = false
    /// Largest record value decoded; a larger one is `dataCorrupted` "record larger than N bytes", as
    /// in the worker (its config's `maxRecordBytes`). Default: the reader's 64 MiB.
    public var maxRecordBytes = JSONReader.Options().maxBytes

    public init(topic: (name: String, catalog: CatalogName, policy: TopicPolicy)? = nil) {
        self.topic = topic
    }
}

/// The result of replaying one record.
public struct ReplayedRecord {
    public var record: DumpRecord
    public var topic: String
    public var decoded: DecodedRecord
    /// With ``ReplayOptions/roundTrip``: what a decoded record's round trip lost, if anything.
    public var roundTripProblem: String?
}

/// Counts for the replay summary (PRODUCT.md, "CLI").
public struct ReplaySummary: Sendable {
    public var records = 0
    public var decoded = 0
    public var unknown = 0
    public var failed = 0
    public var tombstones = 0
    public var unknownFields = 0
    public var lossy = 0
    /// Whether a strict topic had a failure.
    public var strictFailures = 0
    public var byType: [String: Int] = [:]
    public var unknownTypes: [String: Int] = [:]
    public var failures: [FailureGroup: FailureCount] = [:]

    /// Failures with the same kind, path and type.
    public struct FailureGroup: Hashable, Sendable {
        public var kind: FailureKind
        public var path: String
        public var type: String?
    }

    /// How many, and where the first one was.
    public struct FailureCount: Sendable {
        public var count: Int
        public var firstIndex: Int
        public var firstLocation: String
        public var message: String
    }

    public init() {}

    /// Adds one replayed record.
    public mutating func add(_ replayed: ReplayedRecord, policy: TopicPolicy) {
        records += 1
        unknownFields += replayed.decoded.unknownFields
        if replayed.roundTripProblem != nil { lossy += 1 }
        switch replayed.decoded.outcome {
        case .decoded(let type):
            decoded += 1
            byType[type, default: 0] += 1
        case .unknown(let type):
            unknown += 1
            unknownTypes[type, default: 0] += 1
        case .tombstone:
            tombstones += 1
        case .failed(let failure):
            failed += 1
            if policy == .strict { strictFailures += 1 }
            let group = FailureGroup(kind: failure.kind, path: failure.path, type: failure.type)
            if failures[group] == nil {
                failures[group] = FailureCount(
                    count: 0, firstIndex: replayed.record.index, firstLocation: Self.location(replayed), message: failure.message)
            }
            failures[group]!.count += 1
        }
    }

    /// Where a record is: `payments/0@42` when the dump says, else `record 7 (line 8)`.
    public static func location(_ replayed: ReplayedRecord) -> String {
        let r = replayed.record
        if let partition = r.partition, let offset = r.offset { return "\(replayed.topic)/\(partition)@\(offset)" }
        return "record \(r.index) (line \(r.line))"
    }

    /// Failure groups, most frequent first, then by kind, path and type.
    public var sortedFailures: [(group: FailureGroup, count: FailureCount)] {
        failures.map { ($0.key, $0.value) }.sorted {
            if $0.count.count != $1.count.count { return $0.count.count > $1.count.count }
            if $0.group.kind != $1.group.kind { return $0.group.kind < $1.group.kind }
            if $0.group.path != $1.group.path { return $0.group.path < $1.group.path }
            return ($0.group.type ?? "") < ($1.group.type ?? "")
        }
    }

    /// The `--json` summary object.
    public func json() -> JSONObject {
        var o = JSONObject()
        o.set("records", records)
        o.set("decoded", decoded)
        o.set("unknown", unknown)
        o.set("failed", failed)
        o.set("tombstones", tombstones)
        o.set("unknownFields", unknownFields)
        o.set("byType", Self.sortedObject(byType))
        o.set("unknownTypes", Self.sortedObject(unknownTypes))
        o.set("failures", sortedFailures.map { entry -> JSONObject in
            var f = JSONObject()
            f.set("kind", entry.group.kind.rawValue)
            f.set("path", entry.group.path)
            f.set("type", entry.group.type)
            f.set("count", entry.count.count)
            f.set("firstIndex", entry.count.firstIndex)
            f.set("message", entry.count.message)
            return f
        })
        o.set("lossy", lossy)
        return o
    }

    static func sortedObject(_ counts: [String: Int]) -> JSONObject {
        var o = JSONObject()
        for (key, value) in counts.sorted(by: { $0.key < $1.key }) { o.set(key, value) }
        return o
    }
}

/// Replays dump records through the codecs, one at a time.
public struct Replayer {
    public let options: ReplayOptions
    private var codecs: [String: TopicCodec] = [:]

    public init(options: ReplayOptions) {
        self.options = options
    }

    /// Why a record has no catalog (exit 64/65 at the CLI).
    public struct NoCatalog: Error, CustomStringConvertible {
        public var topic: String?
        public var description: String {
            if let topic { return "topic '\(topic)' has no catalog: pass --topic payments|feeds or --config" }
            return "the dump does not name topics: pass --topic payments|feeds"
        }
    }

    /// The policy applied to records of `topic`.
    public func policy(for topic: String) -> TopicPolicy {
        codecs[topic]?.policy ?? options.topic?.policy ?? .lenient
    }

    /// Decodes one record.
    public mutating func replay(_ record: DumpRecord) throws(NoCatalog) -> ReplayedRecord {
        let topic: String
        let catalog: CatalogName
        let policy: TopicPolicy
        if let forced = options.topic {
            (topic, catalog, policy) = (forced.name, forced.catalog, forced.policy)
        } else if let name = record.topic, let entry = options.topics[name] ?? CatalogName(rawValue: name).map({ ($0, $0.defaultPolicy) }) {
            (topic, catalog, policy) = (name, entry.catalog, entry.policy)
        } else {
            throw NoCatalog(topic: record.topic)
        }
        if codecs[topic] == nil {
            codecs[topic] = TopicCodec(
                catalog: catalog, policy: policy,
                readerOptions: JSONReader.Options(maxBytes: options.maxRecordBytes, rejectDuplicateKeys: true))
        }
        // Mutate in place: a copy would make the codec's reusable buffers copy on write.
        let decoded = codecs[topic]!.decode(record.value)
        var problem: String?
        if options.roundTrip, case .decoded = decoded.outcome, let event = decoded.event, let value = record.value {
            problem = codecs[topic]!.roundTripProblem(input: value, event: event)
        }
        return ReplayedRecord(record: record, topic: topic, decoded: decoded, roundTripProblem: problem)
    }
}
