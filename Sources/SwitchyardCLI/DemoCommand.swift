import Foundation
import Switchyard
import SwitchyardKafka
import SwitchyardHTTP

/// `switchyard demo`: the whole flow on an embedded broker, for a first look.
struct DemoCommand: Command {
    static let name = "demo"
    static let abstract = "Run the whole flow on an embedded broker and show what happened."
    static let usage = """
        USAGE: switchyard demo [--metrics-port N] [--feeds N] [--payments N] [--stay | --exit]

        Starts an embedded Kafka-protocol broker, produces a realistic mixed stream (current, legacy,
        future, unknown types, malformed) to `payments` (strict) and `feeds` (lenient), runs the worker
        on it, and prints what happened: events per type, unknown types, dead letters by kind and path,
        and the halted payments partition. Then tells you how to look at /metrics, /status and the DLQ.

        OPTIONS:
          --metrics-port N  Where /metrics, /status are served. Default: 9464 (0: any free port).
          --feeds N         Records produced to feeds. Default: 300.
          --payments N      Records produced to each of the 3 payments partitions. Default: 30.
          --stay            Keep the broker and worker up until Ctrl-C (default on a terminal).
          --exit            Stop after the summary (default when stdout is not a terminal).
        """

    var metricsPort: Int
    /// Whether the port was asked for (else 9464 is only a preference).
    var metricsPortGiven: Bool
    var feeds: Int
    var paymentsPerPartition: Int
    var stay: Bool

    init(arguments: inout Arguments) throws {
        let port = try arguments.intOption("--metrics-port")
        metricsPort = port ?? 9464
        metricsPortGiven = port != nil
        feeds = try arguments.intOption("--feeds") ?? 300
        paymentsPerPartition = try arguments.intOption("--payments") ?? 30
        let stayFlag = arguments.flag("--stay")
        let exitFlag = arguments.flag("--exit")
        guard !(stayFlag && exitFlag) else { throw CommandError.usage("--stay and --exit are exclusive") }
        stay = stayFlag || (!exitFlag && isatty(1) == 1)
        _ = try arguments.positionals()
    }

    func validate() throws {
        guard (0...65535).contains(metricsPort) else { throw CommandError.usage("--metrics-port must be 0…65535") }
        guard feeds >= 1, paymentsPerPartition >= 4 else { throw CommandError.usage("--feeds ≥ 1 and --payments ≥ 4") }
    }

    /// Where the malformed payments record goes: partition 1, two thirds in.
    var haltIndex: Int { paymentsPerPartition * 2 / 3 }

    func run() async throws -> ExitCode {
        let topics = ["payments": 3, "feeds": 3, "payments.dlq": 1, "feeds.dlq": 1, "payments.canonical": 3, "switchyard.control": 1]
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
        var generator = CorpusGenerator(seed: 2026)
        generator.mix = [(.current, 80), (.legacy, 8), (.future, 6), (.unknownType, 3), (.malformed, 3)]
        var produced = (feeds: 0, payments: 0)
        do {
            for _ in 0..<feeds {
                let (value, _, key) = generator.next(.feeds)
                _ = try await producer.send(KafkaProducerRecord(topic: "feeds", key: Array(key.utf8), value: value))
                produced.feeds += 1
            }
            // Payments: valid records in every partition, one malformed record in partition 1.
            for partition in 0..<3 {
                for i in 0..<paymentsPerPartition {
                    let shape: CorpusGenerator.Shape =
                        partition == 1 && i == haltIndex ? .malformed : (i % 10 == 3 ? .legacy : i % 10 == 7 ? .future : .current)
                    let (value, key) = generator.next(.payments, shape: shape)
                    _ = try await producer.send(KafkaProducerRecord(topic: "payments", partition: Int32(partition), key: Array(key.utf8), value: value))
                    produced.payments += 1
                }
            }
        } catch let error as KafkaError {
            throw CommandError(error)
        }
        await producer.close()
        out.line("Produced \(produced.feeds) records to feeds (lenient) and \(produced.payments) to payments (strict, 3 partitions).")
        out.flush()

        // MARK: Consume
        let configuration = WorkerConfiguration(
            brokers: broker.bootstrapServers, groupId: "switchyard-demo",
            topics: [
                "payments": TopicConfiguration(catalog: .payments, deadLetterTopic: "payments.dlq", republishTo: "payments.canonical"),
                "feeds": TopicConfiguration(catalog: .feeds, deadLetterTopic: "feeds.dlq"),
            ],
            metrics: MetricsConfiguration(host: "127.0.0.1", port: metricsPort), shutdownTimeoutSeconds: 10,
            kafka: ["heartbeat.interval.ms": "500", "session.timeout.ms": "6000", "auto.commit.interval.ms": "500", "statistics.interval.ms": "1000"])
        let worker: Worker
        let server: HTTPServer
        do {
            // The summary below tells the story; `switchyard consume` logs JSON lines instead.
            worker = try Worker(configuration: configuration, logger: Logger(handler: InMemoryLogHandler(), level: .error), kafkaLogLevel: .critical)
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
        let expected = (feeds: produced.feeds, payments: paymentsPerPartition * 2 + haltIndex + 1)
        let deadline = ContinuousClock.now + .seconds(90)
        while ContinuousClock.now < deadline {
            let m = worker.metrics.registry.snapshot()
            if (m.counter("switchyard_records_total", ["topic": "feeds"]) ?? 0) >= Int64(expected.feeds)
                && (m.counter("switchyard_records_total", ["topic": "payments"]) ?? 0) >= Int64(expected.payments)
                && !worker.status.halted.isEmpty
            {
                break
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        let deadLetters = await Self.deadLetterGroups(worker: worker)
        out.write(Self.summary(worker: worker, deadLetters: deadLetters))
        out.line()
        out.line(stay ? "Look around (the broker and worker stay up until Ctrl-C):" : "Run `switchyard demo --stay` to keep the broker and worker up, then look around:")
        out.line("  curl -s http://127.0.0.1:\(server.port)/metrics | grep '^switchyard_'")
        out.line("  curl -s http://127.0.0.1:\(server.port)/status")
        out.line("  kcat -b \(broker.bootstrapServers) -C -t feeds.dlq -J -e")
        if let halted = worker.status.halted.first {
            out.line("  switchyard release --brokers \(broker.bootstrapServers) --group switchyard-demo --topic \(halted.key.topic) \\")
            out.line("      --partition \(halted.key.partition) --offset \(halted.value.offset) --reason \"demo: record inspected\"")
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
            let source = DeadLetterSource.live(brokers: worker.configuration.brokers, topic: config.deadLetterTopic, properties: [:])
            let letters: [DeadLetter]
            do {
                letters = try await source.read(connectTimeout: .seconds(10), timeout: .seconds(30))
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
        for (topic, policy) in [("feeds", "lenient"), ("payments", "strict")] {
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
                var table = Table(header: ["DEAD-LETTERED to \(worker.configuration.topics[topic]!.deadLetterTopic): KIND", "PATH", "TYPE", "COUNT"])
                table.rows = groups.map { [$0.kind, $0.path, $0.type, String($0.count)] }
                text += table.render() + "\n"
            }
            if let republished = rows("switchyard_republished_total", topic: topic, ["target"]).first {
                text += "  republished \(republished[1]) events to \(republished[0]) (canonical)\n"
            }
        }
        for (tp, info) in worker.status.halted.sorted(by: { $0.key < $1.key }) {
            text += "\nHALTED: \(tp) at offset \(info.offset): \(info.failure.kind.rawValue) at '\(info.failure.path)'"
            text += " (\(info.failure.type ?? "unreadable type")): \(info.failure.message)\n"
            text += "  The record is in payments.dlq; the partition waits for a build that decodes it or an audited release.\n"
        }
        if worker.status.halted.isEmpty { text += "\n(no partition halted)\n" }
        return text
    }
}
