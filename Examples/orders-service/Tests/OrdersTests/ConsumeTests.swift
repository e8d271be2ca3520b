import Foundation
import Testing

/// `orders-switchyard consume` on the embedded broker (`orders-switchyard broker`), fed with kcat: the
/// shipped worker config (config/orders.json, pointed at the test's broker), a strict topic that
/// dead-letters its first failure with the diagnosis in headers and halts the partition there.
@Suite(.serialized, .timeLimit(.minutes(4)))
struct ConsumeTests {
    /// librdkafka settings that make a consumer group settle in seconds on the mock broker. The metadata refresh
    /// is not a multiple of a second, out of step with the mock's whole-second group timers: in step, librdkafka
    /// 2.0.2's group leader may join again and again, 5 s each time.
    static let fastKafka = [
        "heartbeat.interval.ms": "500", "session.timeout.ms": "6000", "auto.commit.interval.ms": "500",
        "topic.metadata.refresh.interval.ms": "1300", "reconnect.backoff.max.ms": "1000",
    ]

    /// config/orders.json with the test's brokers, a fresh group, a free metrics port and fast settings.
    static func config(brokers: String, port: Int, inventory: String, retry: [String: Any]? = nil) throws -> URL {
        let shipped = try Data(contentsOf: packageRoot.appendingPathComponent("config/orders.json"))
        var config = try #require(try JSONSerialization.jsonObject(with: shipped) as? [String: Any])
        config["brokers"] = brokers
        config["groupId"] = "orders-test-\(UUID().uuidString.prefix(8))"
        config["metrics"] = ["host": "127.0.0.1", "port": port, "maxTypeLabels": 50] as [String: Any]
        config["kafka"] = fastKafka
        config["service"] = ["inventoryURL": inventory, "reservationsTopic": "orders.reserved"]
        if let retry {
            var topics = try #require(config["topics"] as? [String: Any])
            var orders = try #require(topics["orders"] as? [String: Any])
            orders["retry"] = retry
            topics["orders"] = orders
            config["topics"] = topics
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("orders-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: config, options: [.sortedKeys]).write(to: url)
        return url
    }

    /// Reads `count` records of `topic` as kcat -J envelopes (at most `within` seconds).
    static func consume(_ kcat: URL, _ brokers: String, _ topic: String, count: Int) async throws -> [[String: Any]] {
        let result = try await run(kcat, ["-C", "-b", brokers, "-t", topic, "-o", "beginning", "-c", String(count), "-J", "-q"], timeout: 60)
        #expect(result.exitCode == 0, "kcat -C \(topic): \(result.stderr)")
        return try result.stdoutLines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
    }

    /// kcat -J headers: `["name", "value", …]` → the value of `name`.
    static func header(_ envelope: [String: Any], _ name: String) -> String? {
        guard let flat = envelope["headers"] as? [Any] else { return nil }
        for i in stride(from: 0, to: flat.count - 1, by: 2) where flat[i] as? String == name { return flat[i + 1] as? String }
        return nil
    }

    @Test func deadLettersWithHeadersAndHaltsTheStrictPartition() async throws {
        let kcat = try kcatPath()
        let broker = try await Broker.start([
            "--topic", "orders:1", "--topic", "orders.dlq:1", "--topic", "orders.canonical:1", "--topic", "orders.reserved:1",
        ])
        // Every fixture line, in order, on partition 0: seven that decode, then a missing customerId at
        // offset 7, where the strict partition must stop.
        let lines = try fixtureLines()
        let produced = try await run(kcat, ["-P", "-b", broker.bootstrap, "-t", "orders", "-p", "0"], stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
        #expect(produced.exitCode == 0, "kcat -P: \(produced.stderr)")

        let inventory = try FakeInventory(stock: ["SKU-TEA-01": 100, "SKU-MUG-02": 100, "SKU-KETTLE-9": 100])
        let port = freePort()
        let config = try Self.config(brokers: broker.bootstrap, port: port, inventory: inventory.url)
        let worker = try ChildProcess(ordersBinary, ["consume", "--config", config.path])

        // /status names the halted partition, the offset and the diagnosis.
        var halted: [String: Any] = [:]
        try await eventually(.seconds(90), "/status shows orders[0] halted; worker stderr: \(worker.stderr)") {
            guard let (status, body) = await httpGet(port: port, "/status"), status == 200,
                let document = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
                let first = (document["halted"] as? [[String: Any]])?.first
            else { return false }
            halted = first
            return true
        }
        #expect(halted["topic"] as? String == "orders")
        #expect(halted["partition"] as? Int == 0)
        #expect(halted["offset"] as? Int == 7)
        #expect(halted["kind"] as? String == "keyNotFound")
        #expect(halted["path"] as? String == "customerId")
        #expect(halted["type"] as? String == "order.placed")

        // The failing record is dead-lettered, with the diagnosis and its origin in headers.
        let dead = try await Self.consume(kcat, broker.bootstrap, "orders.dlq", count: 1)
        let letter = try #require(dead.first)
        #expect(letter["payload"] as? String == lines[7], "the original bytes")
        #expect(Self.header(letter, "switchyard.error.kind") == "keyNotFound", "\(letter)")
        #expect(Self.header(letter, "switchyard.error.path") == "customerId", "\(letter)")
        #expect(Self.header(letter, "switchyard.error.type") == "order.placed", "\(letter)")
        #expect(Self.header(letter, "switchyard.original.topic") == "orders", "\(letter)")
        #expect(Self.header(letter, "switchyard.original.offset") == "7", "\(letter)")

        // The seven records before it were republished in canonical form; nothing after it was.
        let canonical = try await Self.consume(kcat, broker.bootstrap, "orders.canonical", count: 7)
        #expect(canonical.count == 7)
        #expect((canonical.last?["payload"] as? String)?.contains(#""restock":false"#) == true, "\(canonical.last ?? [:])")
        try await Task.sleep(for: .seconds(2))
        let status = try #require(await httpGet(port: port, "/status"))
        #expect(status.body.contains(#""offset":7"#), "still halted at 7: \(status.body)")
        let metrics = try #require(await httpGet(port: port, "/metrics"))
        let failures = metrics.body.split(separator: "\n").filter {
            $0.hasPrefix("switchyard_decode_failures_total{") && $0.contains(#"topic="orders""#)
                && $0.contains(#"kind="keyNotFound""#) && $0.contains(#"type="order.placed""#)
        }
        #expect(failures.count == 1 && failures.first?.hasSuffix(" 1") == true, "\(metrics.body.prefix(3000))")

        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit(within: .seconds(30)) == 0, "\(worker.stderr)")
        try await broker.stop()
        try? FileManager.default.removeItem(at: config)
    }
}
