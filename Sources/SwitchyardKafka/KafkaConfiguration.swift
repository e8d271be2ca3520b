/// Settings shared by the consumer and the producer: where the cluster is, who we are, and any librdkafka property.
public struct KafkaConfiguration: Sendable, CustomStringConvertible {
    /// The bootstrap brokers, `host:port` each. Default: `["localhost:9092"]`.
    public var bootstrapServers: [String]
    /// `client.id`, shown in broker logs and metrics. Default: `"switchyard"`.
    public var clientID: String
    /// Any librdkafka property, passed through as is (`security.protocol`, `sasl.*`, `ssl.*`, …).
    ///
    /// These are applied last, so they override the typed settings. A property librdkafka rejects is a
    /// ``KafkaError`` with code ``KafkaError/Code/configuration`` when the client is made.
    /// Values of secret properties (see ``isSecret(_:)``) never appear in logs, errors or descriptions.
    /// Default: empty.
    public var properties: [String: String]
    /// The most verbose librdkafka log level routed to the ``KafkaLogger``. Default: `.warning`.
    public var logLevel: KafkaLogLevel

    /// Makes a configuration; every argument has the documented default.
    public init(
        bootstrapServers: [String] = ["localhost:9092"],
        clientID: String = "switchyard",
        properties: [String: String] = [:],
        logLevel: KafkaLogLevel = .warning
    ) {
        self.bootstrapServers = bootstrapServers
        self.clientID = clientID
        self.properties = properties
        self.logLevel = logLevel
    }

    /// A `host:port[,host:port…]` list (the form of `bootstrap.servers` and `--brokers`) as ``bootstrapServers``:
    /// spaces around the commas and empty entries are dropped.
    public static func bootstrapServers(parsing list: String) -> [String] {
        list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Whether a property name holds a secret: `sasl.password`, `ssl.key.password`, and any name containing
    /// `password`, `secret` or `sasl.oauthbearer.config`.
    public static func isSecret(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return lowered.contains("password") || lowered.contains("secret") || lowered == "sasl.oauthbearer.config"
            || lowered == "ssl.key.pem" || lowered == "ssl_key"
    }

    /// The properties with secret values replaced by `<redacted>`, for logs and `/status`.
    public static func redacted(_ properties: [String: String]) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in properties {
            result[name] = isSecret(name) ? "<redacted>" : value
        }
        return result
    }

    /// The values of secret properties, to scrub from librdkafka's log lines.
    var secretValues: [String] {
        properties.filter { Self.isSecret($0.key) && !$0.value.isEmpty }.map(\.value)
    }

    public var description: String {
        let props = Self.redacted(properties).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return "KafkaConfiguration(bootstrapServers: \(bootstrapServers.joined(separator: ",")), "
            + "clientID: \(clientID), properties: [\(props.joined(separator: ", "))])"
    }

    /// The librdkafka properties for the shared settings, in the order they are applied.
    var rdKafkaProperties: [(String, String)] {
        var result: [(String, String)] = [
            ("bootstrap.servers", bootstrapServers.joined(separator: ",")),
            ("client.id", clientID),
            ("log_level", String(logLevel.syslogLevel)),
        ]
        result += properties.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        return result
    }
}

/// The consumer's settings.
public struct KafkaConsumerConfiguration: Sendable, CustomStringConvertible {
    /// Where to start when the group has no committed offset for a partition.
    public enum OffsetReset: String, Sendable {
        /// From the first retained record.
        case earliest
        /// From the next record produced.
        case latest
        /// Fail the partition (an error event).
        case error
    }

    /// Brokers, client id, passthrough properties.
    public var kafka: KafkaConfiguration
    /// `group.id`, the consumer group. Required.
    public var groupID: String
    /// The topics to subscribe to. Required, not empty.
    public var topics: [String]
    /// `session.timeout.ms`: how long the group waits for a silent member before rebalancing.
    /// Default: 45 seconds (librdkafka's).
    public var sessionTimeout: Duration
    /// `auto.offset.reset`. Default: `.earliest` (at-least-once: never skip what was already produced).
    public var offsetReset: OffsetReset
    /// `auto.commit.interval.ms`: how often stored offsets are committed. Default: 5 seconds.
    public var commitInterval: Duration
    /// `statistics.interval.ms`: how often librdkafka statistics (consumer lag) refresh; `nil` disables them.
    /// Default: 5 seconds.
    public var statisticsInterval: Duration?
    /// How many records the poll thread buffers ahead of the reader before it pauses fetching. Default: 4000.
    public var maxBufferedRecords: Int
    /// How many records the poll thread hands to the reader at once (``KafkaConsumer/batches``). Default: 500.
    public var maxBatchRecords: Int
    /// `queued.max.messages.kbytes`: how much librdkafka prefetches ahead of the poll thread, for all partitions
    /// together. Default: 16384 (16 MiB; librdkafka's is 64 MiB). The `kafka` map can override it.
    ///
    /// librdkafka also caps `fetch.max.bytes` (what one fetch may bring) at this size. librdkafka 2.0 stops
    /// fetching whenever its queue reaches this size or ``prefetchMinRecords`` and, left alone, decides again
    /// only up to a second later; the poll thread wakes it once the queue has drained to a quarter
    /// (``PrefetchWatch``), so the limits bound memory without slowing a consumer that catches up.
    public var prefetchKilobytes: Int
    /// `queued.min.messages`: how many records librdkafka keeps prefetched before it stops fetching (whichever
    /// of this and ``prefetchKilobytes`` comes first). Default: 20,000 (librdkafka's is 100,000): enough for
    /// the wake described above to bring the next fetch before the queue runs dry at ~1M records/s.
    public var prefetchMinRecords: Int
    /// Whether records keep librdkafka's message instead of a copy of key, value and headers: no allocation
    /// or copy per record, and headers parsed only when read. Each kept record keeps its whole fetch response
    /// in memory, so a reader that keeps records beyond the batch it is processing keeps
    /// ``KafkaRecord/detached()`` copies (records held back for a paused partition are detached by the
    /// consumer). Default: false.
    public var keepsMessages: Bool

    /// Makes a configuration; every argument but the group and topics has the documented default.
    public init(
        groupID: String,
        topics: [String],
        kafka: KafkaConfiguration = KafkaConfiguration(),
        sessionTimeout: Duration = .seconds(45),
        offsetReset: OffsetReset = .earliest,
        commitInterval: Duration = .seconds(5),
        statisticsInterval: Duration? = .seconds(5),
        maxBufferedRecords: Int = 4000,
        maxBatchRecords: Int = 500,
        prefetchKilobytes: Int = 16384,
        prefetchMinRecords: Int = 20_000,
        keepsMessages: Bool = false
    ) {
        self.kafka = kafka
        self.groupID = groupID
        self.topics = topics
        self.sessionTimeout = sessionTimeout
        self.offsetReset = offsetReset
        self.commitInterval = commitInterval
        self.statisticsInterval = statisticsInterval
        self.maxBufferedRecords = maxBufferedRecords
        self.maxBatchRecords = maxBatchRecords
        self.prefetchKilobytes = prefetchKilobytes
        self.prefetchMinRecords = prefetchMinRecords
        self.keepsMessages = keepsMessages
    }

    public var description: String {
        "KafkaConsumerConfiguration(groupID: \(groupID), topics: \(topics), \(kafka))"
    }

    /// Every librdkafka property, typed ones first, passthrough last.
    var rdKafkaProperties: [(String, String)] {
        var result: [(String, String)] = [
            ("group.id", groupID),
            ("session.timeout.ms", String(sessionTimeout.milliseconds)),
            ("auto.offset.reset", offsetReset.rawValue),
            // At-least-once: the application stores an offset only once the record's outcome is durable;
            // librdkafka commits what was stored, periodically, on revocation and on close.
            ("enable.auto.offset.store", "false"),
            ("enable.auto.commit", "true"),
            ("auto.commit.interval.ms", String(commitInterval.milliseconds)),
            ("statistics.interval.ms", String(statisticsInterval?.milliseconds ?? 0)),
            ("queued.max.messages.kbytes", String(prefetchKilobytes)),
            ("queued.min.messages", String(prefetchMinRecords)),
        ]
        let shared = kafka.rdKafkaProperties
        // The passthrough map comes last so it can override anything above.
        result.insert(contentsOf: shared.prefix(3), at: 0)
        result += shared.dropFirst(3)
        return result
    }

    /// The prefetch limits librdkafka applies: `queued.min.messages` records and `queued.max.messages.kbytes` in
    /// bytes, as the `kafka` map may have overridden them (a value librdkafka would reject never gets this far).
    var effectivePrefetchLimits: (records: Int, bytes: Int) {
        let properties = rdKafkaProperties
        func last(_ name: String) -> Int? { properties.last { $0.0 == name }.flatMap { Int($0.1) } }
        return (last("queued.min.messages") ?? prefetchMinRecords, (last("queued.max.messages.kbytes") ?? prefetchKilobytes) * 1024)
    }
}

/// The producer's settings.
public struct KafkaProducerConfiguration: Sendable, CustomStringConvertible {
    /// Brokers, client id, passthrough properties.
    public var kafka: KafkaConfiguration
    /// `enable.idempotence`: no duplicates or reordering from retries. Default: `true`.
    public var idempotence: Bool
    /// `message.timeout.ms`: how long a record may wait for its acknowledgement, retries included, before
    /// `send` throws. Default: 300 seconds (librdkafka's).
    public var deliveryTimeout: Duration
    /// `linger.ms`: how long to wait to batch records. Default: 5 milliseconds (librdkafka's).
    public var linger: Duration

    /// Makes a configuration; every argument has the documented default.
    public init(
        kafka: KafkaConfiguration = KafkaConfiguration(),
        idempotence: Bool = true,
        deliveryTimeout: Duration = .seconds(300),
        linger: Duration = .milliseconds(5)
    ) {
        self.kafka = kafka
        self.idempotence = idempotence
        self.deliveryTimeout = deliveryTimeout
        self.linger = linger
    }

    public var description: String {
        "KafkaProducerConfiguration(idempotence: \(idempotence), \(kafka))"
    }

    /// Every librdkafka property, typed ones first, passthrough last.
    var rdKafkaProperties: [(String, String)] {
        let shared = kafka.rdKafkaProperties
        var result = Array(shared.prefix(3))
        result += [
            ("enable.idempotence", idempotence ? "true" : "false"),
            ("message.timeout.ms", String(deliveryTimeout.milliseconds)),
            ("linger.ms", String(linger.milliseconds)),
        ]
        result += shared.dropFirst(3)
        return result
    }
}

/// A librdkafka log level (syslog severities). Ordered like swift-log: `.debug` < … < `.critical`.
public enum KafkaLogLevel: Int, Sendable, Comparable, CustomStringConvertible {
    case critical = 2
    case error = 3
    case warning = 4
    case notice = 5
    case info = 6
    case debug = 7

    var syslogLevel: Int { rawValue }

    public static func < (lhs: KafkaLogLevel, rhs: KafkaLogLevel) -> Bool { lhs.rawValue > rhs.rawValue }

    public var description: String {
        switch self {
        case .critical: "critical"
        case .error: "error"
        case .warning: "warning"
        case .notice: "notice"
        case .info: "info"
        case .debug: "debug"
        }
    }

    init(syslog: Int32) {
        switch syslog {
        case ...2: self = .critical
        case 3: self = .error
        case 4: self = .warning
        case 5: self = .notice
        case 6: self = .info
        default: self = .debug
        }
    }
}

/// Where librdkafka's log lines go: a tiny handler in the spirit of swift-log's `LogHandler`.
public protocol KafkaLogger: Sendable {
    /// Logs one line. `message` is constant-ish text from librdkafka; `metadata` has dotted keys
    /// (`kafka.client`, `kafka.facility`).
    func log(level: KafkaLogLevel, message: String, metadata: [String: String])
}

/// Writes log lines to stderr.
public struct StandardErrorKafkaLogger: KafkaLogger {
    public init() {}

    public func log(level: KafkaLogLevel, message: String, metadata: [String: String]) {
        let meta = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        writeToStandardError("[\(level)] \(message) \(meta)\n")
    }
}

/// Drops every log line.
public struct NoOpKafkaLogger: KafkaLogger {
    public init() {}
    public func log(level: KafkaLogLevel, message: String, metadata: [String: String]) {}
}

extension Duration {
    /// Whole milliseconds, rounded down, at least 0.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }
}
