import Dispatch
import Foundation
import SwitchyardKafka

/// `switchyard broker`: runs an embedded Kafka-protocol cluster (librdkafka's mock cluster) until SIGINT/SIGTERM.
struct BrokerCommand: Command {
    static let spec = CommandSpec(
        ["broker"], abstract: "Run an embedded Kafka-protocol broker (in memory) until interrupted.",
        discussion: """
            Starts librdkafka's mock cluster on localhost and prints, as the first line on stdout:

              bootstrap.servers=HOST:PORT[,HOST:PORT…]

            then serves until SIGINT or SIGTERM (exit 0). Records live in memory only. Topics not created
            with --topic are created on first use (any client's metadata request) with 4 partitions.

            Retention: the broker keeps about 5 MB per partition (librdkafka's mock cluster fixes the limit;
            it cannot be changed). Past it, the oldest records are dropped and the partition's log starts
            after offset 0 (dlq says how many expired). To keep more, spread a topic over more partitions
            (--topic NAME:PARTITIONS): each holds its own 5 MB.

            Ports: the brokers listen on ports they pick, printed on the first line. --port N puts broker 1 at
            127.0.0.1:N (broker 2 at N+1, …), and the brokers advertise those ports in their metadata, so a
            config can name a fixed address. A port in use exits 69, naming it.
            """,
        options: [
            OptionSpec("--brokers", .integer("N", minimum: 1), help: "How many brokers (1…32). Default: 1."),
            OptionSpec("--topic", short: "-t", .text("NAME:PARTITIONS"), repeatable: true, help: "Create a topic."),
            OptionSpec("--port", short: "-p", .integer("N", minimum: 1), help: "Listen on 127.0.0.1:N (broker 2 on N+1, …). Default: ports the brokers pick."),
        ],
        examples: [Example("switchyard broker -t payments:4 -t feeds:2", "Then: kcat -b HOST:PORT -P -t payments -K:")],
        exitCodes: [
            (.success, "stopped by SIGINT or SIGTERM"), (.usage, "usage"),
            (.unavailable, "the mock cluster could not start, or a --port is in use"),
        ])

    var brokers: Int
    var port: Int?
    var topics: [(name: String, partitions: Int)]

    init(_ arguments: ParsedArguments) throws {
        brokers = arguments.integer("--brokers") ?? 1
        port = arguments.integer("--port")
        topics = try arguments.options("--topic").map(Self.parseTopic)
    }

    static func parseTopic(_ text: String) throws -> (name: String, partitions: Int) {
        guard let colon = text.lastIndex(of: ":") else {
            throw CommandError.usage("--topic needs NAME:PARTITIONS, got '\(text)'")
        }
        let name = String(text[..<colon])
        guard !name.isEmpty, let partitions = Int(text[text.index(after: colon)...]) else {
            throw CommandError.usage("--topic needs NAME:PARTITIONS, got '\(text)'")
        }
        return (name, partitions)
    }

    func validate() throws {
        guard (1...32).contains(brokers) else {
            throw CommandError.usage("--brokers must be between 1 and 32, got \(brokers)")
        }
        for topic in topics where !(1...10_000).contains(topic.partitions) {
            throw CommandError.usage("--topic \(topic.name): partitions must be between 1 and 10000")
        }
        if let port, port + brokers - 1 > 65_535 {
            throw CommandError.usage("--port \(port) with \(brokers) broker(s) needs ports up to \(port + brokers - 1); the highest is 65535")
        }
        let names = topics.map(\.name)
        guard Set(names).count == names.count else {
            throw CommandError.usage("a --topic is given more than once")
        }
    }

    func run() async throws -> ExitCode {
        let broker: EmbeddedBroker
        do {
            broker = try EmbeddedBroker.make(brokers: brokers, port: port)
            for topic in topics {
                try broker.createTopic(topic.name, partitions: topic.partitions)
            }
        } catch let error as KafkaError {
            throw CommandError(error)
        }
        // The contract: the first stdout line, flushed at once, so scripts can read it and go on.
        FileHandle.standardOutput.write(Data("bootstrap.servers=\(broker.bootstrapServers)\n".utf8))
        let topicList = topics.map { "\($0.name):\($0.partitions)" }.joined(separator: ", ")
        printError(
            "switchyard broker: \(brokers) broker(s) at \(broker.bootstrapServers)"
                + (topicList.isEmpty ? "" : ", topics \(topicList)") + "; stop with Ctrl-C or SIGTERM"
        )
        printError("switchyard broker: keeps about 5 MB per partition in memory: older records are dropped (see --help)")
        let signal = await waitForTermination()
        printError("switchyard broker: \(signal), shutting down")
        withExtendedLifetime(broker) {}
        return .success
    }
}
