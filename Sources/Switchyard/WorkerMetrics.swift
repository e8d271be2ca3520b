import SwitchyardMetrics

/// The worker's metric families, named exactly as PRODUCT.md lists them.
public struct WorkerMetrics: Sendable {
    /// The registry the families are in: what `/metrics` renders, and where a team registers its own.
    public let registry: MetricsRegistry
    let records: CounterFamily
    let decoded: CounterFamily
    let unknownEvents: CounterFamily
    let failures: CounterFamily
    let unknownFields: CounterFamily
    let deadLetters: CounterFamily
    let deadLetterErrors: CounterFamily
    let republished: CounterFamily
    let republishErrors: CounterFamily
    let tombstones: CounterFamily
    let handlerErrors: CounterFamily
    let releases: CounterFamily
    let releasesRejected: CounterFamily
    let halted: GaugeFamily
    let retrying: GaugeFamily
    let published: CounterFamily
    let lag: GaugeFamily
    let processing: HistogramFamily

    /// Registers the families on `registry`; wire-derived `type` labels are capped at `maxTypeLabels`.
    public init(registry: MetricsRegistry = MetricsRegistry(), maxTypeLabels: Int = 100) throws {
        self.registry = registry
        let cap = maxTypeLabels
        records = try registry.counter("switchyard_records_total", help: "Records consumed.", labels: ["topic"])
        decoded = try registry.counter(
            "switchyard_events_decoded_total", help: "Records decoded into a known event.", labels: ["topic", "type"],
            cappedLabel: "type", cap: cap)
        unknownEvents = try registry.counter(
            "switchyard_unknown_events_total", help: "Records with an unrecognised type tag on a lenient topic.",
            labels: ["topic", "type"], cappedLabel: "type", cap: cap)
        failures = try registry.counter(
            "switchyard_decode_failures_total", help: "Records that failed to decode, by DecodingError kind.",
            labels: ["topic", "kind", "type"], cappedLabel: "type", cap: cap)
        unknownFields = try registry.counter(
            "switchyard_unknown_fields_total", help: "Unknown fields kept verbatim in decoded events.",
            labels: ["topic", "type"], cappedLabel: "type", cap: cap)
        deadLetters = try registry.counter(
            "switchyard_dead_letters_total", help: "Records dead-lettered (acknowledged by the broker).", labels: ["topic", "kind"])
        deadLetterErrors = try registry.counter(
            "switchyard_dead_letter_errors_total", help: "Failed attempts to produce a dead letter.", labels: ["topic"])
        republished = try registry.counter(
            "switchyard_republished_total", help: "Events republished (acknowledged by the broker).", labels: ["topic", "target"])
        republishErrors = try registry.counter(
            "switchyard_republish_errors_total", help: "Failed attempts to republish an event.", labels: ["topic"])
        tombstones = try registry.counter("switchyard_tombstones_total", help: "Records with a null value, skipped.", labels: ["topic"])
        handlerErrors = try registry.counter(
            "switchyard_handler_errors_total", help: "Handler attempts that threw.", labels: ["topic", "type"],
            cappedLabel: "type", cap: cap)
        releases = try registry.counter(
            "switchyard_releases_total", help: "Halted offsets released by an operator.", labels: ["topic"])
        releasesRejected = try registry.counter(
            "switchyard_releases_rejected_total", help: "Releases read from the control topic and rejected (unsigned or wrongly signed).",
            labels: ["reason"])
        halted = try registry.gauge(
            "switchyard_partition_halted", help: "1 while a strict partition is halted at a failing record.", labels: ["topic", "partition"])
        retrying = try registry.gauge(
            "switchyard_partition_retrying", help: "Records of the partition whose handler failed and is being retried.",
            labels: ["topic", "partition"])
        published = try registry.counter(
            "switchyard_published_total", help: "Records handlers published through their context (acknowledged by the broker).",
            labels: ["topic"])
        lag = try registry.gauge("switchyard_consumer_lag", help: "Records behind the high watermark.", labels: ["topic", "partition"])
        processing = try registry.histogram("switchyard_processing_seconds", help: "Time to handle one record, durable outcome included.")
    }

    /// Creates every per-topic series at 0, so rates and `increase()` see a topic's first event.
    func prime(topics: [String], targets: [String: String]) {
        for topic in topics {
            records.labels(topic).increment(by: 0)
            tombstones.labels(topic).increment(by: 0)
            deadLetterErrors.labels(topic).increment(by: 0)
            republishErrors.labels(topic).increment(by: 0)
            if let target = targets[topic] { republished.labels(topic, target).increment(by: 0) }
        }
    }
}
