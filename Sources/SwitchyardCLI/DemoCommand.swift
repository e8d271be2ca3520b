import Foundation
import Switchyard
import SwitchyardCatalog
import SwitchyardKafka
import SwitchyardHTTP

/// `switchyard demo`: the whole flow on an embedded broker, for a first look.
struct DemoCommand: Command {
    static let spec = CommandSpec(
        ["demo"], abstract: "Run the whole flow on an embedded broker and show what happened.",
        discussion: """
            Starts an embedded Kafka-protocol broker, produces a realistic mixed stream (current, legacy,
            future, unknown types, malformed) to `payments` (strict) and `feeds` (lenient), runs the worker
            on it, and prints what happened: events per type, unknown types, dead letters by kind and path,
            and the halted payments partition. Then tells you how to look at /metrics, /status and the DLQ.

            A binary built with other catalogs (SwitchyardCommand.main(catalogs:)) has no built-in stream:
            give each catalog's records with --records, and the demo produces them to a topic named after
            the catalog (3 partitions, round robin), under the catalog's default policy.
            """,
        options: [
            OptionSpec("--metrics-port", .integer("N", minimum: 0), help: "Where /metrics, /status are served. Default: 9464 (0: any free port)."),
            OptionSpec("--feeds", .integer("N", minimum: 1), help: "Records produced to feeds. Default: 300."),
            OptionSpec("--payments", .integer("N", minimum: 4), help: "Records produced to each of the 3 payments partitions. Default: 30."),
            OptionSpec("--records", .text("CATALOG=FILE"), repeatable: true, help: "NDJSON record values (one per line) for the catalog; replaces the built-in stream."),
            OptionSpec("--stay", help: "Keep the broker and worker up until Ctrl-C (default on a terminal)."),
            OptionSpec("--exit", help: "Stop after the summary (default when stdout is not a terminal)."),
        ],
        examples: [Example("switchyard demo --exit --metrics-port 0", "The whole flow, then stop.")],
        exitCodes: [
            (.success, "done"), (.usage, "usage"), (.dataError, "a --records file cannot be read"), (.unavailable, "the embedded broker failed"),
            (.config, "the --metrics-port given is in use (checked before anything is produced)"),
        ])

    var metricsPort: Int
    /// Whether the port was asked for (else 9464 is only a preference).
    var metricsPortGiven: Bool
    var feeds: Int
    var paymentsPerPartition: Int
    var stay: Bool
    /// `--records CATALOG=FILE`, in the order given.
    var recordFiles: [(catalog: String, file: String)]

    init(_ arguments: ParsedArguments) throws {
        let port = arguments.integer("--metrics-port")
        metricsPort = port ?? 9464
        metricsPortGiven = port != nil
        feeds = arguments.integer("--feeds") ?? 300
        paymentsPerPartition = arguments.integer("--payments") ?? 30
        let stayFlag = arguments.flag("--stay")
        let exitFlag = arguments.flag("--exit")
        guard !(stayFlag && exitFlag) else { throw CommandError.usage("--stay and --exit are exclusive") }
        stay = stayFlag || (!exitFlag && isatty(1) == 1)
        recordFiles = try arguments.options("--records").map { text in
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex, text.index(after: equals) != text.endIndex else {
                throw CommandError.usage("--records takes CATALOG=FILE, not '\(text)'")
            }
            return (String(text[..<equals]), String(text[text.index(after: equals)...]))
        }
    }

    func validate() throws {
        guard (0...65535).contains(metricsPort) else { throw CommandError.usage("--metrics-port must be 0…65535") }
        guard feeds >= 1, paymentsPerPartition >= 4 else { throw CommandError.usage("--feeds ≥ 1 and --payments ≥ 4") }
        let catalogs = SwitchyardCommand.catalogs
        for (name, _) in recordFiles where catalogs[name] == nil {
            throw CommandError.usage("--records: \(catalogs.unknownNameReason(name))")
        }
        if recordFiles.isEmpty && (catalogs["payments"] == nil || catalogs["feeds"] == nil) {
            let example = catalogs.names.first ?? "NAME"
            throw CommandError.usage(
                "this binary's catalogs (\(catalogs.names.joined(separator: ", "))) have no built-in sample stream: pass --records \(example)=FILE (NDJSON)")
        }
    }

    /// The built-in stream of the shipped catalogs, or the given records files.
    var usesBuiltInStream: Bool { recordFiles.isEmpty }

    /// Where the malformed payments record goes: partition 1, two thirds in.
    var haltIndex: Int { paymentsPerPartition * 2 / 3 }

    /// One demo topic: its catalog and the records to produce (partition nil: round robin).
    struct DemoTopic {
        var name: String
        var catalog: Catalog
        var records: [(partition: Int32, key: [UInt8]?, value: [UInt8])] = []
        var republishTo: String?
    }

    /// What the demo produces: the shipped catalogs' generated stream, or the given files.
    func plan() throws -> [DemoTopic] {
        guard usesBuiltInStream else {
            var topics: [DemoTopic] = []
            for (name, file) in recordFiles {
                guard let catalog = SwitchyardCommand.catalogs[name] else { continue }
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw CommandError(.dataError, "--records \(name)=\(file): cannot read the file")
                }
                var topic = topics.first { $0.name == name } ?? DemoTopic(name: name, catalog: catalog)
                topics.removeAll { $0.name == name }
                for line in data.split(separator: UInt8(ascii: "\n")) where !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) {
                    topic.records.append((Int32(topic.records.count % 3), nil, Array(line)))
                }
                topics.append(topic)
            }
            return topics
        }
        var generator = CorpusGenerator(seed: 2026)
        generator.mix = [(.current, 80), (.legacy, 8), (.future, 6), (.unknownType, 3), (.malformed, 3)]
        var feedsTopic = DemoTopic(name: "feeds", catalog: SwitchyardCommand.catalogs["feeds"]!)
        for i in 0..<feeds {
            let (value, _, key) = generator.next(.feeds)
            feedsTopic.records.append((Int32(i % 3), Array(key.utf8), value))
        }
        // Payments: valid records in every partition, one malformed record in partition 1.
        var payments = DemoTopic(name: "payments", catalog: SwitchyardCommand.catalogs["payments"]!, republishTo: "payments.canonical")
        for partition in 0..<3 {
            for i in 0..<paymentsPerPartition {
                let shape: CorpusGenerator.Shape =
                    partition == 1 && i == haltIndex ? .malformed : (i % 10 == 3 ? .legacy : i % 10 == 7 ? .future : .current)
                let (value, key) = generator.next(.payments, shape: shape)
                payments.records.append((Int32(partition), Array(key.utf8), value))
            }
        }
        return [feedsTopic, payments]
    }

    func run() async throws -> ExitCode {
        // A port asked for must be free before anything is produced: the demo does not end half-way.
        if metricsPortGiven && metricsPort != 0, let problem = tcpPortProblem(host: "127.0.0.1", port: metricsPort) {
            throw CommandError(.config, "--metrics-port \(metricsPort) cannot be used (\(problem)): pick another, or 0 for any free port")
        }
        let plan = try plan()
        var topics: [String: Int] = [WorkerConfiguration.defaultControlTopic: 1]
        for topic in plan {
            topics[topic.name] = 3
            topics[topic.name + ".dlq"] = 1
            if let target = topic.republishTo { topics[target] = 3 }
        }
        let broker: EmbeddedBroker
        do {
            broker = try EmbeddedBroker.make(brokers: 1, topics: topics)
        } catch let error as KafkaError {
            throw CommandError(error)
        }
        let out = Output()
        out.line("Switchyard demo: embedded broker at \(broker.bootstrapServers)")
        out.flush()

        // MARK: Produce
        let kafka = KafkaConfiguration(bootstrapServers: [broker.bootstrapServers], clientID: "switchyard-demo", logLevel: .error)
        let producer: KafkaProducer
        do {
            producer = try KafkaProducer.make(configuration: KafkaProducerConfiguration(kafka: kafka), logger: NoOpKafkaLogger())
        } catch let error as KafkaError {
            throw CommandError(error)
        }
        do {
            for topic in plan {
                for record in topic.records {
                    _ = try await producer.send(KafkaProducerRecord(topic: topic.name, partition: record.partition, key: record.key, value: record.value))
                }
            }
        } catch let error as KafkaError {
            throw CommandError(error)
        }
        await producer.close()
        out.line("Produced " + plan.map { "\($0.records.count) records to \($0.name) (\($0.catalog.defaultPolicy.rawValue))" }.joined(separator: " and ") + ".")
        out.flush()

        // MARK: Consume
        var topicConfigurations: [String: TopicConfiguration] = [:]
        for topic in plan {
            topicConfigurations[topic.name] = TopicConfiguration(catalog: topic.catalog, deadLetterTopic: topic.name + ".dlq", republishTo: topic.republishTo)
        }
        let configuration = WorkerConfiguration(
            bootstrapServers: broker.bootstrapServerList, groupID: "switchyard-demo",
            topics: topicConfigurations,
            metrics: MetricsConfiguration(host: "127.0.0.1", port: metricsPort), shutdownTimeout: .seconds(10),
            kafka: ["heartbeat.interval.ms": "500", "session.timeout.ms": "6000", "auto.commit.interval.ms": "500", "statistics.interval.ms": "1000"])
        let worker: Worker
        let server: HTTPServer
        do {
            // The summary below tells the story; `switchyard consume` logs JSON lines instead.
            worker = try Worker(configuration: configuration, logger: SwitchyardLogger(handler: InMemoryLogHandler(), level: .error), kafkaLogLevel: .critical)
            do {
                server = try worker.serveEndpoints()
            } catch let error as WorkerError where !metricsPortGiven {
                // 9464 is taken (another worker, another demo): any free port will do for a demo.
                out.line("Port \(metricsPort) is busy (\(error.reason)); serving /metrics on a free port instead.")
                server = try worker.serveEndpoints(port: 0)
            }
        } catch let error as WorkerError {
            throw CommandError(error)
        }
        let run = Task { try await worker.run() }
        // Done when every record was handled (the built-in stream: as many as it knows will be, and the
        // halt), or, for given records, when the count stops moving.
        let deadline = ContinuousClock.now + .seconds(90)
        var last: (count: Int64, since: ContinuousClock.Instant) = (-1, .now)
        while ContinuousClock.now < deadline {
            let m = worker.metrics.registry.snapshot()
            let counts = plan.map { m.counter("switchyard_records_total", ["topic": $0.name]) ?? 0 }
            if usesBuiltInStream {
                if counts[0] >= Int64(feeds) && counts[1] >= Int64(paymentsPerPartition * 2 + haltIndex + 1) && !worker.status.halted.isEmpty { break }
            } else {
                let total = counts.reduce(0, +)
                if total != last.count {
                    last = (total, .now)
                } else if total > 0, ContinuousClock.now - last.since > .seconds(3) {
                    break
                }
                if total == Int64(plan.map(\.records.count).reduce(0, +)) { break }
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        let deadLetters = await Self.deadLetterGroups(worker: worker)
        out.write(Self.summary(worker: worker, deadLetters: deadLetters))
        out.line()
        out.line(stay ? "Look around (the broker and worker stay up until Ctrl-C):" : "Run `switchyard demo --stay` to keep the broker and worker up, then look around:")
        out.line("  curl -s http://127.0.0.1:\(server.port)/metrics | grep '^switchyard_'")
        out.line("  curl -s http://127.0.0.1:\(server.port)/status")
        let dlq = plan.first { $0.catalog.defaultPolicy == .lenient }?.name ?? plan[0].name
        out.line("  kcat -b \(broker.bootstrapServers) -C -t \(dlq).dlq -J -e")
        if let halted = worker.status.halted.first {
            let location = RecordLocation(topic: halted.key.topic, partition: halted.key.partition, offset: halted.value.offset)
            if let d = halted.value.deadLetter {
                out.line("  switchyard dlq show -b \(broker.bootstrapServers) \(RecordLocation(topic: d.topic, partition: d.partition, offset: d.offset))")
            }
            // The audit record names who released: $USER, or "demo" where it is not set (a container).
            out.line(
                "  switchyard release -b \(broker.bootstrapServers) --group switchyard-demo \(location) --operator \"${USER:-demo}\" --reason \"demo: record inspected\"")
        }
        out.flush()
        if stay {
            _ = await waitForTermination()
        }
        worker.stop()
        do {
            try await run.value
        } catch let error as WorkerError {
            throw CommandError(error)
        }
        server.stop()
        withExtendedLifetime(broker) {}
        return .success
    }

    /// Reads the dead-letter topics back (as `switchyard dlq` does) and groups their records by
    /// kind, path and type, from the diagnosis headers.
    static func deadLetterGroups(worker: Worker) async -> [String: [(kind: String, path: String, type: String, count: Int)]] {
        var result: [String: [(kind: String, path: String, type: String, count: Int)]] = [:]
        for (topic, config) in worker.configuration.topics.sorted(by: { $0.key < $1.key }) {
            let source = DeadLetterSource.live(brokers: worker.configuration.bootstrapServers.joined(separator: ","), topic: config.deadLetterTopic, properties: [:])
            let letters: [DeadLetter]
            do {
                letters = try await source.readAll()
            } catch {
                result[topic] = [("could not read \(config.deadLetterTopic): \(error)", "", "", 0)]
                continue
            }
            var groups: [String: (kind: String, path: String, type: String, count: Int)] = [:]
            for letter in letters {
                let path = (letter.path ?? "").isEmpty ? "(root)" : letter.path!
                groups["\(letter.kind)\u{0}\(path)\u{0}\(letter.type ?? "-")", default: (letter.kind, path, letter.type ?? "-", 0)].count += 1
            }
            result[topic] = groups.values.sorted { ($0.count, $1.kind, $1.path) > ($1.count, $0.kind, $0.path) }
        }
        return result
    }

    static func summary(worker: Worker, deadLetters: [String: [(kind: String, path: String, type: String, count: Int)]]) -> String {
        let m = worker.metrics.registry.snapshot()
        func rows(_ family: String, topic: String, _ columns: [String]) -> [[String]] {
            (m.series[family] ?? []).filter { $0.labels["topic"] == topic }.compactMap { series in
                guard case .counter(let value) = series.value, value > 0 else { return nil }
                return columns.map { series.labels[$0] ?? "" } + [String(value)]
            }
        }
        var text = ""
        for (topic, config) in worker.configuration.topics.sorted(by: { ($0.value.policy.rawValue, $0.key) < ($1.value.policy.rawValue, $1.key) }) {
            let policy = config.policy.rawValue
            let records = m.counter("switchyard_records_total", ["topic": topic]) ?? 0
            text += "\n\(topic) (\(policy)): \(records) records handled\n"
            var decoded = Table(header: ["DECODED", "COUNT"])
            decoded.rows = rows("switchyard_events_decoded_total", topic: topic, ["type"])
            if !decoded.rows.isEmpty { text += decoded.render() + "\n" }
            let unknown = rows("switchyard_unknown_events_total", topic: topic, ["type"])
            if !unknown.isEmpty {
                var table = Table(header: ["UNKNOWN TYPE (handed on)", "COUNT"])
                table.rows = unknown
                text += table.render() + "\n"
            }
            let fields = rows("switchyard_unknown_fields_total", topic: topic, ["type"]).reduce(0) { $0 + (Int($1.last!) ?? 0) }
            if fields > 0 { text += "  \(fields) unknown fields from newer producers kept verbatim\n" }
            if let groups = deadLetters[topic], !groups.isEmpty {
                // The title on its own line: as a column header it widened the first column past its rows.
                text += "  Dead-lettered to \(worker.configuration.topics[topic]!.deadLetterTopic):\n"
                var table = Table(header: ["KIND", "PATH", "TYPE", "COUNT"])
                table.rows = groups.map { [$0.kind, $0.path, $0.type, String($0.count)] }
                text += table.render(indent: "    ") + "\n"
            }
            if let republished = rows("switchyard_republished_total", topic: topic, ["target"]).first {
                text += "  republished \(republished[1]) events to \(republished[0]) (canonical)\n"
            }
        }
        for (tp, info) in worker.status.halted.sorted(by: { $0.key < $1.key }) {
            text += "\nHALTED: \(RecordLocation(topic: tp.topic, partition: tp.partition, offset: info.offset)): \(info.failure.kind.rawValue) at '\(info.failure.path)'"
            text += " (\(info.failure.type ?? "unreadable type")): \(info.failure.message)\n"
            text += "  The record is in \(worker.configuration.topics[tp.topic]?.deadLetterTopic ?? tp.topic + ".dlq"); the partition waits for a build that decodes it or an audited release.\n"
        }
        if worker.status.halted.isEmpty { text += "\n(no partition halted)\n" }
        return text
    }
}
