/// An error from the Kafka client: a bad configuration, an unreachable cluster, a failed delivery, a librdkafka
/// error surfaced by the consumer.
///
/// Reasons never contain record values or secrets (see ``KafkaConfiguration/redacted(_:)``).
public struct KafkaError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is; the CLI maps codes to exit statuses.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case configuration
            case unavailable
            case timedOut
            case delivery
            case consumer
            case state
            case unknownTopic
            case fatal
            case underlying
        }

        private let kind: Kind

        private init(_ kind: Kind) { self.kind = kind }

        /// A configuration property was rejected (unknown name, invalid value). The CLI exits 78.
        public static let configuration = Code(.configuration)
        /// The cluster could not be reached within the deadline. The CLI exits 69.
        public static let unavailable = Code(.unavailable)
        /// An operation did not finish within its deadline (a flush, a commit).
        public static let timedOut = Code(.timedOut)
        /// A produced record was not acknowledged by the broker.
        public static let delivery = Code(.delivery)
        /// The consumer reported an error (a fetch, a rebalance, an offset store).
        public static let consumer = Code(.consumer)
        /// The client was used in the wrong state (closed, partition not assigned).
        public static let state = Code(.state)
        /// A topic named for reading does not exist on the brokers (or this principal may not describe it).
        public static let unknownTopic = Code(.unknownTopic)
        /// librdkafka raised a fatal error: the client instance is unusable and must be recreated.
        public static let fatal = Code(.fatal)
        /// Any other librdkafka error.
        public static let underlying = Code(.underlying)

        public var description: String { kind.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// A human explanation (no record values, no secrets).
    public let reason: String
    /// The librdkafka error name (`rd_kafka_err2name`, e.g. `TOPIC_AUTHORIZATION_FAILED`), when there is one.
    public let rdKafkaName: String?
    /// The librdkafka error code (`rd_kafka_resp_err_t`), when there is one.
    public let rdKafkaCode: Int32?
    /// Whether the client instance is unusable after this error (librdkafka fatal error).
    public let isFatal: Bool
    /// Whether retrying the same operation may succeed.
    public let isRetriable: Bool
    /// Where the error was created.
    public let file: String
    /// Where the error was created.
    public let line: Int

    init(
        code: Code,
        reason: String,
        rdKafkaName: String? = nil,
        rdKafkaCode: Int32? = nil,
        isFatal: Bool = false,
        isRetriable: Bool = false,
        file: String,
        line: Int
    ) {
        self.code = code
        self.reason = reason
        self.rdKafkaName = rdKafkaName
        self.rdKafkaCode = rdKafkaCode
        self.isFatal = isFatal
        self.isRetriable = isRetriable
        self.file = file
        self.line = line
    }

    public var description: String {
        var text = "KafkaError.\(code): \(reason)"
        if let rdKafkaName { text += " [\(rdKafkaName)]" }
        if isFatal { text += " (fatal)" } else if isRetriable { text += " (retriable)" }
        return text
    }

    // MARK: - Factories

    static func configuration(reason: String, file: String = #fileID, line: Int = #line) -> KafkaError {
        KafkaError(code: .configuration, reason: reason, file: file, line: line)
    }

    static func unavailable(
        reason: String,
        rdKafkaName: String? = nil,
        rdKafkaCode: Int32? = nil,
        file: String = #fileID,
        line: Int = #line
    ) -> KafkaError {
        KafkaError(
            code: .unavailable,
            reason: reason,
            rdKafkaName: rdKafkaName,
            rdKafkaCode: rdKafkaCode,
            isRetriable: true,
            file: file,
            line: line
        )
    }

    static func timedOut(reason: String, file: String = #fileID, line: Int = #line) -> KafkaError {
        KafkaError(code: .timedOut, reason: reason, isRetriable: true, file: file, line: line)
    }

    static func state(reason: String, file: String = #fileID, line: Int = #line) -> KafkaError {
        KafkaError(code: .state, reason: reason, file: file, line: line)
    }

    static func unknownTopic(_ topic: String, on brokers: [String], file: String = #fileID, line: Int = #line) -> KafkaError {
        KafkaError(code: .unknownTopic, reason: "topic '\(topic)' does not exist on \(brokers.joined(separator: ","))", file: file, line: line)
    }
}
