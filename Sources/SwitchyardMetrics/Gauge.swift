import Synchronization

/// One gauge series: a `Double` that can go up and down.
public final class SwitchyardGauge: Sendable {
    // The Double's bit pattern, so set is a store and increment a compare-and-swap loop; no lock.
    private let bits = Atomic<UInt64>(Double(0).bitPattern)

    init() {}

    /// Sets the gauge to `value`.
    public func set(_ value: Double) {
        bits.store(value.bitPattern, ordering: .relaxed)
    }

    /// Adds `amount` (which may be negative).
    public func increment(by amount: Double = 1) {
        var current = bits.load(ordering: .relaxed)
        while true {
            let next = (Double(bitPattern: current) + amount).bitPattern
            let (exchanged, original) = bits.compareExchange(
                expected: current, desired: next, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    /// Subtracts `amount`.
    public func decrement(by amount: Double = 1) {
        increment(by: -amount)
    }

    /// The current value.
    public var value: Double { Double(bitPattern: bits.load(ordering: .relaxed)) }
}

/// A gauge family: a name, help text and label names; one `SwitchyardGauge` per distinct set of label values.
public final class GaugeFamily: Sendable {
    /// The metric name, e.g. `switchyard_consumer_lag`.
    public let name: String
    /// The `# HELP` text.
    public let help: String
    let table: SeriesTable<SwitchyardGauge>

    init(name: String, help: String, table: SeriesTable<SwitchyardGauge>) {
        self.name = name
        self.help = help
        self.table = table
    }

    /// The label names, in the order `labels(_:)` takes their values.
    public var labelNames: [String] { table.labelNames }

    /// The gauge for these label values, one per label name in order; created at first use.
    ///
    /// Past the cap of a capped label, a new value maps to the shared `_other` series.
    /// - Precondition: exactly one value per label name.
    public func labels(_ values: String...) -> SwitchyardGauge { table.child(values) }

    /// The gauge for these label values; see `labels(_:)`.
    public func labels(_ values: [String]) -> SwitchyardGauge { table.child(values) }

    /// Removes the series with these label values, if any (a gauge about something this process no longer
    /// owns, like a partition after a rebalance, should disappear rather than keep its last value).
    public func remove(_ values: String...) { table.remove(values) }
}
