import Foundation
import Testing

@testable import SwitchyardMetrics

@Suite("Prometheus text rendering")
struct RenderingTests {
    @Test("a small registry renders byte for byte: families by name, series by labels, histogram layout")
    func golden() throws {
        let registry = MetricsRegistry()
        let records = try registry.counter("switchyard_records_total", help: "Records consumed.", labels: ["topic"])
        let lag = try registry.gauge("switchyard_consumer_lag", help: "Lag.", labels: ["topic", "partition"])
        let seconds = try registry.histogram(
            "switchyard_processing_seconds", help: "Processing time.", buckets: [0.01, 0.1, 1])
        records.labels("payments").increment(by: 3)
        records.labels("feeds").increment()
        lag.labels("payments", "1").set(12)
        lag.labels("payments", "0").set(0.5)
        seconds.labels().observe(0.05)
        seconds.labels().observe(2)

        #expect(
            registry.render() == """
                # HELP switchyard_consumer_lag Lag.
                # TYPE switchyard_consumer_lag gauge
                switchyard_consumer_lag{topic="payments",partition="0"} 0.5
                switchyard_consumer_lag{topic="payments",partition="1"} 12
                # HELP switchyard_processing_seconds Processing time.
                # TYPE switchyard_processing_seconds histogram
                switchyard_processing_seconds_bucket{le="0.01"} 0
                switchyard_processing_seconds_bucket{le="0.1"} 1
                switchyard_processing_seconds_bucket{le="1"} 1
                switchyard_processing_seconds_bucket{le="+Inf"} 2
                switchyard_processing_seconds_sum 2.05
                switchyard_processing_seconds_count 2
                # HELP switchyard_records_total Records consumed.
                # TYPE switchyard_records_total counter
                switchyard_records_total{topic="feeds"} 1
                switchyard_records_total{topic="payments"} 3

                """)
    }

    @Test("an unlabelled family renders 0 before first use; a labelled one renders only HELP and TYPE")
    func emptyFamilies() throws {
        let registry = MetricsRegistry()
        _ = try registry.counter("a_total", help: "A.")
        _ = try registry.counter("b_total", help: "B.", labels: ["topic"])
        #expect(
            registry.render()
                == "# HELP a_total A.\n# TYPE a_total counter\na_total 0\n# HELP b_total B.\n# TYPE b_total counter\n")
    }

    @Test("label values escape backslash, double quote and line feed; HELP escapes backslash and line feed")
    func escaping() throws {
        let registry = MetricsRegistry()
        let family = try registry.counter(
            "escape_total", help: "Line one\nback\\slash \"quoted\"", labels: ["type"], cappedLabel: "type")
        family.labels("a\"b\\c\nd").increment()
        family.labels("ünïcødé ✓").increment()
        let text = registry.render()
        #expect(text.contains(#"# HELP escape_total Line one\nback\\slash "quoted""# + "\n"))
        #expect(text.contains(#"escape_total{type="a\"b\\c\nd"} 1"# + "\n"))
        #expect(text.contains(#"escape_total{type="ünïcødé ✓"} 1"# + "\n"))
        // The raw value is kept in the snapshot, unescaped.
        #expect(registry.snapshot().counter("escape_total", ["type": "a\"b\\c\nd"]) == 1)
    }

    @Test("numbers: integers without fraction, shortest decimals, infinities and NaN")
    func numbers() {
        #expect(PrometheusText.format(1) == "1")
        #expect(PrometheusText.format(-0.0) == "0")
        #expect(PrometheusText.format(2.5) == "2.5")
        #expect(PrometheusText.format(0.0001) == "0.0001")
        #expect(PrometheusText.format(0.00025) == "0.00025")
        #expect(PrometheusText.format(1e-7) == "1e-07")
        #expect(PrometheusText.format(1e20) == "1e+20")
        #expect(PrometheusText.format(.infinity) == "+Inf")
        #expect(PrometheusText.format(-.infinity) == "-Inf")
        #expect(PrometheusText.format(.nan) == "NaN")
    }

    @Test("the rendered text of every PRODUCT.md family, with hostile label values, passes promtool check metrics")
    func promtool() throws {
        let registry = MetricsRegistry()
        try ProductFamilies.populate(registry)
        let text = registry.render()
        let result = try Promtool.checkMetrics(text)
        #expect(result.status == 0, "promtool exit \(result.status): \(result.output)\n--- input ---\n\(text)")
        #expect(result.output.isEmpty, "promtool reported: \(result.output)")
    }

    @Test("promtool really checks: a malformed exposition fails")
    func promtoolRejectsGarbage() throws {
        let result = try Promtool.checkMetrics("# TYPE x counter\nx{a=\"unterminated} 1\n")
        #expect(result.status != 0)
    }
}

/// The families PRODUCT.md lists, with a few series each, some of them hostile.
enum ProductFamilies {
    static func populate(_ registry: MetricsRegistry) throws {
        let records = try registry.counter("switchyard_records_total", help: "Records consumed.", labels: ["topic"])
        let decoded = try registry.counter(
            "switchyard_events_decoded_total", help: "Events decoded.", labels: ["topic", "type"],
            cappedLabel: "type", cap: 3)
        let failures = try registry.counter(
            "switchyard_decode_failures_total", help: "Decode failures by DecodingError kind.",
            labels: ["topic", "kind", "type"], cappedLabel: "type")
        let halted = try registry.gauge(
            "switchyard_partition_halted", help: "1 while a partition is halted.", labels: ["topic", "partition"])
        let seconds = try registry.histogram("switchyard_processing_seconds", help: "Seconds per record.")
        records.labels("payments").increment(by: 41)
        records.labels("feeds").increment()
        for type in ["payment.captured", "a\"b", "back\\slash", "new\nline", "overflowed", "überflow"] {
            decoded.labels("payments", type).increment()
        }
        failures.labels("payments", "keyNotFound", "payment.captured").increment()
        failures.labels("feeds", "dataCorrupted", "").increment()
        halted.labels("payments", "0").set(1)
        for value in [0.00005, 0.0001, 0.003, 0.2, 7, 42] {
            seconds.labels().observe(value)
        }
    }
}

/// Runs the real `promtool check metrics` on a text exposition.
enum Promtool {
    static let path = "/usr/bin/promtool"

    struct Missing: Error, CustomStringConvertible {
        var description: String { "promtool is not installed at \(Promtool.path) (Debian package `prometheus`)" }
    }

    static func checkMetrics(_ text: String) throws -> (status: Int32, output: String) {
        guard FileManager.default.isExecutableFile(atPath: path) else { throw Missing() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["check", "metrics"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        try input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
        try input.fileHandleForWriting.close()
        let data = try output.fileHandleForReading.readToEnd() ?? Data()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
