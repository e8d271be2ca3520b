import Foundation
import Switchyard
import SwitchyardTestSupport
import Testing

/// The command line at 3 a.m.: usage errors, suggestions that run as printed, and no
/// silent wrong answers. Each test runs the built binary and checks the exit code and the first
/// stderr line; a suggestion is then run exactly as printed.
@Suite(.serialized) struct OnCallTests {
    static let fixtures = CLI.packageRoot.appendingPathComponent("Tests/CLITests/Fixtures")
    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    static var feedsDLQ: String { fixture("feeds-dlq-two-partitions.kcat.jsonl") }
    static var payments: String { fixture("payments-two-partitions.kcat.jsonl") }

    static func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

    /// Splits a printed command line as a POSIX shell would (plain words and single quotes).
    static func words(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false
        var inWord = false
        for c in line {
            if quoted {
                if c == "'" { quoted = false } else { current.append(c) }
            } else if c == "'" {
                quoted = true
                inWord = true
            } else if c == " " {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(c)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }

    /// The suggestion of a usage error's first line: "… (did you mean 'X'?)".
    static func suggestion(_ stderr: String) throws -> String {
        let first = try #require(lines(stderr).first)
        return String(try #require(first.firstMatch(of: /did you mean '([^']+)'\?/)?.1))
    }

    /// A usage error: exit 64, exactly two stderr lines, the second the hint; the hint runs.
    static func expectUsage(_ result: CLI.Result, first: String, hint: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(result.exitCode == 64, "\(result.stderr)", sourceLocation: sourceLocation)
        let errorLines = lines(result.stderr)
        #expect(errorLines.count == 2, "one line and a hint, not the help: \(result.stderr)", sourceLocation: sourceLocation)
        #expect(errorLines.first == first, sourceLocation: sourceLocation)
        #expect(errorLines.last == hint, sourceLocation: sourceLocation)
        let command = try #require(hint.firstMatch(of: /^see 'switchyard (.*)'$/)?.1, sourceLocation: sourceLocation)
        let help = try CLI.run(words(String(command)))
        #expect(help.exitCode == 0 && help.stdout.hasPrefix("OVERVIEW: "), "the hint runs: \(command)", sourceLocation: sourceLocation)
    }

    // MARK: - Usage errors, did you mean, help X, short flags

    @Test func unknownOptionSaysWhatIsWrongSuggestsTheOptionAndTheSuggestionRuns() throws {
        let file = Self.fixture("feeds.ndjson")
        let wrong = try CLI.run(["replay", "--topc", "feeds", file])
        try Self.expectUsage(
            wrong, first: "error: unknown option '--topc' for 'switchyard replay' (did you mean '--topic'?)", hint: "see 'switchyard replay --help'")
        let fixed = try CLI.run(["replay", try Self.suggestion(wrong.stderr), "feeds", file])
        #expect(fixed.exitCode == 0, "\(fixed.stderr)")
        #expect(fixed.stdout.hasPrefix("16 records: 13 decoded, 1 unknown, 2 failed"))
    }

    @Test func unknownSubcommandsAreSuggestedAndTheSuggestionRuns() throws {
        let wrong = try CLI.run(["replya", "--help"])
        try Self.expectUsage(wrong, first: "error: unknown subcommand 'replya' (did you mean 'replay'?)", hint: "see 'switchyard --help'")
        #expect(try CLI.run([try Self.suggestion(wrong.stderr), "--help"]).exitCode == 0)

        let dlq = try CLI.run(["dlq", "lst", "--file", Self.feedsDLQ])
        try Self.expectUsage(dlq, first: "error: unknown dlq subcommand 'lst' (did you mean 'list'?)", hint: "see 'switchyard dlq --help'")
        let fixed = try CLI.run(["dlq", try Self.suggestion(dlq.stderr), "--file", Self.feedsDLQ])
        #expect(fixed.exitCode == 0 && fixed.stdout.contains("4 of 4 dead letter(s)"), "\(fixed.stderr)")

        try Self.expectUsage(
            try CLI.run([]), first: "error: name a subcommand: consume, replay, dlq, release, releases, status, schema, demo, broker, version, help, completion",
            hint: "see 'switchyard --help'")
        try Self.expectUsage(try CLI.run(["dlq"]), first: "error: name a dlq subcommand: list, show, stats, redrive", hint: "see 'switchyard dlq --help'")
    }

    @Test func anOptionOfAnotherSubcommandIsAUsageErrorOfThisOne() throws {
        try Self.expectUsage(
            try CLI.run(["dlq", "list", "--file", Self.feedsDLQ, "--reveal"]),
            first: "error: unknown option '--reveal' for 'switchyard dlq list'", hint: "see 'switchyard dlq list --help'")
        try Self.expectUsage(
            try CLI.run(["release", "-t", "payments", "--partition", "x"]),
            first: "error: --partition needs an integer P, not 'x'", hint: "see 'switchyard release --help'")
    }

    @Test func helpXIsXsHelpAndEverySubcommandHasExamplesAndExitCodes() throws {
        let root = try CLI.run(["help"])
        let rootHelp = try CLI.run(["--help"]).stdout
        #expect(root.exitCode == 0 && root.stdout == rootHelp)
        let names = ["consume", "replay", "dlq", "release", "releases", "status", "schema", "demo", "broker", "version", "help", "completion"]
        for name in names {
            #expect(root.stdout.contains("\n  \(name) "), "\(name) listed")
            let help = try CLI.run(["help", name])
            #expect(help.exitCode == 0, "\(name)")
            let own = try CLI.run([name, "--help"]).stdout
            #expect(help.stdout == own, "help \(name) is \(name) --help")
            #expect(help.stdout.hasPrefix("OVERVIEW: ") && help.stdout.contains("\nUSAGE: switchyard \(name)"), "\(name)")
            #expect(help.stdout.contains("\nEXAMPLES:\n") && help.stdout.contains("\nEXIT CODES:\n"), "\(name) has examples and exit codes")
        }
        for sub in ["list", "show", "stats", "redrive"] {
            let help = try CLI.run(["help", "dlq", sub])
            let own = try CLI.run(["dlq", sub, "--help"]).stdout
            #expect(help.exitCode == 0 && help.stdout == own)
            #expect(help.stdout.contains("USAGE: switchyard dlq \(sub) "))
            #expect(help.stdout.contains("\nEXAMPLES:\n  switchyard dlq \(sub) ") && help.stdout.contains("\nEXIT CODES:\n  0 "), "dlq \(sub)")
        }
        #expect(try CLI.run(["help", "schema", "check"]).stdout.contains("USAGE: switchyard schema check OLD NEW"))
        let unknown = try CLI.run(["help", "replya"])
        try Self.expectUsage(unknown, first: "error: unknown subcommand 'replya' (did you mean 'replay'?)", hint: "see 'switchyard help --help'")
        #expect(try CLI.run(["help", try Self.suggestion(unknown.stderr)]).exitCode == 0)
    }

    @Test func shortFlagsMeanTheirLongOnes() throws {
        let file = Self.fixture("feeds.ndjson")
        let long = try CLI.run(["replay", "--topic", "feeds", "--json", file])
        let short = try CLI.run(["replay", "-t", "feeds", "-o", "json", file])
        #expect(long.exitCode == 0 && short.exitCode == 0)
        #expect(long.stdout == short.stdout && !short.stdout.isEmpty)
        let listed = try CLI.run(["dlq", "list", "--file", Self.feedsDLQ, "-o", "json"])
        #expect(listed.exitCode == 0 && Self.lines(listed.stdout).count == 4)
        let unreachable = try CLI.run(["dlq", "list", "-b", "127.0.0.1:1", "-t", "feeds.dlq", "--connect-timeout", "1"])
        #expect(unreachable.exitCode == 69, "-b and -t reach the broker options: \(unreachable.stderr)")
        let config = try CLI.run(["replay", "-c", "/nonexistent/worker.json", file])
        #expect(config.exitCode == 78 && config.stderr.hasPrefix("error: /nonexistent/worker.json"), "\(config.stderr)")
    }

    @Test func theParserTakesInlineValuesDashDashAndRefusesRepeatsAndMissingValues() throws {
        let file = Self.fixture("feeds.ndjson")
        let inline = try CLI.run(["replay", "--topic=feeds", "--output=json", file])
        let spaced = try CLI.run(["replay", "--topic", "feeds", "--json", file])
        #expect(inline.exitCode == 0 && inline.stdout == spaced.stdout)
        // After --, an argument that looks like an option is a FILE (here one that does not exist: 65, named).
        let afterDashDash = try CLI.run(["replay", "-t", "feeds", "--", "--odd.ndjson"])
        #expect(afterDashDash.exitCode == 65 && afterDashDash.stderr.contains("--odd.ndjson"), "\(afterDashDash.stderr)")
        try Self.expectUsage(
            try CLI.run(["replay", "-t", "feeds", "-t", "payments", file]), first: "error: --topic given more than once",
            hint: "see 'switchyard replay --help'")
        try Self.expectUsage(
            try CLI.run(["replay", file, "--topic"]), first: "error: --topic needs a value (TOPIC)", hint: "see 'switchyard replay --help'")
        try Self.expectUsage(
            try CLI.run(["replay", "--json=yes", file]), first: "error: --json takes no value", hint: "see 'switchyard replay --help'")
        try Self.expectUsage(
            try CLI.run(["release", "-t", "payments", "--partition", "-1"]), first: "error: --partition must be ≥ 0, not -1",
            hint: "see 'switchyard release --help'")
        try Self.expectUsage(
            try CLI.run(["dlq", "show", "--file", Self.feedsDLQ]), first: "error: missing LOCATION: switchyard dlq show LOCATION",
            hint: "see 'switchyard dlq show --help'")
        try Self.expectUsage(
            try CLI.run(["dlq", "show", "0:0", "0:1", "--file", Self.feedsDLQ]), first: "error: unexpected argument '0:1'",
            hint: "see 'switchyard dlq show --help'")
    }

    // MARK: - Filter values are validated

    @Test(arguments: ["list", "stats", "redrive"])
    func aMisspeltKindIsRefusedWithTheKindItMeant(subcommand: String) throws {
        let wrong = try CLI.run(["dlq", subcommand, "--file", Self.feedsDLQ, "--kind", "typemismatch"])
        try Self.expectUsage(
            wrong,
            first: "error: --kind must be one of keyNotFound, valueNotFound, typeMismatch, dataCorrupted, unknownType, foreign, unknown, "
                + "not 'typemismatch' (did you mean 'typeMismatch'?)",
            hint: "see 'switchyard dlq \(subcommand) --help'")
        let fixed = try CLI.run(["dlq", subcommand, "--file", Self.feedsDLQ, "--kind", try Self.suggestion(wrong.stderr), "--json"])
        // The suggestion runs; a redrive then refuses the record, which this build still fails (exit 1).
        #expect(fixed.exitCode == (subcommand == "redrive" ? 1 : 0), "\(fixed.stderr)")
        if subcommand == "list" { #expect(Self.lines(fixed.stdout).count == 1, "the one typeMismatch") }
    }

    @Test func anUnknownTypeIsRefusedWithTheTypeItMeant() throws {
        let wrong = try CLI.run(["dlq", "list", "--file", Self.feedsDLQ, "--type", "post.likd"])
        try Self.expectUsage(
            wrong, first: "error: --type 'post.likd' is not an event type of this binary's catalogs nor of any dead letter read (did you mean 'post.liked'?)",
            hint: "see 'switchyard dlq list --help'")
        let fixed = try CLI.run(["dlq", "list", "--file", Self.feedsDLQ, "--type", try Self.suggestion(wrong.stderr)])
        #expect(fixed.exitCode == 0 && fixed.stdout.contains("3 of 4 dead letter(s)"), "\(fixed.stdout)")
        // A type of the catalogs that is not in this DLQ is a real answer: none.
        let none = try CLI.run(["dlq", "list", "--file", Self.feedsDLQ, "--type", "comment.added"])
        #expect(none.exitCode == 0 && none.stdout.contains("0 of 4 dead letter(s)"))
    }

    // MARK: - Suggested commands run; not found is not a usage error

    @Test func statsSuggestsACommandThatRunsAsPrinted() throws {
        let stats = try CLI.run(["dlq", "stats", "--file", Self.feedsDLQ])
        #expect(stats.exitCode == 0, "\(stats.stderr)")
        let suggestion = try #require(Self.lines(stats.stdout).first { $0.hasPrefix("Show an example: switchyard ") })
        #expect(suggestion == "Show an example: switchyard dlq show feeds.dlq/0@0 --file \(Self.feedsDLQ)")
        let shown = try CLI.run(Array(Self.words(String(suggestion.dropFirst("Show an example: switchyard ".count)))))
        #expect(shown.exitCode == 0, "\(shown.stderr)")
        #expect(shown.stdout.hasPrefix("Dead letter feeds.dlq/0@0"))
        // Every EXAMPLE cell is a location (topic/partition@offset) dlq show takes, on this two-partition DLQ.
        let all = stats.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let rows = all.drop { !$0.contains("EXAMPLE") }.dropFirst().prefix { !$0.isEmpty }
        #expect(rows.count == 2)
        for row in rows {
            let position = try #require(row.split(separator: " ").last.map(String.init))
            #expect(RecordLocation(position) != nil, "unambiguous: \(row)")
            #expect(try CLI.run(["dlq", "show", position, "--file", Self.feedsDLQ]).exitCode == 0, "dlq show \(position)")
        }
    }

    @Test func anAmbiguousOffsetNamesThePositionsThatRun() throws {
        let ambiguous = try CLI.run(["dlq", "show", "0", "--file", Self.feedsDLQ])
        try Self.expectUsage(
            ambiguous, first: "error: offset 0 is in several partitions: name one, feeds.dlq/0@0 or feeds.dlq/1@0", hint: "see 'switchyard dlq show --help'")
        for position in ["feeds.dlq/0@0", "feeds.dlq/1@0", "0:0", "1:0"] {
            #expect(try CLI.run(["dlq", "show", position, "--file", Self.feedsDLQ]).exitCode == 0)
        }
    }

    @Test func notFoundIsExitOneWithOneLine() throws {
        let missing = try CLI.run(["dlq", "show", "0:9", "--file", Self.feedsDLQ])
        #expect(missing.exitCode == 1)
        #expect(Self.lines(missing.stderr) == ["error: no dead letter at offset 0:9 (4 read)"])
        let empty = temporaryFile("empty.dlq.jsonl")
        try Data().write(to: empty)
        defer { try? FileManager.default.removeItem(at: empty) }
        let none = try CLI.run(["dlq", "show", "0", "--file", empty.path])
        #expect(none.exitCode == 1 && Self.lines(none.stderr).first == "error: no dead letter at offset 0 (0 read)", "\(none.stderr)")
    }

    // MARK: - Input that does not look like what was asked for

    @Test func replayWarnsWhenTheInputIsNotTheCatalogsAndFailOnWarningsFails() throws {
        let wrong = try CLI.run(["replay", "--topic", "feeds", Self.payments])
        #expect(wrong.exitCode == 0)
        #expect(
            Self.lines(wrong.stderr).first
                == "warning: 14 of 14 records (100%) of feeds have a type the feeds catalog does not know (most often 'payment.captured'): "
                + "is this the right --topic or --catalog?", "\(wrong.stderr)")
        let gated = try CLI.run(["replay", "--topic", "feeds", "--fail-on", "warnings", Self.payments])
        #expect(gated.exitCode == 1)
        #expect(Self.lines(gated.stderr).last == "replay: failing (--fail-on warnings): 1 warning(s)")
        let right = try CLI.run(["replay", "--fail-on", "warnings", Self.payments])
        #expect(right.exitCode == 0 && right.stderr.isEmpty, "the envelopes' own topic: \(right.stderr)")
    }

    @Test func dlqWarnsWhenTheTopicIsNotADeadLetterTopic() throws {
        let stats = try CLI.run(["dlq", "stats", "--file", Self.payments])
        #expect(stats.exitCode == 0)
        #expect(
            Self.lines(stats.stderr).first
                == "warning: 14 of 14 records in payments carry no dead-letter headers (switchyard.*, kafka_dlt-*, __connect.errors.*): "
                + "is payments a dead-letter topic? (a DLQ is usually named payments.dlq)", "\(stats.stderr)")
        let gated = try CLI.run(["dlq", "stats", "--file", Self.payments, "--fail-on", "warnings"])
        #expect(gated.exitCode == 1 && Self.lines(gated.stderr).last == "dlq: failing (--fail-on warnings): 1 warning(s)")
        let real = try CLI.run(["dlq", "stats", "--file", Self.feedsDLQ, "--fail-on", "warnings"])
        #expect(real.exitCode == 0 && real.stderr.isEmpty)
    }

    // MARK: - The worker's limits

    @Test func replayFailsARecordTheWorkerWouldFailByDefault() throws {
        let text = String(repeating: "x", count: 3_000_000)
        let record = #"{"type":"post.created","id":"evt_1","occurredAt":"2024-01-09T17:32:08Z","postId":"post_1","authorId":"usr_1","text":"\#(text)"}"#
        let file = temporaryFile("large.ndjson")
        try Data((record + "\n").utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let byDefault = try CLI.run(["replay", "-t", "feeds", "--records", file.path])
        let line = try ReplayCommandTests.object(byDefault.stdout)
        #expect(line["outcome"] as? String == "failed" && line["kind"] as? String == "dataCorrupted", "1 MiB, as the worker: \(byDefault.stdout)")
        let strict = try CLI.run(["replay", "-t", "feeds", "--policy", "strict", file.path])
        #expect(strict.exitCode == 1 && strict.stdout.contains("record larger than 1048576 bytes"), "\(strict.stdout)")
        let raised = try CLI.run(["replay", "-t", "feeds", "--max-record-bytes", "4000000", "--records", file.path])
        #expect(try ReplayCommandTests.object(raised.stdout)["outcome"] as? String == "decoded")
    }

    // MARK: - Republishing follows the worker's order rule

    @Test func republishStopsAPartitionAtAStrictFailureAndHasADryRun() throws {
        let file = Self.fixture("payments-strict-failure-in-partition-0.kcat.jsonl")
        let dry = try CLI.run(["replay", "--republish", "--dry-run", "--to", "payments.canonical", file])
        #expect(dry.exitCode == 1, "a strict failure is a finding")
        #expect(
            Self.lines(dry.stderr) == [
                "replay: payments/0 stopped at payments/0@2 (strict failure): 2 later record(s) held back, as the worker halts there",
                "replay: DRY RUN: would republish 5 record(s) (5 to payments.canonical); nothing was sent",
            ], "\(dry.stderr)")
        let emitted = try CLI.run(["replay", "--emit", file])
        #expect(Self.lines(emitted.stdout).count == 5, "--emit prints what republishing sends: not the 2 held back")
        try Self.expectUsage(
            try CLI.run(["replay", "--dry-run", file]), first: "error: --brokers, --to, --rate and --dry-run need --republish",
            hint: "see 'switchyard replay --help'")
    }

    // MARK: - Empty input, a terminal as standard input

    @Test func anEmptyInputWarnsAndATerminalIsNotWaitedOn() throws {
        let empty = temporaryFile("empty.ndjson")
        try Data().write(to: empty)
        defer { try? FileManager.default.removeItem(at: empty) }
        let result = try CLI.run(["replay", "-t", "feeds", empty.path])
        #expect(result.exitCode == 0 && result.stdout.hasPrefix("0 records"))
        #expect(Self.lines(result.stderr) == ["warning: no records in \(empty.path): nothing was checked"])
        #expect(try CLI.run(["replay", "-t", "feeds", "--fail-on", "warnings", empty.path]).exitCode == 1)
        let piped = try CLI.run(["replay", "-t", "feeds"], stdin: Data())
        #expect(Self.lines(piped.stderr) == ["warning: no records in standard input: nothing was checked"])

        // On a terminal without FILE: a usage error at once, not a silent wait. script(1) gives the child a pty.
        let started = Date()
        let tty = try awaitTool("/usr/bin/script", ["-qec", "\(CLI.binary.path) replay -t feeds", "/dev/null"])
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(tty.status == 64, "\(tty.stdout)")
        #expect(tty.stdout.contains("error: no FILE, and standard input is a terminal"), "\(tty.stdout)")
        #expect(tty.stdout.contains("see 'switchyard replay --help'"))
    }

    // MARK: - --fail-on for CI gates

    @Test func failOnUnknownAndFailedGatesALenientTopic() throws {
        let file = Self.fixture("feeds.ndjson")
        #expect(try CLI.run(["replay", "-t", "feeds", file]).exitCode == 0, "lenient: no findings by default")
        let gated = try CLI.run(["replay", "-t", "feeds", "--fail-on", "unknown,failed", file])
        #expect(gated.exitCode == 1)
        #expect(Self.lines(gated.stderr).last == "replay: failing (--fail-on failed,unknown): 1 unknown record(s), 2 failed record(s)")
        let wrong = try CLI.run(["replay", "-t", "feeds", "--fail-on", "unkown,failed", file])
        try Self.expectUsage(
            wrong, first: "error: --fail-on takes a comma-separated list of unknown, failed, lossy, warnings, not 'unkown' (did you mean 'unknown'?)",
            hint: "see 'switchyard replay --help'")
        let fixed = try CLI.run(["replay", "-t", "feeds", "--fail-on", try Self.suggestion(wrong.stderr), file])
        #expect(fixed.exitCode == 1 && fixed.stderr.contains("1 unknown record(s)"))
    }

    // MARK: - Completion and version --json

    @Test func bashCompletionCompletesSubcommandsOptionsAndValues() async throws {
        let bash = try BashCompletion()
        defer { bash.remove() }
        func complete(_ words: [String]) async throws -> [String] { try await bash.complete(words) }
        #expect(try await complete(["switchyard", "rep"]) == ["replay"])
        #expect(try await complete(["switchyard", "dlq", "st"]) == ["stats"])
        #expect(try await complete(["switchyard", "dlq", "list", "--ki"]) == ["--kind"])
        #expect(try await complete(["switchyard", "dlq", "list", "--kind", "type"]) == ["typeMismatch"])
        #expect(try await complete(["switchyard", "replay", "--policy", ""]) == ["strict", "lenient"])
        #expect(try await complete(["switchyard", "replay", "-t", "feeds", "--fail"]) == ["--fail-on"])
        #expect(try await complete(["switchyard", "dlq", "show", "--re"]) == ["--reveal"])
        #expect(try await complete(["switchyard", "dlq", "list", "--re"]) == [], "--reveal is dlq show's")
        #expect(try await complete(["switchyard", "completion", "z"]) == ["zsh"])
    }

    @Test func zshAndFishScriptsNameEveryOptionParseAndComplete() throws {
        let zsh = try CLI.run(["completion", "zsh"])
        let fish = try CLI.run(["completion", "fish"])
        #expect(zsh.exitCode == 0 && zsh.stdout.hasPrefix("#compdef switchyard"))
        #expect(fish.exitCode == 0)
        // Every option of every (sub)command's help appears in both scripts.
        for path in [["replay"], ["dlq", "list"], ["dlq", "show"], ["dlq", "stats"], ["dlq", "redrive"], ["release"], ["schema", "check"], ["consume"], ["demo"], ["broker"]] {
            let help = try CLI.run(path + ["--help"]).stdout
            let options = Set(help.matches(of: /\n  (?:-\w, )?\s*--([a-z-]+)/).map { String($0.1) }).subtracting(["help"])
            #expect(!options.isEmpty)
            for option in options {
                #expect(zsh.stdout.contains("--\(option)[") || zsh.stdout.contains(",--\(option)}'["), "zsh: \(path) --\(option)")
                #expect(fish.stdout.contains("-l \(option) ") || fish.stdout.contains("-l \(option)\n"), "fish: \(path) --\(option)")
            }
        }
        #expect(fish.stdout.contains("__fish_seen_subcommand_from dlq; and __fish_seen_subcommand_from list' -l kind -x -a 'keyNotFound"))

        // zsh parses its script; fish completes from its own (scripts/install-deps.sh installs both shells).
        let zshFile = temporaryFile("_switchyard")
        let fishFile = temporaryFile("switchyard.fish")
        try Data(zsh.stdout.utf8).write(to: zshFile)
        try Data(fish.stdout.utf8).write(to: fishFile)
        defer {
            try? FileManager.default.removeItem(at: zshFile)
            try? FileManager.default.removeItem(at: fishFile)
        }
        let parsed = try awaitTool("/usr/bin/zsh", ["-n", zshFile.path])
        #expect(parsed.status == 0, "zsh -n: \(parsed.stdout)")
        // zsh completes from it, in an interactive zsh (scripts/zsh-capture-completion.zsh).
        let functions = temporaryFile("zsh-functions")
        try FileManager.default.createDirectory(at: functions, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: functions) }
        try Data(zsh.stdout.utf8).write(to: functions.appendingPathComponent("_switchyard"))
        let capture = CLI.packageRoot.appendingPathComponent("scripts/zsh-capture-completion.zsh").path
        func zshComplete(_ line: String) throws -> [String] {
            let result = try awaitTool("/usr/bin/zsh", ["-f", capture, functions.path, line])
            #expect(result.status == 0, "\(line): \(result.stdout)")
            return Self.lines(result.stdout)
        }
        #expect(try zshComplete("switchyard rep") == ["replay"])
        #expect(try zshComplete("switchyard dlq li") == ["list"])
        #expect(try zshComplete("switchyard dlq list --ki") == ["--kind"])
        #expect(try zshComplete("switchyard dlq list --kind type") == ["typeMismatch"])
        #expect(try zshComplete("switchyard replay --policy ").sorted() == ["lenient", "strict"])
        #expect(try zshComplete("switchyard replay -t feeds --fail") == ["--fail-on"])
        #expect(try zshComplete("switchyard dlq show --re") == ["--reveal"])
        #expect(try zshComplete("switchyard completion f") == ["fish"])
        func fishComplete(_ line: String) throws -> [String] {
            let result = try awaitTool("/usr/bin/fish", ["-c", "source \(fishFile.path); complete -C '\(line)'"])
            #expect(result.status == 0, "\(result.stdout)")
            return Self.lines(result.stdout).map { String($0.split(separator: "\t")[0]) }
        }
        #expect(try fishComplete("switchyard rep") == ["replay"])
        #expect(try fishComplete("switchyard dlq li") == ["list"])
        #expect(try fishComplete("switchyard dlq list --kind type") == ["typeMismatch"])
        #expect(try fishComplete("switchyard replay --policy ").sorted() == ["lenient", "strict"])
        #expect(try fishComplete("switchyard dlq show --re") == ["--reveal"])
        #expect(try fishComplete("switchyard dlq list --re") == [], "--reveal is dlq show's")
        let wrong = try CLI.run(["completion", "bsh"])
        try Self.expectUsage(wrong, first: "error: no completion for 'bsh': bash, zsh or fish (did you mean 'bash'?)", hint: "see 'switchyard completion --help'")
        #expect(try CLI.run(["completion", try Self.suggestion(wrong.stderr)]).exitCode == 0)
    }

    @Test func versionJSONNamesLibrdkafkaAndTheCatalogs() throws {
        let result = try CLI.run(["version", "--json"])
        #expect(result.exitCode == 0)
        let o = try ReplayCommandTests.object(result.stdout)
        #expect(o["version"] as? String == "0.1.0")
        #expect((o["librdkafka"] as? String)?.hasPrefix("2.") == true, "\(result.stdout)")
        let catalogs = try #require(o["catalogs"] as? [[String: Any]])
        #expect(catalogs.map { $0["name"] as? String } == ["payments", "feeds"])
        #expect(catalogs.map { $0["policy"] as? String } == ["strict", "lenient"])
        #expect((catalogs[0]["eventTypes"] as? [String])?.contains("payment.captured") == true)
        #expect((catalogs[1]["eventTypes"] as? [String]) == ["post.created", "post.liked", "comment.added", "user.followed"])
        let plain = try CLI.run(["version"])
        #expect(plain.stdout == "switchyard 0.1.0 (librdkafka \(o["librdkafka"] as! String))\n")
    }
}
