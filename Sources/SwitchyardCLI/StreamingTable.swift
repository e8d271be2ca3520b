import Foundation

/// Table rows printed as they come, for commands that stream (`dlq list`): the column widths are taken from
/// the first rows (held until `sample` of them or the first ``flush()``), later rows reuse them, a wider cell
/// only pushes the rest of its line. The header is printed with the first row.
final class StreamingTable {
    private let header: [String]
    private let out: Output
    private let style: Style
    private let sample: Int
    private var pending: [[String]] = []
    private var widths: [Int]?
    /// Rows printed (or held).
    private(set) var count = 0

    init(header: [String], out: Output, style: Style, sample: Int = 500) {
        self.header = header
        self.out = out
        self.style = style
        self.sample = sample
    }

    func add(_ row: [String]) {
        count += 1
        if widths == nil {
            pending.append(row)
            if pending.count >= sample { settle() }
        } else {
            out.line(format(row))
        }
    }

    /// Prints what is held (settling the widths) and flushes stdout.
    func flush() {
        if widths == nil && !pending.isEmpty { settle() }
        out.flush()
    }

    private func settle() {
        let widths = header.indices.map { column in ([header] + pending).map { $0[column].count }.max() ?? 0 }
        self.widths = widths
        out.line(style.bold(format(header)))
        for row in pending { out.line(format(row)) }
        pending = []
    }

    private func format(_ row: [String]) -> String {
        let widths = self.widths ?? []
        return row.enumerated().map { i, cell in
            i == row.count - 1 ? cell : cell.padding(toLength: max(widths[i], cell.count), withPad: " ", startingAt: 0)
        }.joined(separator: "  ")
    }
}
