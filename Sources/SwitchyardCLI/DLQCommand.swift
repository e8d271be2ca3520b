import Foundation
import Switchyard
import SwitchyardKafka

#if canImport(Glibc)
import Glibc
#endif

/// `switchyard dlq list|show|stats|redrive`: what was dead-lettered, why, where in the record, and sending
/// it back once fixed.
struct DLQCommand: Command {
    static let name = "dlq"
    static let abstract = "Inspect a dead-letter topic (list, show, stats) and redrive records to their original topic."
    static let usage = """
        USAGE: switchyard dlq list    SOURCE [FILTERS] [--follow] [--json]
               switchyard dlq show    SOURCE TOPIC/PARTITION@OFFSET [--reveal] [--json]
               switchyard dlq stats   SOURCE [FILTERS] [--json]
               switchyard dlq redrive SOURCE [FILTERS] [--execute] [--max-redrives N] [--rate N/s] [--json]

        Reads a dead-letter topic once, from the beginning to its end when the command starts, read-only
        (partitions assigned directly: no group is joined, nothing is committed); or a dump of one made with
        `kcat -C -J -e -t TOPIC.dlq`. Records are printed as they are read; a dead letter is named
        topic/partition@offset (feeds.dlq/0@3), the form `dlq show` takes.
        Understands switchyard.* headers, Spring Kafka's kafka_dlt-* and Kafka Connect's __connect.errors.*
        (their records have kind "foreign" and the exception message).

        SOURCE (one of):
          --brokers LIST --topic TOPIC   A live DLQ topic (e.g. --topic feeds.dlq).
          --config FILE --topic TOPIC    Brokers and Kafka settings (security) from the worker's config.
          --file DUMP                    A kcat -J dump (gzip allowed).

        SUBCOMMANDS:
          list      One line per dead letter: where it is, age, original topic/partition@offset, type, kind, path.
                    --follow: then the new ones as they arrive, until Ctrl-C (SIGINT) or SIGTERM (exit 0).
          show      One dead letter (feeds.dlq/0@3; a live read fetches only that record; with --brokers the
                    topic may come from the location instead of --topic): the diagnosis, every header, and the payload pretty-printed with its values
                    redacted (strings "***", numbers 0; keys, structure, true/false/null and the root "type"
                    kept) and the failing path marked. --reveal prints the values.
          stats     What broke: counts by kind, path and type together, then by each; most frequent first.
          redrive   Sends the selected records back to their original topic (switchyard.original.topic,
                    the original partition when it still exists). A DRY RUN unless --execute. Key, value and
                    other headers are kept; the previous diagnosis (switchyard.*, kafka_dlt-*,
                    __connect.errors.*) is dropped; switchyard.redrive.count is incremented. Records whose
                    count reached --max-redrives are refused (loop guard: the worker keeps the count when it
                    dead-letters a record again). Records stay in the DLQ: use --from to skip those already sent.

        FILTERS (list, stats, redrive):
          --kind KIND       keyNotFound, valueNotFound, typeMismatch, dataCorrupted, unknownType, foreign (repeatable).
          --type TYPE       The event type (repeatable).
          --path PATH       The failing path, e.g. amount.value (repeatable).
          --since WHEN      Failed within a duration (90s, 15m, 2h, 7d) or since an RFC 3339 time.
          --from OFFSET     Only DLQ offsets ≥ OFFSET.

        OPTIONS:
          --json            list: one JSON object per line (NDJSON); show and stats: one object;
                            redrive: one object per record (action "redrive", "sent" or "refused").
          --reveal          show: print payload values.
          --execute         redrive: send (default: dry run).
          --max-redrives N  redrive: refuse records redriven N times already. Default: 3.
          --rate N[/s]      redrive: at most N records per second.
          --follow          list: keep reading new dead letters until SIGINT/SIGTERM.
          --timeout S       Idle timeout: no new record for S seconds ends a live read with what was read
                            (a warning on stderr). Default: 10.
          --connect-timeout S  Seconds to reach the brokers (exit 69; a refused or unresolvable address fails
                            at once, with its cause). Default: 10.
          -h, --help        Show this help.

        Colour only when stdout is a terminal and NO_COLOR is not set; progress on stderr only when stderr is.

        EXAMPLES:
          switchyard dlq list --brokers localhost:9092 --topic feeds.dlq --follow
          switchyard dlq show --brokers localhost:9092 feeds.dlq/0@3

        EXIT CODES:
          0 success; 1 redrive refused some selected records (loop guard or no original topic);
          64 usage; 65 unreadable dump, missing topic, or no dead letter at the location shown;
          69 broker unavailable or a redrive delivery failed; 78 bad --config.
        """

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
    var maxRedrives: Int
    var rate: Double?
    var timeout: Duration
    var connectTimeout: Duration
    var target: (partition: Int32?, offset: Int64)?
    /// The dead letter `show` names as topic/partition@offset.
    var targetLocation: RecordLocation?
    var follow: Bool

    init(arguments: inout Arguments) throws {
        brokers = try arguments.option("--brokers")
        topic = try arguments.option("--topic")
        file = try arguments.option("--file")
        configPath = try arguments.option("--config")
        json = arguments.flag("--json")
        filter.kinds = Set(try arguments.options("--kind"))
        filter.types = Set(try arguments.options("--type"))
        filter.paths = Set(try arguments.options("--path"))
        if let since = try arguments.option("--since") {
            guard let date = DeadLetterFilter.parseSince(since) else {
                throw CommandError.usage("--since needs a duration (90s, 15m, 2h, 7d) or an RFC 3339 time, not '\(since)'")
            }
            filter.since = date
        }
        if let from = try arguments.option("--from") {
            guard let value = Int64(from), value >= 0 else { throw CommandError.usage("--from needs a DLQ offset ≥ 0") }
            fromOffset = value
        }
        reveal = arguments.flag("--reveal")
        follow = arguments.flag("--follow")
        execute = arguments.flag("--execute")
        let maxRedrives = try arguments.intOption("--max-redrives")
        self.maxRedrives = maxRedrives ?? 3
        rate = try parseRate(try arguments.option("--rate"))
        if let text = try arguments.option("--timeout") {
            guard let seconds = Double(text), seconds > 0 else { throw CommandError.usage("--timeout needs a positive number of seconds") }
            timeout = .milliseconds(Int64(seconds * 1000))
        } else {
            timeout = .seconds(10)
        }
        connectTimeout = try parseConnectTimeout(try arguments.option("--connect-timeout"))
        var positionals = try arguments.positionals()
        guard !positionals.isEmpty else {
            throw CommandError.usage("name a subcommand: \(Subcommand.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let name = positionals.removeFirst()
        guard let subcommand = Subcommand(rawValue: name) else {
            throw CommandError.usage("unknown dlq subcommand '\(name)' (list, show, stats, redrive)")
        }
        self.subcommand = subcommand
        if subcommand == .show {
            guard positionals.count == 1 else { throw CommandError.usage("dlq show needs one dead letter: \(RecordLocation.formHint)") }
            let text = positionals[0]
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
            if maxRedrives != nil { throw CommandError.usage("--max-redrives is for dlq redrive") }
        } else if !positionals.isEmpty {
            throw CommandError.usage("unexpected argument '\(positionals[0])'")
        }
    }

    func validate() throws {
        let live = brokers != nil || configPath != nil
        if file != nil && (live || topic != nil) { throw CommandError.usage("--file and --brokers/--config/--topic are exclusive") }
        if file == nil && !live { throw CommandError.usage("give a source: --brokers LIST --topic TOPIC, or --file DUMP") }
        if live && topic == nil && targetLocation == nil { throw CommandError.usage("--topic names the dead-letter topic (e.g. feeds.dlq)") }
        if let targetLocation, let topic, targetLocation.topic != topic {
            throw CommandError.usage("\(targetLocation) is not in --topic \(topic)")
        }
        if follow && subcommand != .list { throw CommandError.usage("--follow is for dlq list") }
        if follow && file != nil { throw CommandError.usage("--follow reads a live topic (--brokers or --config), not a --file") }
        if reveal && subcommand != .show { throw CommandError.usage("--reveal is for dlq show") }
        if subcommand != .redrive && (execute || rate != nil) { throw CommandError.usage("--execute and --rate are for dlq redrive") }
        if subcommand == .show && (!filter.kinds.isEmpty || !filter.types.isEmpty || !filter.paths.isEmpty || filter.since != nil || fromOffset != nil) {
            throw CommandError.usage("dlq show takes an OFFSET, not filters")
        }
        if maxRedrives < 1 { throw CommandError.usage("--max-redrives must be at least 1") }
    }

    // MARK: - Run

    func run() async throws -> ExitCode {
        var properties: [String: String] = [:]
        var brokers = self.brokers
        if let configPath {
            do {
                let config = try WorkerConfiguration.load(path: configPath, catalogs: SwitchyardCommand.catalogs)
                properties = config.kafka
                brokers = brokers ?? config.brokers
            } catch {
                throw CommandError(.config, "\(configPath): \(error)")
            }
        }
        let source: DeadLetterSource =
            if let file { .file(file) } else {
                .live(brokers: brokers!, topic: topic ?? targetLocation!.topic, properties: properties)
            }
        var options = DeadLetterSource.ReadOptions(connectTimeout: connectTimeout, idleTimeout: timeout, progress: true)
        let style = Style.forStandardOutput()
        let out = Output()
        defer { out.flush() }
        switch subcommand {
        case .list:
            return try await list(source, options: options, out: out, style: style)
        case .show:
            if let target, let partition = target.partition, file == nil { options.only = (partition, target.offset) }
            return try await show(source, options: options, out: out, style: style)
        case .stats:
            var stats = Stats()
            let summary = try await source.read(options) { d in
                if selected(d) { stats.add(d) }
                return true
            }
            render(stats, total: summary.read, topic: source.topicName ?? stats.topic, out: out, style: style)
            return .success
        case .redrive:
            let letters = try await source.readAll(connectTimeout: connectTimeout, idleTimeout: timeout)
            return try await redrive(letters.filter(selected), out: out, style: style, brokers: brokers, properties: properties)
        }
    }

    func selected(_ d: DeadLetter) -> Bool {
        if let fromOffset, d.offset < fromOffset { return false }
        return filter.matches(d)
    }

    /// Where a dead letter is: `feeds.dlq/0@3` (a dump without topics: `0@3`).
    static func dlqPosition(_ d: DeadLetter, multiPartition: Bool = true) -> String {
        location(d).map(\.description) ?? "\(d.partition)@\(d.offset)"
    }

    static func location(_ d: DeadLetter) -> RecordLocation? {
        d.topic.map { RecordLocation(topic: $0, partition: d.partition, offset: d.offset) }
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
        o.set("origin", d.origin.rawValue)
        return o
    }

    // MARK: list

    /// Prints each selected dead letter as it is read; with `--follow`, then each new one, until a signal.
    func list(_ source: DeadLetterSource, options: DeadLetterSource.ReadOptions, out: Output, style: Style) async throws -> ExitCode {
        var options = options
        var termination: TerminationFlag?
        if follow {
            let flag = TerminationFlag.install()
            termination = flag
            options.follow = true
            options.shouldStop = { flag.isSet }
        }
        let table = StreamingTable(header: ["DEAD LETTER", "AGE", "ORIGINAL", "TYPE", "KIND", "PATH"], out: out, style: style)
        var shown = 0
        options.afterBatch = { [follow] in if follow { table.flush() } }
        let summary = try await source.read(options) { d in
            guard selected(d) else { return true }
            shown += 1
            if json {
                out.line(Self.basics(d).bytes)
                if follow { out.flush() }
            } else {
                table.add([Self.dlqPosition(d), relativeAge(d.failedAt), d.originalLocation, d.type ?? "-", d.kind, Self.dash(d.path)])
            }
            return true
        }
        table.flush()
        if !json {
            out.line("\(shown) of \(summary.read) dead letter(s)")
        }
        if let termination, termination.isSet { printError("dlq list: stopped following after \(summary.read) dead letter(s)") }
        return .success
    }

    // MARK: show

    func show(_ source: DeadLetterSource, options: DeadLetterSource.ReadOptions, out: Output, style: Style) async throws -> ExitCode {
        guard let target else { return .usage }
        var matches: [DeadLetter] = []
        let summary = try await source.read(options) { d in
            if d.offset == target.offset && (target.partition == nil || d.partition == target.partition)
                && (targetLocation == nil || d.topic == nil || d.topic == targetLocation?.topic)
            {
                matches.append(d)
            }
            // A location names one record: stop at it.
            return !(targetLocation != nil && !matches.isEmpty)
        }
        let named = targetLocation?.description ?? "offset \(target.partition.map { "\($0):" } ?? "")\(target.offset)"
        guard let d = matches.first else {
            throw CommandError(.dataError, "no dead letter at \(named) (\(summary.read) read)")
        }
        guard matches.count == 1 else {
            throw CommandError.usage(
                "offset \(target.offset) is in several partitions: name one, e.g. \(matches.map { Self.dlqPosition($0) }.joined(separator: " or "))")
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
            out.line(o.bytes)
            return .success
        }
        out.line(style.bold("Dead letter \(Self.dlqPosition(d))") + "  (\(d.origin.rawValue) headers)")
        var facts = Table(header: ["", ""])
        facts.rows.append(["Diagnosis", d.diagnosis])
        facts.rows.append(["Original", d.originalLocation + (d.originalTimestampMilliseconds.map { "  written " + Timestamp(Date(timeIntervalSince1970: Double($0) / 1000)).text } ?? "")])
        facts.rows.append(["Failed", (d.failedAt.map { Timestamp($0).text + " (" + relativeAge($0) + ")" } ?? "-") + (d.consumerGroup.map { "  group " + $0 } ?? "")])
        facts.rows.append(["Redrives", String(d.redriveCount)])
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
        var groups: [Group: (count: Int, topics: Set<String>, first: Date?, last: Date?, example: String)] = [:]
        var byKind: [String: Int] = [:]
        var byType: [String: Int] = [:]
        var byPath: [String: Int] = [:]
        var byTopic: [String: Int] = [:]
        var count = 0
        var oldest: Date?
        var newest: Date?
        /// The DLQ topic of the first dead letter (a dump names it).
        var topic: String?

        mutating func add(_ d: DeadLetter) {
            count += 1
            topic = topic ?? d.topic
            let g = Group(kind: d.kind, path: d.path, type: d.type)
            var entry = groups[g] ?? (0, [], nil, nil, DLQCommand.dlqPosition(d))
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

    func render(_ stats: Stats, total: Int, topic: String?, out: Output, style: Style) {
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
                x.set("example", v.example)
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
        guard stats.count > 0 else { return }
        out.line()
        out.line(style.bold("What broke"))
        var table = Table(header: ["COUNT", "KIND", "PATH", "TYPE", "ORIGINAL TOPIC", "LAST", "EXAMPLE"])
        for (g, v) in sortedGroups {
            table.rows.append([
                String(v.count), g.kind, Self.dash(g.path), g.type ?? "-", v.topics.sorted().joined(separator: ","),
                relativeAge(v.last), "dlq show \(v.example)",
            ])
        }
        out.line(style.header(table.render()))
        for (title, counts) in [("By kind", byKind), ("By path", byPath), ("By type", byType)] {
            out.line()
            out.line(style.bold(title))
            var t = Table(header: ["COUNT", title.dropFirst(3).uppercased()])
            for (key, count) in ranked(counts) { t.rows.append([String(count), key]) }
            out.line(style.header(t.render()))
        }
    }

    // MARK: redrive

    func redrive(_ letters: [DeadLetter], out: Output, style: Style, brokers: String?, properties: [String: String]) async throws -> ExitCode {
        var publisher: Publisher?
        var partitionCounts: [String: Int] = [:]
        if execute || brokers != nil {
            guard let brokers else {
                throw CommandError.usage("dlq redrive --execute needs --brokers (or --config) to send to")
            }
            if execute {
                publisher = try await Publisher.connect(
                    brokers: brokers, properties: properties, clientID: "switchyard-redrive", rate: rate, connectTimeout: connectTimeout)
                partitionCounts = publisher!.partitionCounts
            }
        }
        let multi = Set(letters.map(\.partition)).count > 1
        var table = Table(header: ["DLQ OFFSET", "TO", "REDRIVES", "TYPE", "KIND", "PATH", "ACTION"])
        var sent = 0
        var refused = 0
        var lastOffset: Int64?
        do {
            for d in letters {
                var o = Self.basics(d)
                let position = Self.dlqPosition(d, multiPartition: multi)
                var action: String
                var to = "-"
                if d.redriveCount >= maxRedrives {
                    action = "refused: redriven \(d.redriveCount) time(s), limit \(maxRedrives)"
                    refused += 1
                    o.set("action", "refused")
                    o.set("reason", "redrive limit reached")
                } else if let record = d.redriveRecord(partitionCounts: partitionCounts) {
                    to = record.topic + (record.partition.map { "/\($0)" } ?? "")
                    o.set("to", record.topic)
                    o.setIfPresent("toPartition", record.partition)
                    o.set("newRedriveCount", d.redriveCount + 1)
                    if let publisher {
                        try await publisher.send(record)
                        action = "sent"
                        o.set("action", "sent")
                    } else {
                        action = "would send"
                        o.set("action", "redrive")
                    }
                    sent += 1
                    lastOffset = d.offset
                } else {
                    action = "refused: no original topic in the headers"
                    refused += 1
                    o.set("action", "refused")
                    o.set("reason", "no original topic")
                }
                if json {
                    out.line(o.bytes)
                } else {
                    let counts = to == "-" ? String(d.redriveCount) : "\(d.redriveCount)→\(d.redriveCount + 1)"
                    table.rows.append([position, to, counts, d.type ?? "-", d.kind, Self.dash(d.path), action])
                }
            }
            try await publisher?.finish()
        } catch {
            out.flush()
            await publisher?.abandon()
            throw error
        }
        if !json {
            if !letters.isEmpty { out.line(style.header(table.render(indent: ""))) }
            if execute {
                out.line("sent \(sent) record(s) to their original topic(s); refused \(refused)")
                if let lastOffset { out.line("they stay in the DLQ: next time add --from \(lastOffset + 1) to skip them") }
            } else {
                out.line(style.bold("DRY RUN") + ": \(sent) record(s) would be redriven, \(refused) refused. Add --execute to send.")
            }
        } else {
            out.flush()
            printError(execute ? "redrive: sent \(sent), refused \(refused)" : "redrive (dry run): would send \(sent), refused \(refused)")
        }
        return refused > 0 ? .findings : .success
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
