import Foundation
import Switchyard
import SwitchyardHTTP
import SwitchyardKafka

/// `switchyard release`: lets a halted strict partition move past exactly one offset, with an audit record.
struct ReleaseCommand: Command {
    static let spec = CommandSpec(
        ["release"], abstract: "Release exactly one halted offset of a strict topic (recorded in the control topic).",
        synopsis: [
            "release (-c FILE | -b LIST --group GROUP) TOPIC/PARTITION@OFFSET --reason TEXT",
            "release (-c FILE | -b LIST --group GROUP) -t TOPIC --partition P --offset O --reason TEXT",
            "        [--operator NAME] [--status URL | --dead-letter-topic NAME] [--force] [--secret-file PATH] [--json]",
            "        [--wait [--wait-timeout S]]",
        ],
        discussion: """
            Checks that the partition is halted at exactly that offset, then writes an audited release to the
            control topic. The worker that owns the partition, halted at that record, skips it (its dead letter
            was acknowledged before it halted) and goes on.

            Refused (exit 1, saying what was found): a topic that is not in the config (--config), a lenient
            topic (it never halts), a topic or partition the brokers do not have, a group that nothing knows (the
            brokers do not list it, it committed nothing on the partition, no dead letter names it: the closest
            known groups are named), and a partition that is not halted at that offset. The halt is read from the worker's /status (--status), or else from the
            group's committed offset (not past that offset) and the dead-letter topic (the partition's newest
            dead letter must be the record at that offset). A release
            names the record (its offset and timestamp), and the worker applies it to that record only.

            With a shared secret (controlTopic.secret in the config, or --secret-file), the release is signed
            (HMAC-SHA256 over every field, the operator's name included); a worker that has the secret rejects
            unsigned and wrongly signed releases (switchyard_releases_rejected_total).

            --wait then waits until the worker applied the release: until the partition is no longer halted
            at that offset on --status, or else until the group's committed offset is past it (the worker
            commits once it moved on). Not applied within --wait-timeout: exit 1 (the release stays recorded).

            --force skips the halt check (when neither /status nor the DLQ can be read). A forced release
            carries no record identity: the worker applies it only to a halt at that offset that began before
            the release was written, never to a later one.
            """,
        options: [
            OptionSpec("--config", short: "-c", .file("FILE"), help: "Take brokers, group, Kafka settings, the topics, the DLQ and the control topic from the worker's config."),
            OptionSpec("--brokers", short: "-b", .text("LIST"), help: "Bootstrap servers (without --config). Default: $SWITCHYARD_BROKERS."),
            OptionSpec("--group", .text("GROUP"), help: "The worker's consumer group (without --config)."),
            OptionSpec("--topic", short: "-t", .text("TOPIC"), help: "The halted topic (required)."),
            OptionSpec("--partition", .integer("P", minimum: 0), help: "The halted partition (required)."),
            OptionSpec("--offset", .integer("O", minimum: 0), help: "The halted record's offset (required; see /status or switchyard dlq list)."),
            OptionSpec("--reason", .text("TEXT"), help: "Why it is safe to skip (required; kept in the audit trail)."),
            OptionSpec("--operator", .text("NAME"), help: "Who releases (kept in the audit record). Default: $SWITCHYARD_OPERATOR, else $USER, else $LOGNAME; none is a usage error."),
            OptionSpec("--status", .text("URL"), help: "The worker's /status (e.g. http://pod:9464/status): check the halt there."),
            OptionSpec("--dead-letter-topic", .text("NAME"), help: "Check the halt in this DLQ. Default: the config's, else TOPIC.dlq."),
            OptionSpec("--force", help: "Do not check the halt (see above)."),
            OptionSpec("--secret-file", .file("PATH"), help: "Sign with this shared secret (default: the config's controlTopic.secret)."),
            OptionSpec("--control-topic", .text("NAME"), help: "Default: switchyard.control (or the config's controlTopic)."),
            OptionSpec("--json", help: "Print the release record."),
            OptionSpec("--wait", help: "Then wait until the worker applied it (see above)."),
            OptionSpec("--wait-timeout", .number("S"), help: "How long --wait waits. Default: 60."),
            OptionSpec("--connect-timeout", .number("S"), help: "Seconds to reach the brokers (exit 69; a refused or unresolvable address fails at once, with its cause). Default: 10."),
        ],
        positionals: [
            PositionalSpec("LOCATION", optional: true, help: "The halted record as topic/partition@offset (e.g. payments/1@20), instead of -t, --partition and --offset.")
        ],
        examples: [
            Example(
                "switchyard release -b localhost:9092 --group switchyard-demo payments/1@20 --reason 'inspected: test record'",
                "The same record named as everywhere else: topic/partition@offset."),
            Example(
                "switchyard release -b localhost:9092 --group switchyard-demo -t payments --partition 1 --offset 20 --reason 'inspected: test record'",
                "Checks the halt in payments.dlq, then records the release."),
            Example(
                "switchyard release -c worker.json -t payments --partition 1 --offset 20 --reason 'inspected: test record'",
                "Brokers, group and DLQ from the worker's config. Add --status http://POD:9464/status to check the halt on the worker instead."),
        ],
        exitCodes: [
            (.success, "recorded (with --wait: and applied)"),
            (.findings, "refused: not halted at that offset, a topic not in the config, a lenient topic, no such topic or partition; with --wait, not applied in time"),
            (.usage, "usage"), (.dataError, "/status unreadable"), (.unavailable, "broker unavailable"), (.config, "bad configuration"),
        ])

    var configPath: String?
    var brokers: String?
    var group: String?
    var topic: String
    var partition: Int
    var offset: Int
    var reason: String
    var operatorName: String
    var controlTopic: String?
    var statusURL: String?
    var deadLetterTopic: String?
    var force: Bool
    var secretFile: String?
    var json: Bool
    var connectTimeout: Duration
    var wait: Bool
    var waitTimeout: Duration

    init(_ arguments: ParsedArguments) throws {
        configPath = arguments.option("--config")
        brokers = arguments.option("--brokers") ?? (arguments.option("--config") == nil ? environmentBrokers() : nil)
        group = arguments.option("--group")
        if let text = arguments.positionals.first {
            guard let location = RecordLocation(text) else {
                throw CommandError.usage("name the halted record as topic/partition@offset, e.g. payments/1@20, not '\(text)'")
            }
            guard arguments.positionals.count == 1 else { throw CommandError.usage("release takes one record, not '\(arguments.positionals[1])'") }
            for name in ["--topic", "--partition", "--offset"] where arguments.given(name) {
                throw CommandError.usage("\(text) names the record: give it without \(name)")
            }
            self.topic = location.topic
            self.partition = Int(location.partition)
            self.offset = Int(location.offset)
        } else {
            guard let topic = arguments.option("--topic") else { throw CommandError.usage("name the record: TOPIC/PARTITION@OFFSET (or --topic, --partition and --offset)") }
            guard let partition = arguments.integer("--partition") else { throw CommandError.usage("--partition is required") }
            guard let offset = arguments.integer("--offset") else { throw CommandError.usage("--offset is required") }
            self.topic = topic
            self.partition = partition
            self.offset = offset
        }
        guard let reason = arguments.option("--reason") else { throw CommandError.usage("--reason is required") }
        self.reason = reason
        let environment = ProcessInfo.processInfo.environment
        let named = [arguments.option("--operator"), environment["SWITCHYARD_OPERATOR"], environment["USER"], environment["LOGNAME"]]
        guard let who = named.compactMap({ $0?.trimmingCharacters(in: .whitespaces) }).first(where: { !$0.isEmpty }) else {
            // The audit trail must say who: never a silent "unknown" (a container often has no $USER).
            throw CommandError.usage("name who releases: --operator NAME (or SWITCHYARD_OPERATOR); $USER is not set")
        }
        operatorName = who
        controlTopic = arguments.option("--control-topic")
        statusURL = arguments.option("--status")
        deadLetterTopic = arguments.option("--dead-letter-topic")
        force = arguments.flag("--force")
        secretFile = arguments.option("--secret-file")
        json = arguments.flag("--json")
        connectTimeout = try parseConnectTimeout(arguments.option("--connect-timeout"))
        wait = arguments.flag("--wait")
        if arguments.given("--wait-timeout") && !wait { throw CommandError.usage("--wait-timeout goes with --wait") }
        waitTimeout = .milliseconds(Int((arguments.number("--wait-timeout") ?? 60) * 1000))
    }

    func validate() throws {
        if configPath == nil && (brokers == nil || group == nil) {
            throw CommandError.usage("give --config, or both --brokers and --group")
        }
        guard partition >= 0, partition <= Int(Int32.max) else { throw CommandError.usage("--partition must be ≥ 0") }
        guard offset >= 0 else { throw CommandError.usage("--offset must be ≥ 0") }
        guard !reason.trimmingCharacters(in: .whitespaces).isEmpty else { throw CommandError.usage("--reason must not be empty") }
        if force && (statusURL != nil || deadLetterTopic != nil) {
            throw CommandError.usage("--force does not check: give it without --status and --dead-letter-topic")
        }
        if statusURL != nil && deadLetterTopic != nil { throw CommandError.usage("give --status or --dead-letter-topic, not both") }
    }

    /// The halted record, as the check found it.
    struct Halt {
        var timestamp: Int64?
        var deadLetter: DeadLetterCoordinates?
    }

    func run() async throws -> ExitCode {
        var kafka = KafkaConfiguration(bootstrapServers: [], clientID: "switchyard-release")
        var groupName = self.group
        var controlTopic = self.controlTopic
        var deadLetterTopic = self.deadLetterTopic
        var secret: String?
        if let secretFile {
            do {
                secret = try String(contentsOfFile: secretFile, encoding: .utf8).trimmingCharacters(in: .newlines)
            } catch {
                throw CommandError(.config, "cannot read --secret-file \(secretFile)")
            }
        }
        if let configPath {
            let config = try loadWorkerConfiguration(configPath)
            if topic.hasSuffix(".dlq") || config.topics.values.contains(where: { $0.deadLetterTopic == topic }) {
                var dlqKafka = kafka
                dlqKafka.bootstrapServers = brokers.map { KafkaConfiguration.bootstrapServers(parsing: $0) } ?? config.bootstrapServers
                dlqKafka.properties = config.kafka
                try await refuseDeadLetterLocation(kafka: dlqKafka)
            }
            // A topic the worker does not consume, or one that never halts, has nothing to release.
            guard let topicConfig = config.topics[topic] else {
                throw CommandError(
                    .findings,
                    "refused: topic '\(topic)' is not in \(configPath) (its topics: \(config.topicNames.joined(separator: ", ")))"
                        + didYouMean(topic, among: config.topicNames))
            }
            guard topicConfig.policy == .strict else {
                throw CommandError(.findings, "refused: \(topic) is lenient in \(configPath): it dead-letters and goes on, it never halts; nothing to release")
            }
            kafka.bootstrapServers = config.bootstrapServers
            kafka.properties = config.kafka
            groupName = groupName ?? config.groupID
            controlTopic = controlTopic ?? config.controlTopic
            deadLetterTopic = deadLetterTopic ?? config.topics[topic]?.deadLetterTopic
            secret = secret ?? config.controlTopicSecret
        }
        if let brokers { kafka.bootstrapServers = brokers.split(separator: ",").map(String.init) }
        let group = groupName!
        if configPath == nil && topic.hasSuffix(".dlq") { try await refuseDeadLetterLocation(kafka: kafka) }
        let producer: KafkaProducer
        do {
            producer = try KafkaProducer.make(configuration: KafkaProducerConfiguration(kafka: kafka), logger: NoOpKafkaLogger())
        } catch let error as KafkaError {
            throw CommandError(error)
        }
        do {
            // The topic and partition first: a misspelt topic is refused as such, not as "no dead letters".
            // Fails fast, with the cause, on a refused or unresolvable address.
            let metadata = try await KafkaCluster.metadata(kafka: kafka, timeout: connectTimeout)
            try checkPartition(metadata)
            var halt = Halt()
            if !force {
                if let statusURL {
                    halt = try await checkStatus(statusURL, group: group)
                } else {
                    let committed = try await checkCommitted(group: group, kafka: kafka)
                    halt = try await checkDeadLetters(deadLetterTopic ?? "\(topic).dlq", group: group, committed: committed, kafka: kafka)
                }
            }
            var request = ReleaseRequest(
                group: group, topic: topic, partition: Int32(partition), offset: Int64(offset), reason: reason, operator: operatorName,
                recordTimestamp: halt.timestamp, deadLetter: halt.deadLetter, force: force ? true : nil)
            if let secret { request.signature = ReleaseSigning.signature(of: request, secret: secret) }
            let value = try CanonicalJSONEncoder().encode(request)
            let key = Array("\(request.group)/\(topic)/\(partition)".utf8)
            let report = try await producer.send(KafkaProducerRecord(topic: controlTopic ?? WorkerConfiguration.defaultControlTopic, key: key, value: value))
            await producer.close()
            if json {
                print(String(decoding: value, as: UTF8.self))
            } else {
                print("release recorded: \(RecordLocation(topic: topic, partition: Int32(partition), offset: Int64(offset))) for group \(request.group) (control topic \(report.topic)/\(report.partition)@\(report.offset))")
                if force { print("forced: applies only to a halt at that offset that began before now") }
            }
            if wait { return try await waitUntilApplied(group: group, kafka: kafka) }
            return .success
        } catch let error as KafkaError {
            await producer.close(timeout: .seconds(1))
            throw CommandError(error)
        } catch {
            await producer.close(timeout: .zero)
            throw error
        }
    }

    /// Waits until the worker applied the release: the partition no longer halted at `offset` on `--status`,
    /// or else the group's committed offset past it. Exit 1 when that does not happen within `--wait-timeout`.
    func waitUntilApplied(group: String, kafka: KafkaConfiguration) async throws -> ExitCode {
        let location = RecordLocation(topic: topic, partition: Int32(partition), offset: Int64(offset))
        let tp = KafkaTopicPartition(topic: topic, partition: Int32(partition))
        let start = ContinuousClock.now
        var seen = "nothing yet"
        while ContinuousClock.now - start < waitTimeout {
            if let statusURL {
                switch statusHalt(statusURL) {
                case .notHalted:
                    printError("release: applied: \(statusURL) shows \(topic)/\(partition) no longer halted (after \(Self.seconds(ContinuousClock.now - start)))")
                    return .success
                case .haltedAt(let at) where at != Int64(offset):
                    printError("release: applied: \(topic)/\(partition) moved on and is now halted at @\(at) (after \(Self.seconds(ContinuousClock.now - start)))")
                    return .success
                case .haltedAt:
                    seen = "\(statusURL) still shows it halted at @\(offset)"
                case .unreadable(let why):
                    seen = "\(statusURL): \(why)"
                }
            } else {
                let committed = try await KafkaConsumer.committedOffsets(group: group, partitions: [tp], kafka: kafka, timeout: connectTimeout)
                if let next = committed[tp], next > Int64(offset) {
                    printError("release: applied: group \(group) committed \(topic)/\(partition) up to @\(next), past \(location) (after \(Self.seconds(ContinuousClock.now - start)))")
                    return .success
                }
                seen = "group \(group)'s committed offset is " + (committed[tp].map { "@\($0)" } ?? "none")
            }
            try await Task.sleep(for: .milliseconds(500))
        }
        printError(
            "release: not applied within \(Self.seconds(waitTimeout)) (\(seen)): is a worker of group \(group) running and assigned \(topic)/\(partition)? "
                + "The release stays recorded; the worker applies it when it next reads the control topic")
        return .findings
    }

    static func seconds(_ duration: Duration) -> String {
        String(format: "%.1f s", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }

    /// What a worker's `/status` says of `topic/partition`.
    enum StatusHalt {
        case notHalted
        case haltedAt(Int64)
        case unreadable(String)
    }

    func statusHalt(_ url: String) -> StatusHalt {
        let response: HTTPClient.Response
        do {
            response = try HTTPClient.get(url, timeout: .seconds(5))
        } catch {
            return .unreadable(error.description)
        }
        guard response.status == 200 else { return .unreadable("HTTP \(response.status)") }
        let document: [String: Any]
        do {
            guard let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else { return .unreadable("not a status document") }
            document = object
        } catch {
            return .unreadable("not JSON")
        }
        let halted = document["halted"] as? [[String: Any]] ?? []
        let entry = halted.first { $0["topic"] as? String == topic && ($0["partition"] as? NSNumber)?.intValue == partition }
        guard let at = entry.flatMap({ ($0["offset"] as? NSNumber)?.int64Value }) else { return .notHalted }
        return .haltedAt(at)
    }

    /// A dead letter's location (`payments.dlq/0@0`, what `dlq list` prints) is not a halted record: names the
    /// record it is the dead letter of, to release that instead.
    func refuseDeadLetterLocation(kafka: KafkaConfiguration) async throws {
        let location = RecordLocation(topic: topic, partition: Int32(partition), offset: Int64(offset))
        var options = DeadLetterSource.ReadOptions(connectTimeout: connectTimeout)
        options.only = (Int32(partition), Int64(offset))
        var letter: DeadLetter?
        try await DeadLetterSource.live(brokers: kafka.bootstrapServers.joined(separator: ","), topic: topic, properties: kafka.properties)
            .read(options) { d in
                letter = d
                return false
            }
        guard let letter, let original = letter.originalTopic, let p = letter.originalPartition, let o = letter.originalOffset else { return }
        let source = RecordLocation(topic: original, partition: p, offset: o)
        throw CommandError.usage(
            "\(location) is a dead letter, not a halted record: it is the dead letter of \(source); release that (did you mean '\(source)'?)")
    }

    /// The topic and partition must exist on the brokers.
    func checkPartition(_ metadata: KafkaClusterMetadata) throws {
        let names = metadata.topics.map(\.name).filter { !$0.hasPrefix("__") }.sorted()
        guard let entry = metadata.topics.first(where: { $0.name == topic }), entry.errorName == nil else {
            throw CommandError(.findings, "refused: the brokers have no topic '\(topic)'" + didYouMean(topic, among: names))
        }
        guard partition < entry.partitionCount else {
            throw CommandError(.findings, "refused: \(topic) has \(entry.partitionCount) partition(s) (0…\(entry.partitionCount - 1)), no partition \(partition)")
        }
    }

    /// Reads the worker's `/status`: the partition must be halted at exactly `offset`.
    func checkStatus(_ url: String, group: String) async throws -> Halt {
        guard URL(string: url)?.scheme == "http" else {
            throw CommandError.usage("--status needs an http:// URL (a worker's /status is plain HTTP), got '\(url)'")
        }
        // A worker serves its status at /status on its metrics port: a URL elsewhere is the likely mistake.
        let statusURL: String = {
            guard var components = URLComponents(string: url) else { return url }
            components.path = "/status"
            components.query = nil
            return components.string ?? url
        }()
        let hint = statusURL == url ? "is it a worker's metrics address?" : "a worker's status is at \(statusURL)"
        let response: HTTPClient.Response
        do {
            response = try HTTPClient.get(url, timeout: .seconds(10))
        } catch {
            throw CommandError(.dataError, "cannot read \(url): \(error.description) (\(hint))")
        }
        guard response.status == 200 else {
            throw CommandError(.dataError, "\(url) answered HTTP \(response.status), not a status document (\(hint))")
        }
        let document = try workerStatusDocument(response.body, from: url, hint: hint)
        if let other = document["group"] as? String, other != group {
            throw CommandError(.findings, "refused: \(url) is a worker of group \(other), not \(group)")
        }
        let halted = document["halted"] as? [[String: Any]] ?? []
        let entry = halted.first { $0["topic"] as? String == topic && ($0["partition"] as? NSNumber)?.intValue == partition }
        guard let entry, let haltedOffset = (entry["offset"] as? NSNumber)?.int64Value else {
            let others = halted.compactMap { h -> String? in
                guard let t = h["topic"] as? String, let p = h["partition"] as? NSNumber, let o = h["offset"] as? NSNumber else { return nil }
                return "\(t)/\(p)@\(o)"
            }
            throw CommandError(
                .findings,
                "refused: \(topic)/\(partition) is not halted on \(url) (halted: \(others.isEmpty ? "none" : others.joined(separator: ", "))); "
                    + "nothing to release")
        }
        guard haltedOffset == Int64(offset) else {
            throw CommandError(.findings, "refused: \(topic)/\(partition) is halted at \(haltedOffset), not \(offset) (\(url))")
        }
        var result = Halt(timestamp: (entry["timestamp"] as? NSNumber)?.int64Value)
        if let d = entry["deadLetter"] as? [String: Any], let t = d["topic"] as? String, let p = d["partition"] as? NSNumber,
            let o = d["offset"] as? NSNumber
        {
            result.deadLetter = DeadLetterCoordinates(topic: t, partition: p.int32Value, offset: o.int64Value)
        }
        return result
    }

    /// A halted partition's committed offset is at most the halted record's (its offset is never stored): a
    /// group committed past `offset` has moved past it (released already, or a build that decodes it ran).
    /// Returns whether the group has committed an offset of the partition at all.
    func checkCommitted(group: String, kafka: KafkaConfiguration) async throws -> Bool {
        let tp = KafkaTopicPartition(topic: topic, partition: Int32(partition))
        let committed = try await KafkaConsumer.committedOffsets(group: group, partitions: [tp], kafka: kafka, timeout: connectTimeout)
        guard let next = committed[tp] else { return false }
        if next > Int64(offset) {
            throw CommandError(
                .findings,
                "refused: group \(group) has committed \(topic)/\(partition) up to @\(next) (the next record it reads), past @\(offset): "
                    + "it is not halted there (released already, or a build that decodes it ran); nothing to release")
        }
        return true
    }

    /// Reads the dead-letter topic: the partition's newest dead letter (for this group) must be the record
    /// at `offset` — a halted partition's newest dead letter is the record it is halted at.
    ///
    /// A group that nothing knows (the brokers do not list it, it committed nothing on the partition, no dead
    /// letter names it) is a misspelt one: refused, naming the closest known groups.
    func checkDeadLetters(_ dlq: String, group: String, committed: Bool, kafka: KafkaConfiguration) async throws -> Halt {
        let letters = try await DeadLetterSource.live(
            brokers: kafka.bootstrapServers.joined(separator: ","), topic: dlq, properties: kafka.properties
        ).readAll(connectTimeout: connectTimeout)
        if !committed {
            let listed = try await KafkaCluster.groupNames(kafka: kafka, timeout: connectTimeout)
            try checkGroupKnown(group, listed: listed, named: Set(letters.compactMap(\.consumerGroup)), dlq: dlq)
        }
        let ofPartition = letters.filter {
            $0.originalTopic == topic && $0.originalPartition == Int32(partition) && ($0.consumerGroup == nil || $0.consumerGroup == group)
        }
        guard let newest = ofPartition.max(by: { ($0.failedAt ?? .distantPast, $0.offset) < ($1.failedAt ?? .distantPast, $1.offset) }) else {
            throw CommandError(
                .findings, "refused: \(dlq) has no dead letter of \(topic)/\(partition) for group \(group): it is not halted; nothing to release")
        }
        guard newest.originalOffset == Int64(offset) else {
            let offsets = Set(ofPartition.compactMap(\.originalOffset)).sorted().suffix(5).map { "@\($0)" }
            throw CommandError(
                .findings,
                "refused: the newest dead letter of \(topic)/\(partition) in \(dlq) is @\(newest.originalOffset.map(String.init) ?? "?") "
                    + "(\(dlq)/\(newest.partition)@\(newest.offset)), not @\(offset): it is halted there, if anywhere "
                    + "(dead-lettered offsets: \(offsets.joined(separator: ", ")))")
        }
        return Halt(
            timestamp: newest.originalTimestampMilliseconds,
            deadLetter: DeadLetterCoordinates(topic: newest.topic ?? dlq, partition: newest.partition, offset: newest.offset))
    }

    /// Refuses a group that neither the brokers' list (`listed`, nil when they cannot list groups) nor the dead
    /// letters (`named`) know, naming the known groups closest first. Without either to go by, nothing is refused.
    func checkGroupKnown(_ group: String, listed: [String]?, named: Set<String>, dlq: String) throws {
        let known = named.union(listed ?? [])
        guard !known.contains(group), listed != nil || !named.isEmpty else { return }
        let closest = known.filter { !$0.hasPrefix("_") }.sorted { (editDistance($0, group), $0) < (editDistance($1, group), $1) }
        let tried = (listed == nil ? "" : "the brokers do not list it, ") + "no offset committed on \(topic)/\(partition), no dead letter in \(dlq) names it"
        throw CommandError(
            .findings,
            "refused: no group '\(group)' is known (\(tried)); "
                + (closest.isEmpty ? "no group is known" : "known groups, closest first: \(closest.prefix(5).joined(separator: ", "))")
                + didYouMean(group, among: closest))
    }
}
