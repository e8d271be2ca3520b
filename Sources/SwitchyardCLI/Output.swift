#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Buffered standard output: one `write(2)` per 64 KiB, so `--records` over a million records is
/// not bound by per-line system calls.
final class Output {
    private var buffer: [UInt8] = []
    private let fd: Int32

    init(fd: Int32 = 1) {
        self.fd = fd
        buffer.reserveCapacity(1 << 16)
    }

    deinit { flush() }

    func write(_ bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { flush() }
    }

    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Writes `bytes` and a newline.
    func line(_ bytes: [UInt8]) {
        write(bytes)
        buffer.append(UInt8(ascii: "\n"))
    }

    func line(_ text: String = "") {
        write(text)
        buffer.append(UInt8(ascii: "\n"))
    }

    func flush() {
        var offset = 0
        while offset < buffer.count {
            let n = buffer.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                break  // stdout closed (e.g. `| head`): nothing more can be shown
            }
            offset += n
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Formats rows as aligned columns.
struct Table {
    var header: [String]
    var rows: [[String]] = []

    func render(indent: String = "  ") -> String {
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        func format(_ row: [String]) -> String {
            indent + row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        return ([format(header)] + rows.map(format)).joined(separator: "\n")
    }
}
