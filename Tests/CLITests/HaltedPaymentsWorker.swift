import Foundation
import SwitchyardKafka
import SwitchyardTestSupport

/// A `switchyard consume` process halted on the strict payments topic: `payments/0@0` decodes, `@1` lacks its
/// amount (keyNotFound, so the partition halts there, its dead letter at `payments.dlq/0@0`), `@2` waits behind it.
/// Its `/status` is served on `port`; `stop()` sends it SIGTERM and removes its config.
struct HaltedPaymentsWorker {
    let broker: EmbeddedBroker
    let port: Int
    let group: String
    let config: URL
    let process: ChildProcess

    /// Starts the worker on a broker of its own with `extraTopics` beside payments and its DLQ, and waits (up to
    /// 60 s) until its `/status` names the halt and, when `withLag`, reports a lag.
    static func start(extraTopics: [String: Int] = [:], withLag: Bool = false) async throws -> HaltedPaymentsWorker {
        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["payments": 1, "payments.dlq": 1].merging(extraTopics) { $1 })
        let producer = try DLQFollowTests.producer(broker)
        let good = try String(contentsOfFile: OnCallTests.fixture("payments.ndjson"), encoding: .utf8).split(separator: "\n")[3]
        let bad = #"{"type":"payment.captured","id":"evt_01HV5R8T2W4Y6A8C0E2G4J6M8P","occurredAt":"2024-04-30T23:59:59Z","paymentId":"pay_1"}"#
        for value in [String(good), bad, String(good)] {
            _ = try await producer.send(KafkaProducerRecord(topic: "payments", partition: 0, key: nil, value: Array(value.utf8)))
        }
        await producer.close()
        let port = freePort()
        let group = unique("payments-workers")
        let config = temporaryFile("worker.json")
        let document: [String: Any] = [
            "brokers": broker.bootstrapServers, "groupId": group, "topics": ["payments": ["catalog": "payments"]],
            "metrics": ["host": "127.0.0.1", "port": port], "kafka": DLQLiveTests.fastKafka,
        ]
        try JSONSerialization.data(withJSONObject: document).write(to: config)
        let process = try ChildProcess(["consume", "--config", config.path])
        let worker = HaltedPaymentsWorker(broker: broker, port: port, group: group, config: config, process: process)
        do {
            try await eventually(.seconds(60), withLag ? "the worker halts at payments/0@1 and reports its lag" : "the worker halts at payments/0@1") {
                let body = await httpGet(port: port, "/status")?.body ?? ""
                return body.contains("\"record\":\"payments/0@1\"") && (!withLag || body.contains("\"lag\":"))
            }
        } catch {
            worker.stop()
            throw error
        }
        return worker
    }

    func stop() {
        process.signal(SIGTERM)
        try? FileManager.default.removeItem(at: config)
    }
}
