import Foundation
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// Every command printed in a `--help` page's EXAMPLES, in the README and in docs/ runs as printed, on the
/// embedded broker and the fixtures under the names the documentation uses, and ends as the documentation says (an `error:` after it: that error's exit code).
@Suite(.serialized, .timeLimit(.minutes(10))) struct DocumentedCommandsTests {
    /// A documented command line and what it should end with.
    struct Documented: CustomStringConvertible {
        var line: String
        var source: String
        /// nil: 0 or 1 (a finding is a documented outcome); else exactly this.
        var exitCode: Int32?
        var description: String { "\(source): \(line)" }
    }

    /// Every EXAMPLES line of every help page (the root's subcommands, and theirs).
    static func helpExamples() throws -> [Documented] {
        let root = try CLI.run(["help"]).stdout
        let section = root.components(separatedBy: "SUBCOMMANDS:\n")[1].components(separatedBy: "\n\n")[0]
        // A name starts at column 2; wrapped abstracts are indented further.
        let names = section.split(separator: "\n").filter { !$0.hasPrefix("   ") }.compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(names.count == 12)
        var paths = names.map { [$0] }
        for name in names {
            let help = try CLI.run([name, "--help"]).stdout
            guard let subs = help.components(separatedBy: "SUBCOMMANDS:\n").dropFirst().first else { continue }
            for line in subs.components(separatedBy: "\n\n")[0].split(separator: "\n") where !line.hasPrefix("   ") {
                paths.append([name, String(line.split(separator: " ")[0])])
            }
        }
        #expect(paths.count == 17, "12 subcommands, 4 of dlq, 1 of schema")
        var examples: [Documented] = []
        for path in paths {
            let help = try CLI.run(path + ["--help"]).stdout
            let section = try #require(help.components(separatedBy: "\nEXAMPLES:\n").dropFirst().first, "\(path) has examples")
            let lines = section.components(separatedBy: "\n\n")[0].split(separator: "\n").filter { $0.hasPrefix("  switchyard ") }
            #expect(!lines.isEmpty, "\(path)")
            examples += lines.map { Documented(line: String($0.dropFirst(2)), source: "switchyard \(path.joined(separator: " ")) --help") }
        }
        return examples
    }

    /// The Markdown files whose commands must run as printed: the README and everything under docs/, but the
    /// tutorial, which scripts/tutorial-test.sh follows step by step in a package of its own.
    static func documentationFiles() throws -> [URL] {
        let root = CLI.packageRoot
        var files = [root.appendingPathComponent("README.md")]
        let docs = root.appendingPathComponent("docs")
        let enumerator = try #require(FileManager.default.enumerator(at: docs, includingPropertiesForKeys: nil))
        for case let url as URL in enumerator where url.pathExtension == "md" && url.lastPathComponent != "tutorial.md" {
            files.append(url)
        }
        return files.sorted { $0.path < $1.path }
    }

    /// The marker that exempts the code block right below it, with the reason it cannot run here.
    static let notRunMarker = "<!-- not run in CI:"

    /// The commands of the README and docs/: `$ …` lines of console blocks (with the exit code their
    /// printed error implies) and the lines of sh blocks, except blocks under a `not run in CI` marker.
    static func documentationCommands() throws -> (commands: [Documented], exempt: [String]) {
        var commands: [Documented] = []
        var exempt: [String] = []
        for file in try documentationFiles() {
            let source = String(file.path.dropFirst(CLI.packageRoot.path.count + 1))
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            var block: String?
            var skipped = false
            var previous = ""
            for (i, line) in lines.enumerated() {
                if line.hasPrefix("```") {
                    if block == nil {
                        block = String(line.dropFirst(3))
                        skipped = previous.hasPrefix(notRunMarker)
                        if skipped {
                            let reason = previous.dropFirst(notRunMarker.count).replacingOccurrences(of: "-->", with: "")
                            #expect(!reason.trimmingCharacters(in: .whitespaces).isEmpty, "\(source):\(i): a marker says why")
                            exempt.append("\(source):\(i + 1)")
                        }
                    } else {
                        block = nil
                    }
                    previous = line
                    continue
                }
                if !line.isEmpty { previous = line }
                if skipped { continue }
                if let block, block != "console", block != "sh", line.hasPrefix("$ ") {
                    Issue.record("\(source):\(i + 1): a command in a ```\(block) block: make it console or sh, or mark it not run")
                }
                if block == "console", line.hasPrefix("$ ") {
                    let next = i + 1 < lines.count ? lines[i + 1] : ""
                    let code: Int32? =
                        next.hasPrefix("error: refused") ? 1 : next.hasPrefix("error: cannot reach") ? 69 : next.hasPrefix("error: ") ? 64 : nil
                    commands.append(Documented(line: String(line.dropFirst(2)), source: "\(source):\(i + 1)", exitCode: code))
                } else if block == "sh", !line.isEmpty {
                    let command = line.components(separatedBy: "  #")[0].trimmingCharacters(in: .whitespaces)
                    #expect(!command.hasSuffix("\\"), "\(source):\(i + 1): one command per line, or a not-run marker")
                    commands.append(Documented(line: command, source: "\(source):\(i + 1)"))
                }
            }
        }
        return (commands, exempt)
    }

    /// The marker is honoured, and only on the block right below it.
    @Test func aMarkedBlockIsExemptAndOnlyThatOne() throws {
        let (commands, exempt) = try Self.documentationCommands()
        #expect(exempt.contains { $0.hasPrefix("README.md:") }, "\(exempt)")
        #expect(!commands.contains { $0.line.hasPrefix("make ") }, "make targets are marked: CI runs them itself")
        #expect(commands.contains { $0.source.hasPrefix("README.md:") && $0.line.hasPrefix("switchyard dlq stats") })
        #expect(commands.contains { $0.source.hasPrefix("docs/howto/on-call.md:") })
        #expect(commands.contains { $0.source.hasPrefix("docs/howto/replay.md:") })
    }

    @Test func everyDocumentedCommandRunsAsPrinted() async throws {
        let documented = try Self.helpExamples() + Self.documentationCommands().commands
        #expect(documented.count >= 40, "\(documented.count)")

        let broker = try EmbeddedBroker.make(
            brokers: 1,
            topics: [
                "payments": 2, "payments.dlq": 1, "payments.canonical": 2, "feeds": 2, "feeds.dlq": 1, "switchyard.control": 1,
            ])
        try await Self.fill(broker)
        let directory = temporaryFile("documented")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent(".zfunc"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent(".config/fish/completions"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        // Long-running commands (the worker, the broker) run for a few seconds and are stopped with SIGTERM;
        // the demo's example is what DemoCommandTests runs.
        let longRunning = ["switchyard consume ", "switchyard broker "]
        for command in documented where !command.line.hasPrefix("switchyard demo ") {
            try Self.placeFixtures(in: directory, broker: broker.bootstrapServers)
            var line = command.line
            for (placeholder, value) in [("127.0.0.1:34527", broker.bootstrapServers), ("localhost:9092", broker.bootstrapServers), ("BROKER", broker.bootstrapServers)] {
                line = line.replacingOccurrences(of: placeholder, with: value)
            }
            // `dlq list --follow` runs until a signal, like the worker.
            if longRunning.contains(where: line.hasPrefix) || line.contains(" --follow") {
                line = "\(line) & pid=$!; sleep 4; kill -TERM $pid; wait $pid"
            }
            // The schema examples name the repository's Schemas directory and git history.
            let cwd = line.contains("schema check") ? CLI.packageRoot : directory
            let result = try await Self.shell(line, cwd: cwd, home: directory)
            if let expected = command.exitCode {
                #expect(result.status == expected, "\(command) → \(result.status): \(result.output)")
            } else {
                #expect(result.status == 0 || result.status == 1, "\(command) → \(result.status): \(result.output)")
                #expect(!result.output.contains("error: "), "\(command): \(result.output)")
            }
        }
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent(".zfunc/_switchyard").path))
    }

    /// The files the documentation names, in `directory`, fresh for each command.
    static func placeFixtures(in directory: URL, broker: String) throws {
        let files = [
            ("payments.jsonl", "payments-two-partitions.kcat.jsonl"), ("payments-halting.jsonl", "payments-strict-failure-in-partition-0.kcat.jsonl"),
            ("payments.ndjson", "payments.ndjson"), ("feeds.ndjson", "feeds.ndjson"), ("feeds.dlq.jsonl", "feeds-dlq-two-partitions.kcat.jsonl"),
            ("status.json", "worker-status-halted.json"),
        ]
        for (name, fixture) in files {
            let target = directory.appendingPathComponent(name)
            try? FileManager.default.removeItem(at: target)
            try FileManager.default.copyItem(atPath: OnCallTests.fixture(fixture), toPath: target.path)
        }
        let config = #"{"brokers":"\#(broker)","groupId":"switchyard-demo","topics":{"payments":{"catalog":"payments"},"feeds":{"catalog":"feeds"}}}"#
        try Data(config.utf8).write(to: directory.appendingPathComponent("worker.json"))
    }

    /// The demo's shape: feeds.dlq holds the fixture dead letters (one partition), feeds holds records
    /// without dead-letter headers, payments/1 is halted at 20 for group switchyard-demo.
    static func fill(_ broker: EmbeddedBroker) async throws {
        let producer = try KafkaProducer.make(
            configuration: KafkaProducerConfiguration(
                kafka: KafkaConfiguration(bootstrapServers: [broker.bootstrapServers], clientID: "fixtures", logLevel: .error)),
            logger: NoOpKafkaLogger())
        let dump = try String(contentsOfFile: OnCallTests.fixture("feeds-dlq-two-partitions.kcat.jsonl"), encoding: .utf8)
        for line in dump.split(separator: "\n") {
            let o = try ReplayCommandTests.object(String(line))
            let flat = try #require(o["headers"] as? [String])
            let headers = stride(from: 0, to: flat.count, by: 2).map { KafkaHeader(name: flat[$0], string: flat[$0 + 1]) }
            let payload = try #require(o["payload"] as? String)
            _ = try await producer.send(KafkaProducerRecord(topic: "feeds.dlq", partition: 0, key: nil, value: Array(payload.utf8), headers: headers))
        }
        let feeds = try String(contentsOfFile: OnCallTests.fixture("feeds.ndjson"), encoding: .utf8)
        for line in feeds.split(separator: "\n").prefix(4) {
            _ = try await producer.send(KafkaProducerRecord(topic: "feeds", partition: 0, key: nil, value: Array(line.utf8)))
        }
        let halt = [
            ("switchyard.original.topic", "payments"), ("switchyard.original.partition", "1"), ("switchyard.original.offset", "20"),
            ("switchyard.error.kind", "typeMismatch"), ("switchyard.error.path", "amount.value"), ("switchyard.error.type", "payment.captured"),
            ("switchyard.consumer.group", "switchyard-demo"), ("switchyard.failed.at", "2026-01-01T00:00:00Z"),
        ].map { KafkaHeader(name: $0.0, string: $0.1) }
        _ = try await producer.send(KafkaProducerRecord(topic: "payments.dlq", partition: 0, key: nil, value: Array("{}".utf8), headers: halt))
        await producer.close()
    }

    /// Runs `line` with bash (the documentation's shell), the built binary first on the PATH.
    static func shell(_ line: String, cwd: URL, home: URL) async throws -> (status: Int32, output: String) {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                do {
                    var environment = ProcessInfo.processInfo.environment
                    environment["PATH"] = CLI.binary.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
                    environment["HOME"] = home.path
                    // As in the terminal the documentation shows: release names the operator from $USER.
                    if (environment["USER"] ?? "").isEmpty { environment["USER"] = "oncall" }
                    let result = try awaitTool("/bin/bash", ["-c", line], cwd: cwd, environment: environment)
                    continuation.resume(returning: (result.status, result.stdout))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
