/// The Prometheus text exposition format, version 0.0.4: names, escaping, numbers, and the layout of each
/// family.
enum PrometheusText {
    // MARK: - Names

    /// `[a-zA-Z_:][a-zA-Z0-9_:]*`
    static func isValidMetricName(_ name: String) -> Bool {
        isValidName(name, allowColon: true)
    }

    /// `[a-zA-Z_][a-zA-Z0-9_]*`
    static func isValidLabelName(_ name: String) -> Bool {
        isValidName(name, allowColon: false)
    }

    private static func isValidName(_ name: String, allowColon: Bool) -> Bool {
        guard !name.isEmpty else { return false }
        for (offset, byte) in name.utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"):
                continue
            case UInt8(ascii: "0")...UInt8(ascii: "9") where offset > 0:
                continue
            case UInt8(ascii: ":") where allowColon:
                continue
            default:
                return false
            }
        }
        return true
    }

    // MARK: - Escaping

    /// A label value between double quotes: backslash, double quote and line feed are escaped.
    static func escapeLabelValue(_ value: String) -> String {
        escape(value, quote: true)
    }

    /// `# HELP` text: backslash and line feed are escaped (a double quote is not).
    static func escapeHelp(_ help: String) -> String {
        escape(help, quote: false)
    }

    private static func escape(_ text: String, quote: Bool) -> String {
        guard
            text.utf8.contains(where: {
                $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\n") || (quote && $0 == UInt8(ascii: "\""))
            })
        else { return text }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\"" where quote: escaped += "\\\""
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    // MARK: - Numbers

    /// A sample value or `le` bound: `+Inf`, `-Inf`, `NaN`, integers without a fraction (`1`, not `1.0`, as
    /// the Go client writes bucket bounds), otherwise the shortest round-tripping decimal (`0.0001`, `2.5`).
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    // MARK: - Families

    static func render(_ registered: RegisteredFamily, into output: inout String) {
        let spec = registered.spec
        output += "# HELP \(spec.name) \(escapeHelp(spec.help))\n"
        output += "# TYPE \(spec.name) \(spec.kind.rawValue)\n"
        switch registered.family {
        case .counter(let family):
            for (values, counter) in family.table.sortedSeries() {
                sample(spec.name, spec.labels, values, String(counter.value), into: &output)
            }
        case .gauge(let family):
            for (values, gauge) in family.table.sortedSeries() {
                sample(spec.name, spec.labels, values, format(gauge.value), into: &output)
            }
        case .histogram(let family):
            let bucketLabels = spec.labels + ["le"]
            for (values, histogram) in family.table.sortedSeries() {
                let snapshot = histogram.snapshot
                for (bound, count) in zip(snapshot.upperBounds + [.infinity], snapshot.cumulativeCounts) {
                    sample(spec.name + "_bucket", bucketLabels, values + [format(bound)], String(count), into: &output)
                }
                sample(spec.name + "_sum", spec.labels, values, format(snapshot.sum), into: &output)
                sample(spec.name + "_count", spec.labels, values, String(snapshot.count), into: &output)
            }
        }
    }

    private static func sample(
        _ name: String, _ labels: [String], _ values: [String], _ value: String, into output: inout String
    ) {
        output += name
        if !labels.isEmpty {
            output += "{"
            for (index, (label, labelValue)) in zip(labels, values).enumerated() {
                if index > 0 { output += "," }
                output += label
                output += "=\""
                output += escapeLabelValue(labelValue)
                output += "\""
            }
            output += "}"
        }
        output += " "
        output += value
        output += "\n"
    }
}
