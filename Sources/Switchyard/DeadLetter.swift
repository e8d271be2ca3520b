import Foundation
import SwitchyardKafka

/// One record read from a dead-letter topic (or a dump of one), with its diagnosis read from the headers:
/// Switchyard's own (`switchyard.*`), Spring Kafka's (`kafka_dlt-*`) or Kafka Connect's (`__connect.errors.*`).
public struct DeadLetter: Sendable {
    /// Whose headers carried the diagnosis.
    public enum Origin: String, Sendable {
        /// `switchyard.*` headers (PRODUCT.md, "Dead-letter records").
        case switchyard
        /// Spring Kafka's `DeadLetterPublishingRecoverer` (`kafka_dlt-original-topic`, …).
        case spring
        /// Kafka Connect's `errors.deadletterqueue.context.headers.enable` (`__connect.errors.topic`, …).
        case connect
        /// No known headers.
        case none
    }

    /// Where the dead letter itself is.
    public var topic: String?
    public var partition: Int32
    public var offset: Int64
    /// The dead letter's record timestamp (ms since the epoch), when known.
    public var timestampMilliseconds: Int64?
    public var key: [UInt8]?
    public var value: [UInt8]?
    public var headers: [KafkaHeader]

    public var origin: Origin
    public var originalTopic: String?
    public var originalPartition: Int32?
    public var originalOffset: Int64?
    public var originalTimestampMilliseconds: Int64?
    /// The `DecodingError` kind (`keyNotFound`, …), `foreign` for Spring/Connect records, `unknown` without headers.
    public var kind: String
    public var path: String?
    public var type: String?
    public var message: String?
    /// Spring's exception class (`kafka_dlt-exception-fqcn`) or Connect's (`__connect.errors.exception.class.name`).
    public var exceptionClass: String?
    public var consumerGroup: String?
    /// When it failed: `switchyard.failed.at`, else the dead letter's timestamp.
    public var failedAt: Date?
    /// `switchyard.redrive.count` (0 when absent).
    public var redriveCount: Int
    /// `switchyard.redrive.of`: the dead letter this record was redriven from (`payments.dlq/0@3`), when it was.
    public var redriveOf: String?

    public init(
        topic: String?, partition: Int32, offset: Int64, timestampMilliseconds: Int64?, key: [UInt8]?, value: [UInt8]?,
        headers: [KafkaHeader]
    ) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.timestampMilliseconds = timestampMilliseconds
        self.key = key
        self.value = value
        self.headers = headers
        origin = .none
        kind = "unknown"
        redriveCount = 0
        readHeaders()
    }

    /// The dead letter read by a consumer.
    public init(_ record: KafkaRecord) {
        self.init(
            topic: record.topic, partition: record.partition, offset: record.offset,
            timestampMilliseconds: record.timestampMilliseconds, key: record.key, value: record.value, headers: record.headers)
    }

    /// The last value of header `name`, as text.
    public func header(_ name: String) -> String? {
        headers.last { $0.name == name }?.value.map { String(decoding: $0, as: UTF8.self) }
    }

    private func bytes(_ name: String) -> [UInt8]? {
        headers.last { $0.name == name }?.value
    }

    private mutating func readHeaders() {
        typealias H = DeadLetterHeaders
        if header(H.originalTopic) != nil || header(H.errorKind) != nil {
            origin = .switchyard
            originalTopic = header(H.originalTopic)
            originalPartition = header(H.originalPartition).flatMap { Int32($0) }
            originalOffset = header(H.originalOffset).flatMap { Int64($0) }
            originalTimestampMilliseconds = header(H.originalTimestamp).flatMap { Int64($0) }
            kind = header(H.errorKind) ?? "unknown"
            path = header(H.errorPath)
            type = header(H.errorType)
            message = header(H.errorMessage)
            consumerGroup = header(H.consumerGroup)
            failedAt = header(H.failedAt).flatMap { Timestamp(rfc3339: $0)?.date }
        } else if header(SpringHeaders.originalTopic) != nil {
            origin = .spring
            kind = "foreign"
            originalTopic = header(SpringHeaders.originalTopic)
            originalPartition = bytes(SpringHeaders.originalPartition).flatMap { Self.integer($0, width: 4) }.map { Int32(truncatingIfNeeded: $0) }
            originalOffset = bytes(SpringHeaders.originalOffset).flatMap { Self.integer($0, width: 8) }
            originalTimestampMilliseconds = bytes(SpringHeaders.originalTimestamp).flatMap { Self.integer($0, width: 8) }
            message = header(SpringHeaders.exceptionMessage)
            exceptionClass = header(SpringHeaders.exceptionClass)
            consumerGroup = header(SpringHeaders.originalConsumerGroup)
        } else if header(ConnectHeaders.topic) != nil {
            origin = .connect
            kind = "foreign"
            originalTopic = header(ConnectHeaders.topic)
            originalPartition = header(ConnectHeaders.partition).flatMap { Int32($0) }
            originalOffset = header(ConnectHeaders.offset).flatMap { Int64($0) }
            message = header(ConnectHeaders.exceptionMessage)
            exceptionClass = header(ConnectHeaders.exceptionClass)
        }
        if failedAt == nil, let ms = timestampMilliseconds { failedAt = Date(timeIntervalSince1970: Double(ms) / 1000) }
        redriveCount = header(DeadLetterHeaders.redriveCount).flatMap { Int($0) } ?? 0
        redriveOf = header(DeadLetterHeaders.redriveOf)
    }

    /// Spring writes numbers as big-endian binary (4 bytes for the partition, 8 for offsets and timestamps);
    /// a dump or another producer may have written decimal text instead.
    public static func integer(_ bytes: [UInt8], width: Int) -> Int64? {
        if bytes.count == width {
            var value: Int64 = 0
            for byte in bytes { value = value << 8 | Int64(byte) }
            if width == 4 { value = Int64(Int32(truncatingIfNeeded: value)) }
            return value
        }
        return Int64(String(decoding: bytes, as: UTF8.self))
    }

    /// The diagnosis in one line, without record values.
    public var diagnosis: String {
        var text = kind
        if let path { text += " at '\(path.isEmpty ? "(root)" : path)'" }
        if let type { text += " in \(type)" }
        if let message { text += ": \(message)" }
        if let exceptionClass { text += " (\(exceptionClass))" }
        return text
    }

    /// `topic/partition@offset` of the original record, or "-".
    public var originalLocation: String {
        guard let originalTopic else { return "-" }
        return "\(originalTopic)/\(originalPartition.map(String.init) ?? "?")@\(originalOffset.map(String.init) ?? "?")"
    }
}

/// Spring Kafka's dead-letter header names (`KafkaHeaders.DLT_*`).
public enum SpringHeaders {
    public static let originalTopic = "kafka_dlt-original-topic"
    public static let originalPartition = "kafka_dlt-original-partition"
    public static let originalOffset = "kafka_dlt-original-offset"
    public static let originalTimestamp = "kafka_dlt-original-timestamp"
    public static let originalConsumerGroup = "kafka_dlt-original-consumer-group"
    public static let exceptionMessage = "kafka_dlt-exception-message"
    public static let exceptionClass = "kafka_dlt-exception-fqcn"
    public static let prefix = "kafka_dlt-"
}

/// Kafka Connect's dead-letter context header names.
public enum ConnectHeaders {
    public static let topic = "__connect.errors.topic"
    public static let partition = "__connect.errors.partition"
    public static let offset = "__connect.errors.offset"
    public static let exceptionClass = "__connect.errors.exception.class.name"
    public static let exceptionMessage = "__connect.errors.exception.message"
    public static let prefix = "__connect.errors."
}

// MARK: - Redrive

extension DeadLetter {
    /// The record a redrive sends: the original key and value, the headers without the previous diagnosis
    /// (`switchyard.*`, `kafka_dlt-*`, `__connect.errors.*`), `switchyard.redrive.count` incremented and
    /// `switchyard.redrive.of` naming this dead letter (`from`), so the worker, which keeps both headers when
    /// it dead-letters the record again, lets a redrive stop a loop and see what was redriven already.
    ///
    /// - Returns: nil without an original topic.
    public func redriveRecord(from location: String, partitionCounts: [String: Int]) -> KafkaProducerRecord? {
        guard let originalTopic else { return nil }
        var out = headers.filter {
            !$0.name.hasPrefix("switchyard.") && !$0.name.hasPrefix(SpringHeaders.prefix) && !$0.name.hasPrefix(ConnectHeaders.prefix)
        }
        out.append(KafkaHeader(name: DeadLetterHeaders.redriveCount, string: String(redriveCount + 1)))
        out.append(KafkaHeader(name: DeadLetterHeaders.redriveOf, string: location))
        // The original partition when the topic still has it: per-key order as before.
        let partition = originalPartition.flatMap { (partitionCounts[originalTopic] ?? 0) > Int($0) && $0 >= 0 ? $0 : nil }
        return KafkaProducerRecord(topic: originalTopic, partition: partition, key: key, value: value, headers: out)
    }
}

// MARK: - Filters

/// The `--kind`, `--type`, `--path` and `--since` filters of `switchyard dlq`.
package struct DeadLetterFilter: Sendable {
    package var kinds: Set<String> = []
    package var types: Set<String> = []
    package var paths: Set<String> = []
    /// Only dead letters that failed at or after this instant.
    package var since: Date?

    package init() {}

    package func matches(_ d: DeadLetter) -> Bool {
        if !kinds.isEmpty && !kinds.contains(d.kind) { return false }
        if !types.isEmpty && !types.contains(d.type ?? "") { return false }
        if !paths.isEmpty && !paths.contains(d.path ?? "") { return false }
        if let since {
            guard let failedAt = d.failedAt, failedAt >= since else { return false }
        }
        return true
    }

    /// Parses `--since`: a duration back from `now` (`90s`, `15m`, `2h`, `7d`, `1h30m`) or an RFC 3339 time.
    package static func parseSince(_ text: String, now: Date = Date()) -> Date? {
        if let timestamp = Timestamp(rfc3339: text) { return timestamp.date }
        var seconds = 0.0
        var number = ""
        var sawUnit = false
        for c in text {
            if c.isNumber || c == "." {
                number.append(c)
                continue
            }
            guard let value = Double(number) else { return nil }
            switch c {
            case "s": seconds += value
            case "m": seconds += value * 60
            case "h": seconds += value * 3600
            case "d": seconds += value * 86400
            case "w": seconds += value * 7 * 86400
            default: return nil
            }
            number = ""
            sawUnit = true
        }
        guard number.isEmpty, sawUnit else { return nil }
        return now.addingTimeInterval(-seconds)
    }
}

/// "now", "42s ago", "3m ago", "5h ago", "2d ago" (or "in 3m" for a clock ahead of this one).
public func relativeAge(_ date: Date?, now: Date = Date()) -> String {
    guard let date else { return "-" }
    let seconds = Int(now.timeIntervalSince(date).rounded())
    let magnitude = abs(seconds)
    let text: String
    switch magnitude {
    case ..<5: return "now"
    case ..<60: text = "\(magnitude)s"
    case ..<3600: text = "\(magnitude / 60)m"
    case ..<86400: text = "\(magnitude / 3600)h"
    default: text = "\(magnitude / 86400)d"
    }
    return seconds >= 0 ? "\(text) ago" : "in \(text)"
}
