@testable import SwitchyardKafka
import Testing

/// When the poll thread wakes librdkafka's fetchers: a pure function of the queue lengths it sees.
@Suite("Prefetch watch")
struct PrefetchWatchTests {
    /// Whether each of these queue lengths, seen in turn, wakes the fetchers.
    private func wakes(_ watch: inout PrefetchWatch, _ lengths: [Int]) -> [Bool] {
        lengths.map { watch.shouldWake(queued: $0) }
    }

    @Test("a wake once the queue, after coming within half of queued.min.messages, drained to a quarter; one per fill")
    func recordLimit() {
        var watch = PrefetchWatch(maxRecords: 1000, maxBytes: 1 << 30)
        watch.observe(records: 10, bytes: 1000)
        #expect(wakes(&watch, [0, 499]) == [false, false])
        #expect(!watch.isArmed)
        #expect(wakes(&watch, [500]) == [false])
        #expect(watch.isArmed)
        #expect(wakes(&watch, [1200, 251, 250]) == [false, false, true])
        #expect(!watch.isArmed)
        // Nothing more until the next fill.
        #expect(wakes(&watch, [0, 100, 700, 0]) == [false, false, false, true])
    }

    @Test("queued.max.messages.kbytes counts too, from the average size of the records polled")
    func byteLimit() {
        var watch = PrefetchWatch(maxRecords: 100_000, maxBytes: 1_000_000)
        // 1,000 bytes a record: 500 queued records are half the byte limit, far below half the record limit.
        watch.observe(records: 100, bytes: 100_000)
        #expect(watch.estimatedBytes(queued: 500) == 500_000)
        #expect(wakes(&watch, [500]) == [false])
        #expect(watch.isArmed)
        // Below a quarter of the record limit but not yet of the bytes: no wake until it is.
        #expect(wakes(&watch, [300, 250]) == [false, true])
    }

    @Test("before any record was polled the byte limit cannot arm it; limits below one are one")
    func edges() {
        var empty = PrefetchWatch(maxRecords: 1000, maxBytes: 10)
        #expect(empty.estimatedBytes(queued: 400) == 0)
        #expect(wakes(&empty, [400]) == [false])
        #expect(!empty.isArmed)
        var tiny = PrefetchWatch(maxRecords: 0, maxBytes: 0)
        #expect(tiny.maxRecords == 1 && tiny.maxBytes == 1)
        #expect(wakes(&tiny, [1, 0]) == [false, true])
    }

    @Test("the limits librdkafka applies: the typed settings, or the kafka map's values where it sets them")
    func effectiveLimits() {
        var configuration = KafkaConsumerConfiguration(groupID: "g", topics: ["t"])
        var limits = configuration.effectivePrefetchLimits
        #expect(limits.records == 20_000 && limits.bytes == 16_384 * 1024)
        configuration.prefetchMinRecords = 500
        configuration.prefetchKilobytes = 64
        limits = configuration.effectivePrefetchLimits
        #expect(limits.records == 500 && limits.bytes == 64 * 1024)
        configuration.kafka.properties["queued.min.messages"] = "2000"
        configuration.kafka.properties["queued.max.messages.kbytes"] = "128"
        limits = configuration.effectivePrefetchLimits
        #expect(limits.records == 2000 && limits.bytes == 128 * 1024)
    }
}
