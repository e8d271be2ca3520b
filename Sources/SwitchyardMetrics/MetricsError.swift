/// An error from registering a metric family: a bad name, a bad bucket layout, or a clash with a family
/// already registered under the same name.
///
/// Registration happens once at startup, so these errors are configuration or programming mistakes; the
/// worker reports them and exits rather than recovering.
public struct MetricsError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case invalidMetricName, invalidLabelName, invalidLabelCap, invalidBuckets, conflictingRegistration
        }
        private let value: Value

        /// A metric name does not match `[a-zA-Z_:][a-zA-Z0-9_:]*`.
        public static let invalidMetricName = Code(value: .invalidMetricName)
        /// A label name does not match `[a-zA-Z_][a-zA-Z0-9_]*`, starts with the reserved `__`, is repeated,
        /// or is `le` on a histogram.
        public static let invalidLabelName = Code(value: .invalidLabelName)
        /// The capped label is not one of the family's labels, or the cap is below 1.
        public static let invalidLabelCap = Code(value: .invalidLabelCap)
        /// Histogram buckets are empty, not finite, or not strictly increasing.
        public static let invalidBuckets = Code(value: .invalidBuckets)
        /// A family with this name is already registered with a different type, help, labels, cap or buckets.
        public static let conflictingRegistration = Code(value: .conflictingRegistration)

        public var description: String { value.rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// A human-readable explanation, naming the metric.
    public var reason: String
    /// Where the error was raised.
    public var file: String
    /// Where the error was raised.
    public var line: UInt

    private init(code: Code, reason: String, file: String, line: UInt) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }

    public var description: String { "MetricsError.\(code): \(reason)" }

    static func invalidMetricName(_ name: String, file: String = #fileID, line: UInt = #line) -> MetricsError {
        MetricsError(
            code: .invalidMetricName,
            reason: "metric name \"\(name)\" must match [a-zA-Z_:][a-zA-Z0-9_:]*",
            file: file, line: line)
    }

    static func invalidLabelName(
        _ label: String, metric: String, why: String, file: String = #fileID, line: UInt = #line
    ) -> MetricsError {
        MetricsError(
            code: .invalidLabelName, reason: "label \"\(label)\" of \(metric): \(why)", file: file, line: line)
    }

    static func invalidLabelCap(_ why: String, metric: String, file: String = #fileID, line: UInt = #line)
        -> MetricsError
    {
        MetricsError(code: .invalidLabelCap, reason: "\(metric): \(why)", file: file, line: line)
    }

    static func invalidBuckets(_ why: String, metric: String, file: String = #fileID, line: UInt = #line)
        -> MetricsError
    {
        MetricsError(code: .invalidBuckets, reason: "\(metric): \(why)", file: file, line: line)
    }

    static func conflictingRegistration(_ metric: String, file: String = #fileID, line: UInt = #line)
        -> MetricsError
    {
        MetricsError(
            code: .conflictingRegistration,
            reason: "\(metric) is already registered with a different type, help, labels, cap or buckets",
            file: file, line: line)
    }
}
