import Foundation
import Switchyard
import SwitchyardKafka

/// `switchyard replay`: decodes captured records offline and reports what a worker would do.
struct ReplayCommand: Command {
    static let name = "replay"
    static let abstract = "Decode captured topic dumps, or a live topic read-only: would this build decode that traffic?"
    static var usage: String {
        """
        USAGE: switchyard replay [--topic NAME] [--catalog NAME] [--policy strict|lenient] | [--config FILE]
                                 [--format auto|ndjson|kcat] [--json | --records | --emit] [--roundtrip]
                                 [--republish [--brokers LIST] [--to TOPIC] [--rate N/s]] [FILE…]
               switchyard replay --brokers LIST --topic NAME [--since WHEN | --from-offset N] [--until WHEN|OFFSET]
                                 [--partition N]… [options above]

        Reads kcat -J envelopes or NDJSON (one record value per line) from FILEs, or standard input
        when no FILE (or '-') is given, and decodes every record as the worker would. gzip input is
        recognised by its magic bytes (files and standard input). Streams: memory stays constant.

        With --brokers and no FILE (or with any of --since, --from-offset, --until, --partition), reads
        the live topic --topic instead, read-only: its partitions are assigned directly (no group is joined,
        nothing is committed), from --since/--from-offset (default: the beginning) to the high watermark
        read at the start (or --until), so the replay ends. A record is named topic/partition@offset.

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
          --connect-timeout S  Seconds to reach the brokers before giving up (exit 69; a refused or
                            unresolvable address fails at once, with its cause). Default: 10.

        LIVE TOPIC:
          --brokers LIST    Read --topic from these brokers (with --config: the config's brokers).
          --since WHEN      Start at the first record written at or after WHEN: a duration ago (90s, 15m,
                            2h, 7d) or an RFC 3339 time (offsets looked up by time).
          --from-offset N   Start at offset N in each partition read.
          --until WHEN|N    Stop before the first record written at or after WHEN, or after offset N
                            (included); never past the end when the replay started.
          --partition N     Read only partition N (repeatable). Default: every partition.
          --timeout S       No new record for S seconds ends the read with what was read (a warning).
                            Default: 10.
          -h, --help        Show this help.

        The human summary lists failures grouped by kind, path and type, most frequent first, with
        where the first one was (topic/partition@offset, or record index and line for NDJSON). --records
        lines carry the record's topic (a kcat envelope's own), and with several FILEs its file and line.
        A long replay shows progress on stderr when stderr is a terminal.

        EXAMPLES:
          switchyard replay --topic payments payments.dump.json.gz
          switchyard replay --brokers localhost:9092 --topic payments --since 1h
          switchyard replay --brokers localhost:9092 --topic payments --partition 0 --from-offset 120 --until 180 --records

        EXIT CODES:
          0 no findings; 1 a strict topic had failures or a round trip was lossy; 64 usage;
          65 unreadable input (named with file and line; corrupt or truncated gzip too), or a live
          topic or partition that does not exist; 69 the brokers could not be reached or a delivery
          failed; 78 bad --config.
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
    /// A live read: where it starts and ends, which partitions.
    var since: Date?
    var fromOffset: Int64?
    var until: KafkaTopicReader.End?
    var partitions: [Int32]
    var idleTimeout: Duration

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
        if let text = try arguments.option("--since") {
            guard let date = DeadLetterFilter.parseSince(text) else {
                throw CommandError.usage("--since needs a duration (90s, 15m, 2h, 7d) or an RFC 3339 time, not '\(text)'")
            }
            since = date
        }
        if let text = try arguments.option("--from-offset") {
            guard let value = Int64(text), value >= 0 else { throw CommandError.usage("--from-offset needs an offset ≥ 0, not '\(text)'") }
            fromOffset = value
        }
        if let text = try arguments.option("--until") {
            if let offset = Int64(text), offset >= 0 {
                until = .offset(offset)
            } else if let date = DeadLetterFilter.parseSince(text) {
                until = .timestamp(milliseconds: Int64(date.timeIntervalSince1970 * 1000))
            } else {
                throw CommandError.usage("--until needs an offset, a duration ago (15m) or an RFC 3339 time, not '\(text)'")
            }
        }
        partitions = try arguments.options("--partition").map { text in
            guard let value = Int32(text), value >= 0 else { throw CommandError.usage("--partition needs a partition number ≥ 0, not '\(text)'") }
            return value
        }
        if let text = try arguments.option("--timeout") {
            guard let seconds = Double(text), seconds > 0 else { throw CommandError.usage("--timeout needs a positive number of seconds") }
            idleTimeout = .milliseconds(Int64(seconds * 1000))
        } else {
            idleTimeout = .seconds(10)
        }
        files = try arguments.positionals()
    }

    /// Whether the records come from a live topic: a position was given, or brokers without files (and
    /// not as a --republish target only).
    var live: Bool {
        since != nil || fromOffset != nil || until != nil || !partitions.isEmpty || (brokers != nil && files.isEmpty && !republish)
    }

    func validate() throws {
        let catalogs = SwitchyardCommand.catalogs
        if live {
            try validateLive()
            return
        }
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

    func validateLive() throws {
        let catalogs = SwitchyardCommand.catalogs
        if !files.isEmpty { throw CommandError.usage("a live replay reads --topic from --brokers: drop the FILE arguments (\(files[0]))") }
        guard let topic else { throw CommandError.usage("a live replay needs --topic NAME (the topic to read)") }
        if brokers == nil && configPath == nil { throw CommandError.usage("a live replay needs --brokers LIST (or --config)") }
        if since != nil && fromOffset != nil { throw CommandError.usage("--since and --from-offset are exclusive") }
        if let catalogName, catalogs[catalogName] == nil { throw CommandError.usage("--catalog: \(catalogs.unknownNameReason(catalogName))") }
        if catalogName == nil, configPath == nil, catalogs[topic] == nil {
            throw CommandError.usage("--topic \(topic) names no catalog: add --catalog NAME (\(catalogs.unknownNameReason(topic)))")
        }
        if catalogName != nil && configPath != nil { throw CommandError.usage("--catalog and --config are exclusive") }
        if format != .auto { throw CommandError.usage("--format is for FILE input") }
        if republish && republishTo == nil && configPath == nil {
            throw CommandError.usage("--republish needs --to TOPIC (or --config with republishTo)")
        }
        if case .offset(let last) = until, let fromOffset, last < fromOffset {
            throw CommandError.usage("--until \(last) is before --from-offset \(fromOffset)")
        }
    }

    func run() async throws -> ExitCode {
        var options = ReplayOptions()
        options.catalogs = SwitchyardCommand.catalogs
        // --catalog names the catalog; --topic the topic, and the catalog of the same name without --catalog.
        if configPath == nil || !live, let catalog = SwitchyardCommand.catalogs[catalogName ?? topic ?? ""] {
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
            if live, let topic, config!.topics[topic] == nil {
                throw CommandError.usage("--topic \(topic) is not in \(configPath)'s topics (\(config!.topics.keys.sorted().joined(separator: ", ")))")
            }
        }
        var reader: KafkaTopicReader?
        if live {
            reader = try await openLive(brokers: brokers ?? config?.brokers ?? "", properties: config?.kafka ?? [:])
        }
        var publisher: Publisher?
        if republish {
            publisher = try await Publisher.connect(
                brokers: brokers ?? config?.brokers ?? "", properties: config?.kafka ?? [:], clientID: "switchyard-replay",
                rate: rate, connectTimeout: connectTimeout)
        }
        do {
            let code = try await replay(options: options, config: config, publisher: publisher, live: reader)
            await reader?.close()
            if let publisher {
                try await publisher.finish()
                printError("replay: republished \(publisher.acknowledged) record(s)")
            }
            return code
        } catch {
            await publisher?.abandon()
            await reader?.close()
            throw error
        }
    }

    /// Opens the read-only reader of a live replay: exit 69 when the brokers cannot be reached, 65 for a topic
    /// or partition that does not exist.
    func openLive(brokers: String, properties: [String: String]) async throws -> KafkaTopicReader {
        let kafka = KafkaConfiguration(
            bootstrapServers: brokers.split(separator: ",").map(String.init), clientID: "switchyard-replay", properties: properties,
            logLevel: .error)
        var configuration = KafkaTopicReader.Configuration(
            kafka: kafka, topic: topic!, partitions: partitions.isEmpty ? nil : partitions, connectTimeout: connectTimeout)
        if let since { configuration.start = .timestamp(milliseconds: Int64(since.timeIntervalSince1970 * 1000)) }
        if let fromOffset { configuration.start = .offset(fromOffset) }
        if let until { configuration.end = until }
        do {
            return try await KafkaTopicReader.open(configuration)
        } catch let error as KafkaError {
            if error.code == .state { throw CommandError(.dataError, error.reason) }
            throw CommandError(error)
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

    func replay(options: ReplayOptions, config: WorkerConfiguration?, publisher: Publisher?, live: KafkaTopicReader?) async throws -> ExitCode {
        var replayer = Replayer(options: options)
        var summary = ReplaySummary()
        var lossyExamples: [(index: Int, problem: String)] = []
        let out = Output()
        defer { out.flush() }
        let progress = ProgressLine(enabled: true, noun: "records" + (topic.map { " of \($0)" } ?? ""))
        defer { progress.finish() }
        let severalFiles = files.count > 1

        func handle(_ record: DumpRecord, file: String?) async throws {
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
            case .records: out.line(Self.recordLine(replayed, file: file).bytes)
            case .emit:
                if let value = try republishValue(replayed, config: config) { out.line(value) }
            case .summary, .json: break
            }
            if let publisher, let value = try republishValue(replayed, config: config) {
                try await publisher.send(try republishRecord(replayed, value: value, config: config, publisher: publisher))
            }
        }

        if let live {
            let expected = live.ranges.reduce(Int64(0)) { $0 + ($1.count ?? 0) }
            var index = 0
            while true {
                let batch: KafkaTopicReader.Batch
                do {
                    batch = try await live.next(timeout: idleTimeout)
                } catch let error as KafkaError {
                    out.flush()
                    throw CommandError(error)
                }
                for record in batch.records {
                    try await handle(Self.dumpRecord(record, index: index), file: nil)
                    index += 1
                }
                progress.update(index, of: expected)
                if batch.isFinished { break }
                if batch.records.isEmpty {
                    progress.finish()
                    printError(
                        "warning: no new record in \(topic ?? "the topic") for \(idleTimeout) before its end: replayed \(index) of "
                            + "\(expected) offsets (transaction markers or deleted records?); --timeout S waits longer")
                    break
                }
            }
        } else {
            var reader = DumpReader(paths: files, format: format)
            do {
                while let record = try reader.next() {
                    try await handle(record, file: severalFiles ? reader.currentPath : nil)
                    if record.index & 4095 == 0 { progress.update(record.index, of: nil) }
                }
            } catch let error as DumpError {
                out.flush()
                throw CommandError(.dataError, "unreadable input: \(error)")
            }
        }
        progress.finish()

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

    /// A record read from a live topic, as a dump record (no file, no line).
    static func dumpRecord(_ record: KafkaRecord, index: Int) -> DumpRecord {
        DumpRecord(
            index: index, line: 0, topic: record.topic, partition: record.partition, offset: record.offset,
            timestampMilliseconds: record.timestampMilliseconds, key: record.key, headers: record.headers.map { ($0.name, $0.value) },
            value: record.value)
    }

    /// One `--records` line. `file` (and the line in it) when the input is several files.
    static func recordLine(_ replayed: ReplayedRecord, file: String? = nil) -> JSONObject {
        var o = JSONObject()
        o.set("index", replayed.record.index)
        // The record's own topic (a kcat envelope's, a live record's), else the topic it was decoded as.
        o.set("topic", replayed.record.topic ?? replayed.topic)
        if let file {
            o.set("file", file)
            o.set("line", replayed.record.line)
        }
        o.setIfPresent("partition", replayed.record.partition)
        o.setIfPresent("offset", replayed.record.offset)
        if let partition = replayed.record.partition, let offset = replayed.record.offset {
            o.set("location", RecordLocation(topic: replayed.record.topic ?? replayed.topic, partition: partition, offset: offset).description)
        }
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
