import Foundation
import Switchyard
import SwitchyardKafka

#if canImport(Glibc)
import Glibc
#endif

/// `switchyard dlq list|show|stats|redrive`: what was dead-lettered, why, where in the record, and sending
/// it back once fixed.
struct DLQCommand: Command {
    // MARK: - Declaration

    /// Where the dead letters come from (every subcommand).
    static let sourceOptions = [
        OptionSpec("--brokers", short: "-b", .text("LIST"), help: "Bootstrap servers of a live DLQ topic (with --topic). Default: $SWITCHYARD_BROKERS (without --file and --config)."),
        OptionSpec("--topic", short: "-t", .text("TOPIC"), help: "The dead-letter topic, e.g. feeds.dlq (with --brokers or --config)."),
        OptionSpec("--config", short: "-c", .file("FILE"), help: "Brokers and Kafka settings (security) from the worker's config (with --topic)."),
        OptionSpec("--file", .file("DUMP"), help: "A dump made with kcat -C -J -e -t TOPIC.dlq (gzip allowed), instead of a live topic."),
        OptionSpec("--timeout", .number("S"), help: "Idle timeout: no new record for S seconds ends a live read before its end: what was read is shown, marked INCOMPLETE, exit 69. Default: 10."),
        OptionSpec("--connect-timeout", .number("S"), help: "Seconds to reach the brokers (exit 69; a refused or unresolvable address fails at once, with its cause). Default: 10."),
    ]

    /// The dead-letter kinds a filter can name.
    static let kinds = FailureKind.allCases.map(\.rawValue) + ["foreign", "unknown"]

    /// `--kind`, `--type`, `--path`, `--since`, `--from` (list, stats, redrive).
    static let filterOptions = [
        OptionSpec("--kind", .choice(kinds), repeatable: true, help: "Only this kind, or these (a,b) (foreign: Spring or Connect records; unknown: no diagnosis headers)."),
        OptionSpec("--type", .named("TYPE", .eventTypes), repeatable: true, help: "Only this event type, or these (a,b) (types of this binary's catalogs or in the DLQ)."),
        OptionSpec("--path", .text("PATH"), repeatable: true, help: "Only this failing path, e.g. amount.value."),
        OptionSpec("--since", .text("WHEN"), help: "Failed within a duration (90s, 15m, 2h, 7d) or since an RFC 3339 time."),
        OptionSpec("--from", .integer("OFFSET", minimum: 0), help: "Only DLQ offsets ≥ OFFSET."),
    ]

    static let outputOptions = [
        OptionSpec("--output", short: "-o", .choice(["table", "json"]), help: "table (default) or json."),
        OptionSpec("--json", help: "Same as -o json."),
    ]

    static let failOn = OptionSpec(
        "--fail-on", .list(["warnings"]), help: "Exit 1 on a warning (records without dead-letter headers: not a DLQ?). For CI.")

    static let sourceText = """
        SOURCE is a live topic (-b LIST -t TOPIC, or -c FILE -t TOPIC), read once from the beginning to its
        end when the command starts, read-only (partitions assigned directly: no group is joined, nothing is
        committed), or a dump (--file). Dead letters are handled as they are read (none is held in memory
        but by redrive); progress goes to stderr when it is a terminal.
        switchyard.* headers are understood, and Spring Kafka's kafka_dlt-* and Kafka Connect's
        __connect.errors.* (kind "foreign", with the exception message). A record without any of them is
        counted with kind "unknown", and a warning says the topic may not be a DLQ.
        """

    static let commonExits: [(code: ExitCode, meaning: String)] = [
        (.usage, "usage (also: an unknown --kind or --type)"),
        (.dataError, "unreadable dump or no such topic"),
        (.unavailable, "broker unavailable (a refused or unresolvable address at once, with its cause), or a read cut short (incomplete)"),
        (.config, "bad --config"),
    ]

    static var spec: CommandSpec {
        CommandSpec(
            ["dlq"], abstract: "Inspect a dead-letter topic (list, show, stats) and redrive records to their original topic.",
            discussion: sourceText + "\n\nColour only when stdout is a terminal and NO_COLOR is not set.",
            subcommands: [
                CommandSpec(
                    ["dlq", "list"], abstract: "One line per dead letter as it is read: where it is, age, original topic/partition@offset, type, kind, path.",
                    synopsis: ["dlq list SOURCE [--kind KIND] [--type TYPE] [--path PATH] [--since WHEN] [--from OFFSET] [--follow] [-o table|json]"],
                    discussion: sourceText + "\n\n" + """
                        A dead letter is named topic/partition@offset (feeds.dlq/0@3): what dlq show takes. With
                        --follow, the new dead letters are printed as they arrive until Ctrl-C (SIGINT) or SIGTERM,
                        which end it with exit 0.
                        """,
                    options: sourceOptions + filterOptions + outputOptions + [
                        OptionSpec("--follow", short: "-f", help: "Then print new dead letters as they arrive, until SIGINT or SIGTERM (a live topic only)."),
                        failOn,
                    ],
                    examples: [
                        Example("switchyard dlq list --file feeds.dlq.jsonl", "Every dead letter of a dump."),
                        Example("switchyard dlq list -b localhost:9092 -t feeds.dlq --kind typeMismatch --since 1h", "The type mismatches of the last hour."),
                        Example("switchyard dlq list -b localhost:9092 -t feeds.dlq --follow", "Every dead letter, then the new ones as they arrive, until Ctrl-C."),
                    ],
                    exitCodes: [(.success, "listed (also none; also when --follow ends on a signal)"), (.findings, "--fail-on warnings and a warning")] + commonExits
                        + [(.interrupted, "stopped by SIGINT or SIGTERM (Ctrl-C) before the end, not following: the whole rows read so far and the count, marked INCOMPLETE")]),
                CommandSpec(
                    ["dlq", "show"], abstract: "One dead letter: the diagnosis, every header, the payload with values redacted and the failing path marked.",
                    synopsis: ["dlq show SOURCE TOPIC/PARTITION@OFFSET [--reveal] [-o table|json]", "dlq show -b LIST TOPIC/PARTITION@OFFSET"],
                    discussion: sourceText + "\n" + """

                        The payload is pretty-printed with its values redacted (strings "***", numbers <number>; keys,
                        structure, true/false/null and the root "type" kept); --reveal prints the values, and a
                        payload that is not JSON as its bytes too (as xxd prints them). With -o json and --reveal,
                        the payload is also carried as JSON (payloadValue) when it is JSON, else as hex (payloadHex).

                        On a live topic, a location (feeds.dlq/0@3) fetches only that record, and names the topic:
                        -t may be left out. OFFSET and PARTITION:OFFSET are still understood.
                        """,
                    options: sourceOptions + outputOptions + [OptionSpec("--reveal", help: "Print payload values and the key.")],
                    positionals: [PositionalSpec("LOCATION", help: "topic/partition@offset, as dlq list and dlq stats print it (e.g. feeds.dlq/0@1).")],
                    examples: [
                        Example("switchyard dlq show feeds.dlq/0@1 --file feeds.dlq.jsonl", "The dead letter at offset 1 of partition 0."),
                        Example("switchyard dlq show -b localhost:9092 feeds.dlq/0@1", "The same, fetched alone from the live topic."),
                    ],
                    exitCodes: [(.success, "shown"), (.findings, "no dead letter at that position")] + commonExits),
                CommandSpec(
                    ["dlq", "stats"], abstract: "What broke: counts by kind, path and type together, then by each; most frequent first.",
                    synopsis: ["dlq stats SOURCE [FILTERS] [-o table|json] [--fail-on warnings]"],
                    discussion: sourceText + "\n\nEach group names an example (topic/partition@offset) and the command that shows it.",
                    options: sourceOptions + filterOptions + outputOptions + [failOn],
                    examples: [
                        Example("switchyard dlq stats --file feeds.dlq.jsonl", "Ranked groups and the command to show an example of the first."),
                        Example("switchyard dlq stats -b localhost:9092 -t feeds.dlq -o json", "One object."),
                    ],
                    exitCodes: [(.success, "counted"), (.findings, "--fail-on warnings and a warning")] + commonExits
                        + [(.interrupted, "stopped by SIGINT or SIGTERM (Ctrl-C) before the end: the counts so far, marked INCOMPLETE")]),
                CommandSpec(
                    ["dlq", "redrive"], abstract: "Send the selected records back to their original topic (a dry run unless --execute).",
                    synopsis: ["dlq redrive SOURCE [FILTERS] [--execute] [--force] [--journal FILE] [--max-redrives N] [--rate N/s] [-o table|json]"],
                    discussion: sourceText + "\n" + """

                        Sends to switchyard.original.topic (the original partition when it still exists). Key, value
                        and other headers are kept; the previous diagnosis (switchyard.*, kafka_dlt-*,
                        __connect.errors.*) is dropped; switchyard.redrive.count is incremented and
                        switchyard.redrive.of names the dead letter it came from (the worker keeps both when it
                        dead-letters the record again).

                        Each record is first decoded with this build, as the worker of its original topic would
                        (the catalog of that name, or --config's topics): one that would fail again is refused,
                        with the kind and path ("would fail again: typeMismatch at 'amount.value'"), unless --force.
                        Also refused: records whose count reached --max-redrives (the loop guard) and records
                        without an original topic. Skipped: dead letters redriven already, by the journal or by a
                        later dead letter that links to them.

                        With --execute each record is printed when the broker acknowledges it, with where it went,
                        and written to the journal (--journal). Ctrl-C (SIGINT) or SIGTERM stops sending, waits for
                        what is in flight and prints what went (exit 130); run the same command again to send the
                        rest: what the journal lists is never sent twice. Records stay in the DLQ.

                        --file DUMP with --brokers (or --config) redrives a dump to those brokers.
                        """,
                    options: sourceOptions + filterOptions + outputOptions + [
                        OptionSpec("--execute", help: "Send (default: a dry run)."),
                        OptionSpec("--force", help: "Also send records that this build would fail again (they dead-letter again, or halt a strict partition)."),
                        OptionSpec("--journal", .file("FILE"), help: "What was sent, read and appended to (a rerun skips it). Default: ~/.local/state/switchyard/redrive/TOPIC.jsonl."),
                        OptionSpec("--max-redrives", .integer("N", minimum: 1), help: "Refuse records redriven N times already. Default: 3."),
                        OptionSpec("--rate", .text("N[/s]"), help: "At most N records per second."),
                        failOn,
                    ],
                    examples: [
                        Example("switchyard dlq redrive -b localhost:9092 -t feeds.dlq --kind typeMismatch", "A dry run: what would be sent where."),
                        Example("switchyard dlq redrive -b localhost:9092 -t feeds.dlq --kind typeMismatch --execute", "Send them."),
                    ],
                    exitCodes: [
                        (.success, "redriven (or would be)"),
                        (.findings, "some selected records were refused (would fail again, loop guard, or no original topic)"),
                    ] + commonExits + [(.interrupted, "stopped by SIGINT or SIGTERM: what went is printed and journaled; rerun to resume")]),
            ],
            examples: [Example("switchyard dlq stats --file feeds.dlq.jsonl", "Start here: what broke.")],
            exitCodes: [(.success, "success"), (.findings, "a refusal, a dead letter not found, or --fail-on warnings")] + commonExits)
    }

    enum Subcommand: String, CaseIterable {
        case list, show, stats, redrive
    }

    var subcommand: Subcommand
    var brokers: String?
    var topic: String?
    var file: String?
    var configPath: String?
    var json: Bool
    var filter = DeadLetterFilter()
    var fromOffset: Int64?
    var reveal: Bool
    var execute: Bool
    var force: Bool
    var journalPath: String?
    var maxRedrives: Int
    var rate: Double?
    var timeout: Duration
    var connectTimeout: Duration
    var target: (partition: Int32?, offset: Int64)?
    /// The dead letter `show` names as topic/partition@offset.
    var targetLocation: RecordLocation?
    var follow: Bool
    var failOnWarnings: Bool

    init(_ arguments: ParsedArguments) throws {
        let declared = Set(arguments.spec.options.map(\.long))
        func option(_ name: String) -> String? { declared.contains(name) ? arguments.option(name) : nil }
        func options(_ name: String) -> [String] { declared.contains(name) ? arguments.options(name) : [] }
        func flag(_ name: String) -> Bool { declared.contains(name) && arguments.flag(name) }
        subcommand = Subcommand(rawValue: arguments.spec.path.last!)!
        brokers = option("--brokers")
        // SWITCHYARD_BROKERS stands for -b when no other source is given (and as a dump's redrive target).
        if brokers == nil && option("--config") == nil && (option("--file") == nil || subcommand == .redrive) { brokers = environmentBrokers() }
        topic = option("--topic")
        file = option("--file")
        configPath = option("--config")
        json = flag("--json") || option("--output") == "json"
        filter.kinds = Set(options("--kind").flatMap { $0.split(separator: ",").map(String.init) })
        filter.types = Set(options("--type").flatMap { $0.split(separator: ",").map(String.init) })
        filter.paths = Set(options("--path"))
        if let since = option("--since") {
            guard let date = DeadLetterFilter.parseSince(since) else {
                throw sinceUsage("--since", since)
            }
            filter.since = date
        }
        fromOffset = option("--from").flatMap { Int64($0) }
        reveal = flag("--reveal")
        follow = flag("--follow")
        execute = flag("--execute")
        force = flag("--force")
        journalPath = option("--journal")
        maxRedrives = option("--max-redrives").flatMap { Int($0) } ?? 3
        rate = try parseRate(option("--rate"))
        let seconds = option("--timeout").flatMap { Double($0) } ?? 10
        guard seconds > 0 else { throw CommandError.usage("--timeout needs a positive number of seconds") }
        timeout = .milliseconds(Int64(seconds * 1000))
        connectTimeout = try parseConnectTimeout(option("--connect-timeout"))
        failOnWarnings = declared.contains("--fail-on") && arguments.list("--fail-on").contains("warnings")
        if subcommand == .show {
            let text = arguments.positionals[0]
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            if let location = RecordLocation(text) {
                targetLocation = location
                target = (location.partition, location.offset)
            } else if parts.count == 2, let p = Int32(parts[0]), let o = Int64(parts[1]), p >= 0, o >= 0 {
                target = (p, o)
            } else if parts.count == 1, let o = Int64(text), o >= 0 {
                target = (nil, o)
            } else {
                throw CommandError.usage("name the dead letter as \(RecordLocation.formHint), not '\(text)'")
            }
        }
    }

    func validate() throws {
        let live = brokers != nil || configPath != nil
        if file != nil && topic != nil { throw CommandError.usage("--file and --topic are exclusive: a dump names its topic") }
        // A redrive from a dump sends to the brokers it names; the other subcommands read one source.
        if file != nil && live && subcommand != .redrive {
            throw CommandError.usage("--file and --brokers/--config are exclusive (only dlq redrive takes both: it reads the dump and sends to the brokers)")
        }
        if file == nil && !live { throw CommandError.usage("give a source: --brokers LIST --topic TOPIC, or --file DUMP") }
        if live && file == nil && topic == nil && targetLocation == nil {
            guard let configPath else { throw CommandError.usage("--topic names the dead-letter topic (e.g. feeds.dlq)") }
            let config = try loadWorkerConfiguration(configPath)
            let dlqs = Set(config.topics.values.map(\.deadLetterTopic)).sorted()
            throw CommandError.usage("--topic names the dead-letter topic: \(configPath) has \(dlqs.joined(separator: ", "))")
        }
        if let targetLocation, let topic, targetLocation.topic != topic {
            throw CommandError.usage("\(targetLocation) is not in --topic \(topic)")
        }
        if execute && !live { throw CommandError.usage("dlq redrive --execute needs --brokers (or --config) to send to") }
                if follow && file != nil { throw CommandError.usage("--follow reads a live topic (--brokers or --config), not a --file") }
    }

    // MARK: - Run

    func run() async throws -> ExitCode {
        var properties: [String: String] = [:]
        var brokers = self.brokers
        var config: WorkerConfiguration?
        if let configPath {
            let loaded = try loadWorkerConfiguration(configPath)
            properties = loaded.kafka
            brokers = brokers ?? loaded.bootstrapServers.joined(separator: ",")
            config = loaded
        }
        let source: DeadLetterSource =
            if let file { .file(file) } else {
                .live(brokers: brokers!, topic: topic ?? targetLocation!.topic, properties: properties)
            }
        // Progress shares the terminal with what stdout prints as it reads (list, --follow): there, only when
        // stdout goes elsewhere.
        let printsAsItReads = subcommand == .list && isatty(1) == 1
        var options = DeadLetterSource.ReadOptions(
            connectTimeout: connectTimeout, idleTimeout: timeout, progress: !printsAsItReads && !follow)
        // Partitions whose log no longer starts at offset 0: what is read is what is left, and the output says so.
        var expired: [Int32: Int64] = [:]
        options.expired = { partition, low in expired[partition] = low }
        // --type's check and the not-a-DLQ warning are counted as the dead letters stream by.
        var seenTypes = Set<String>()
        var bare = 0
        var read = 0
        var firstTopic: String?
        let observe: (DeadLetter) -> Void = { d in
            read += 1
            if let type = d.type { seenTypes.insert(type) }
            if d.origin == .none { bare += 1 }
            firstTopic = firstTopic ?? d.topic
        }
        let style = Style.forStandardOutput()
        let out = Output()
        defer { out.flush() }
        var code: ExitCode
        switch subcommand {
        case .list:
            code = try await list(source, options: options, out: out, style: style, observe: observe) {
                try checkTypes(seen: seenTypes)
            }
        case .show:
            if let target, let partition = target.partition, file == nil { options.only = (partition, target.offset) }
            code = try await show(source, options: options, out: out, style: style, observe: observe, config: config)
        case .stats:
            var stats = Stats()
            // Ctrl-C stops the read between records; the counts so far are printed, marked incomplete.
            let termination = TerminationFlag.install(secondSignalExits: true)
            options.shouldStop = { termination.isSet }
            var summary = try await source.read(options) { d in
                observe(d)
                if selected(d) { stats.add(d) }
                return true
            }
            Self.noteInterruption(&summary, by: termination)
            try checkTypes(seen: seenTypes)
            stats.cutShort = summary.cutShort
            stats.interrupted = summary.interrupted
            stats.expired = expired.values.reduce(0, +)
            render(stats, topic: source.topicName ?? stats.topic, out: out, style: style)
            code = try Self.incomplete(summary, out: out) ?? .success
        case .redrive:
            code = try await redrive(
                source, options: options, out: out, style: style, observe: observe, brokers: brokers, properties: properties, config: config
            ) { try checkTypes(seen: seenTypes) }
        }
        out.flush()
        let name = source.topicName ?? firstTopic ?? file ?? "the input"
        // A live show of a record without dead-letter headers showed its dead letter or the source record itself.
        var warnings = subcommand == .show && file == nil ? [] : Self.warnings(bare: bare, of: read, name: name)
        if !expired.isEmpty {
            let starts = expired.sorted { $0.key < $1.key }.map { "\(name)/\($0.key) starts at offset \($0.value)" }
            warnings.append(
                "\(expired.values.reduce(0, +)) earlier record(s) of \(name) expired before this read (retention: "
                    + starts.joined(separator: ", ") + ", not 0); what is shown is what is left")
        }
        for warning in warnings { printError("warning: \(warning)") }
        if failOnWarnings && !warnings.isEmpty {
            printError("dlq: failing (--fail-on warnings): \(warnings.count) warning(s)")
            return .findings
        }
        return code
    }

    /// A read cut short is never a success: says so on stderr and gives exit 69, or 130 when a signal stopped
    /// it (nil when the read was whole).
    static func incomplete(_ summary: DeadLetterSource.ReadSummary, out: Output) throws -> ExitCode? {
        guard let cutShort = summary.cutShort else { return nil }
        out.flush()
        printError("error: incomplete: \(cutShort)")
        return summary.interrupted ? .interrupted : .unavailable
    }

    /// Says why a read stopped early when a signal stopped it.
    static func noteInterruption(_ summary: inout DeadLetterSource.ReadSummary, by termination: TerminationFlag) {
        guard summary.interrupted else { return }
        summary.cutShort = "interrupted by \(termination.signalName) after \(summary.read) dead letter(s); the rest was not read"
    }

    /// A `--type` that neither this binary's catalogs nor the DLQ know is a typo, not "0 of N".
    /// After the read: `seen` are the types of every dead letter read.
    func checkTypes(seen: Set<String>) throws {
        let known = Set(SwitchyardCommand.catalogs.catalogs.flatMap(\.eventTypes)).union(seen)
        for type in filter.types.sorted() where !known.contains(type) {
            throw CommandError.usage(
                "--type '\(type)' is not an event type of this binary's catalogs nor of any dead letter read" + didYouMean(type, among: known.sorted()))
        }
    }

    /// What the input looks like when it does not look like a dead-letter topic.
    static func warnings(bare: Int, of count: Int, name: String) -> [String] {
        guard bare > 0 else { return [] }
        var text = "\(bare) of \(count) records in \(name) carry no dead-letter headers (switchyard.*, kafka_dlt-*, __connect.errors.*)"
        text += name.hasSuffix(".dlq") ? ": they are not dead letters" : ": is \(name) a dead-letter topic? (a DLQ is usually named \(name).dlq)"
        return [text]
    }

    /// The source options of this command line, to print commands that run as given.
    var sourceArguments: String {
        var words: [String] = []
        if let file { words += ["--file", file] }
        if let configPath { words += ["-c", configPath] }
        if let brokers { words += ["-b", brokers] }
        if let topic { words += ["-t", topic] }
        return words.map(shellQuoted).joined(separator: " ")
    }

    func selected(_ d: DeadLetter) -> Bool {
        if let fromOffset, d.offset < fromOffset { return false }
        return filter.matches(d)
    }

    /// Where a dead letter is: `feeds.dlq/0@3` (a dump without topics: `0:3`, which dlq show takes too).
    static func dlqPosition(_ d: DeadLetter, multiPartition: Bool = true) -> String {
        location(d).map(\.description) ?? "\(d.partition):\(d.offset)"
    }

    static func location(_ d: DeadLetter) -> RecordLocation? {
        d.topic.map { RecordLocation(topic: $0, partition: d.partition, offset: d.offset) }
    }

    /// The REDRIVES column: how many times the record was redriven, and from which dead letter it came back.
    static func redrives(_ d: DeadLetter) -> String {
        String(d.redriveCount) + (d.redriveOf.map { " (of \($0))" } ?? "")
    }

        static func dash(_ s: String?) -> String {
        guard let s else { return "-" }
        return s.isEmpty ? "(root)" : s
    }

    static func basics(_ d: DeadLetter) -> JSONObject {
        var o = JSONObject()
        o.setIfPresent("location", location(d)?.description)
        o.setIfPresent("dlqTopic", d.topic)
        o.set("dlqPartition", d.partition)
        o.set("dlqOffset", d.offset)
        o.setIfPresent("failedAt", d.failedAt.map { Timestamp($0).text })
        o.setIfPresent("ageSeconds", d.failedAt.map { Int(Date().timeIntervalSince($0)) })
        o.setIfPresent("originalTopic", d.originalTopic)
        o.setIfPresent("originalPartition", d.originalPartition)
        o.setIfPresent("originalOffset", d.originalOffset)
        o.setIfPresent("type", d.type)
        o.set("kind", d.kind)
        o.setIfPresent("path", d.path)
        o.setIfPresent("message", d.message)
        o.setIfPresent("exceptionClass", d.exceptionClass)
        o.set("redriveCount", d.redriveCount)
        o.setIfPresent("redriveOf", d.redriveOf)
        o.set("origin", d.origin.rawValue)
        return o
    }

    // MARK: list

    /// Prints each selected dead letter as it is read; with `--follow`, then each new one, until a signal.
    /// `beforeSummary` runs once the read ended, before the count line (the --type check).
    func list(
        _ source: DeadLetterSource, options: DeadLetterSource.ReadOptions, out: Output, style: Style,
        observe: (DeadLetter) -> Void, beforeSummary: () throws -> Void
    ) async throws -> ExitCode {
        var options = options
        // Following, a signal ends the output (exit 0); otherwise it stops the read between records: whole
        // rows are printed, then the count, marked incomplete (exit 130).
        let termination = TerminationFlag.install(secondSignalExits: !follow)
        options.shouldStop = { termination.isSet }
        if follow { options.follow = true }
        let table = StreamingTable(header: ["DEAD LETTER", "AGE", "ORIGINAL", "TYPE", "KIND", "REDRIVES", "PATH"], out: out, style: style)
        var shown = 0
        options.afterBatch = { [follow] in if follow { table.flush() } }
        var summary = try await source.read(options) { d in
            observe(d)
            guard selected(d) else { return true }
            shown += 1
            if json {
                out.line(Self.basics(d).bytes)
                if follow { out.flush() }
            } else {
                table.add([
                    Self.dlqPosition(d), relativeAge(d.failedAt), d.originalLocation, d.type ?? "-", d.kind, Self.redrives(d), Self.dash(d.path),
                ])
            }
            return true
        }
        table.flush()
        Self.noteInterruption(&summary, by: termination)
        try beforeSummary()
        if !json {
            let incomplete = summary.interrupted ? " (INCOMPLETE: interrupted)" : " (INCOMPLETE: the read was cut short)"
            out.line("\(shown) of \(summary.read) dead letter(s)" + (summary.cutShort == nil ? "" : incomplete))
        }
        if follow, termination.isSet { printError("dlq list: stopped following after \(summary.read) dead letter(s)") }
        return try Self.incomplete(summary, out: out) ?? .success
    }

    // MARK: show

    func show(
        _ source: DeadLetterSource, options: DeadLetterSource.ReadOptions, out: Output, style: Style, observe: (DeadLetter) -> Void,
        config: WorkerConfiguration?
    ) async throws -> ExitCode {
        guard let target else { return .usage }
        var matches: [DeadLetter] = []
        let summary = try await source.read(options) { d in
            observe(d)
            if d.offset == target.offset && (target.partition == nil || d.partition == target.partition)
                && (targetLocation == nil || d.topic == nil || d.topic == targetLocation?.topic)
            {
                matches.append(d)
            }
            // A location names one record: stop at it.
            return !(targetLocation != nil && !matches.isEmpty)
        }
        let named = targetLocation?.description ?? "offset \(target.partition.map { "\($0):" } ?? "")\(target.offset)"
        // A source location whose record is gone (retention) may still have its dead letter.
        if matches.isEmpty, summary.cutShort == nil, let location = targetLocation, !Self.isDeadLetterTopic(location.topic, config: config),
            case .live(let brokers, _, let properties) = source
        {
            let dlqTopic = config?.topics[location.topic]?.deadLetterTopic ?? "\(location.topic).dlq"
            if let letter = try await deadLetter(of: location, in: .live(brokers: brokers, topic: dlqTopic, properties: properties), options: options) {
                printError("\(named) is a record of \(location.topic) (no longer in it): showing its dead letter, \(Self.dlqPosition(letter))")
                matches = [letter]
            }
        }
        guard var d = matches.first else {
            if let cutShort = summary.cutShort {
                throw CommandError(.unavailable, "could not tell whether there is a dead letter at \(named): the read was cut short: \(cutShort)")
            }
            // Not found is about the data, not the command line: exit 1, as grep and kubectl do.
            var held = ""
            if let location = targetLocation, let marks = summary.watermarks[location.partition] {
                held = marks.low < marks.high
                    ? ": \(location.topic)/\(location.partition) holds offsets \(marks.low)…\(marks.high - 1)"
                    : ": \(location.topic)/\(location.partition) is empty"
            }
            throw CommandError(.findings, "no dead letter at \(named) (\(summary.read) read)\(held)")
        }
        guard matches.count == 1 else {
            let choices = matches.sorted { $0.partition < $1.partition }.map { Self.dlqPosition($0) }.joined(separator: " or ")
            throw CommandError.usage("offset \(target.offset) is in several partitions: name one, \(choices)")
        }
        // The location /status, the logs and the alerts give is the source record's (payments/0@3): show its
        // dead letter, else what this build makes of the record, never a made-up dead letter.
        if d.origin == .none, let topic = d.topic, case .live(let brokers, _, let properties) = source {
            let dlqTopic = config?.topics[topic]?.deadLetterTopic ?? "\(topic).dlq"
            let location = RecordLocation(topic: topic, partition: d.partition, offset: d.offset)
            if let letter = try await deadLetter(of: location, in: .live(brokers: brokers, topic: dlqTopic, properties: properties), options: options) {
                printError("\(named) is a record of \(topic): showing its dead letter, \(Self.dlqPosition(letter))")
                d = letter
            } else {
                return showSourceRecord(d, deadLetterTopic: dlqTopic, config: config, out: out, style: style)
            }
        }
        let printer = PayloadPrinter(reveal: reveal)
        let rendered = d.value.map { printer.render($0) }
        let highlight = rendered.flatMap { r in d.path.flatMap { PayloadPrinter.highlightIndex(r.lines, failurePath: $0) } }
        if json {
            var o = Self.basics(d)
            o.set("diagnosis", d.diagnosis)
            o.setIfPresent("consumerGroup", d.consumerGroup)
            o.set("headers", d.headers.map { h -> JSONObject in
                var x = JSONObject()
                x.set("name", h.name)
                x.set("value", h.value.map(Self.headerText))
                return x
            })
            o.set("redacted", !reveal)
            o.setIfPresent("key", d.key.map { reveal ? String(decoding: $0, as: UTF8.self) : "***" })
            if let rendered {
                o.set("payload", rendered.lines.map(\.text).joined(separator: "\n"))
                o.setIfPresent("payloadProblem", rendered.problem)
                o.setIfPresent("highlightLine", highlight.map { $0 + 1 })
            } else {
                o.set("payload", nil as String?)
            }
            setRevealedPayload(d.value, in: &o)
            out.line(o.bytes)
            return .success
        }
        out.line(style.bold("Dead letter \(Self.dlqPosition(d))") + "  (" + (d.origin == .none ? "no dead-letter headers" : "\(d.origin.rawValue) headers") + ")")
        var facts = Table(header: ["", ""])
        facts.rows.append(["Diagnosis", d.diagnosis])
        facts.rows.append(["Original", d.originalLocation + (d.originalTimestampMilliseconds.map { "  written " + Timestamp(Date(timeIntervalSince1970: Double($0) / 1000)).text } ?? "")])
        facts.rows.append(["Failed", (d.failedAt.map { Timestamp($0).text + " (" + relativeAge($0) + ")" } ?? "-") + (d.consumerGroup.map { "  group " + $0 } ?? "")])
        facts.rows.append(["Redrives", String(d.redriveCount) + (d.redriveOf.map { "  (redriven from \($0))" } ?? "")])
        facts.rows.append(["Key", d.key.map { reveal ? String(decoding: $0, as: UTF8.self) : "*** (\($0.count) bytes)" } ?? "(none)"])
        out.line(facts.render().split(separator: "\n").dropFirst().joined(separator: "\n"))
        out.line()
        out.line(style.bold("Headers"))
        var headers = Table(header: ["NAME", "VALUE"])
        for h in d.headers { headers.rows.append([h.name, h.value.map(Self.headerText) ?? "(null)"]) }
        out.line(d.headers.isEmpty ? "  (none)" : headers.render())
        out.line()
        out.line(style.bold("Payload") + (reveal ? "" : " (values redacted; --reveal to show them)"))
        guard let rendered else {
            out.line("  (null: a tombstone)")
            return .success
        }
        let marker = "◀ " + d.kind + (d.path.map { " at '\($0.isEmpty ? "(root)" : $0)'" } ?? "")
        for (i, line) in rendered.lines.enumerated() {
            if i == highlight {
                out.line(style.highlight("  " + line.text) + "   " + style.marker(marker))
            } else {
                out.line("  " + line.text)
            }
        }
        if let problem = rendered.problem { out.line(style.marker("  … \(problem)")) }
        printBytesIfNotJSON(d.value, out: out, style: style)
        return .success
    }

    /// With --reveal, the payload in JSON output: as JSON (`payloadValue`) when it is JSON, else as hex
    /// (`payloadHex`). Redacted output carries neither.
    func setRevealedPayload(_ value: [UInt8]?, in o: inout JSONObject) {
        guard reveal, let value else { return }
        if let json = PayloadPrinter.compactJSON(value) {
            o.set("payloadValue", RawJSON(bytes: json))
        } else {
            o.set("payloadHex", PayloadPrinter.hex(value))
        }
    }

    /// With --reveal, a payload that is not JSON is also shown as its bytes (as `xxd` prints them): the
    /// tolerant print above stops where the JSON does.
    func printBytesIfNotJSON(_ value: [UInt8]?, out: Output, style: Style) {
        guard reveal, let value, PayloadPrinter.compactJSON(value) == nil else { return }
        out.line()
        out.line(style.bold("Payload bytes") + " (\(value.count), not JSON):")
        for line in PayloadPrinter.hexDump(value) { out.line("  " + line) }
    }

    /// Whether `topic` is a dead-letter topic (named `….dlq`, or a DLQ of the config): no DLQ of it is looked for.
    static func isDeadLetterTopic(_ topic: String, config: WorkerConfiguration?) -> Bool {
        topic.hasSuffix(".dlq") || (config?.topics.values.contains { $0.deadLetterTopic == topic } ?? false)
    }

    /// The newest dead letter of `record` (by its original topic, partition and offset) in `dlq`; nil when there
    /// is none, or no such topic.
    func deadLetter(of record: RecordLocation, in dlq: DeadLetterSource, options: DeadLetterSource.ReadOptions) async throws -> DeadLetter? {
        var options = options
        options.only = nil
        options.progress = false
        var found: DeadLetter?
        do {
            try await dlq.read(options) { d in
                if d.originalTopic == record.topic && d.originalPartition == record.partition && d.originalOffset == record.offset { found = d }
                return true
            }
        } catch let error as CommandError where error.exitCode == .dataError {
            return nil  // no such DLQ topic
        }
        return found
    }

    /// A source record with no dead letter: what this build makes of it, its headers and its payload.
    func showSourceRecord(_ d: DeadLetter, deadLetterTopic: String, config: WorkerConfiguration?, out: Output, style: Style) -> ExitCode {
        let location = Self.dlqPosition(d)
        var checker = RedriveChecker(config: config)
        let (failure, unchecked) = checker.check(d, topic: d.topic ?? "")
        let verdict: String =
            if let failure {
                "\(Self.failureText(failure))" + (failure.type.map { " in \($0)" } ?? "") + ": \(failure.message)"
            } else if let unchecked {
                unchecked
            } else if d.value == nil {
                "a tombstone (skipped, not a failure)"
            } else {
                "decodes"
            }
        let printer = PayloadPrinter(reveal: reveal)
        let rendered = d.value.map { printer.render($0) }
        let highlight = rendered.flatMap { r in failure.flatMap { PayloadPrinter.highlightIndex(r.lines, failurePath: $0.path) } }
        if json {
            var o = JSONObject()
            o.set("location", location)
            o.set("deadLetter", nil as String?)
            o.set("deadLetterTopic", deadLetterTopic)
            o.set("outcome", failure != nil ? "failed" : unchecked != nil ? "unchecked" : d.value == nil ? "tombstone" : "decoded")
            o.setIfPresent("kind", failure?.kind.rawValue)
            o.setIfPresent("path", failure?.path)
            o.setIfPresent("type", failure?.type)
            o.setIfPresent("message", failure?.message)
            o.setIfPresent("timestamp", d.timestampMilliseconds.map { Timestamp(Date(timeIntervalSince1970: Double($0) / 1000)).text })
            o.set("redacted", !reveal)
            if let rendered {
                o.set("payload", rendered.lines.map(\.text).joined(separator: "\n"))
                o.setIfPresent("highlightLine", highlight.map { $0 + 1 })
            } else {
                o.set("payload", nil as String?)
            }
            setRevealedPayload(d.value, in: &o)
            out.line(o.bytes)
            return .success
        }
        out.line(style.bold("Record \(location)") + "  (a source record: no dead letter of it in \(deadLetterTopic))")
        var facts = Table(header: ["", ""])
        facts.rows.append(["This build", verdict])
        facts.rows.append(["Written", d.timestampMilliseconds.map { Timestamp(Date(timeIntervalSince1970: Double($0) / 1000)).text } ?? "-"])
        facts.rows.append(["Key", d.key.map { reveal ? String(decoding: $0, as: UTF8.self) : "*** (\($0.count) bytes)" } ?? "(none)"])
        out.line(facts.render().split(separator: "\n").dropFirst().joined(separator: "\n"))
        out.line()
        out.line(style.bold("Headers"))
        var headers = Table(header: ["NAME", "VALUE"])
        for h in d.headers { headers.rows.append([h.name, h.value.map(Self.headerText) ?? "(null)"]) }
        out.line(d.headers.isEmpty ? "  (none)" : headers.render())
        out.line()
        out.line(style.bold("Payload") + (reveal ? "" : " (values redacted; --reveal to show them)"))
        guard let rendered else {
            out.line("  (null: a tombstone)")
            return .success
        }
        let marker = failure.map { "◀ " + Self.failureText($0) } ?? ""
        for (i, line) in rendered.lines.enumerated() {
            out.line(i == highlight ? style.highlight("  " + line.text) + "   " + style.marker(marker) : "  " + line.text)
        }
        if let problem = rendered.problem { out.line(style.marker("  … \(problem)")) }
        printBytesIfNotJSON(d.value, out: out, style: style)
        return .success
    }

    /// A header value as text: UTF-8 when printable, else Spring's binary integers, else hex.
    static func headerText(_ bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self), !text.unicodeScalars.contains(where: { $0.value < 0x20 }) {
            return text
        }
        if bytes.count == 4 || bytes.count == 8, let value = DeadLetter.integer(bytes, width: bytes.count) { return String(value) }
        return "0x" + bytes.map { String($0, radix: 16).leftPadded(2) }.joined()
    }

    // MARK: stats

    struct Group: Hashable {
        var kind: String
        var path: String?
        var type: String?
    }

    /// Counts by kind, path and type, aggregated as dead letters are read (none is kept).
    struct Stats {
        var groups: [Group: (count: Int, topics: Set<String>, first: Date?, last: Date?, example: DeadLetter)] = [:]
        var byKind: [String: Int] = [:]
        var byType: [String: Int] = [:]
        var byPath: [String: Int] = [:]
        var byTopic: [String: Int] = [:]
        var count = 0
        var oldest: Date?
        var newest: Date?
        /// The DLQ topic of the first dead letter (a dump names it).
        var topic: String?
        /// Why the read ended before its end, when it did.
        var cutShort: String?
        /// Whether a signal stopped the read.
        var interrupted = false
        /// Records of the topic that expired before the read (its log starts after offset 0).
        var expired: Int64 = 0

        mutating func add(_ d: DeadLetter) {
            count += 1
            topic = topic ?? d.topic
            let g = Group(kind: d.kind, path: d.path, type: d.type)
            var entry = groups[g] ?? (0, [], nil, nil, d)
            entry.count += 1
            if let t = d.originalTopic { entry.topics.insert(t) }
            if let f = d.failedAt {
                entry.first = min(entry.first ?? f, f)
                entry.last = max(entry.last ?? f, f)
                oldest = min(oldest ?? f, f)
                newest = max(newest ?? f, f)
            }
            groups[g] = entry
            byKind[d.kind, default: 0] += 1
            byType[d.type ?? "-", default: 0] += 1
            byPath[DLQCommand.dash(d.path), default: 0] += 1
            byTopic[d.originalTopic ?? "-", default: 0] += 1
        }
    }

    func render(_ stats: Stats, topic: String?, out: Output, style: Style) {
        let (groups, byKind, byType, byPath, byTopic) = (stats.groups, stats.byKind, stats.byType, stats.byPath, stats.byTopic)
        let sortedGroups = groups.sorted {
            if $0.value.count != $1.value.count { return $0.value.count > $1.value.count }
            return ($0.key.kind, $0.key.path ?? "", $0.key.type ?? "") < ($1.key.kind, $1.key.path ?? "", $1.key.type ?? "")
        }
        func ranked(_ counts: [String: Int]) -> [(String, Int)] {
            counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { ($0.key, $0.value) }
        }
        if json {
            var o = JSONObject()
            o.setIfPresent("topic", topic)
            o.set("complete", stats.cutShort == nil)
            o.set("expired", stats.expired)
            o.setIfPresent("incomplete", stats.cutShort)
            o.set("records", stats.count)
            o.setIfPresent("oldest", stats.oldest.map { Timestamp($0).text })
            o.setIfPresent("newest", stats.newest.map { Timestamp($0).text })
            o.set("groups", sortedGroups.map { g, v -> JSONObject in
                var x = JSONObject()
                x.set("kind", g.kind)
                x.set("path", g.path)
                x.set("type", g.type)
                x.set("count", v.count)
                x.set("originalTopics", v.topics.sorted())
                x.setIfPresent("first", v.first.map { Timestamp($0).text })
                x.setIfPresent("last", v.last.map { Timestamp($0).text })
                x.set("exampleOffset", v.example.offset)
                x.set("examplePartition", v.example.partition)
                x.set("example", Self.dlqPosition(v.example))
                return x
            })
            for (name, counts) in [("byKind", byKind), ("byType", byType), ("byPath", byPath), ("byOriginalTopic", byTopic)] {
                o.set(name, ranked(counts).map { key, count -> JSONObject in
                    var x = JSONObject()
                    x.set("name", key)
                    x.set("count", count)
                    return x
                })
            }
            out.line(o.bytes)
            return
        }
        var headline = "\(stats.count) dead letter(s)" + (topic.map { " in \($0)" } ?? "")
        if let oldest = stats.oldest, let newest = stats.newest {
            headline += " (oldest \(relativeAge(oldest)), newest \(relativeAge(newest)))"
        }
        out.line(headline)
        if stats.cutShort != nil { out.line("INCOMPLETE: \(stats.interrupted ? "interrupted" : "the read was cut short"); these counts are partial") }
        if stats.expired > 0 { out.line("\(stats.expired) earlier record(s) expired before this read (retention): these counts cover what is left") }
        guard stats.count > 0 else { return }
        out.line()
        out.line(style.bold("What broke"))
        var table = Table(header: ["COUNT", "KIND", "PATH", "TYPE", "ORIGINAL TOPIC", "LAST", "EXAMPLE"])
        for (g, v) in sortedGroups {
            table.rows.append([
                String(v.count), g.kind, Self.dash(g.path), g.type ?? "-", v.topics.sorted().joined(separator: ","),
                relativeAge(v.last), Self.dlqPosition(v.example),
            ])
        }
        out.line(style.header(table.render()))
        if let first = sortedGroups.first {
            out.line()
            out.line("Show an example: switchyard dlq show \(Self.dlqPosition(first.value.example)) \(sourceArguments)")
        }
        for (title, counts) in [("By kind", byKind), ("By path", byPath), ("By type", byType)] {
            out.line()
            out.line(style.bold(title))
            var t = Table(header: ["COUNT", title.dropFirst(3).uppercased()])
            for (key, count) in ranked(counts) { t.rows.append([String(count), key]) }
            out.line(style.header(t.render()))
        }
    }
}

// MARK: - Terminal style

/// ANSI styling, only when stdout is a terminal and NO_COLOR is unset (https://no-color.org).
struct Style {
    var enabled: Bool

    static func forStandardOutput() -> Style {
        let noColor = ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        return Style(enabled: isatty(1) == 1 && !noColor)
    }

    private func wrap(_ text: String, _ code: String) -> String { enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
    func bold(_ text: String) -> String { wrap(text, "1") }
    func highlight(_ text: String) -> String { wrap(text, "1;31") }
    func marker(_ text: String) -> String { wrap(text, "33") }
    /// Bolds the first line of a rendered table.
    func header(_ table: String) -> String {
        guard enabled, let newline = table.firstIndex(of: "\n") else { return enabled ? bold(table) : table }
        return bold(String(table[..<newline])) + String(table[newline...])
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
