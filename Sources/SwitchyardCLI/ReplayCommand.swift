import Foundation
import Switchyard
import SwitchyardKafka

#if canImport(Glibc)
import Glibc
#endif

/// `switchyard replay`: decodes captured records offline and reports what a worker would do.
struct ReplayCommand: Command {
    static var spec: CommandSpec {
        CommandSpec(
            ["replay"], abstract: "Decode captured topic dumps, or a live topic read-only: would this build decode that traffic?",
            synopsis: [
                "replay [-t TOPIC] [--catalog NAME] [--policy strict|lenient] | [-c FILE] [-o summary|json|records|emit]",
                "       [--roundtrip] [--fail-on unknown,failed,lossy,warnings] [--republish [--dry-run] [-b LIST] [--to TOPIC]] [FILE…]",
                "replay -b LIST -t TOPIC [--since WHEN | --from-offset N] [--until WHEN|N] [--partition N]… [options above]",
            ],
            discussion: """
                Reads kcat -J envelopes or NDJSON (one record value per line) from FILEs, or standard input
                ('-', or no FILE when standard input is not a terminal), and decodes every record as the worker
                would, with the worker's limits (records over 1 MiB fail unless --max-record-bytes or the
                config's maxRecordBytes says otherwise). gzip input is recognised by its magic bytes. Streams:
                memory stays constant.

                With --brokers and no FILE (or with any of --since, --from-offset, --until, --partition), reads
                the live topic --topic instead, read-only: its partitions are assigned directly (no group is
                joined, nothing is committed), from --since or --from-offset (default: the beginning) to the high
                watermark read at the start (or --until), so the replay ends. A long replay shows progress on
                stderr when stderr is a terminal.

                The human summary lists failures grouped by kind, path and type, most frequent first, with
                where the first one was (topic/partition@offset, or record index and line for NDJSON); -o json
                gives it as firstLocation, firstLine and, with several FILEs, firstFile. --records lines carry
                the record's topic (a kcat envelope's own, not --topic's) and its location; with several
                FILEs, the file and line.

                Warnings (stderr, and "warnings" in -o json): an empty input; an input whose records mostly have
                types the catalog does not know (the wrong --topic or --catalog?); a last line that ends without
                a newline and is not complete JSON (a dump cut short: FILE:LINE, not replayed, the records
                before it are). --fail-on warnings turns them into exit 1.

                --republish follows the worker's order rule: on a strict topic, a partition stops at its
                first failure, and no later record of that partition is sent (nor printed by --emit).
                """,
            options: [
                OptionSpec("--topic", short: "-t", .text("TOPIC"), help: "The topic the records come from; without --catalog, the catalog of the same name. Without either, kcat envelopes name their topic."),
                OptionSpec("--catalog", .named("NAME", .catalogs), help: "Decode every record with this catalog, under its default policy. This binary's catalogs: \(catalogList)."),
                OptionSpec("--policy", .choice(["strict", "lenient"]), help: "Override the catalog's policy."),
                OptionSpec("--config", short: "-c", .file("FILE"), help: "The worker's config: topic name → catalog, policy, republish target and maxRecordBytes, for dumps whose envelopes name the worker's topics."),
                OptionSpec("--format", .choice(["auto", "ndjson", "kcat"]), help: "The input format. Default: auto."),
                OptionSpec("--output", short: "-o", .choice(["summary", "json", "records", "emit"]), help: "summary (default), json (one summary object), records (one NDJSON line per record), emit (what republishing sends)."),
                OptionSpec("--json", help: "Same as -o json."),
                OptionSpec("--records", help: "Same as -o records: index, partition, offset, outcome, type, kind and path per record."),
                OptionSpec("--emit", help: "Same as -o emit: per decoded or unknown record, exactly what republishing would send."),
                OptionSpec("--roundtrip", help: "Check that decode → encode keeps every key and value and is stable."),
                OptionSpec("--fail-on", .list(FailOn.allCases.map(\.rawValue)), repeatable: true, help: "Exit 1 when any record is unknown, failed (also on a lenient topic), lossy, or on any warning. For CI gates."),
                OptionSpec("--max-record-bytes", .integer("N", minimum: 1), help: "Largest record value decoded (larger ones fail as in the worker). Default: the config's maxRecordBytes, else the worker's default 1048576."),
                OptionSpec("--republish", help: "Produce what --emit prints (same key, headers plus switchyard.republished.from) to the topic's republishTo (--config) or to --to; order is kept."),
                OptionSpec("--dry-run", help: "With --republish: connect to nothing, say what would be sent and what a strict failure holds back."),
                OptionSpec("--brokers", short: "-b", .text("LIST"), help: "Bootstrap servers for --republish. Default: the config's brokers, else $SWITCHYARD_BROKERS (for --republish or a live position)."),
                OptionSpec("--to", .text("TOPIC"), help: "Republish every record to TOPIC."),
                OptionSpec("--rate", .text("N[/s]"), help: "At most N records per second. Default: no limit."),
                OptionSpec("--connect-timeout", .number("S"), help: "Seconds to reach the brokers before giving up (exit 69; a refused or unresolvable address fails at once, with its cause). Default: 10."),
                OptionSpec("--since", .text("WHEN"), help: "Live: start at the first record written at or after WHEN, a duration ago (90s, 15m, 2h, 7d) or an RFC 3339 time (offsets looked up by time)."),
                OptionSpec("--from-offset", .integer("N", minimum: 0), help: "Live: start at offset N in each partition read."),
                OptionSpec("--until", .text("WHEN|N"), help: "Live: stop before the first record written at or after WHEN, or after offset N (included); never past the end when the replay started."),
                OptionSpec("--partition", .integer("N", minimum: 0), repeatable: true, help: "Live: read only partition N (repeatable). Default: every partition."),
                OptionSpec("--timeout", .number("S"), help: "Live: no new record for S seconds ends the read before its end: the summary is marked INCOMPLETE, exit 69. Default: 10."),
            ],
            positionals: [PositionalSpec("FILE", optional: true, repeatable: true, isFile: true, help: "kcat -J or NDJSON dumps, gzip allowed; '-' is standard input.")],
            examples: [
                Example("switchyard replay payments.jsonl", "kcat envelopes name their topic, and so their catalog."),
                Example("switchyard replay -t feeds -o json feeds.ndjson", "One summary object."),
                Example("switchyard replay -t payments --records payments.ndjson", "One outcome line per record."),
                Example("switchyard replay -t feeds --fail-on unknown,failed feeds.ndjson", "A CI gate on a lenient topic: exit 1 on any unknown or failed record."),
                Example("switchyard replay -t payments --republish --dry-run --to payments.canonical payments.ndjson", "What republishing would send, and what a strict failure holds back."),
                Example("switchyard replay -b localhost:9092 -t payments --since 1h", "Would this build decode the last hour of the live topic? Read-only, commits nothing."),
                Example("switchyard replay -b localhost:9092 -t payments --partition 1 --from-offset 1 --until 2 --records", "Two records of partition 1, one outcome line each."),
            ],
            exitCodes: [
                (.success, "no findings"),
                (.findings, "a strict topic had failures, a round trip was lossy, or a --fail-on condition"),
                (.usage, "usage (also: a terminal as standard input without FILE)"),
                (.dataError, "unreadable input (named with file and line; corrupt or truncated gzip too), or a live topic or partition that does not exist"),
                (.unavailable, "the brokers could not be reached (a live read, --republish), a delivery failed, or a live read was cut short (incomplete)"),
                (.config, "bad --config"),
                (.interrupted, "stopped by SIGINT or SIGTERM (Ctrl-C) before the end: the summary so far is printed, marked INCOMPLETE"),
            ])
    }

    /// `payments (strict), feeds (lenient)`.
    static var catalogList: String {
        SwitchyardCommand.catalogs.catalogs.map { "\($0.name) (\($0.defaultPolicy.rawValue))" }.joined(separator: ", ")
    }

    enum Mode: String { case summary, json, records, emit }

    /// What `--fail-on` can make a failure.
    enum FailOn: String, CaseIterable {
        case unknown, failed, lossy, warnings
    }

    var files: [String]
    var topic: String?
    var catalogName: String?
    var policy: TopicPolicy?
    var format: DumpFormat
    var mode: Mode
    var roundTrip: Bool
    var configPath: String?
    var republish: Bool
    var dryRun: Bool
    var brokers: String?
    var republishTo: String?
    var rate: Double?
    var connectTimeout: Duration
    var failOn: Set<FailOn>
    var maxRecordBytes: Int?
    /// A live read: where it starts and ends, which partitions.
    var since: Date?
    var fromOffset: Int64?
    var until: KafkaTopicReader.End?
    var partitions: [Int32]
    var idleTimeout: Duration
    var idleTimeoutGiven: Bool

    init(_ arguments: ParsedArguments) throws {
        topic = arguments.option("--topic")
        catalogName = arguments.option("--catalog")
        configPath = arguments.option("--config")
        republish = arguments.flag("--republish")
        dryRun = arguments.flag("--dry-run")
        brokers = arguments.option("--brokers")
        republishTo = arguments.option("--to")
        rate = try parseRate(arguments.option("--rate"))
        connectTimeout = try parseConnectTimeout(arguments.option("--connect-timeout"))
        policy = arguments.option("--policy").flatMap(TopicPolicy.init(rawValue:))
        format = arguments.option("--format").flatMap(DumpFormat.init(rawValue:)) ?? .auto
        var modes: [Mode] = []
        if let output = arguments.option("--output").flatMap(Mode.init(rawValue:)) { modes.append(output) }
        if arguments.flag("--json") { modes.append(.json) }
        if arguments.flag("--records") { modes.append(.records) }
        if arguments.flag("--emit") { modes.append(.emit) }
        guard Set(modes).count <= 1 else {
            throw CommandError.usage("--json, --records, --emit and -o are exclusive: choose one output")
        }
        mode = modes.first ?? .summary
        roundTrip = arguments.flag("--roundtrip")
        failOn = Set(arguments.list("--fail-on").compactMap(FailOn.init(rawValue:)))
        maxRecordBytes = arguments.integer("--max-record-bytes")
        if let text = arguments.option("--since") {
            guard let date = DeadLetterFilter.parseSince(text) else {
                throw sinceUsage("--since", text)
            }
            since = date
        }
        fromOffset = arguments.integer("--from-offset").map(Int64.init)
        if let text = arguments.option("--until") {
            if let offset = Int64(text), offset >= 0 {
                until = .offset(offset)
            } else if let date = DeadLetterFilter.parseSince(text) {
                until = .timestamp(milliseconds: Int64(date.timeIntervalSince1970 * 1000))
            } else {
                throw CommandError.usage("--until needs an offset, a duration ago (15m) or an RFC 3339 time, not '\(text)'")
            }
        }
        partitions = arguments.options("--partition").compactMap { Int32($0) }
        idleTimeout = arguments.number("--timeout").map { .milliseconds(Int64($0 * 1000)) } ?? .seconds(10)
        idleTimeoutGiven = arguments.given("--timeout")
        files = arguments.positionals
        // SWITCHYARD_BROKERS stands for -b where brokers are certainly meant: a republish that sends, or a
        // position in a live topic (never instead of reading a dump).
        let position = since != nil || fromOffset != nil || until != nil || !partitions.isEmpty
        if brokers == nil && configPath == nil && ((republish && !dryRun) || position) { brokers = environmentBrokers() }
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
        if idleTimeoutGiven { throw CommandError.usage("--timeout is for a live replay (--brokers, no FILE)") }
        if let catalogName, catalogs[catalogName] == nil {
            throw CommandError.usage("--catalog: \(catalogs.unknownNameReason(catalogName))")
        }
        if let topic, catalogName == nil, configPath == nil, catalogs[topic] == nil {
            throw CommandError.usage("--topic \(topic) names no catalog: add --catalog NAME (\(catalogs.unknownNameReason(topic)))")
        }
        if policy != nil && topic == nil && catalogName == nil { throw CommandError.usage("--policy needs --topic or --catalog") }
        if (topic != nil || catalogName != nil) && configPath != nil { throw CommandError.usage("--topic/--catalog and --config are exclusive") }
        if !republish && (brokers != nil || republishTo != nil || rate != nil || dryRun) {
            throw CommandError.usage("--brokers, --to, --rate and --dry-run need --republish")
        }
        if republish && !dryRun && brokers == nil && configPath == nil {
            throw CommandError.usage("--republish needs --brokers (or --config), or --dry-run")
        }
        if republish && republishTo == nil && configPath == nil {
            throw CommandError.usage("--republish needs --to TOPIC (or --config with republishTo)")
        }
        if files.isEmpty && isatty(0) == 1 {
            throw CommandError.usage("no FILE, and standard input is a terminal: give a dump FILE, or pipe one in ('-' reads the terminal)")
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
            config = try loadWorkerConfiguration(configPath)
            for (name, topic) in config!.topics { options.topics[name] = (topic.catalog, topic.policy) }
            if live, let topic, config!.topics[topic] == nil {
                throw CommandError.usage("--topic \(topic) is not in \(configPath)'s topics (\(config!.topics.keys.sorted().joined(separator: ", ")))")
            }
        }
        // The worker's limit unless told otherwise: a record the worker fails must fail here too.
        options.maxRecordBytes = maxRecordBytes ?? config?.maxRecordBytes ?? WorkerConfiguration.defaultMaxRecordBytes
        var reader: KafkaTopicReader?
        if live {
            reader = try await openLive(brokers: brokers ?? config?.bootstrapServers.joined(separator: ",") ?? "", properties: config?.kafka ?? [:])
        }
        var publisher: Publisher?
        if republish && !dryRun {
            publisher = try await Publisher.connect(
                brokers: brokers ?? config?.bootstrapServers.joined(separator: ",") ?? "", properties: config?.kafka ?? [:], clientID: "switchyard-replay",
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
        let reader: KafkaTopicReader
        do {
            reader = try await KafkaTopicReader.open(configuration)
        } catch let error as KafkaError {
            if error.code == .state { throw CommandError(.dataError, error.reason) }
            throw CommandError(error)
        }
        // A start past the end reads nothing: say so, rather than "no records".
        if let fromOffset {
            for range in reader.ranges where fromOffset >= range.watermarks.high {
                let p = range.partition
                printError(
                    "warning: --from-offset \(fromOffset) is past the end of \(p.topic)/\(p.partition) "
                        + (range.watermarks.high > range.watermarks.low
                            ? "(it holds offsets \(range.watermarks.low)…\(range.watermarks.high - 1)): nothing to read there"
                            : "(it is empty): nothing to read there"))
            }
        }
        return reader
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

    /// A strict partition's first failure: the worker halts there, so nothing after it is republished.
    struct Stop {
        var at: String
        var heldBack = 0
    }

    /// The partition a record belongs to, for the order rule (an NDJSON input is one partition).
    static func partitionKey(_ replayed: ReplayedRecord) -> String {
        "\(replayed.topic)/\(replayed.record.partition.map(String.init) ?? "-")"
    }

    /// `topic/partition@offset` (the record's own topic), or `topic record N (line L)` for NDJSON.
    static func location(_ replayed: ReplayedRecord) -> String {
        let r = replayed.record
        if let partition = r.partition, let offset = r.offset {
            return RecordLocation(topic: r.topic ?? replayed.topic, partition: partition, offset: offset).description
        }
        return "\(replayed.topic) record \(r.index) (line \(r.line))"
    }

    func replay(options: ReplayOptions, config: WorkerConfiguration?, publisher: Publisher?, live: KafkaTopicReader?) async throws -> ExitCode {
        var replayer = Replayer(options: options)
        var summary = ReplaySummary()
        var lossyExamples: [(index: Int, problem: String)] = []
        var stops: [String: Stop] = [:]
        var wouldSend: [String: Int] = [:]
        var topics: Set<String> = []
        let out = Output()
        defer { out.flush() }
        // --emit prints what republishing sends, so it follows the same order rule.
        let ordered = republish || mode == .emit

        // Not over lines that stdout prints as it reads (--records, --emit on a terminal).
        let printsAsItReads = (mode == .records || mode == .emit) && isatty(1) == 1
        let progress = ProgressLine(enabled: !printsAsItReads, noun: "records" + (topic.map { " of \($0)" } ?? ""))
        defer { progress.finish() }
        let severalFiles = files.count > 1
        /// The file being read when the input is several files, for the failures' locations.
        var currentFile: String?

        func handle(_ record: DumpRecord, file: String?) async throws {
            let replayed: ReplayedRecord
            do {
                replayed = try replayer.replay(record)
            } catch {
                out.flush()
                throw CommandError(.usage, error.description)
            }
            summary.add(replayed, file: currentFile)
            topics.insert(replayed.topic)
            if let problem = replayed.roundTripProblem, lossyExamples.count < 20 {
                lossyExamples.append((record.index, problem))
            }
            let key = Self.partitionKey(replayed)
            if ordered, stops[key] != nil {
                if replayed.decoded.event != nil { stops[key]!.heldBack += 1 }
                if mode == .records { out.line(Self.recordLine(replayed, file: file).bytes) }
                return
            }
            if ordered, replayed.policy == .strict, case .failed = replayed.decoded.outcome {
                stops[key] = Stop(at: Self.location(replayed))
            }
            switch mode {
            case .records: out.line(Self.recordLine(replayed, file: file).bytes)
            case .emit:
                if let value = try republishValue(replayed, config: config) { out.line(value) }
            case .summary, .json: break
            }
            if republish, let value = try republishValue(replayed, config: config) {
                if let publisher {
                    try await publisher.send(try republishRecord(replayed, value: value, config: config, publisher: publisher))
                } else {
                    guard let target = republishTo ?? config?.topics[replayed.topic]?.republishTo else {
                        throw CommandError(.config, "topic '\(replayed.topic)' has no republishTo in the config: pass --to TOPIC")
                    }
                    wouldSend[target, default: 0] += 1
                }
            }
        }

        // Why a live read ended before its end, when it did: the result is partial, and says so.
        var cutShort: String?
        // What the dumps held that was not read (a last line cut short), with its file and line.
        var dumpWarnings: [String] = []
        // Ctrl-C (or SIGTERM) stops the read between records: the summary so far is printed, marked incomplete.
        let termination = TerminationFlag.install(secondSignalExits: true)
        var replayedCount = 0
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
                    if termination.isSet { break }
                    try await handle(Self.dumpRecord(record, index: index), file: nil)
                    index += 1
                }
                replayedCount = index
                if termination.isSet { break }
                progress.update(index, of: expected)
                if batch.isFinished { break }
                if batch.records.isEmpty {
                    progress.finish()
                    cutShort =
                        "replayed \(index) of \(expected) offsets of \(topic ?? "the topic"): no new record for \(idleTimeout) before its end "
                        + "(a broker that stopped answering?); --timeout S waits longer"
                    break
                }
            }
        } else {
            var reader = DumpReader(paths: files, format: format)
            defer { dumpWarnings = reader.warnings.map(\.description) }
            do {
                while let record = try reader.next() {
                    if termination.isSet { break }
                    currentFile = severalFiles ? reader.currentPath : nil
                    try await handle(record, file: severalFiles ? reader.currentPath : nil)
                    replayedCount += 1
                    if record.index & 4095 == 0 { progress.update(record.index, of: nil) }
                }
            } catch let error as DumpError {
                out.flush()
                throw CommandError(.dataError, "unreadable input: \(error)")
            }
        }
        progress.finish()
        // A signal before the end (also while a read from a pipe waited for more): the counts are partial.
        if termination.isSet {
            cutShort = "interrupted by \(termination.signalName) after \(replayedCount) record(s); the rest was not read"
        }
        let warnings = dumpWarnings + Self.warnings(summary, topics: topics, files: live == nil ? files : ["\(topic ?? "the topic") on the brokers"], options: options)

        switch mode {
        case .json:
            var o = summary.json()
            o.set("complete", cutShort == nil)
            o.setIfPresent("incomplete", cutShort)
            o.set("warnings", warnings)
            out.line(o.bytes)
        case .summary:
            if cutShort != nil { out.line("INCOMPLETE: \(termination.isSet ? "interrupted" : "the read was cut short"); these counts are partial") }
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
        for (key, stop) in stops.sorted(by: { $0.key < $1.key }) {
            printError("replay: \(key) stopped at \(stop.at) (strict failure): \(stop.heldBack) later record(s) held back, as the worker halts there")
        }
        if republish && dryRun {
            let targets = wouldSend.sorted { $0.key < $1.key }.map { "\($0.value) to \($0.key)" }
            let total = wouldSend.values.reduce(0, +)
            printError("replay: DRY RUN: would republish \(total) record(s)\(targets.isEmpty ? "" : " (" + targets.joined(separator: ", ") + ")"); nothing was sent")
        }
        for warning in warnings { printError("warning: \(warning)") }
        var failed: [String] = []
        if failOn.contains(.unknown) && summary.unknown > 0 { failed.append("\(summary.unknown) unknown record(s)") }
        if failOn.contains(.failed) && summary.failed > 0 { failed.append("\(summary.failed) failed record(s)") }
        if failOn.contains(.lossy) && summary.lossy > 0 { failed.append("\(summary.lossy) lossy round trip(s)") }
        if failOn.contains(.warnings) && !warnings.isEmpty { failed.append("\(warnings.count) warning(s)") }
        if let cutShort {
            // A partial answer is never a success, whatever it found.
            printError("error: incomplete: \(cutShort)")
            return termination.isSet ? .interrupted : .unavailable
        }
        if !failed.isEmpty {
            let given = failOn.map(\.rawValue).sorted().joined(separator: ",")
            printError("replay: failing (--fail-on \(given)): \(failed.joined(separator: ", "))")
            return .findings
        }
        return summary.strictFailures > 0 || summary.lossy > 0 ? .findings : .success
    }

    /// What the input looks like, when it does not look like what was asked for.
    static func warnings(_ s: ReplaySummary, topics: Set<String>, files: [String], options: ReplayOptions) -> [String] {
        let input = files.isEmpty || files == ["-"] ? "standard input" : files.joined(separator: ", ")
        guard s.records > 0 else { return ["no records in \(input): nothing was checked"] }
        let values = s.records - s.tombstones
        // Failures at the root with no tag read: invalid JSON, or a value that is not an object. Most of the
        // input like that is not a dump at all (a README, a binary file, the wrong file).
        let notObjects = s.failures.filter { $0.key.path.isEmpty && $0.key.type == nil && ($0.key.kind == .dataCorrupted || $0.key.kind == .typeMismatch) }
            .reduce(0) { $0 + $1.value.count }
        if values > 0, notObjects * 2 > values {
            return [
                "\(notObjects) of \(values) records (\(notObjects * 100 / values)%) of \(input) are not JSON objects: is \(input) a dump? "
                    + "(replay reads kcat -J envelopes, or one JSON record per line, pretty-printed records or a JSON array of them)"
            ]
        }
        let unknownTags = s.unknownTypes.values.reduce(0, +)
            + s.failures.filter { $0.key.kind == .unknownType }.reduce(0) { $0 + $1.value.count }
        guard values > 0, unknownTags * 2 > values else { return [] }
        // The most frequent unknown tag (ties: the first by name), so the warning is the same every run.
        let tags = s.unknownTypes.map { ($0.key, $0.value) }
            + s.failures.filter { $0.key.kind == .unknownType }.compactMap { g, c in g.type.map { ($0, c.count) } }
        let common = tags.min { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }?.0
        let catalog = options.topic.map { "the \($0.catalog.name) catalog" } ?? "its catalog"
        let percent = unknownTags * 100 / values
        var text = "\(unknownTags) of \(values) records (\(percent)%) of \(topics.sorted().joined(separator: ", ")) have a type \(catalog) does not know"
        if let common { text += " (most often '\(common)')" }
        text += ": is this the right --topic or --catalog?"
        return [text]
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
