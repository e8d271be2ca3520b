import Testing

@testable import SwitchyardMetrics

@Suite("Registry")
struct RegistryTests {
    @Test(
        "metric and label names are validated",
        arguments: [
            ("9starts_with_digit", [String](), MetricsError.Code.invalidMetricName),
            ("has-dash", [], .invalidMetricName),
            ("", [], .invalidMetricName),
            ("ok_total", ["bad-label"], .invalidLabelName),
            ("ok_total", ["__reserved"], .invalidLabelName),
            ("ok_total", ["topic", "topic"], .invalidLabelName),
            ("ok_total", ["has:colon"], .invalidLabelName),
        ])
    func names(name: String, labels: [String], code: MetricsError.Code) {
        #expect {
            _ = try MetricsRegistry().counter(name, help: "x", labels: labels)
        } throws: { error in
            (error as? MetricsError)?.code == code
        }
    }

    @Test("valid names, including colons in metric names")
    func validNames() throws {
        let registry = MetricsRegistry()
        _ = try registry.counter("job:switchyard_records:rate5m", help: "x", labels: ["_private", "Type2"])
    }

    @Test("the capped label must be a label; the cap must be positive; le is reserved on histograms")
    func capAndReserved() {
        let registry = MetricsRegistry()
        #expect(throws: MetricsError.self) {
            _ = try registry.counter("a_total", help: "x", labels: ["topic"], cappedLabel: "type")
        }
        #expect(throws: MetricsError.self) {
            _ = try registry.counter("b_total", help: "x", labels: ["type"], cappedLabel: "type", cap: 0)
        }
        #expect(throws: MetricsError.self) { _ = try registry.histogram("c", help: "x", labels: ["le"]) }
        #expect(throws: MetricsError.self) { _ = try registry.histogram("d", help: "x", buckets: []) }
        #expect(throws: MetricsError.self) { _ = try registry.histogram("e", help: "x", buckets: [1, 1]) }
        #expect(throws: MetricsError.self) { _ = try registry.histogram("f", help: "x", buckets: [1, .infinity]) }
    }

    @Test("registering the same family twice returns it; a different registration under that name throws")
    func reregistration() throws {
        let registry = MetricsRegistry()
        let first = try registry.counter("r_total", help: "R.", labels: ["topic"])
        let again = try registry.counter("r_total", help: "R.", labels: ["topic"])
        #expect(first === again)
        #expect {
            _ = try registry.gauge("r_total", help: "R.", labels: ["topic"])
        } throws: { ($0 as? MetricsError)?.code == .conflictingRegistration }
        #expect {
            _ = try registry.counter("r_total", help: "R.", labels: ["topic", "type"])
        } throws: { ($0 as? MetricsError)?.code == .conflictingRegistration }
        let error = #expect(throws: MetricsError.self) {
            _ = try registry.counter("r_total", help: "Other help.", labels: ["topic"])
        }
        #expect(error?.description.contains("r_total") == true)
        #expect(error?.file.hasPrefix("SwitchyardMetrics/") == true)
    }

    @Test("counters and gauges: increments, set, decrement; snapshots read them by labels")
    func values() throws {
        let registry = MetricsRegistry()
        let counter = try registry.counter("c_total", help: "C.", labels: ["topic"])
        let gauge = try registry.gauge("lag", help: "Lag.", labels: ["topic", "partition"])
        counter.labels("payments").increment()
        counter.labels(["payments"]).increment(by: 41)
        let handle = gauge.labels("payments", "3")
        handle.set(10)
        handle.increment(by: 2.5)
        handle.decrement()
        let snapshot = registry.snapshot()
        #expect(snapshot.counter("c_total", ["topic": "payments"]) == 42)
        #expect(snapshot.counter("c_total", ["topic": "feeds"]) == nil)
        #expect(snapshot.gauge("lag", ["topic": "payments", "partition": "3"]) == 11.5)
        #expect(snapshot.counter("lag", ["topic": "payments", "partition": "3"]) == nil)  // wrong type
        #expect(snapshot.familyNames == ["c_total", "lag"])
    }

    @Test("concurrent recording from many tasks loses nothing")
    func concurrency() async throws {
        let registry = MetricsRegistry()
        let counter = try registry.counter("n_total", help: "N.", labels: ["type"], cappedLabel: "type", cap: 10)
        let gauge = try registry.gauge("g", help: "G.")
        let histogram = try registry.histogram("h_seconds", help: "H.")
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<2_000 {
                        counter.labels("t\((task * 2_000 + index) % 20)").increment()
                        gauge.labels().increment()
                        histogram.labels().observe(0.001)
                    }
                }
            }
        }
        let snapshot = registry.snapshot()
        let total = snapshot.series["n_total"]!.reduce(Int64(0)) {
            guard case .counter(let value) = $1.value else { return $0 }
            return $0 + value
        }
        #expect(total == 16_000)
        #expect(snapshot.seriesCount("n_total") == 11)
        #expect(snapshot.gauge("g") == 16_000)
        #expect(snapshot.histogram("h_seconds")?.count == 16_000)
    }
}
