import Foundation
import SwitchyardHTTP
import SwitchyardMetrics
import SwitchyardTestSupport
import Testing

/// A real Prometheus server scrapes `/metrics` and its query API returns what the registry counted.
@Suite("Prometheus scrape", .serialized, .timeLimit(.minutes(2)))
struct PrometheusScrapeTests {
    @Test("Prometheus scrapes the registry every second and its query API returns the counter's value")
    func scrape() async throws {
        let registry = MetricsRegistry()
        let records = try registry.counter("switchyard_records_total", help: "Records consumed.", labels: ["topic"])
        let decoded = try registry.counter(
            "switchyard_events_decoded_total", help: "Events decoded.", labels: ["topic", "type"],
            cappedLabel: "type", cap: 1)
        let seconds = try registry.histogram("switchyard_processing_seconds", help: "Seconds per record.")
        records.labels("payments").increment(by: 42)
        decoded.labels("payments", "payment.captured").increment()
        decoded.labels("payments", "weird \"type\"\nwith\\escapes").increment(by: 2)  // collapses into _other
        seconds.labels().observe(0.003)

        var routes = HTTPRoutes()
        routes.get("/metrics") { _ in HTTPResponse.prometheus(registry.render()) }
        let server = try HTTPServer.start(host: "127.0.0.1", port: 0, routes: routes)
        defer { server.stop() }

        // Our own instance on a free port: the Debian package may run a system Prometheus on :9090.
        let prometheus = try PrometheusServer(target: server.port)
        defer { prometheus.stop() }
        try await eventually(.seconds(60), "Prometheus returns the counter") {
            try await prometheus.firstValue(query: "switchyard_records_total") == "42"
        }
        // The escaped, collapsed series made it through Prometheus's parser too.
        #expect(try await prometheus.firstValue(query: #"switchyard_events_decoded_total{type="_other"}"#) == "2")
        #expect(try await prometheus.firstValue(query: #"up{job="switchyard"}"#) == "1")
    }
}
