import Foundation
import Switchyard
import SwitchyardKafka

/// `switchyard releases`: the releases recorded in the control topic (the audit trail), oldest first.
struct ReleasesCommand: Command {
    static let spec = CommandSpec(
        ["releases"], abstract: "List the releases recorded in the control topic (who released what, when, why).",
        synopsis: ["releases (-c FILE | -b LIST) [--group GROUP] [-t TOPIC] [--control-topic NAME] [--json]"],
        discussion: """
            Reads the control topic from its beginning to its end (read-only: no group is joined) and prints
            each release record, oldest first: when it was written, the group, the record released, who
            released it and why, and whether it was forced or signed. A control topic that does not exist
            yet holds no releases.
            """,
        options: [
            OptionSpec("--config", short: "-c", .file("FILE"), help: "Take brokers, Kafka settings, the group and the control topic from the worker's config."),
            OptionSpec("--brokers", short: "-b", .text("LIST"), help: "Bootstrap servers (without --config). Default: $SWITCHYARD_BROKERS."),
            OptionSpec("--group", .text("GROUP"), help: "Only this group's releases (with --config: default the config's group; --group all for every group)."),
            OptionSpec("--topic", short: "-t", .text("TOPIC"), help: "Only releases of this topic."),
            OptionSpec("--control-topic", .text("NAME"), help: "Default: switchyard.control (or the config's controlTopic)."),
            OptionSpec("--json", help: "One JSON object per release (the record as written, with its control-topic location)."),
            OptionSpec("--connect-timeout", .number("S"), help: "Seconds to reach the brokers (exit 69). Default: 10."),
        ],
        examples: [Example("switchyard releases -b localhost:9092", "Every release recorded, oldest first.")],
        exitCodes: [
            (.success, "listed (also none)"), (.usage, "usage"), (.dataError, "a control record that is not a release"),
            (.unavailable, "broker unavailable"), (.config, "bad configuration"),
        ])

    var configPath: String?
    var brokers: String?
    var group: String?
    var topic: String?
    var controlTopic: String?
    var json: Bool
    var connectTimeout: Duration

    init(_ arguments: ParsedArguments) throws {
        configPath = arguments.option("--config")
        brokers = arguments.option("--brokers") ?? (arguments.option("--config") == nil ? environmentBrokers() : nil)
        group = arguments.option("--group")
        topic = arguments.option("--topic")
        controlTopic = arguments.option("--control-topic")
        json = arguments.flag("--json")
        connectTimeout = try parseConnectTimeout(arguments.option("--connect-timeout"))
    }

    func validate() throws {
        if configPath == nil && brokers == nil { throw CommandError.usage("give --config or --brokers") }
    }

    func run() async throws -> ExitCode {
        var brokers = self.brokers
        var properties: [String: String] = [:]
        var group = self.group
        var controlTopic = self.controlTopic
        if let configPath {
            let config = try loadWorkerConfiguration(configPath)
            brokers = brokers ?? config.bootstrapServers.joined(separator: ",")
            properties = config.kafka
            group = group ?? config.groupID
            controlTopic = controlTopic ?? config.controlTopic
        }
        if group == "all" { group = nil }
        let name = controlTopic ?? WorkerConfiguration.defaultControlTopic
        var options = DeadLetterSource.ReadOptions(connectTimeout: connectTimeout)
        options.progress = false
        // No control topic yet: nothing was ever released.
        options.missingTopicIsEmpty = true
        let decoder = SwitchyardJSONDecoder()
        var table = Table(header: ["WRITTEN", "GROUP", "RECORD", "OPERATOR", "NOTE", "REASON"])
        var shown = 0
        var total = 0
        try await DeadLetterSource.live(brokers: brokers!, topic: name, properties: properties).read(options) { record in
            guard let value = record.value else { return true }
            let release: ReleaseRequest
            do {
                release = try decoder.decode(ReleaseRequest.self, from: value)
            } catch {
                throw CommandError(.dataError, "\(name)/\(record.partition)@\(record.offset) is not a release record: \(error)")
            }
            total += 1
            if let group, release.group != group { return true }
            if let topic, release.topic != topic { return true }
            shown += 1
            let location = RecordLocation(topic: release.topic, partition: release.partition, offset: release.offset)
            if json {
                var o = JSONObject()
                o.set("control", "\(name)/\(record.partition)@\(record.offset)")
                o.set("record", location.description)
                o.set("release", RawJSON(bytes: value))
                print(o.text)
            } else {
                var notes: [String] = []
                if release.force == true { notes.append("forced") }
                if release.signature != nil { notes.append("signed") }
                table.rows.append([release.at, release.group, location.description, release.operator, notes.isEmpty ? "-" : notes.joined(separator: ", "), release.reason])
            }
            return true
        }
        if !json {
            if !table.rows.isEmpty { print(table.render()) }
            let filters = [group.map { "group \($0)" }, topic.map { "topic \($0)" }].compactMap { $0 }
            print("\(shown) release(s)" + (filters.isEmpty ? "" : " of \(filters.joined(separator: ", "))") + " of \(total) in \(name)")
        }
        return .success
    }
}
