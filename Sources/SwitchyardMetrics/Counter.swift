import Synchronization

/// One counter series: a monotonically increasing `Int64`.
///
/// Hold on to it: incrementing a handle is a single relaxed atomic add, with no lookup and no lock.
public final class SwitchyardCounter: Sendable {
    private let storage = Atomic<Int64>(0)

    init() {}

    /// Adds `amount`, which must not be negative (a counter never goes down).
    public func increment(by amount: Int64 = 1) {
        precondition(amount >= 0, "a counter cannot be decremented")
        storage.wrappingAdd(amount, ordering: .relaxed)
    }

    /// The current value.
    public var value: Int64 { storage.load(ordering: .relaxed) }
}

/// A counter family: a name, help text and label names; one `SwitchyardCounter` per distinct set of label values.
public final class CounterFamily: Sendable {
    /// The metric name, e.g. `switchyard_records_total`.
    public let name: String
    /// The `# HELP` text.
    public let help: String
    let table: SeriesTable<SwitchyardCounter>

    init(name: String, help: String, table: SeriesTable<SwitchyardCounter>) {
        self.name = name
        self.help = help
        self.table = table
    }

    /// The label names, in the order `labels(_:)` takes their values.
    public var labelNames: [String] { table.labelNames }

    /// The counter for these label values, one per label name in order; created at first use.
    ///
    /// If the family caps a label and this is a new value past the cap, the returned counter is the shared
    /// `_other` series for that label (see `MetricsRegistry.overflowLabelValue`).
    /// - Precondition: exactly one value per label name.
    public func labels(_ values: String...) -> SwitchyardCounter { table.child(values) }

    /// The counter for these label values; see `labels(_:)`.
    public func labels(_ values: [String]) -> SwitchyardCounter { table.child(values) }
}
