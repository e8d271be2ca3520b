import Foundation
import Switchyard
import SwitchyardCatalog
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// What must never leak. Secrets (a `sasl.password` from the environment, with librdkafka's
/// configuration dump turned on) appear nowhere in the worker's logs, `/status`, `/metrics` or
/// errors; payload values appear nowhere in logs, `/status` or dead-letter headers. (`dlq show`
/// redaction without `--reveal`: DLQCommandTests/DLQLiveTests; HTTP limits: SwitchyardHTTPTests.)
@Suite(.serialized, .timeLimit(.minutes(5)))
struct SecurityTests {
    static let secret = "hunter2-secret"
    static let pii = "Alice-Liddell-IBAN-DE44500105175407324931"

    /// Every string the worker exposes: log messages and metadata, /status, /metrics.
    static func exposed(_ worker: RunningWorker, port: Int) async throws -> [String] {
        var texts: [String] = []
        for e in worker.logs.entries {
            texts.append(e.message)
            texts.append(contentsOf: e.metadata.map { "\($0.key)=\($0.value)" })
        }
        for path in ["/status", "/metrics", "/healthz", "/readyz"] {
            let response = try #require(await httpGet(port: port, path))
            texts.append(response.body)
        }
        return texts
    }

    @Test func secretsAndPayloadValuesAppearNowhere() async throws {
        let harness = try Harness(topics: ["feeds": 1, "feeds.dlq": 1, "feeds.out": 1])
        // The secret comes from the environment, as PRODUCT.md asks; librdkafka's `debug=conf` makes it
        // log its whole configuration. security.protocol stays plaintext (the embedded broker has no
        // SASL); librdkafka accepts sasl.* then and ignores them.
        let file = #"""
            {"brokers":"\#(harness.broker.bootstrapServers)","groupId":"\#(harness.group)",
             "topics":{"feeds":{"catalog":"feeds","deadLetterTopic":"feeds.dlq","republishTo":"feeds.out"}},
             "metrics":{"host":"127.0.0.1","port":\#(freePort())},
             "kafka":{"sasl.username":"svc-switchyard","sasl.password":"${SWITCHYARD_SASL_PASSWORD}","sasl.mechanisms":"PLAIN",
                      "debug":"conf,generic","heartbeat.interval.ms":"500","session.timeout.ms":"6000","auto.commit.interval.ms":"500"}}
            """#
        let config = try WorkerConfiguration.parse(Array(file.utf8), catalogs: CatalogRegistry(Catalog.shipped), environment: ["SWITCHYARD_SASL_PASSWORD": Self.secret])
        #expect(config.kafka["sasl.password"] == Self.secret, "resolved from the environment")

        // Payload values in every shape: decoded, unknown field, failed (type mismatch, invalid JSON).
        let records = [
            #"{"type":"post.created","id":"e1","occurredAt":"2026-01-01T00:00:00Z","postId":"p","authorId":"a","text":"\#(Self.pii)","note":"\#(Self.pii)"}"#,
            #"{"type":"post.created","id":"e2","occurredAt":"2026-01-01T00:00:00Z","postId":7,"authorId":"a","text":"\#(Self.pii)"}"#,
            #"{"type":"comment.added","id":"\#(Self.pii)","occurredAt":"2026-01-01T00:00:00Z","postId":"p","commentId":"c","authorId":"\#(Self.pii)","text":"\#(Self.pii)""#,
            // An unknown type (the tag is a label by contract: capped, never a field value).
            #"{"type":"story.posted","id":"e4","occurredAt":"2026-01-01T00:00:00Z","body":"\#(Self.pii)"}"#,
            #"{"type":"user.followed","id":"e5","occurredAt":"\#(Self.pii)","followerId":"f","followeeId":"g"}"#,
        ]
        for r in records { try await harness.produce("feeds", partition: 0, value: Array(r.utf8), key: "k") }
        // Produce errors, so failures reach /status recent errors too.
        harness.broker.pushRequestErrors(.produce, Array(repeating: .topicAuthorizationFailed, count: 3))

        let worker = try RunningWorker(config, kafkaLogLevel: .debug)
        let server = try worker.worker.serveEndpoints()
        defer { server.stop() }
        try await eventually(.seconds(60), "all handled") { worker.counter("switchyard_records_total", ["topic": "feeds"]) == Int64(records.count) }
        try await eventually(.seconds(60), "dead letters out") {
            worker.counter("switchyard_dead_letters_total", ["topic": "feeds", "kind": "typeMismatch"]) == 1
                && worker.counter("switchyard_dead_letters_total", ["topic": "feeds", "kind": "dataCorrupted"]) == 2
        }
        #expect(worker.logs.entries.contains { ($0.metadata["kafka.log"] ?? "").contains("sasl.password") }, "librdkafka did dump its configuration")
        #expect(!worker.worker.status.recentErrors.isEmpty)

        let texts = try await Self.exposed(worker, port: server.port)
        for text in texts {
            #expect(!text.contains(Self.secret), "secret in: \(text.prefix(200))")
            #expect(!text.contains(Self.pii), "payload value in: \(text.prefix(200))")
        }
        // Dead-letter headers: the diagnosis carries no values (the record value itself is the original).
        let dead = try await harness.readAll("feeds.dlq", count: 3)
        for record in dead {
            for header in record.headers {
                let value = String(decoding: header.value ?? [], as: UTF8.self)
                #expect(!value.contains(Self.pii), "\(header.name) carries a payload value")
                #expect(!value.contains(Self.secret))
            }
        }
        try await worker.stop()
        // The metrics carry the type tag (a wire value, capped), by contract; not a field value.
        #expect(!worker.worker.metrics.registry.render().contains(Self.secret))
    }

    @Test func errorsNeverCarryTheSecret() async throws {
        // Unreachable brokers: the error names the brokers, not the credentials.
        let config = WorkerConfiguration(
            bootstrapServers: ["127.0.0.1:1"], groupID: "g", topics: ["feeds": TopicConfiguration(catalog: .feeds, deadLetterTopic: "feeds.dlq")],
            metrics: MetricsConfiguration(host: "127.0.0.1", port: 0),
            kafka: ["sasl.password": Self.secret, "sasl.username": "svc", "sasl.mechanisms": "PLAIN", "debug": "conf", "socket.timeout.ms": "1000"])
        let logs = InMemoryLogHandler()
        let worker = try Worker(configuration: config, logger: SwitchyardLogger(handler: logs, level: .debug), kafkaLogLevel: .debug)
        do {
            try await worker.run()
            Issue.record("the worker ran without brokers")
        } catch {
            #expect(error is WorkerError)
            #expect(!"\(error)".contains(Self.secret), "\(error)")
        }
        for e in logs.entries {
            #expect(!e.message.contains(Self.secret) && !e.metadata.values.contains { $0.contains(Self.secret) })
        }
        // A property librdkafka rejects: its message quotes the value; a secret's value is redacted.
        let rejected = WorkerConfiguration(
            bootstrapServers: ["127.0.0.1:1"], groupID: "g", topics: ["feeds": TopicConfiguration(catalog: .feeds, deadLetterTopic: "feeds.dlq")],
            metrics: MetricsConfiguration(host: "127.0.0.1", port: 0),
            kafka: ["sasl.password": Self.secret, "ssl.key.password": Self.secret, "sasl.mechanisms": Self.secret + "-mechanism"])
        let failing = try Worker(configuration: rejected, logger: SwitchyardLogger(handler: InMemoryLogHandler(), level: .debug))
        do {
            try await failing.run()
            Issue.record("librdkafka accepted an unknown SASL mechanism")
        } catch {
            #expect(!"\(error)".contains(Self.secret), "\(error)")
        }
    }
}
