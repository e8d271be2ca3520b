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

            Fault injection (--control): the broker reads commands on stdin, one per line, applies each at once
            and answers it with one line on stdout: ok, or error: WHY (the broker goes on). A soak or a test
            drives the faults a Kafka client meets from a process of its own:

              broker-down ID, broker-up ID       a broker closes its connections and refuses new ones, or is back
              request-errors API ERROR[,ERROR…]  the next requests of type API (to any broker) fail with these
                                                 errors, in order
              clear-request-errors API           forgets the errors still queued for API
              topic-error TOPIC ERROR|none       metadata reports ERROR for TOPIC (none: clears it)
              leader TOPIC PARTITION BROKER      moves a partition's leadership (BROKER -1: no leader)
              coordinator GROUP BROKER           moves a consumer group's coordinator
              create-topic NAME:PARTITIONS       creates a topic

            API: produce, fetch, list-offsets, metadata, offset-commit, offset-fetch, find-coordinator,
            join-group, heartbeat, sync-group, init-producer-id, or the request's number. ERROR: a librdkafka
            error name (NOT_LEADER_FOR_PARTITION, REQUEST_TIMED_OUT, NOT_COORDINATOR; _TRANSPORT drops the
            connection) or its number. Broker ids are 1…N. Blank lines and lines starting with # get no
            answer. When stdin ends, the broker serves on until SIGINT or SIGTERM.
            """,
        options: [
            OptionSpec("--brokers", .integer("N", minimum: 1), help: "How many brokers (1…32). Default: 1."),
            OptionSpec("--topic", short: "-t", .text("NAME:PARTITIONS"), repeatable: true, help: "Create a topic."),
            OptionSpec("--port", short: "-p", .integer("N", minimum: 1), help: "Listen on 127.0.0.1:N (broker 2 on N+1, …). Default: ports the brokers pick."),
            OptionSpec("--control", help: "Read fault commands on stdin, one per line, and answer each on stdout (ok or error: WHY)."),
        ],
        examples: [
            Example("switchyard broker -t payments:4 -t feeds:2", "Then: kcat -b HOST:PORT -P -t payments -K:"),
            Example("switchyard broker --brokers 3 -t feeds:4 --control", "Then type: leader feeds 0 2, or request-errors produce NOT_LEADER_FOR_PARTITION,REQUEST_TIMED_OUT"),
        ],
        exitCodes: [
            (.success, "stopped by SIGINT or SIGTERM"), (.usage, "usage"),
            (.unavailable, "the mock cluster could not start, or a --port is in use"),
        ])

    var brokers: Int
    var port: Int?
    var topics: [(name: String, partitions: Int)]
    var control: Bool

    init(_ arguments: ParsedArguments) throws {
        brokers = arguments.integer("--brokers") ?? 1
        control = arguments.flag("--control")
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
        if control {
            BrokerControl(broker: broker).serveStandardInput()
        }
        let signal = await waitForTermination()
        printError("switchyard broker: \(signal), shutting down")
        withExtendedLifetime(broker) {}
        return .success
    }
}
