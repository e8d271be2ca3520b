import Foundation
import SwitchyardKafka

/// `switchyard broker --control`: fault commands read one per line on stdin, each applied to the embedded broker
/// and answered with one line on stdout, `ok` or `error: WHY`.
///
///     broker-down ID | broker-up ID
///     request-errors API ERROR[,ERROR…]     (the next requests of type API fail with these errors, in order)
///     clear-request-errors API
///     topic-error TOPIC ERROR|none
///     leader TOPIC PARTITION BROKER         (BROKER -1: no leader)
///     coordinator GROUP BROKER
///     create-topic NAME:PARTITIONS
///
/// API is a request name (`produce`, `fetch`, `offset-commit`, …) or its number; ERROR a librdkafka error name
/// (`NOT_LEADER_FOR_PARTITION`, `REQUEST_TIMED_OUT`, `_TRANSPORT`) or its number. Blank lines and lines
/// starting with `#` are skipped without an answer.
struct BrokerControl {
    let broker: EmbeddedBroker

    /// The request types by name, as `request-errors` takes them.
    static let apiKeys: [(name: String, key: EmbeddedBroker.APIKey)] = [
        ("produce", .produce), ("fetch", .fetch), ("list-offsets", .listOffsets), ("metadata", .metadata),
        ("offset-commit", .offsetCommit), ("offset-fetch", .offsetFetch), ("find-coordinator", .findCoordinator),
        ("join-group", .joinGroup), ("heartbeat", .heartbeat), ("sync-group", .syncGroup),
        ("init-producer-id", .initProducerID),
    ]

    /// Every error code librdkafka names (its local codes are negative, down to about -200; the protocol's go up to
    /// about 120), by name.
    static let errorCodes: [String: EmbeddedBroker.ErrorCode] = {
        var codes: [String: EmbeddedBroker.ErrorCode] = [:]
        for raw in Int32(-200)...Int32(200) {
            let code = EmbeddedBroker.ErrorCode(rawValue: raw)
            codes[code.description] = codes[code.description] ?? code
        }
        return codes
    }()

    /// Applies one line; the answer to print (`ok` or `error: …`), or nil for a blank or comment line.
    func apply(_ line: String) -> String? {
        let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let verb = words.first, !verb.hasPrefix("#") else { return nil }
        do {
            try perform(verb, Array(words.dropFirst()))
            return "ok"
        } catch let error as ControlError {
            return "error: \(error.message)"
        } catch let error as KafkaError {
            return "error: \(verb): \(error.reason)"
        } catch {
            return "error: \(verb): \(error)"
        }
    }

    struct ControlError: Error {
        var message: String
    }

    private func perform(_ verb: String, _ arguments: [String]) throws {
        func expect(_ count: Int, _ shape: String) throws {
            guard arguments.count == count else {
                throw ControlError(message: "\(verb) takes \(shape), got \(arguments.count) argument(s)")
            }
        }
        switch verb {
        case "broker-down":
            try expect(1, "ID")
            try broker.setBrokerDown(try brokerID(arguments[0]))
        case "broker-up":
            try expect(1, "ID")
            try broker.setBrokerUp(try brokerID(arguments[0]))
        case "request-errors":
            try expect(2, "API ERROR[,ERROR…]")
            let errors = try arguments[1].split(separator: ",").map { try errorCode(String($0)) }
            guard !errors.isEmpty else { throw ControlError(message: "request-errors needs at least one error") }
            broker.pushRequestErrors(try apiKey(arguments[0]), errors)
        case "clear-request-errors":
            try expect(1, "API")
            broker.clearRequestErrors(try apiKey(arguments[0]))
        case "topic-error":
            try expect(2, "TOPIC ERROR|none")
            broker.setTopicError(arguments[0], arguments[1] == "none" ? nil : try errorCode(arguments[1]))
        case "leader":
            try expect(3, "TOPIC PARTITION BROKER")
            let partition = try number(arguments[1], "PARTITION")
            let leader = arguments[2] == "-1" ? -1 : try brokerID(arguments[2])
            try broker.setPartitionLeader(topic: arguments[0], partition: partition, broker: leader)
        case "coordinator":
            try expect(2, "GROUP BROKER")
            try broker.setGroupCoordinator(group: arguments[0], broker: try brokerID(arguments[1]))
        case "create-topic":
            try expect(1, "NAME:PARTITIONS")
            let topic: (name: String, partitions: Int)
            do {
                topic = try BrokerCommand.parseTopic(arguments[0])
            } catch {
                throw ControlError(message: "create-topic needs NAME:PARTITIONS, got '\(arguments[0])'")
            }
            try broker.createTopic(topic.name, partitions: topic.partitions)
        default:
            throw ControlError(
                message: "unknown command '\(verb)' (broker-down, broker-up, request-errors, clear-request-errors, "
                    + "topic-error, leader, coordinator, create-topic)")
        }
    }

    private func number(_ text: String, _ name: String) throws -> Int {
        guard let value = Int(text), value >= 0 else {
            throw ControlError(message: "\(name) must be a non-negative integer, got '\(text)'")
        }
        return value
    }

    private func brokerID(_ text: String) throws -> Int {
        guard let id = Int(text), (1...broker.brokerCount).contains(id) else {
            throw ControlError(message: "a broker id is 1…\(broker.brokerCount), got '\(text)'")
        }
        return id
    }

    private func apiKey(_ text: String) throws -> EmbeddedBroker.APIKey {
        if let raw = Int16(text), raw >= 0 { return EmbeddedBroker.APIKey(rawValue: raw) }
        guard let key = Self.apiKeys.first(where: { $0.name == text })?.key else {
            throw ControlError(message: "unknown request type '\(text)' (\(Self.apiKeys.map(\.name).joined(separator: ", ")), or a number)")
        }
        return key
    }

    private func errorCode(_ text: String) throws -> EmbeddedBroker.ErrorCode {
        if let raw = Int32(text) { return EmbeddedBroker.ErrorCode(rawValue: raw) }
        guard let code = Self.errorCodes[text] else {
            throw ControlError(message: "unknown error '\(text)' (a librdkafka error name such as NOT_LEADER_FOR_PARTITION, or a number)")
        }
        return code
    }

    /// Reads stdin on a thread of its own until it ends, answering each line on stdout at once.
    func serveStandardInput() {
        let thread = Thread { [self] in
            while let line = readLine() {
                if let answer = apply(line) {
                    FileHandle.standardOutput.write(Data((answer + "\n").utf8))
                }
            }
            printError("switchyard broker: the control input ended; the broker serves on until SIGINT or SIGTERM")
        }
        thread.start()
    }
}
