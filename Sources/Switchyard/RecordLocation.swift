/// Where a record is: topic, partition and offset, written `topic/partition@offset` (`payments.dlq/1@20`)
/// everywhere a record is named: CLI output, `--records` lines, `dlq show`, `release`, the worker's logs
/// (`kafka.record`) and `/status`. Encoded as JSON it is `{"topic", "partition", "offset"}`.
public struct RecordLocation: Hashable, Sendable, Codable, Comparable, CustomStringConvertible, LosslessStringConvertible {
    /// The topic.
    public var topic: String
    /// The partition.
    public var partition: Int32
    /// The offset.
    public var offset: Int64

    /// `topic/partition@offset`.
    public init(topic: String, partition: Int32, offset: Int64) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
    }

    /// Parses `topic/partition@offset`. A topic may itself contain `/` (Kafka's topic names cannot, but a
    /// name is split at its last `/`); partition and offset are non-negative integers. `nil` for any other form.
    public init?(_ text: String) {
        guard let at = text.lastIndex(of: "@"), let slash = text[..<at].lastIndex(of: "/") else { return nil }
        let topic = text[..<slash]
        guard !topic.isEmpty, let partition = Int32(text[text.index(after: slash)..<at]), partition >= 0,
            let offset = Int64(text[text.index(after: at)...]), offset >= 0
        else { return nil }
        self.init(topic: String(topic), partition: partition, offset: offset)
    }

    /// `topic/partition@offset`.
    public var description: String { "\(topic)/\(partition)@\(offset)" }

    /// What a usage error shows after a form that does not parse.
    public static let formHint = "topic/partition@offset, e.g. payments.dlq/1@20"

    /// Ordered by topic, then partition, then offset.
    public static func < (lhs: RecordLocation, rhs: RecordLocation) -> Bool {
        (lhs.topic, lhs.partition, lhs.offset) < (rhs.topic, rhs.partition, rhs.offset)
    }
}
