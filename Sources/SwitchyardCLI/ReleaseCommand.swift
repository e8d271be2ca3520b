import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Switchyard
import SwitchyardKafka

/// `switchyard release`: lets a halted strict partition move past exactly one offset, with an audit record.
struct ReleaseCommand: Command {
    static let name = "release"
    static let abstract = "Release exactly one halted offset of a strict topic (recorded in the control topic)."
    static let usage = """
        USAGE: switchyard release (--config FILE | --brokers LIST --group GROUP) --topic TOPIC --partition P
                                  --offset O --reason TEXT [--operator NAME] [--status URL | --dead-letter-topic NAME]
                                  [--force] [--secret-file PATH] [--control-topic NAME]

        Checks that the partition is halted at exactly that offset, then writes an audited release to the
        control topic. The worker that owns the partition, halted at that record, skips it (its dead letter
        was acknowledged before it halted) and goes on.

        The check reads the worker's /status (--status), or else the dead-letter topic: the partition's
        newest dead letter must be the record at that offset. A release names the record (its offset and
        timestamp), and the worker applies it to that record only: never to another offset, never to another
        record at the same offset (a recreated topic). A release that is refused says what was found.

        With a shared secret (controlTopic.secret in the config, or --secret-file), the release is signed
        (HMAC-SHA256 over every field, the operator's name included); a worker that has the secret rejects
        unsigned and wrongly signed releases (switchyard_releases_rejected_total).

        --force skips the check (when neither /status nor the DLQ can be read). A forced release carries no
        record identity: the worker applies it only to a halt at that offset that began before the release
        was written, never to a later one.

        OPTIONS:
          --config FILE             Take brokers, group, Kafka settings, the DLQ and the control topic from the worker's config.
          --brokers LIST            Bootstrap servers (without --config).
          --group GROUP             The worker's consumer group (without --config).
          --topic TOPIC             The halted topic.
          --partition P             The halted partition.
          --offset O                The halted record's offset (see /status or `switchyard dlq list`).
          --reason TEXT             Why it is safe to skip (required; kept in the audit trail).
          --operator NAME           Who releases. Default: $USER.
          --status URL              The worker's /status (e.g. http://pod:9464/status): check the halt there.
          --dead-letter-topic NAME  Check the halt in this DLQ. Default: the config's, else TOPIC.dlq.
          --force                   Do not check (documented above).
          --secret-file PATH        Sign with this shared secret (default: the config's controlTopic.secret).
          --control-topic NAME      Default: switchyard.control (or the config's controlTopic).
          --json                    Print the release record.

        EXIT CODES: 0 recorded; 1 refused (not halted at that offset); 64 usage; 65 /status unreadable;
                    69 broker unavailable; 78 bad configuration.
        """

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

    init(arguments: inout Arguments) throws {
        configPath = try arguments.option("--config")
        brokers = try arguments.option("--brokers")
        group = try arguments.option("--group")
        guard let topic = try arguments.option("--topic") else { throw CommandError.usage("--topic is required") }
        guard let partition = try arguments.intOption("--partition") else { throw CommandError.usage("--partition is required") }
        guard let offset = try arguments.intOption("--offset") else { throw CommandError.usage("--offset is required") }
        guard let reason = try arguments.option("--reason") else { throw CommandError.usage("--reason is required") }
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.reason = reason
        operatorName = try arguments.option("--operator") ?? ProcessInfo.processInfo.environment["USER"] ?? "unknown"
        controlTopic = try arguments.option("--control-topic")
        statusURL = try arguments.option("--status")
        deadLetterTopic = try arguments.option("--dead-letter-topic")
        force = arguments.flag("--force")
        secretFile = try arguments.option("--secret-file")
        json = arguments.flag("--json")
        _ = try arguments.positionals()
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
            let config: WorkerConfiguration
            do {
                config = try WorkerConfiguration.load(path: configPath, catalogs: SwitchyardCommand.catalogs)
            } catch {
                throw CommandError(.config, "\(configPath): \(error)")
            }
            kafka.bootstrapServers = config.brokers.split(separator: ",").map(String.init)
            kafka.properties = config.kafka
            groupName = groupName ?? config.groupId
            controlTopic = controlTopic ?? config.controlTopic
            deadLetterTopic = deadLetterTopic ?? config.topics[topic]?.deadLetterTopic
            secret = secret ?? config.controlTopicSecret
        }
        if let brokers { kafka.bootstrapServers = brokers.split(separator: ",").map(String.init) }
        let group = groupName!
        var halt = Halt()
        if !force {
            if let statusURL {
                halt = try await checkStatus(statusURL, group: group)
            } else {
                halt = try await checkDeadLetters(deadLetterTopic ?? "\(topic).dlq", group: group, kafka: kafka)
            }
        }
        var request = ReleaseRequest(
            group: group, topic: topic, partition: Int32(partition), offset: Int64(offset), reason: reason, operator: operatorName,
            recordTimestamp: halt.timestamp, deadLetter: halt.deadLetter, force: force ? true : nil)
        if let secret { request.signature = ReleaseSigning.signature(of: request, secret: secret) }
        let value = try CanonicalJSONEncoder().encode(request)
        let producer: KafkaProducer
        do {
            producer = try KafkaProducer.make(configuration: KafkaProducerConfiguration(kafka: kafka), logger: NoOpKafkaLogger())
        } catch let error as KafkaError {
            throw CommandError(error)
        }
        do {
            _ = try await producer.metadata(timeout: .seconds(10))
            let key = Array("\(request.group)/\(topic)/\(partition)".utf8)
            let report = try await producer.send(KafkaProducerRecord(topic: controlTopic ?? "switchyard.control", key: key, value: value))
            await producer.close()
            if json {
                print(String(decoding: value, as: UTF8.self))
            } else {
                print("release recorded: \(topic)/\(partition)@\(offset) for group \(request.group) (control topic \(report.topic)/\(report.partition)@\(report.offset))")
                if force { print("forced: applies only to a halt at that offset that began before now") }
            }
            return .success
        } catch let error as KafkaError {
            await producer.close(timeout: .seconds(1))
            throw CommandError(error)
        }
    }

    /// Reads the worker's `/status`: the partition must be halted at exactly `offset`.
    func checkStatus(_ url: String, group: String) async throws -> Halt {
        guard let address = URL(string: url) else { throw CommandError.usage("--status needs a URL, got '\(url)'") }
        let document: [String: Any]
        do {
            var request = URLRequest(url: address)
            request.timeoutInterval = 10
            let (data, response) = try await URLSession.shared.data(for: request)
            guard (response as? HTTPURLResponse)?.statusCode == 200,
                let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { throw CommandError(.dataError, "\(url) did not answer with a status document") }
            document = object
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError(.dataError, "cannot read \(url): \(error.localizedDescription) (--force skips the check)")
        }
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

    /// Reads the dead-letter topic: the partition's newest dead letter (for this group) must be the record
    /// at `offset` — a halted partition's newest dead letter is the record it is halted at.
    func checkDeadLetters(_ dlq: String, group: String, kafka: KafkaConfiguration) async throws -> Halt {
        let letters = try await DeadLetterSource.live(
            brokers: kafka.bootstrapServers.joined(separator: ","), topic: dlq, properties: kafka.properties
        ).read(connectTimeout: .seconds(10), timeout: .seconds(60))
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
}
