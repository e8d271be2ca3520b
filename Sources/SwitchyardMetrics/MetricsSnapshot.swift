/// A copy of every series in a registry, for assertions in tests (in the spirit of swift-metrics'
/// `MetricsTestKit`) and for `/status`.
///
/// ```swift
/// let snapshot = registry.snapshot()
/// #expect(snapshot.counter("switchyard_records_total", ["topic": "payments"]) == 3)
/// ```
public struct MetricsSnapshot: Sendable {
    /// One series: its labels and its value.
    public struct Series: Sendable, Equatable {
        /// Label name to value (a collapsed value reads `_other`).
        public var labels: [String: String]
        /// The value.
        public var value: Value
    }

    /// A series' value, by family type.
    public enum Value: Sendable, Equatable {
        case counter(Int64)
        case gauge(Double)
        case histogram(HistogramSnapshot)
    }

    /// Family name to its series, sorted by label values.
    public private(set) var series: [String: [Series]] = [:]
    /// The registered family names, sorted.
    public private(set) var familyNames: [String] = []

    init(families: [RegisteredFamily]) {
        for registered in families {
            let names = registered.spec.labels
            func labels(_ values: [String]) -> [String: String] {
                Dictionary(uniqueKeysWithValues: zip(names, values))
            }
            let all: [Series]
            switch registered.family {
            case .counter(let family):
                all = family.table.sortedSeries().map {
                    Series(labels: labels($0.labels), value: .counter($0.child.value))
                }
            case .gauge(let family):
                all = family.table.sortedSeries().map {
                    Series(labels: labels($0.labels), value: .gauge($0.child.value))
                }
            case .histogram(let family):
                all = family.table.sortedSeries().map {
                    Series(labels: labels($0.labels), value: .histogram($0.child.snapshot))
                }
            }
            familyNames.append(registered.spec.name)
            series[registered.spec.name] = all
        }
    }

    /// The value of a counter series, or `nil` if the family or the series does not exist.
    public func counter(_ name: String, _ labels: [String: String] = [:]) -> Int64? {
        guard case .counter(let value)? = value(name, labels) else { return nil }
        return value
    }

    /// The value of a gauge series, or `nil` if the family or the series does not exist.
    public func gauge(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        guard case .gauge(let value)? = value(name, labels) else { return nil }
        return value
    }

    /// A histogram series, or `nil` if the family or the series does not exist.
    public func histogram(_ name: String, _ labels: [String: String] = [:]) -> HistogramSnapshot? {
        guard case .histogram(let value)? = value(name, labels) else { return nil }
        return value
    }

    /// The number of series in a family (0 if it is not registered).
    public func seriesCount(_ name: String) -> Int {
        series[name]?.count ?? 0
    }

    private func value(_ name: String, _ labels: [String: String]) -> Value? {
        series[name]?.first { $0.labels == labels }?.value
    }
}
