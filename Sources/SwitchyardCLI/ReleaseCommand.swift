import Foundation
import Switchyard
import SwitchyardKafka

/// `switchyard release`: lets a halted strict partition move past exactly one offset, with an audit record.
struct ReleaseCommand: Command {
    static let name = "release"
    static let abstract = "Release exactly one halted offset of a strict topic (recorded in the control topic)."
    static let usage = """
        USAGE: switchyard release (--config FILE | --brokers LIST --group GROUP) --topic TOPIC --partition P
                                  --offset O --reason TEXT [--operator NAME] [--control-topic NAME]

        Writes an audited release to the control topic. The worker that owns the partition, halted at
        exactly that offset, skips the record (it is already in the dead-letter topic) and goes on.
        A release for an offset that is not halted is recorded and applies if that offset halts later.

        OPTIONS:
          --config FILE        Take brokers, group, Kafka settings and the control topic from the worker's config.
          --brokers LIST       Bootstrap servers (without --config).
          --group GROUP        The worker's consumer group (without --config).
          --topic TOPIC        The halted topic.
          --partition P        The halted partition.
          --offset O           The halted record's offset (see /status or `switchyard dlq list`).
          --reason TEXT        Why it is safe to skip (required; kept in the audit trail).
          --operator NAME      Who releases. Default: $USER.
          --control-topic NAME Default: switchyard.control (or the config's controlTopic).
          --json               Print the release record.

        EXIT CODES: 0 recorded; 64 usage; 69 broker unavailable; 78 bad configuration.
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
    }

    func run() async throws -> ExitCode {
        var kafka = KafkaConfiguration(bootstrapServers: [], clientID: "switchyard-release")
        var group = self.group
        var controlTopic = self.controlTopic
        if let configPath {
            let config: WorkerConfiguration
            do {
                config = try WorkerConfiguration.load(path: configPath, catalogs: SwitchyardCommand.catalogs)
            } catch {
                throw CommandError(.config, "\(configPath): \(error)")
            }
            kafka.bootstrapServers = config.brokers.split(separator: ",").map(String.init)
            kafka.properties = config.kafka
            group = group ?? config.groupId
            controlTopic = controlTopic ?? config.controlTopic
        }
        if let brokers { kafka.bootstrapServers = brokers.split(separator: ",").map(String.init) }
        let request = ReleaseRequest(
            group: group!, topic: topic, partition: Int32(partition), offset: Int64(offset), reason: reason, operator: operatorName)
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
                print("release recorded: \(topic)[\(partition)]@\(offset) for group \(request.group) (control topic \(report.topic)[\(report.partition)]@\(report.offset))")
            }
            return .success
        } catch let error as KafkaError {
            await producer.close(timeout: .seconds(1))
            throw CommandError(error)
        }
    }
}
