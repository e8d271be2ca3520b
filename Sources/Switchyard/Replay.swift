/// Where replayed records come from and how they are judged.
package struct ReplayOptions: Sendable {
    /// The catalog and policy for every record; nil to take each record's topic from the dump.
    package var topic: (name: String, catalog: Catalog, policy: TopicPolicy)?
    /// Topic name → catalog and policy, for dumps that name their topics (from a worker config).
    package var topics: [String: (catalog: Catalog, policy: TopicPolicy)] = [:]
    /// The catalogs of this binary: a dump's topic that names one (and no entry of ``topics``) uses it.
    package var catalogs = CatalogRegistry([Catalog]())
    /// Check the encoding rules on every decoded record.
    package var roundTrip = false
    /// Largest record value decoded; a larger one is `dataCorrupted` "record larger than N bytes", as
    /// in the worker (its config's `maxRecordBytes`). Default: the reader's 64 MiB.
    package var maxRecordBytes = JSONReader.Options().maxBytes

    package init(topic: (name: String, catalog: Catalog, policy: TopicPolicy)? = nil) {
        self.topic = topic
    }
}

/// The result of replaying one record.
package struct ReplayedRecord {
    package var record: DumpRecord
    package var topic: String
    package var decoded: DecodedRecord
    /// With ``ReplayOptions/roundTrip``: what a decoded record's round trip lost, if anything.
    package var roundTripProblem: String?
    /// The policy the record was judged under.
    package var policy: TopicPolicy = .lenient
}

/// Counts for the replay summary (PRODUCT.md, "CLI").
package struct ReplaySummary: Sendable {
    package var records = 0
    package var decoded = 0
    package var unknown = 0
    package var failed = 0
    package var tombstones = 0
    package var unknownFields = 0
    package var lossy = 0
    /// Whether a strict topic had a failure.
    package var strictFailures = 0
    /// Decoded records per event type.
    package var byType: [String: Int] { decodedTypes.dictionary }
    /// Unknown records per tag.
    package var unknownTypes: [String: Int] { unknownTags.dictionary }
    private var decodedTypes = NameCounts()
    private var unknownTags = NameCounts()
    package var failures: [FailureGroup: FailureCount] = [:]

    /// Failures with the same kind, path and type.
    package struct FailureGroup: Hashable, Sendable {
        package var kind: FailureKind
        package var path: String
        package var type: String?
    }

    /// How many, and where the first one was.
    package struct FailureCount: Sendable {
        package var count: Int
        package var firstIndex: Int
        package var firstLocation: String
        /// The file of the first one (when the input was several files) and its line (when it was read from a dump).
        package var firstFile: String?
        package var firstLine: Int?
        package var message: String
    }

    package init() {}

    /// Adds one replayed record; `file` names the file it was read from, when the input is several files.
    package mutating func add(_ replayed: ReplayedRecord, file: String? = nil) {
        let policy = replayed.policy
        records += 1
        unknownFields += replayed.decoded.unknownFields
        if replayed.roundTripProblem != nil { lossy += 1 }
        switch replayed.decoded.outcome {
        case .decoded(let type):
            decoded += 1
            decodedTypes.add(type)
        case .unknown(let type):
            unknown += 1
            unknownTags.add(type)
        case .tombstone:
            tombstones += 1
        case .failed(let failure):
            failed += 1
            if policy == .strict { strictFailures += 1 }
            let group = FailureGroup(kind: failure.kind, path: failure.path, type: failure.type)
            if failures[group] == nil {
                failures[group] = FailureCount(
                    count: 0, firstIndex: replayed.record.index, firstLocation: Self.location(replayed), firstFile: file,
                    firstLine: replayed.record.line > 0 ? replayed.record.line : nil, message: failure.message)
            }
            failures[group]!.count += 1
        }
    }

    /// Where a record is: `payments/0@42` when the dump says, else `record 7 (line 8)`.
    package static func location(_ replayed: ReplayedRecord) -> String {
        let r = replayed.record
        if let partition = r.partition, let offset = r.offset {
            // The record's own topic (a kcat envelope's), not the one --topic decoded it as.
            return RecordLocation(topic: r.topic ?? replayed.topic, partition: partition, offset: offset).description
        }
        return "record \(r.index) (line \(r.line))"
    }

    /// Failure groups, most frequent first, then by kind, path and type.
    package var sortedFailures: [(group: FailureGroup, count: FailureCount)] {
        failures.map { ($0.key, $0.value) }.sorted {
            if $0.count.count != $1.count.count { return $0.count.count > $1.count.count }
            if $0.group.kind != $1.group.kind { return $0.group.kind < $1.group.kind }
            if $0.group.path != $1.group.path { return $0.group.path < $1.group.path }
            return ($0.group.type ?? "") < ($1.group.type ?? "")
        }
    }

    /// The `--json` summary object.
    package func json() -> JSONObject {
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
            f.set("firstLocation", entry.count.firstLocation)
            f.setIfPresent("firstFile", entry.count.firstFile)
            f.setIfPresent("firstLine", entry.count.firstLine)
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

/// Counts per name. The first names go in a short array: a topic's records have few types, and comparing
/// two short strings costs less than hashing one per record. Names beyond those go in a dictionary.
struct NameCounts: Sendable {
    private var few: [(name: String, count: Int)] = []
    private var more: [String: Int] = [:]

    mutating func add(_ name: String) {
        for k in few.indices where few[k].name == name {
            few[k].count += 1
            return
        }
        if few.count < 16 { few.append((name, 1)) } else { more[name, default: 0] += 1 }
    }

    var dictionary: [String: Int] {
        more.merging(few.map { ($0.name, $0.count) }) { $0 + $1 }
    }
}

/// Replays dump records through the codecs, one at a time.
package struct Replayer {
    package let options: ReplayOptions
    private var codecs: [String: TopicCodec] = [:]
    /// The codec for every record when the topic is forced (no lookup per record).
    private var forced: TopicCodec?

    package init(options: ReplayOptions) {
        self.options = options
        if let topic = options.topic {
            forced = TopicCodec(catalog: topic.catalog, policy: topic.policy, readerOptions: Self.readerOptions(options))
        }
    }

    static func readerOptions(_ options: ReplayOptions) -> JSONReader.Options {
        JSONReader.Options(maxBytes: options.maxRecordBytes, rejectDuplicateKeys: true)
    }

    /// Why a record has no catalog (exit 64/65 at the CLI).
    package struct NoCatalog: Error, CustomStringConvertible {
        package var topic: String?
        package var description: String {
            if let topic { return "topic '\(topic)' has no catalog: pass --topic payments|feeds or --config" }
            return "the dump does not name topics: pass --topic payments|feeds"
        }
    }

    /// The policy applied to records of `topic`.
    package func policy(for topic: String) -> TopicPolicy {
        codecs[topic]?.policy ?? options.topic?.policy ?? .lenient
    }

    /// Decodes one record.
    package mutating func replay(_ record: DumpRecord) throws(NoCatalog) -> ReplayedRecord {
        if forced != nil, let topic = options.topic {
            return Self.judge(record, topic: topic.name, policy: topic.policy, codec: &forced!, roundTrip: options.roundTrip)
        }
        let topic: String
        let catalog: Catalog
        let policy: TopicPolicy
        func entry(_ name: String) -> (catalog: Catalog, policy: TopicPolicy)? {
            options.topics[name] ?? options.catalogs[name].map { ($0, $0.defaultPolicy) }
        }
        if let name = record.topic, let found = entry(name) {
            (topic, catalog, policy) = (name, found.catalog, found.policy)
        } else if let original = record.headers.last(where: { $0.name == DeadLetterHeaders.originalTopic })?.value.map({ String(decoding: $0, as: UTF8.self) }),
            let found = entry(original)
        {
            // A dump of a dead-letter topic: each record is decoded as its original topic's.
            (topic, catalog, policy) = (original, found.catalog, found.policy)
        } else {
            throw NoCatalog(topic: record.topic)
        }
        if codecs[topic] == nil {
            codecs[topic] = TopicCodec(catalog: catalog, policy: policy, readerOptions: Self.readerOptions(options))
        }
        // In place: a copy would make the codec's reusable buffers copy on write.
        return Self.judge(record, topic: topic, policy: policy, codec: &codecs[topic]!, roundTrip: options.roundTrip)
    }

    static func judge(_ record: DumpRecord, topic: String, policy: TopicPolicy, codec: inout TopicCodec, roundTrip: Bool) -> ReplayedRecord {
        let decoded = codec.decode(record.value)
        var problem: String?
        if roundTrip, case .decoded = decoded.outcome, let event = decoded.event, let value = record.value {
            problem = codec.roundTripProblem(input: value, event: event)
        }
        return ReplayedRecord(record: record, topic: topic, decoded: decoded, roundTripProblem: problem, policy: policy)
    }
}
