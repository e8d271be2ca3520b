import Synchronization

/// The process's metric families: register them once, hand out their series to the hot path, render them
/// for `GET /metrics`, and read them back in tests.
///
/// There is no global registry: create one at startup and pass it explicitly to whatever records or
/// exposes metrics. Registration takes a lock; recording on a held `SwitchyardCounter`/`SwitchyardGauge`/`SwitchyardHistogram` handle
/// does not touch the registry at all.
///
/// ```swift
/// let registry = MetricsRegistry()
/// let decoded = try registry.counter(
///     "switchyard_events_decoded_total", help: "Events decoded.", labels: ["topic", "type"],
///     cappedLabel: "type", cap: 100)
/// decoded.labels("payments", "payment.captured").increment()
/// let text = registry.render()  // Prometheus text format 0.0.4
/// ```
public final class MetricsRegistry: Sendable {
    /// The label value that new values of a capped label collapse into once the cap is reached.
    public static let overflowLabelValue = "_other"

    /// The `Content-Type` of `render()`'s output.
    public static let prometheusContentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The cap used when a family names a capped label without a cap. Default: 100.
    public static let defaultLabelCap = 100

    private let families = Mutex<[String: RegisteredFamily]>([:])

    /// Creates an empty registry.
    public init() {}

    // MARK: - Registration

    /// Registers (or returns the identical, already registered) counter family.
    ///
    /// - Parameters:
    ///   - name: the metric name; counters conventionally end in `_total`.
    ///   - help: one line for `# HELP`.
    ///   - labels: label names, in the order `labels(_:)` takes values.
    ///   - cappedLabel: a label whose values come from outside (a wire `type` tag); past `cap` distinct
    ///     values, new ones collapse into `_other` while values already seen keep their series.
    ///   - cap: distinct values of `cappedLabel` with their own series. Default: 100.
    /// - Throws: `MetricsError` for an invalid name, label or cap, or a conflicting registration.
    public func counter(
        _ name: String, help: String, labels: [String] = [], cappedLabel: String? = nil,
        cap: Int = MetricsRegistry.defaultLabelCap
    ) throws(MetricsError) -> CounterFamily {
        let spec = try FamilySpec(
            name: name, help: help, kind: .counter, labels: labels, cappedLabel: cappedLabel, cap: cap)
        let family = try register(spec) {
            .counter(
                CounterFamily(
                    name: name, help: help,
                    table: SeriesTable(labelNames: labels, cappedIndex: spec.cappedIndex, cap: cap) { SwitchyardCounter() }))
        }
        guard case .counter(let counter) = family else { throw MetricsError.conflictingRegistration(name) }
        return counter
    }

    /// Registers (or returns the identical, already registered) gauge family. Parameters as for `counter`.
    /// - Throws: `MetricsError` for an invalid name, label or cap, or a conflicting registration.
    public func gauge(
        _ name: String, help: String, labels: [String] = [], cappedLabel: String? = nil,
        cap: Int = MetricsRegistry.defaultLabelCap
    ) throws(MetricsError) -> GaugeFamily {
        let spec = try FamilySpec(
            name: name, help: help, kind: .gauge, labels: labels, cappedLabel: cappedLabel, cap: cap)
        let family = try register(spec) {
            .gauge(
                GaugeFamily(
                    name: name, help: help,
                    table: SeriesTable(labelNames: labels, cappedIndex: spec.cappedIndex, cap: cap) { SwitchyardGauge() }))
        }
        guard case .gauge(let gauge) = family else { throw MetricsError.conflictingRegistration(name) }
        return gauge
    }

    /// Registers (or returns the identical, already registered) histogram family.
    ///
    /// - Parameter buckets: finite upper bounds, strictly increasing; `+Inf` is implicit.
    ///   Default: `HistogramFamily.defaultBuckets` (0.0001 s to 10 s).
    ///   Other parameters as for `counter`; `le` is reserved and cannot be a label.
    /// - Throws: `MetricsError` for an invalid name, label, cap or buckets, or a conflicting registration.
    public func histogram(
        _ name: String, help: String, labels: [String] = [], buckets: [Double] = HistogramFamily.defaultBuckets,
        cappedLabel: String? = nil, cap: Int = MetricsRegistry.defaultLabelCap
    ) throws(MetricsError) -> HistogramFamily {
        let spec = try FamilySpec(
            name: name, help: help, kind: .histogram, labels: labels, cappedLabel: cappedLabel, cap: cap,
            buckets: buckets)
        let family = try register(spec) {
            .histogram(
                HistogramFamily(
                    name: name, help: help, upperBounds: buckets,
                    table: SeriesTable(labelNames: labels, cappedIndex: spec.cappedIndex, cap: cap) {
                        SwitchyardHistogram(upperBounds: buckets)
                    }))
        }
        guard case .histogram(let histogram) = family else { throw MetricsError.conflictingRegistration(name) }
        return histogram
    }

    private func register(
        _ spec: FamilySpec, make: () -> RegisteredFamily.Family
    ) throws(MetricsError) -> RegisteredFamily.Family {
        try families.withLock { families throws(MetricsError) in
            if let existing = families[spec.name] {
                guard existing.spec == spec else { throw MetricsError.conflictingRegistration(spec.name) }
                return existing.family
            }
            let family = make()
            families[spec.name] = RegisteredFamily(spec: spec, family: family)
            return family
        }
    }

    // MARK: - Reading

    /// Every family, sorted by name.
    var sortedFamilies: [RegisteredFamily] {
        families.withLock { Array($0.values) }.sorted { $0.spec.name < $1.spec.name }
    }

    /// The Prometheus text exposition (format 0.0.4) of every family: families sorted by name, series by
    /// label values. Serve it with `prometheusContentType`.
    public func render() -> String {
        var output = ""
        for family in sortedFamilies {
            PrometheusText.render(family, into: &output)
        }
        return output
    }

    /// A copy of every series' current value, for tests and `/status`.
    public func snapshot() -> MetricsSnapshot {
        MetricsSnapshot(families: sortedFamilies)
    }
}

// MARK: - Registered families

/// What identifies a registration: registering the same spec twice returns the same family.
struct FamilySpec: Equatable, Sendable {
    enum Kind: String, Sendable { case counter, gauge, histogram }

    var name: String
    var help: String
    var kind: Kind
    var labels: [String]
    var cappedIndex: Int?
    var cap: Int
    var buckets: [Double]

    init(
        name: String, help: String, kind: Kind, labels: [String], cappedLabel: String?, cap: Int,
        buckets: [Double] = []
    ) throws(MetricsError) {
        guard PrometheusText.isValidMetricName(name) else { throw MetricsError.invalidMetricName(name) }
        var seen: Set<String> = []
        for label in labels {
            guard PrometheusText.isValidLabelName(label) else {
                throw MetricsError.invalidLabelName(label, metric: name, why: "must match [a-zA-Z_][a-zA-Z0-9_]*")
            }
            guard !label.hasPrefix("__") else {
                throw MetricsError.invalidLabelName(label, metric: name, why: "names starting with __ are reserved")
            }
            guard seen.insert(label).inserted else {
                throw MetricsError.invalidLabelName(label, metric: name, why: "repeated")
            }
            if kind == .histogram && label == "le" {
                throw MetricsError.invalidLabelName(label, metric: name, why: "le is reserved for histogram buckets")
            }
        }
        if let cappedLabel {
            guard let index = labels.firstIndex(of: cappedLabel) else {
                throw MetricsError.invalidLabelCap("capped label \"\(cappedLabel)\" is not a label", metric: name)
            }
            guard cap >= 1 else { throw MetricsError.invalidLabelCap("cap \(cap) must be at least 1", metric: name) }
            self.cappedIndex = index
        } else {
            self.cappedIndex = nil
        }
        if kind == .histogram {
            guard !buckets.isEmpty else { throw MetricsError.invalidBuckets("no buckets", metric: name) }
            guard buckets.allSatisfy(\.isFinite) else {
                throw MetricsError.invalidBuckets("bucket bounds must be finite (+Inf is implicit)", metric: name)
            }
            guard zip(buckets, buckets.dropFirst()).allSatisfy({ $0 < $1 }) else {
                throw MetricsError.invalidBuckets("bucket bounds must be strictly increasing", metric: name)
            }
        }
        self.name = name
        self.help = help
        self.kind = kind
        self.labels = labels
        self.cap = cappedLabel == nil ? 0 : cap
        self.buckets = buckets
    }
}

struct RegisteredFamily: Sendable {
    enum Family: Sendable {
        case counter(CounterFamily)
        case gauge(GaugeFamily)
        case histogram(HistogramFamily)
    }

    var spec: FamilySpec
    var family: Family
}
