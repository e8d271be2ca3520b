import Testing

@testable import SwitchyardMetrics

@Suite("Label caps")
struct CappingTests {
    @Test("10,000 distinct type values with cap 100 make at most 101 series; seen values keep their own")
    func cap() throws {
        let registry = MetricsRegistry()
        let family = try registry.counter(
            "switchyard_unknown_events_total", help: "Unknown events.", labels: ["topic", "type"],
            cappedLabel: "type", cap: 100)
        for index in 0..<10_000 {
            family.labels("feeds", "type.\(index)").increment()
        }
        // Values admitted before the cap keep counting in their own series.
        family.labels("feeds", "type.7").increment()
        let snapshot = registry.snapshot()
        #expect(snapshot.seriesCount("switchyard_unknown_events_total") == 101)
        #expect(snapshot.counter("switchyard_unknown_events_total", ["topic": "feeds", "type": "type.7"]) == 2)
        #expect(snapshot.counter("switchyard_unknown_events_total", ["topic": "feeds", "type": "type.99"]) == 1)
        #expect(snapshot.counter("switchyard_unknown_events_total", ["topic": "feeds", "type": "type.100"]) == nil)
        #expect(snapshot.counter("switchyard_unknown_events_total", ["topic": "feeds", "type": "_other"]) == 9_900)
        let text = registry.render()
        #expect(text.split(separator: "\n").filter { !$0.hasPrefix("#") }.count == 101)
        #expect(text.contains(#"switchyard_unknown_events_total{topic="feeds",type="_other"} 9900"#))
    }

    @Test("the cap counts distinct values of the capped label, across the other labels")
    func capAcrossOtherLabels() throws {
        let registry = MetricsRegistry()
        let family = try registry.counter(
            "decoded_total", help: "Decoded.", labels: ["topic", "type"], cappedLabel: "type", cap: 2)
        family.labels("payments", "a").increment()
        family.labels("feeds", "a").increment()  // same value, another topic: a series of its own
        family.labels("feeds", "b").increment()
        family.labels("feeds", "c").increment()  // third distinct value: collapsed
        family.labels("payments", "b").increment()  // seen value: its own series
        let snapshot = registry.snapshot()
        #expect(snapshot.seriesCount("decoded_total") == 5)
        #expect(snapshot.counter("decoded_total", ["topic": "feeds", "type": "_other"]) == 1)
        #expect(snapshot.counter("decoded_total", ["topic": "payments", "type": "b"]) == 1)
    }

    @Test("handles returned for collapsed values all share the _other series")
    func sharedOverflowHandle() throws {
        let registry = MetricsRegistry()
        let family = try registry.gauge("g", help: "G.", labels: ["type"], cappedLabel: "type", cap: 1)
        let first = family.labels("x")
        let overflowA = family.labels("y")
        let overflowB = family.labels("z")
        #expect(first !== overflowA)
        #expect(overflowA === overflowB)
        #expect(family.labels("x") === first)
    }

    @Test("an uncapped family keeps every value")
    func uncapped() throws {
        let registry = MetricsRegistry()
        let family = try registry.counter("t_total", help: "T.", labels: ["topic"])
        for index in 0..<500 { family.labels("t\(index)").increment() }
        #expect(registry.snapshot().seriesCount("t_total") == 500)
    }
}
