import Foundation
import SwitchyardHTTP
import SwitchyardMetrics
import Testing

/// A real Prometheus server scrapes `/metrics` and its query API returns what the registry counted.
@Suite("Prometheus scrape", .serialized, .timeLimit(.minutes(2)))
struct PrometheusScrapeTests {
    static let prometheusPath = "/usr/bin/prometheus"

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    @Test("Prometheus scrapes the registry every second and its query API returns the counter's value")
    func scrape() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.prometheusPath) else {
            throw Failure(
                description: "prometheus is not installed at \(Self.prometheusPath) (Debian package `prometheus`)")
        }
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

        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("switchyard-prometheus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer {
            do { try FileManager.default.removeItem(at: directory) } catch {
                Issue.record(error, "removing \(directory.path)")
            }
        }
        let config = directory.appendingPathComponent("prometheus.yml")
        try """
        global:
          scrape_interval: 1s
          scrape_timeout: 1s
        scrape_configs:
          - job_name: switchyard
            static_configs:
              - targets: ["\(server.authority)"]

        """.write(to: config, atomically: true, encoding: .utf8)

        // Our own instance on a free port: the Debian package may run a system Prometheus on :9090.
        let webPort = try freePort()
        let log = directory.appendingPathComponent("prometheus.log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw Failure(description: "cannot create \(log.path)")
        }
        let logHandle = try FileHandle(forWritingTo: log)
        let prometheus = Process()
        prometheus.executableURL = URL(fileURLWithPath: Self.prometheusPath)
        prometheus.arguments = [
            "--config.file=\(config.path)",
            "--storage.tsdb.path=\(directory.appendingPathComponent("data").path)",
            "--web.listen-address=127.0.0.1:\(webPort)",
        ]
        prometheus.standardOutput = logHandle
        prometheus.standardError = logHandle
        try prometheus.run()
        defer {
            prometheus.terminate()
            prometheus.waitUntilExit()
            do { try logHandle.close() } catch { Issue.record(error, "closing the Prometheus log") }
        }

        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(60)
        var last = "no answer yet"
        while clock.now < deadline {
            try await Task.sleep(for: .milliseconds(500))
            guard prometheus.isRunning else { break }
            let response: RawResponse
            do {
                response = try request("/api/v1/query?query=switchyard_records_total", port: webPort)
            } catch {
                last = "\(error)"  // not listening yet
                continue
            }
            last = response.body
            // An empty result until the first scrape lands.
            guard response.status == 200, let value = try Self.firstValue(response.body) else { continue }
            #expect(value == "42")
            // The escaped, collapsed series made it through Prometheus's parser too.
            let other = try request(
                "/api/v1/query?query=switchyard_events_decoded_total%7Btype%3D%22_other%22%7D", port: webPort)
            #expect(try Self.firstValue(other.body) == "2", "\(other.body)")
            let health = try request("/api/v1/query?query=up%7Bjob%3D%22switchyard%22%7D", port: webPort)
            #expect(try Self.firstValue(health.body) == "1", "\(health.body)")
            return
        }
        let output = try String(contentsOf: log, encoding: .utf8)
        let message = "Prometheus never returned the counter (running: \(prometheus.isRunning)). Last answer: \(last)"
        Issue.record("\(message)\n--- prometheus log ---\n\(output.suffix(4000))")
    }

    /// `data.result[0].value[1]` of an instant-query answer; `nil` while the result is empty.
    static func firstValue(_ body: String) throws -> String? {
        guard let json = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
            let data = json["data"] as? [String: Any],
            let result = data["result"] as? [[String: Any]],
            let value = result.first?["value"] as? [Any], value.count == 2
        else { return nil }
        return value[1] as? String
    }
}
