import Foundation
import Synchronization

/// Log levels, most verbose first.
public enum LogLevel: Int, Sendable, Comparable, CustomStringConvertible {
    case debug, info, notice, warning, error

    /// Whether `a` is more verbose than `b`.
    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
    /// The level's name in log lines: `debug`, `info`, `notice`, `warning`, `error`.
    public var description: String { ["debug", "info", "notice", "warning", "error"][rawValue] }
}

/// Where log entries go (swift-log's `LogHandler`, reduced to what the worker needs).
public protocol SwitchyardLogHandler: Sendable {
    /// Writes one entry. `message` is constant text; data goes in `metadata` with dotted keys.
    func log(level: LogLevel, message: String, metadata: [String: String])
}

/// A logger: a handler, a minimum level and metadata added to every entry.
public struct SwitchyardLogger: Sendable {
    /// Where entries go.
    public var handler: any SwitchyardLogHandler
    /// Entries below this level are dropped.
    public var level: LogLevel
    /// Added to every entry (an entry's own keys win).
    public var metadata: [String: String]

    /// A logger writing to `handler` from `level` up. Default: JSON lines on stderr, from info.
    public init(handler: any SwitchyardLogHandler = JSONLogHandler(), level: LogLevel = .info, metadata: [String: String] = [:]) {
        self.handler = handler
        self.level = level
        self.metadata = metadata
    }

    /// Writes an entry at `level`: constant `message`, data in `metadata` (dotted keys, no record values).
    @inline(__always) public func log(_ level: LogLevel, _ message: String, _ metadata: [String: String] = [:]) {
        guard level >= self.level else { return }
        handler.log(level: level, message: message, metadata: self.metadata.isEmpty ? metadata : self.metadata.merging(metadata) { _, new in new })
    }

    /// Writes a debug entry.
    public func debug(_ message: String, _ metadata: [String: String] = [:]) { log(.debug, message, metadata) }
    /// Writes an info entry.
    public func info(_ message: String, _ metadata: [String: String] = [:]) { log(.info, message, metadata) }
    /// Writes a notice entry.
    public func notice(_ message: String, _ metadata: [String: String] = [:]) { log(.notice, message, metadata) }
    /// Writes a warning entry.
    public func warning(_ message: String, _ metadata: [String: String] = [:]) { log(.warning, message, metadata) }
    /// Writes an error entry.
    public func error(_ message: String, _ metadata: [String: String] = [:]) { log(.error, message, metadata) }
}

/// One JSON object per line on stderr: `{"ts":…,"level":…,"msg":…, metadata…}`.
public struct JSONLogHandler: SwitchyardLogHandler {
    /// A handler writing to the process's standard error.
    public init() {}

    /// Writes the entry as one JSON line on standard error, in one `write` (lines from several threads do not mix).
    public func log(level: LogLevel, message: String, metadata: [String: String]) {
        let line = Self.line(level: level, message: message, metadata: metadata, ts: Timestamp(Date()))
        line.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
    }

    /// One entry's line, newline included: keys `ts`, `level`, `msg`, then the metadata's in sorted order.
    /// Written straight into one buffer: every dead letter logs a line, so this is on the failure path.
    static func line(level: LogLevel, message: String, metadata: [String: String], ts: Timestamp) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(256)
        func member(_ key: String, _ value: String) {
            line.append(line.isEmpty ? UInt8(ascii: "{") : UInt8(ascii: ","))
            JSONString.appendQuoted(key, to: &line)
            line.append(UInt8(ascii: ":"))
            JSONString.appendQuoted(value, to: &line)
        }
        // A metadata value under one of the three leading keys takes that key's place (no key twice).
        member("ts", metadata["ts"] ?? ts.text)
        member("level", metadata["level"] ?? level.description)
        member("msg", metadata["msg"] ?? message)
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) where key != "ts" && key != "level" && key != "msg" {
            member(key, value)
        }
        line.append(UInt8(ascii: "}"))
        line.append(UInt8(ascii: "\n"))
        return line
    }
}

/// Keeps entries in memory, for tests (like swift-log's test handlers).
public final class InMemoryLogHandler: SwitchyardLogHandler {
    /// One entry as it was logged.
    public struct Entry: Sendable {
        /// Its level.
        public var level: LogLevel
        /// Its constant message.
        public var message: String
        /// Its metadata, the logger's included.
        public var metadata: [String: String]
    }

    private let storage = Mutex<[Entry]>([])

    /// An empty recorder.
    public init() {}

    /// Records the entry (its metadata merged as the logger passed it).
    public func log(level: LogLevel, message: String, metadata: [String: String]) {
        storage.withLock { $0.append(Entry(level: level, message: message, metadata: metadata)) }
    }

    /// Every entry so far.
    public var entries: [Entry] { storage.withLock { $0 } }
}

/// A token bucket for one per-record log line (`record dead-lettered`): `perSecond` lines a second on average,
/// bursts of ten seconds' worth. A poison-pill flood at 10,000 records a second would otherwise write 10,000
/// lines a second to the log pipeline, and writing the line would cost more than dead-lettering the record.
/// What is held back is counted by kind, for one summary line a second (``takeSuppressed()``).
struct LogRateLimit {
    let perSecond: Int
    private var tokens: Double
    private var refilled: ContinuousClock.Instant
    /// Lines held back since the last summary, by kind (`error.kind` of a dead letter).
    private(set) var suppressed: [String: Int] = [:]

    init(perSecond: Int, now: ContinuousClock.Instant = .now) {
        self.perSecond = max(perSecond, 0)
        tokens = Double(self.perSecond) * Self.burstSeconds
        refilled = now
    }

    /// A burst may use this many seconds' worth of lines at once.
    static let burstSeconds = 10.0

    /// Whether a line of `kind` may be written at `now`; when not, it is counted as suppressed.
    mutating func admit(_ kind: String, at now: ContinuousClock.Instant = .now) -> Bool {
        let elapsed = refilled.duration(to: now)
        if elapsed > .zero {
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            tokens = min(tokens + seconds * Double(perSecond), Double(perSecond) * Self.burstSeconds)
            refilled = now
        }
        if tokens >= 1 {
            tokens -= 1
            return true
        }
        suppressed[kind, default: 0] += 1
        return false
    }

    /// The lines held back since the last call, by kind (empty when none), and starts counting again.
    mutating func takeSuppressed() -> [String: Int] {
        defer { suppressed = [:] }
        return suppressed
    }

    /// Metadata of the summary line for `suppressed`: the total and `kind=count` pairs in name order.
    static func summary(_ suppressed: [String: Int], perSecond: Int) -> [String: String] {
        [
            "log.suppressed": String(suppressed.values.reduce(0, +)),
            "log.suppressed_by_kind": suppressed.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ","),
            "log.limit_per_second": String(perSecond),
        ]
    }
}
