import Synchronization

/// How a family turns label values into series: arity, the cap on one wire-fed label, and the table of
/// children. Shared by the three family types.
final class SeriesTable<Child: AnyObject & Sendable>: Sendable {
    let labelNames: [String]
    /// Index of the capped label in `labelNames`, if any.
    let cappedIndex: Int?
    /// Distinct values of the capped label that get their own series.
    let cap: Int
    private let makeChild: @Sendable () -> Child
    private let state: Mutex<State>

    private struct State {
        var children: [[String]: Child] = [:]
        /// Values of the capped label that have their own series (never includes values collapsed away).
        var admitted: Set<String> = []
    }

    init(labelNames: [String], cappedIndex: Int?, cap: Int, makeChild: @escaping @Sendable () -> Child) {
        self.labelNames = labelNames
        self.cappedIndex = cappedIndex
        self.cap = cap
        self.makeChild = makeChild
        var initial = State()
        // An unlabelled family has exactly one series; create it now so it renders as 0 before first use,
        // like the Prometheus clients do.
        if labelNames.isEmpty { initial.children[[]] = makeChild() }
        self.state = Mutex(initial)
    }

    func child(_ values: [String]) -> Child {
        precondition(
            values.count == labelNames.count,
            "expected \(labelNames.count) label values (\(labelNames)), got \(values.count)")
        return state.withLock { state in
            if let existing = state.children[values] { return existing }
            var key = values
            if let index = cappedIndex {
                let value = values[index]
                if !state.admitted.contains(value) {
                    if state.admitted.count < cap {
                        state.admitted.insert(value)
                    } else {
                        key[index] = MetricsRegistry.overflowLabelValue
                        if let existing = state.children[key] { return existing }
                    }
                }
            }
            let child = makeChild()
            state.children[key] = child
            return child
        }
    }

    /// Removes a series (its capped label value stays admitted).
    func remove(_ values: [String]) {
        _ = state.withLock { $0.children.removeValue(forKey: values) }
    }

    /// Every series, sorted by label values so rendering is deterministic.
    func sortedSeries() -> [(labels: [String], child: Child)] {
        let all = state.withLock { state in state.children.map { (labels: $0.key, child: $0.value) } }
        return all.sorted { $0.labels.lexicographicallyPrecedes($1.labels) }
    }
}
