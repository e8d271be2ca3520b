import Foundation
import Synchronization

/// Log levels, most verbose first.
public enum LogLevel: Int, Sendable, Comparable, CustomStringConvertible {
    case debug, info, notice, warning, error

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
    public var description: String { ["debug", "info", "notice", "warning", "error"][rawValue] }
}

/// Where log entries go (swift-log's `LogHandler`, reduced to what the worker needs).
public protocol LogHandler: Sendable {
    /// Writes one entry. `message` is constant text; data goes in `metadata` with dotted keys.
    func log(level: LogLevel, message: String, metadata: [String: String])
}

/// A logger: a handler, a minimum level and metadata added to every entry.
public struct Logger: Sendable {
    public var handler: any LogHandler
    public var level: LogLevel
    public var metadata: [String: String]

    public init(handler: any LogHandler = JSONLogHandler(), level: LogLevel = .info, metadata: [String: String] = [:]) {
        self.handler = handler
        self.level = level
        self.metadata = metadata
    }

    @inline(__always) public func log(_ level: LogLevel, _ message: String, _ metadata: [String: String] = [:]) {
        guard level >= self.level else { return }
        handler.log(level: level, message: message, metadata: self.metadata.merging(metadata) { _, new in new })
    }

    public func debug(_ message: String, _ metadata: [String: String] = [:]) { log(.debug, message, metadata) }
    public func info(_ message: String, _ metadata: [String: String] = [:]) { log(.info, message, metadata) }
    public func notice(_ message: String, _ metadata: [String: String] = [:]) { log(.notice, message, metadata) }
    public func warning(_ message: String, _ metadata: [String: String] = [:]) { log(.warning, message, metadata) }
    public func error(_ message: String, _ metadata: [String: String] = [:]) { log(.error, message, metadata) }
}

/// One JSON object per line on stderr: `{"ts":…,"level":…,"msg":…, metadata…}`.
public struct JSONLogHandler: LogHandler {
    public init() {}

    public func log(level: LogLevel, message: String, metadata: [String: String]) {
        var o = JSONObject()
        o.set("ts", Timestamp(Date()).text)
        o.set("level", level.description)
        o.set("msg", message)
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) { o.set(key, value) }
        var line = o.bytes
        line.append(UInt8(ascii: "\n"))
        line.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
    }
}

/// Keeps entries in memory, for tests (like swift-log's test handlers).
public final class InMemoryLogHandler: LogHandler {
    public struct Entry: Sendable {
        public var level: LogLevel
        public var message: String
        public var metadata: [String: String]
    }

    private let storage = Mutex<[Entry]>([])

    public init() {}

    public func log(level: LogLevel, message: String, metadata: [String: String]) {
        storage.withLock { $0.append(Entry(level: level, message: message, metadata: metadata)) }
    }

    /// Every entry so far.
    public var entries: [Entry] { storage.withLock { $0 } }
}
