import Foundation
import Switchyard
import SwitchyardKafka

/// `switchyard replay`: decodes captured records offline and reports what a worker would do.
struct ReplayCommand: Command {
    static let name = "replay"
    static let abstract = "Decode captured topic dumps offline: would this build decode that traffic?"
    static var usage: String {
        """
        USAGE: switchyard replay [--topic NAME] [--catalog NAME] [--policy strict|lenient] | [--config FILE]
                                 [--format auto|ndjson|kcat] [--json | --records | --emit] [--roundtrip]
                                 [--republish [--brokers LIST] [--to TOPIC] [--rate N/s]] [FILE…]

        Reads kcat -J envelopes or NDJSON (one record value per line) from FILEs, or standard input
        when no FILE (or '-') is given, and decodes every record as the worker would. gzip input is
        recognised by its magic bytes (files and standard input). Streams: memory stays constant.

        OPTIONS:
          --catalog NAME    Decode every record with this catalog, under its default policy. This
                            binary's catalogs: \(catalogList).
          --topic NAME      The topic the records come from; without --catalog, the catalog of the
                            same name. Without either, kcat envelopes name their topic.
          --policy P        Override the catalog's policy: strict or lenient.
          --config FILE     The worker's config: topic name → catalog, policy, republish target and
                            maxRecordBytes (larger records fail as the worker fails them), for
                            dumps whose envelopes name the worker's topics.
          --format F        auto (default), ndjson or kcat.
          --json            Print one summary object.
          --records         Print one NDJSON line per record: index, partition, offset, outcome, type,
                            kind and path.
          --emit            Print, per decoded or unknown record, exactly what republishing would send.
          --roundtrip       Check that decode → encode keeps every key and value and is stable.
          --republish       Produce what --emit prints (same key, headers plus switchyard.republished.from)
                            to the topic's republishTo (--config) or to --to. Up to 64 records await their
                            acknowledgement at a time; order is kept.
          --brokers LIST    Bootstrap servers for --republish (default: the config's brokers).
          --to TOPIC        Republish every record to TOPIC.
          --rate N[/s]      At most N records per second (default: no limit).
          --connect-timeout S  Seconds to reach the brokers before giving up (exit 69). Default: 10.
          -h, --help        Show this help.

        The human summary lists failures grouped by kind, path and type, most frequent first, with
        where the first one was (topic/partition@offset, or record index and line for NDJSON).

        EXIT CODES:
          0 no findings; 1 a strict topic had failures or a round trip was lossy; 64 usage;
          65 unreadable input (named with file and line; corrupt or truncated gzip too);
          69 --republish could not reach the brokers or a delivery failed; 78 bad --config.
        """
    }

    /// `payments (strict), feeds (lenient)`.
    static var catalogList: String {
        SwitchyardCommand.catalogs.catalogs.map { "\($0.name) (\($0.defaultPolicy.rawValue))" }.joined(separator: ", ")
    }

    enum Mode { case summary, json, records, emit }

    var files: [String]
    var topic: String?
    var catalogName: String?
    var policy: TopicPolicy?
    var format: DumpFormat
    var mode: Mode
    var roundTrip: Bool
    var configPath: String?
    var republish: Bool
    var brokers: String?
    var republishTo: String?
    var rate: Double?
    var connectTimeout: Duration

    init(arguments: inout Arguments) throws {
        topic = try arguments.option("--topic")
        catalogName = try arguments.option("--catalog")
        configPath = try arguments.option("--config")
        republish = arguments.flag("--republish")
        brokers = try arguments.option("--brokers")
        republishTo = try arguments.option("--to")
        rate = try parseRate(try arguments.option("--rate"))
        connectTimeout = try parseConnectTimeout(try arguments.option("--connect-timeout"))
        if let text = try arguments.option("--policy") {
            guard let value = TopicPolicy(rawValue: text) else { throw CommandError.usage("--policy must be strict or lenient, not '\(text)'") }
            policy = value
        }
        let formatText = try arguments.option("--format") ?? "auto"
        guard let format = DumpFormat(rawValue: formatText) else { throw CommandError.usage("--format must be auto, ndjson or kcat, not '\(formatText)'") }
        self.format = format
        let json = arguments.flag("--json")
        let records = arguments.flag("--records")
        let emit = arguments.flag("--emit")
        guard [json, records, emit].filter({ $0 }).count <= 1 else {
            throw CommandError.usage("--json, --records and --emit are exclusive")
        }
        mode = json ? .json : records ? .records : emit ? .emit : .summary
        roundTrip = arguments.flag("--roundtrip")
        files = try arguments.positionals()
    }

    func validate() throws {
        let catalogs = SwitchyardCommand.catalogs
        if let catalogName, catalogs[catalogName] == nil {
            throw CommandError.usage("--catalog: \(catalogs.unknownNameReason(catalogName))")
        }
        if let topic, catalogName == nil, configPath == nil, catalogs[topic] == nil {
            throw CommandError.usage("--topic \(topic) names no catalog: add --catalog NAME (\(catalogs.unknownNameReason(topic)))")
        }
        if policy != nil && topic == nil && catalogName == nil { throw CommandError.usage("--policy needs --topic or --catalog") }
        if (topic != nil || catalogName != nil) && configPath != nil { throw CommandError.usage("--topic/--catalog and --config are exclusive") }
        if !republish && (brokers != nil || republishTo != nil || rate != nil) {
            throw CommandError.usage("--brokers, --to and --rate need --republish")
        }
        if republish && brokers == nil && configPath == nil {
            throw CommandError.usage("--republish needs --brokers (or --config)")
        }
        if republish && republishTo == nil && configPath == nil {
            throw CommandError.usage("--republish needs --to TOPIC (or --config with republishTo)")
        }
    }

    func run() async throws -> ExitCode {
        var options = ReplayOptions()
        options.catalogs = SwitchyardCommand.catalogs
        // --catalog names the catalog; --topic the topic, and the catalog of the same name without --catalog.
        if let catalog = SwitchyardCommand.catalogs[catalogName ?? topic ?? ""] {
            options.topic = (topic ?? catalog.name, catalog, policy ?? catalog.defaultPolicy)
        }
        options.roundTrip = roundTrip
        var config: WorkerConfiguration?
        if let configPath {
            do {
                config = try WorkerConfiguration.load(path: configPath, catalogs: SwitchyardCommand.catalogs)
            } catch {
                throw CommandError(.config, "\(configPath): \(error)")
            }
            for (name, topic) in config!.topics { options.topics[name] = (topic.catalog, topic.policy) }
            options.maxRecordBytes = config!.maxRecordBytes
        }
        var publisher: Publisher?
        if republish {
            publisher = try await Publisher.connect(
                brokers: brokers ?? config?.brokers ?? "", properties: config?.kafka ?? [:], clientID: "switchyard-replay",
                rate: rate, connectTimeout: connectTimeout)
        }
        do {
            let code = try await replay(options: options, config: config, publisher: publisher)
            if let publisher {
                try await publisher.finish()
                printError("replay: republished \(publisher.acknowledged) record(s)")
            }
            return code
        } catch {
            await publisher?.abandon()
            throw error
        }
    }

    /// What republishing sends for a decoded or unknown record (`--emit` prints it): an unknown event's or a
    /// passthrough topic's original bytes, else the canonical encoding (as the worker does).
    func republishValue(_ replayed: ReplayedRecord, config: WorkerConfiguration?) throws -> [UInt8]? {
        guard let event = replayed.decoded.event else { return nil }
        let passthrough = config?.topics[replayed.topic]?.republishMode == .passthrough
        if case .unknown = replayed.decoded.outcome, let value = replayed.record.value { return value }
        if passthrough, let value = replayed.record.value { return value }
        do {
            return try TopicCodec.canonicalBytes(of: event)
        } catch {
            throw CommandError(.software, "record \(replayed.record.index): encoding failed: \(error)")
        }
    }

    func republishRecord(_ replayed: ReplayedRecord, value: [UInt8], config: WorkerConfiguration?, publisher: Publisher) throws -> KafkaProducerRecord {
        guard let target = republishTo ?? config?.topics[replayed.topic]?.republishTo else {
            throw CommandError(.config, "topic '\(replayed.topic)' has no republishTo in the config: pass --to TOPIC")
        }
        let r = replayed.record
        var headers = r.headers.map { KafkaHeader(name: $0.name, value: $0.value) }
        var from = replayed.topic
        if let partition = r.partition, let offset = r.offset { from += "/\(partition)/\(offset)" } else { from += "/-/\(r.index)" }
        headers.append(KafkaHeader(name: DeadLetterHeaders.republishedFrom, string: from))
        // Keep the record's partition when the target has it (per-partition order, as the worker does).
        let partition = r.partition.flatMap { (publisher.partitionCounts[target] ?? 0) > Int($0) ? $0 : nil }
        return KafkaProducerRecord(topic: target, partition: partition, key: r.key, value: value, headers: headers)
    }

    func replay(options: ReplayOptions, config: WorkerConfiguration?, publisher: Publisher?) async throws -> ExitCode {
        var replayer = Replayer(options: options)
        var reader = DumpReader(paths: files, format: format)
        var summary = ReplaySummary()
        var lossyExamples: [(index: Int, problem: String)] = []
        let out = Output()
        defer { out.flush() }

        do {
            while let record = try reader.next() {
                let replayed: ReplayedRecord
                do {
                    replayed = try replayer.replay(record)
                } catch {
                    out.flush()
                    throw CommandError(.usage, error.description)
                }
                summary.add(replayed)
                if let problem = replayed.roundTripProblem, lossyExamples.count < 20 {
                    lossyExamples.append((record.index, problem))
                }
                switch mode {
                case .records: out.line(Self.recordLine(replayed).bytes)
                case .emit:
                    if let value = try republishValue(replayed, config: config) { out.line(value) }
                case .summary, .json: break
                }
                if let publisher, let value = try republishValue(replayed, config: config) {
                    try await publisher.send(try republishRecord(replayed, value: value, config: config, publisher: publisher))
                }
            }
        } catch let error as DumpError {
            out.flush()
            throw CommandError(.dataError, "unreadable input: \(error)")
        }

        switch mode {
        case .json:
            out.line(summary.json().bytes)
        case .summary:
            out.write(Self.human(summary, lossy: lossyExamples, roundTrip: roundTrip))
        case .records, .emit:
            break
        }
        out.flush()
        if mode == .records || mode == .emit {
            // Keep stdout machine-readable; findings go to stderr.
            if summary.strictFailures > 0 { printError("replay: \(summary.strictFailures) strict failure(s)") }
            for example in lossyExamples { printError("replay: record \(example.index): lossy round trip: \(example.problem)") }
        }
        return summary.strictFailures > 0 || summary.lossy > 0 ? .findings : .success
    }

    static func recordLine(_ replayed: ReplayedRecord) -> JSONObject {
        var o = JSONObject()
        o.set("index", replayed.record.index)
        o.setIfPresent("partition", replayed.record.partition)
        o.setIfPresent("offset", replayed.record.offset)
        o.set("outcome", replayed.decoded.outcome.name)
        o.setIfPresent("type", replayed.decoded.outcome.type)
        if case .failed(let failure) = replayed.decoded.outcome {
            o.set("kind", failure.kind.rawValue)
            o.set("path", failure.path)
        }
        if let problem = replayed.roundTripProblem { o.set("roundTrip", problem) }
        return o
    }

    static func human(_ s: ReplaySummary, lossy: [(index: Int, problem: String)], roundTrip: Bool) -> String {
        var text = "\(s.records) records: \(s.decoded) decoded, \(s.unknown) unknown, \(s.failed) failed, \(s.tombstones) tombstones"
        if s.unknownFields > 0 { text += "; \(s.unknownFields) unknown fields kept" }
        text += "\n"
        if !s.byType.isEmpty {
            var table = Table(header: ["TYPE", "DECODED"])
            for (type, count) in s.byType.sorted(by: { $0.key < $1.key }) { table.rows.append([type, String(count)]) }
            text += "\n" + table.render() + "\n"
        }
        if !s.unknownTypes.isEmpty {
            var table = Table(header: ["UNKNOWN TYPE", "COUNT"])
            for (type, count) in s.unknownTypes.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }) {
                table.rows.append([type, String(count)])
            }
            text += "\n" + table.render() + "\n"
        }
        if !s.failures.isEmpty {
            var table = Table(header: ["COUNT", "KIND", "PATH", "TYPE", "FIRST AT", "MESSAGE"])
            for entry in s.sortedFailures {
                table.rows.append([
                    String(entry.count.count), entry.group.kind.rawValue, entry.group.path.isEmpty ? "(root)" : entry.group.path,
                    entry.group.type ?? "-", entry.count.firstLocation, entry.count.message,
                ])
            }
            text += "\nFailures:\n" + table.render() + "\n"
        }
        if roundTrip {
            text += "\nRound trip: \(s.decoded - s.lossy) of \(s.decoded) decoded records faithful"
            text += s.lossy == 0 ? "\n" : ", \(s.lossy) lossy\n"
            for example in lossy { text += "  record \(example.index): \(example.problem)\n" }
        }
        if s.strictFailures > 0 {
            text += "\nFINDINGS: \(s.strictFailures) failure(s) on a strict topic: a worker would halt there.\n"
        }
        return text
    }
}
