import Testing

@testable import SwitchyardMetrics

@Suite("Histograms")
struct HistogramTests {
    @Test("bounds are inclusive; counts are cumulative; +Inf equals the count; sum adds up")
    func buckets() throws {
        let registry = MetricsRegistry()
        let histogram = try registry.histogram("h", help: "H.", buckets: [1, 2, 5]).labels()
        for value in [0.5, 1, 1.5, 2, 4.999, 5, 5.001, 100] { histogram.observe(value) }
        let snapshot = histogram.snapshot
        #expect(snapshot.cumulativeCounts == [2, 4, 6, 8])
        #expect(snapshot.cumulativeCount(le: 2) == 4)
        #expect(snapshot.cumulativeCount(le: .infinity) == 8)
        #expect(snapshot.cumulativeCount(le: 3) == nil)
        #expect(snapshot.count == 8)
        #expect(abs(snapshot.sum - 120.0) < 1e-9)
    }

    @Test("negative values land in the first bucket; NaN only in +Inf and poisons the sum")
    func edges() throws {
        let histogram = try MetricsRegistry().histogram("h", help: "H.", buckets: [0, 1]).labels()
        histogram.observe(-3)
        histogram.observe(.nan)
        let snapshot = histogram.snapshot
        #expect(snapshot.cumulativeCounts == [1, 1, 2])
        #expect(snapshot.sum.isNaN)
    }

    @Test("the default buckets span 100 µs to 10 s and observe(Duration) records seconds")
    func defaultsAndDurations() throws {
        let family = try MetricsRegistry().histogram("switchyard_processing_seconds", help: "Seconds.")
        #expect(family.upperBounds.first == 0.0001)
        #expect(family.upperBounds.last == 10)
        let histogram = family.labels()
        histogram.observe(Duration.microseconds(250))
        histogram.observe(Duration.milliseconds(1500))
        let snapshot = histogram.snapshot
        #expect(snapshot.cumulativeCount(le: 0.00025) == 1)
        #expect(snapshot.cumulativeCount(le: 1) == 1)
        #expect(snapshot.cumulativeCount(le: 2.5) == 2)
        #expect(abs(snapshot.sum - 1.50025) < 1e-12)
    }

    @Test("labelled histograms render buckets with le last, then _sum and _count")
    func labelledRendering() throws {
        let registry = MetricsRegistry()
        let family = try registry.histogram("h_seconds", help: "H.", labels: ["topic"], buckets: [0.5])
        family.labels("a\"b").observe(0.25)
        #expect(
            registry.render() == """
                # HELP h_seconds H.
                # TYPE h_seconds histogram
                h_seconds_bucket{topic="a\\"b",le="0.5"} 1
                h_seconds_bucket{topic="a\\"b",le="+Inf"} 1
                h_seconds_sum{topic="a\\"b"} 0.25
                h_seconds_count{topic="a\\"b"} 1

                """)
    }
}
