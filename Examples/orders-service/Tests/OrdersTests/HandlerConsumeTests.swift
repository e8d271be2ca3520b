import Foundation
import Testing

/// The service's own binary, `orders-switchyard consume`, running its handlers on the embedded broker
/// (`orders-switchyard broker`), fed with kcat, its inventory a local fake: business rejections are
/// dead-lettered with the original bytes and counted, a transient inventory error is retried and then
/// succeeds, a permanent one dead-letters (`retry.onExhausted: deadLetter`) or halts the strict partition
/// (the default), and the `order.reserved` events arrive in order.
@Suite(.serialized, .timeLimit(.minutes(4)))
struct HandlerConsumeTests {
    /// An `order.placed` record (the first fixture's shape) for `orderId`, one line of `sku`.
    static func placed(_ orderId: String, sku: String) -> String {
        #"{"type":"order.placed","id":"evt-\#(orderId)","occurredAt":"2025-03-14T09:26:53Z","orderId":"\#(orderId)","customerId":"cus-1","items":[{"sku":"\#(sku)","quantity":2,"unitPrice":{"value":450,"currency":"EUR"}}],"total":{"value":900,"currency":"EUR"},"channel":"web"}"#
    }

    /// Starts a broker with the service's topics, produces `lines` to orders/0 and runs consume.
    static func start(_ lines: [String], inventory: FakeInventory, retry: [String: Any]) async throws
        -> (broker: Broker, worker: ChildProcess, port: Int, kcat: URL, config: URL)
    {
        let kcat = try kcatPath()
        let broker = try await Broker.start([
            "--topic", "orders:1", "--topic", "orders.dlq:1", "--topic", "orders.canonical:1", "--topic", "orders.reserved:1",
        ])
        let produced = try await run(kcat, ["-P", "-b", broker.bootstrap, "-t", "orders", "-p", "0"], stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
        #expect(produced.exitCode == 0, "kcat -P: \(produced.stderr)")
        let port = freePort()
        let config = try ConsumeTests.config(brokers: broker.bootstrap, port: port, inventory: inventory.url, retry: retry)
        let worker = try ChildProcess(ordersBinary, ["consume", "--config", config.path])
        return (broker, worker, port, kcat, config)
    }

    /// The value of the `/metrics` series `name{labels…}` (each label as `key="value"`), or nil.
    static func metric(_ body: String, _ name: String, _ labels: [String]) -> String? {
        body.split(separator: "\n").first { $0.hasPrefix(name + "{") && labels.allSatisfy($0.contains) }.map { String($0.split(separator: " ").last!) }
    }

    @Test func rejectionsRetriesAndPublishingThroughTheServicesBinary() async throws {
        let inventory = try FakeInventory(
            stock: ["SKU-TEA-01": 100, "SKU-MUG-02": 100, "SKU-FLAKY": 100], unavailableFirst: ["SKU-FLAKY": 2], refused: ["SKU-BUG"])
        let lines = [
            Self.placed("ord-1", sku: "SKU-TEA-01"),
            Self.placed("ord-2", sku: "SKU-GONE"),  // unknown: dead-lettered at once
            Self.placed("ord-3", sku: "SKU-FLAKY"),  // 503 twice, then in stock
            Self.placed("ord-4", sku: "SKU-MUG-02"),
            Self.placed("ord-5", sku: "SKU-BUG"),  // 400: permanent, dead-lettered (onExhausted: deadLetter)
            Self.placed("ord-6", sku: "SKU-TEA-01"),
        ]
        let (broker, worker, port, kcat, config) = try await Self.start(
            lines, inventory: inventory, retry: ["attempts": 5, "initialBackoffMilliseconds": 100, "maxBackoffMilliseconds": 400, "onExhausted": "deadLetter"])

        // Published by the handler, in the order of the records, keyed by order, tagged.
        let reserved = try await ConsumeTests.consume(kcat, broker.bootstrap, "orders.reserved", count: 4)
        #expect(reserved.map { $0["key"] as? String } == ["ord-1", "ord-3", "ord-4", "ord-6"], "worker stderr: \(worker.stderr.suffix(2000))")
        #expect(reserved.allSatisfy { ($0["payload"] as? String)?.hasPrefix(#"{"type":"order.reserved""#) == true })
        #expect(reserved.allSatisfy { ($0["payload"] as? String)?.contains(#""units":2"#) == true })

        // Dead-lettered: the original bytes, the handler's kind.
        let dead = try await ConsumeTests.consume(kcat, broker.bootstrap, "orders.dlq", count: 2)
        #expect(dead.map { $0["payload"] as? String } == [lines[1], lines[4]], "the original bytes")
        #expect(dead.map { ConsumeTests.header($0, "switchyard.error.kind") } == ["unknownSku", "handlerFailed"])
        #expect(dead.map { ConsumeTests.header($0, "switchyard.original.offset") } == ["1", "4"])
        #expect(ConsumeTests.header(dead[1], "switchyard.error.message")?.contains("failed permanently") == true, "\(dead[1])")

        // The transient error was retried until it succeeded; the permanent one was asked once.
        #expect(inventory.calls("SKU-FLAKY") == 3)
        #expect(inventory.calls("SKU-BUG") == 1)
        try await eventually(.seconds(30), "the metrics count both dead letters") {
            guard let (_, body) = await httpGet(port: port, "/metrics") else { return false }
            return Self.metric(body, "switchyard_dead_letters_total", [#"topic="orders""#, #"kind="unknownSku""#]) == "1"
                && Self.metric(body, "switchyard_dead_letters_total", [#"topic="orders""#, #"kind="handlerFailed""#]) == "1"
                && Self.metric(body, "switchyard_published_total", [#"topic="orders""#]) == "4"
                && Self.metric(body, "switchyard_handler_errors_total", [#"topic="orders""#, #"type="order.placed""#]) == "3"
        }
        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit(within: .seconds(30)) == 0, "\(worker.stderr)")
        try await broker.stop()
        try? FileManager.default.removeItem(at: config)
    }

    @Test func aPermanentErrorHaltsTheStrictTopic() async throws {
        let inventory = try FakeInventory(stock: ["SKU-TEA-01": 100], refused: ["SKU-BUG"])
        let lines = [Self.placed("ord-1", sku: "SKU-TEA-01"), Self.placed("ord-2", sku: "SKU-BUG"), Self.placed("ord-3", sku: "SKU-TEA-01")]
        let (broker, worker, port, kcat, config) = try await Self.start(
            lines, inventory: inventory, retry: ["attempts": 3, "initialBackoffMilliseconds": 100])

        var halted: [String: Any] = [:]
        try await eventually(.seconds(90), "/status shows orders[0] halted; worker stderr: \(worker.stderr.suffix(2000))") {
            guard let (status, body) = await httpGet(port: port, "/status"), status == 200,
                let document = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
                let first = (document["halted"] as? [[String: Any]])?.first
            else { return false }
            halted = first
            return true
        }
        #expect(halted["offset"] as? Int == 1 && halted["kind"] as? String == "handlerFailed", "\(halted)")
        let dead = try await ConsumeTests.consume(kcat, broker.bootstrap, "orders.dlq", count: 1)
        #expect(dead.first?["payload"] as? String == lines[1])
        // Nothing after the halted record ran: one reservation, and ord-3 never reached the inventory.
        try await Task.sleep(for: .seconds(2))
        let reserved = try await run(kcat, ["-C", "-b", broker.bootstrap, "-t", "orders.reserved", "-o", "beginning", "-e", "-J", "-q"], timeout: 60)
        #expect(reserved.stdoutLines.count == 1, "\(reserved.stdout)")
        #expect(inventory.calls("SKU-TEA-01") == 1 && inventory.calls("SKU-BUG") == 1)
        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit(within: .seconds(30)) == 0, "\(worker.stderr)")
        try await broker.stop()
        try? FileManager.default.removeItem(at: config)
    }

    @Test func theServicesOwnSubcommandBesideSwitchyards() async throws {
        let inventory = try FakeInventory(stock: ["SKU-TEA-01": 7])
        let stock = try await ordersSwitchyard(["stock", "--inventory", inventory.url, "SKU-TEA-01", "SKU-GONE"])
        #expect(stock.exitCode == 1 && stock.stdoutLines == ["SKU-TEA-01\t7", "SKU-GONE\tunknown"], "\(stock)")
        let help = try await ordersSwitchyard(["--help"])
        #expect(help.stdout.contains("stock") && help.stdout.contains("inventory-stub") && help.stdout.contains("consume"))
        let usage = try await ordersSwitchyard(["stock", "SKU-TEA-01"])
        #expect(usage.exitCode == 64 && usage.stderr.contains("--inventory"), "\(usage)")
    }
}
