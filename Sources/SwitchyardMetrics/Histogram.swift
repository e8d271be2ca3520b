import Synchronization

/// One histogram series: counts of observations per bucket, their sum and their count.
public final class SwitchyardHistogram: Sendable {
    /// Upper bounds (inclusive), strictly increasing, without the implicit `+Inf`.
    public let upperBounds: [Double]
    private let state: Mutex<State>

    struct State {
        /// Non-cumulative counts; the last slot is the `+Inf` bucket.
        var counts: [UInt64]
        var sum: Double = 0
        var count: UInt64 = 0
    }

    init(upperBounds: [Double]) {
        self.upperBounds = upperBounds
        self.state = Mutex(State(counts: Array(repeating: 0, count: upperBounds.count + 1)))
    }

    /// Records one observation (for `switchyard_processing_seconds`, a duration in seconds).
    ///
    /// A value lands in the first bucket whose upper bound is `>=` it; larger values and NaN land only in
    /// `+Inf` (NaN also makes the sum NaN, as in the Prometheus Go client).
    public func observe(_ value: Double) {
        observe(value, count: 1)
    }

    /// Records a duration, in seconds; `count` times at once (a batch's mean time per record) under one lock.
    public func observe(_ duration: Duration, count: Int = 1) {
        let (seconds, attoseconds) = duration.components
        observe(Double(seconds) + Double(attoseconds) * 1e-18, count: count)
    }

    /// Records `count` observations of the same value at once, under one lock.
    public func observe(_ value: Double, count: Int) {
        guard count > 0 else { return }
        let index = bucketIndex(value)
        state.withLock { state in
            state.counts[index] &+= UInt64(count)
            state.sum += value * Double(count)
            state.count &+= UInt64(count)
        }
    }

    /// A consistent copy of the buckets, sum and count.
    public var snapshot: HistogramSnapshot {
        let state = state.withLock { $0 }
        var cumulative: [UInt64] = []
        cumulative.reserveCapacity(state.counts.count)
        var running: UInt64 = 0
        for count in state.counts {
            running &+= count
            cumulative.append(running)
        }
        return HistogramSnapshot(
            upperBounds: upperBounds, cumulativeCounts: cumulative, sum: state.sum, count: state.count)
    }

    private func bucketIndex(_ value: Double) -> Int {
        // Binary search for the first bound >= value; NaN compares false everywhere and ends at +Inf.
        var low = 0
        var high = upperBounds.count
        while low < high {
            let mid = (low + high) / 2
            if value <= upperBounds[mid] { high = mid } else { low = mid + 1 }
        }
        return value.isNaN ? upperBounds.count : low
    }
}

/// A point-in-time copy of one histogram series, as Prometheus exposes it.
public struct HistogramSnapshot: Sendable, Equatable {
    /// Upper bounds of the finite buckets.
    public var upperBounds: [Double]
    /// Cumulative counts: one per upper bound, then one for `+Inf` (which equals `count`).
    public var cumulativeCounts: [UInt64]
    /// Sum of all observations.
    public var sum: Double
    /// Number of observations.
    public var count: UInt64

    /// The cumulative count of observations `<= upperBound` (`nil` if that is not a bucket bound);
    /// `.infinity` gives `count`.
    public func cumulativeCount(le upperBound: Double) -> UInt64? {
        if upperBound == .infinity { return cumulativeCounts.last }
        guard let index = upperBounds.firstIndex(of: upperBound) else { return nil }
        return cumulativeCounts[index]
    }
}

/// A histogram family: a name, help text, label names and bucket bounds; one `SwitchyardHistogram` per distinct set
/// of label values.
public final class HistogramFamily: Sendable {
    /// The default buckets, for processing times in seconds: 100 µs to 10 s, roughly 1-2.5-5 per decade.
    public static let defaultBuckets: [Double] = [
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    /// The metric name, e.g. `switchyard_processing_seconds`.
    public let name: String
    /// The `# HELP` text.
    public let help: String
    /// Upper bounds of the finite buckets.
    public let upperBounds: [Double]
    let table: SeriesTable<SwitchyardHistogram>

    init(name: String, help: String, upperBounds: [Double], table: SeriesTable<SwitchyardHistogram>) {
        self.name = name
        self.help = help
        self.upperBounds = upperBounds
        self.table = table
    }

    /// The label names, in the order `labels(_:)` takes their values.
    public var labelNames: [String] { table.labelNames }

    /// The histogram for these label values, one per label name in order; created at first use.
    /// An unlabelled family takes no values: `family.labels()`.
    ///
    /// Past the cap of a capped label, a new value maps to the shared `_other` series.
    /// - Precondition: exactly one value per label name.
    public func labels(_ values: String...) -> SwitchyardHistogram { table.child(values) }

    /// The histogram for these label values; see `labels(_:)`.
    public func labels(_ values: [String]) -> SwitchyardHistogram { table.child(values) }
}
