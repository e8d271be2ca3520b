import Foundation

/// A real Prometheus server (Debian's `prometheus`) scraping one target every second.
public final class PrometheusServer: Sendable {
    let process: ChildProcess
    /// The port of its web UI and query API.
    public let port: Int
    let directory: URL

    /// Starts Prometheus scraping `127.0.0.1:target` every second.
    public init(target: Int) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/prometheus") else {
            throw TestFailure("prometheus is not installed (Debian package `prometheus`; scripts/install-deps.sh installs it)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("prometheus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("prometheus.yml")
        try """
        global:
          scrape_interval: 1s
          scrape_timeout: 1s
        scrape_configs:
          - job_name: switchyard
            static_configs:
              - targets: ["127.0.0.1:\(target)"]

        """.write(to: config, atomically: true, encoding: .utf8)
        port = freePort()
        process = try ChildProcess([
            "--config.file=\(config.path)", "--storage.tsdb.path=\(directory.appendingPathComponent("data").path)",
            "--web.listen-address=127.0.0.1:\(port)",
        ], executable: URL(fileURLWithPath: "/usr/bin/prometheus"))
    }

    /// The values of `label` in an instant query's result.
    public func labelValues(query: String, label: String) async throws -> Set<String> {
        let encoded = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? query
        guard let (status, body) = await httpGet(port: port, "/api/v1/query?query=\(encoded)"), status == 200,
            let json = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
            let data = json["data"] as? [String: Any], let result = data["result"] as? [[String: Any]]
        else { return [] }
        return Set(result.compactMap { ($0["metric"] as? [String: String])?[label] })
    }

    /// The first sample value of an instant query's result, or nil while the result is empty.
    public func firstValue(query: String) async throws -> String? {
        let encoded = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? query
        guard let (status, body) = await httpGet(port: port, "/api/v1/query?query=\(encoded)"), status == 200,
            let json = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
            let data = json["data"] as? [String: Any], let result = data["result"] as? [[String: Any]],
            let value = result.first?["value"] as? [Any], value.count == 2
        else { return nil }
        return value[1] as? String
    }

    /// Stops the server; its data folder goes when the process is gone.
    public func stop() {
        process.signal(SIGTERM)
    }

    deinit {
        do {
            try FileManager.default.removeItem(at: directory)
        } catch {
            // A leftover folder in the temporary directory is harmless; say so rather than hide it.
            FileHandle.standardError.write(Data("PrometheusServer: could not remove \(directory.path): \(error)\n".utf8))
        }
    }
}
