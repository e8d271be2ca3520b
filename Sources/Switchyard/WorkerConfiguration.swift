import Foundation
import SwitchyardKafka

/// The worker's configuration file (PRODUCT.md, "Configuration"), decoded strictly: an unknown key
/// is an error naming its path and the nearest valid key, because a typo in config must fail loudly.
public struct WorkerConfiguration: Sendable {
    /// The bootstrap brokers, `host:port` each. In the file: `brokers`, comma-separated; environment override:
    /// `SWITCHYARD_BROKERS`.
    public var bootstrapServers: [String]
    /// The consumer group. In the file: `groupId`; environment override: `SWITCHYARD_GROUP_ID`.
    public var groupID: String
    /// The Kafka `client.id`. In the file: `clientId`. Default: `switchyard`.
    public var clientID: String
    /// The topics to consume, by name.
    public var topics: [String: TopicConfiguration]
    /// The HTTP endpoint for `/metrics` and health.
    public var metrics: MetricsConfiguration
    /// Where audited operator releases of halted offsets are recorded. Default: `switchyard.control`.
    public var controlTopic: String
    /// The shared secret releases must be signed with (`"controlTopic": {"name": …, "secret": "${file:…}"}`);
    /// nil: releases are not signed. Never logged.
    public var controlTopicSecret: String?
    /// How long a graceful stop (SIGTERM, ``Worker/stop()``, cancellation) may take to drain and commit. In the
    /// file: `shutdownTimeoutSeconds`. Default: 25 seconds.
    public var shutdownTimeout: Duration
    /// Largest record value decoded; larger ones fail as `dataCorrupted`. Default: 1 MiB.
    public var maxRecordBytes: Int
    /// How many `record dead-lettered` warnings the worker writes per second on average (bursts of ten
    /// seconds' worth); the rest are counted and summed up in one `dead-letter warnings suppressed` line a
    /// second. The DLQ and `switchyard_dead_letters_total` keep every record. 0: summaries only. Default: 10.
    public var deadLetterLogsPerSecond: Int = 10
    /// How many records of one partition may be pending (read, and not yet committable: on their way, or done
    /// behind one that is not) before the partition is paused; it resumes below half. A stuck handler or key
    /// holds only its own partition, and the pending list and what a restart reads again stay bounded.
    /// Default: 10,000.
    public var maxPendingRecordsPerPartition: Int = 10_000
    /// How many bytes (record values and keys) whose outcome is on its way the worker holds, over all its
    /// partitions, before pausing the partition that goes over its share (this divided by the partitions
    /// assigned). Default: 128 MiB, within the 512 MiB memory limit of `deploy/kubernetes/base` with the
    /// consumer's prefetch.
    public var maxPendingBytes: Int = 128 << 20
    /// librdkafka properties passed through to the consumer and the producer (security.protocol, sasl.*,
    /// ssl.*), secrets resolved.
    public var kafka: [String: String]
    /// librdkafka properties for the consumer only (`fetch.*`, `max.poll.interval.ms`, …), on top of ``kafka``.
    /// Default: none.
    public var kafkaConsumer: [String: String] = [:]
    /// librdkafka properties for the producer only (`linger.ms`, `compression.type`, …), on top of ``kafka``.
    /// Default: none.
    public var kafkaProducer: [String: String] = [:]
    /// The team's own section of the file (`"service": {…}`), verbatim: Switchyard does not read it; the
    /// handler factory does (``service(as:)``). Nil when the file has none.
    public var service: RawJSON?

    /// The default of ``maxRecordBytes``: 1 MiB (`replay` uses it too, so a record the worker would fail fails there).
    public static let defaultMaxRecordBytes = 1 << 20

    /// The default of ``controlTopic``, where releases are recorded: `switchyard.control` (the CLI's `release`,
    /// `releases` and `demo` use it too when no configuration names another).
    public static let defaultControlTopic = "switchyard.control"

    /// The topic names, sorted (deterministic order for subscriptions and output).
    public var topicNames: [String] { topics.keys.sorted() }

    /// ``shutdownTimeout`` in seconds, for arithmetic on clocks and for log lines.
    var shutdownTimeoutSeconds: Double {
        let parts = shutdownTimeout.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }

    /// ``bootstrapServers`` in the `host:port,host:port` form, for log lines and messages.
    var brokersText: String { bootstrapServers.joined(separator: ",") }

    /// A configuration; the defaults are the configuration file's. A topic without a dead-letter topic gets
    /// `<topic>.dlq`. Checked when a ``Worker`` is made.
    public init(
        bootstrapServers: [String], groupID: String, clientID: String = "switchyard", topics: [String: TopicConfiguration],
        metrics: MetricsConfiguration = MetricsConfiguration(), controlTopic: String = WorkerConfiguration.defaultControlTopic,
        shutdownTimeout: Duration = .seconds(25), maxRecordBytes: Int = WorkerConfiguration.defaultMaxRecordBytes, kafka: [String: String] = [:]
    ) {
        self.bootstrapServers = bootstrapServers
        self.groupID = groupID
        self.clientID = clientID
        self.topics = topics
        self.metrics = metrics
        self.controlTopic = controlTopic
        self.shutdownTimeout = shutdownTimeout
        self.maxRecordBytes = maxRecordBytes
        self.kafka = kafka
        self.controlTopicSecret = nil
        // One default for the file and for Swift: a topic without a dead-letter topic uses `<topic>.dlq`.
        for (name, topic) in topics where topic.deadLetterTopic.isEmpty {
            self.topics[name]?.deadLetterTopic = "\(name).dlq"
        }
    }

    /// Decodes the team's ``service`` section as `T` (with Foundation's `JSONDecoder`).
    ///
    /// - Throws: ``ConfigurationError`` naming the path under `service` (exit 78 from the command line); when
    ///   the file has no `service` section, `T` is decoded from `{}`.
    public func service<T: Decodable>(as type: T.Type) throws(ConfigurationError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(service?.bytes ?? Array("{}".utf8)))
        } catch let error as DecodingError {
            let failure = DecodeFailure(error, type: nil)
            throw ConfigurationError(path: failure.path.isEmpty ? "service" : "service.\(failure.path)", reason: failure.message)
        } catch {
            throw ConfigurationError(path: "service", reason: "\(error)")
        }
    }
}

/// One topic's catalog and policy.
public struct TopicConfiguration: Sendable, Equatable {
    /// What to do with a record that fails to decode.
    public enum OnFailure: String, Sendable, CaseIterable {
        /// Dead-letter it, then halt the partition at its offset.
        case halt
        /// Dead-letter it and go on.
        case deadLetter
    }

    /// How republished records are written.
    public enum RepublishMode: String, Sendable, CaseIterable {
        /// Re-encoded: defaults filled in, unknown fields kept.
        case canonical
        /// The original bytes.
        case passthrough
    }

    /// Which records of a partition may run their handlers at the same time.
    public enum Ordering: String, Sendable, CaseIterable {
        /// One record at a time per partition, in offset order (partitions run concurrently).
        case partition
        /// Records with different keys run concurrently; records with the same key (or no key) stay in order.
        /// Offsets are still committed only below the first record whose outcome is not durable.
        case key
    }

    /// The catalog its records are decoded with.
    public var catalog: Catalog
    /// Strict or lenient. Default: the catalog's.
    public var policy: TopicPolicy
    /// Default: halt for strict topics, deadLetter for lenient ones.
    public var onFailure: OnFailure
    /// Default: `<topic>.dlq` (an empty name is replaced by it when the ``WorkerConfiguration`` is made).
    public var deadLetterTopic: String
    /// Where decoded events are republished; nil for none.
    public var republishTo: String?
    /// Default: canonical.
    public var republishMode: RepublishMode
    /// How handlers run within a partition. Default: partition.
    public var ordering: Ordering
    /// How handler errors are retried and what happens when retries run out. Default: ``RetryPolicy/init(attempts:initialBackoff:maxBackoff:onExhausted:)``'s.
    public var retry: RetryPolicy

    /// A topic of `catalog`; `deadLetterTopic` nil (or empty) is `<topic>.dlq`.
    public init(
        catalog: Catalog, policy: TopicPolicy? = nil, onFailure: OnFailure? = nil, deadLetterTopic: String? = nil,
        republishTo: String? = nil, republishMode: RepublishMode = .canonical, ordering: Ordering = .partition,
        retry: RetryPolicy = RetryPolicy()
    ) {
        self.catalog = catalog
        self.policy = policy ?? catalog.defaultPolicy
        self.onFailure = onFailure ?? (self.policy == .strict ? .halt : .deadLetter)
        self.deadLetterTopic = deadLetterTopic ?? ""
        self.republishTo = republishTo
        self.republishMode = republishMode
        self.ordering = ordering
        self.retry = retry
    }
}

/// Where `/metrics`, `/healthz`, `/readyz` and `/status` are served.
public struct MetricsConfiguration: Sendable, Equatable {
    /// Default: 0.0.0.0.
    public var host: String = "0.0.0.0"
    /// Default: 9464. 0 picks a free port.
    public var port: Int = 9464
    /// Distinct `type` label values per metric before new ones collapse into `_other`. Default: 100.
    public var maxTypeLabels: Int = 100

    /// The endpoint's settings; the defaults are the file's.
    public init(host: String = "0.0.0.0", port: Int = 9464, maxTypeLabels: Int = 100) {
        self.host = host
        self.port = port
        self.maxTypeLabels = maxTypeLabels
    }
}

/// A configuration problem: where, and what (exit 78). Never contains secret values.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// The rendered path in the file (`topics.payments.policy`), "" for the whole file.
    public var path: String
    /// What is wrong (no secret values).
    public var reason: String

    /// A problem at `path` (`""`: the whole file).
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// `path: reason`, or the reason alone for the whole file.
    public var description: String { path.isEmpty ? reason : "\(path): \(reason)" }
}

// MARK: - Loading

extension WorkerConfiguration {
    /// Loads a configuration file, applies environment overrides and resolves secret references.
    ///
    /// - Parameter catalogs: the catalogs this binary was built with; `topics.<t>.catalog` names one of them.
    public static func load(path: String, catalogs: CatalogRegistry, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(ConfigurationError) -> WorkerConfiguration
    {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigurationError(path: "", reason: "cannot read \(path): \(FileErrorText.plain(error))")
        }
        return try parse([UInt8](data), catalogs: catalogs, environment: environment)
    }

    /// Parses configuration JSON, applies environment overrides and resolves secret references.
    public static func parse(_ bytes: [UInt8], catalogs: CatalogRegistry, environment: [String: String] = [:]) throws(ConfigurationError)
        -> WorkerConfiguration
    {
        var file: ConfigFile
        do {
            file = try SwitchyardJSONDecoder().decode(ConfigFile.self, from: bytes)
        } catch let error as ConfigurationError {
            throw error
        } catch let error as DecodingError {
            let failure = DecodeFailure(error, type: nil)
            throw ConfigurationError(path: failure.path, reason: failure.message)
        } catch {
            throw ConfigurationError(path: "", reason: "\(error)")
        }
        if let brokers = environment["SWITCHYARD_BROKERS"], !brokers.isEmpty { file.brokers = brokers }
        if let group = environment["SWITCHYARD_GROUP_ID"], !group.isEmpty { file.groupId = group }
        let bootstrapServers = KafkaConfiguration.bootstrapServers(parsing: file.brokers)
        guard !bootstrapServers.isEmpty else { throw ConfigurationError(path: "brokers", reason: "must not be empty") }
        guard !file.groupId.isEmpty else { throw ConfigurationError(path: "groupId", reason: "must not be empty") }
        guard !file.topics.isEmpty else { throw ConfigurationError(path: "topics", reason: "must name at least one topic") }

        var kafka: [String: String] = [:]
        for (key, value) in file.kafka ?? [:] {
            kafka[key] = try resolveSecret(value, key: key, environment: environment)
        }
        var kafkaConsumer: [String: String] = [:]
        for (key, value) in file.kafkaConsumer ?? [:] {
            kafkaConsumer[key] = try resolveSecret(value, key: key, environment: environment)
        }
        var kafkaProducer: [String: String] = [:]
        for (key, value) in file.kafkaProducer ?? [:] {
            kafkaProducer[key] = try resolveSecret(value, key: key, environment: environment)
        }
        var topics: [String: TopicConfiguration] = [:]
        for (name, topic) in file.topics {
            guard let catalog = catalogs[topic.catalog] else {
                throw ConfigurationError(path: "topics.\(name).catalog", reason: catalogs.unknownNameReason(topic.catalog))
            }
            topics[name] = TopicConfiguration(
                catalog: catalog, policy: topic.policy, onFailure: topic.onFailure,
                deadLetterTopic: topic.deadLetterTopic ?? "\(name).dlq", republishTo: topic.republishTo,
                republishMode: topic.republishMode ?? .canonical, ordering: topic.ordering ?? .partition,
                retry: try topic.retry?.policy(path: "topics.\(name).retry") ?? RetryPolicy())
            if topic.deadLetterTopic == name || topic.republishTo == name {
                throw ConfigurationError(path: "topics.\(name)", reason: "a topic cannot dead-letter or republish to itself")
            }
        }
        let metrics = file.metrics ?? ConfigFile.Metrics()
        guard (0...65535).contains(metrics.port ?? 9464) else { throw ConfigurationError(path: "metrics.port", reason: "must be 0…65535") }
        guard (metrics.maxTypeLabels ?? 100) >= 1 else { throw ConfigurationError(path: "metrics.maxTypeLabels", reason: "must be at least 1") }
        var configuration = WorkerConfiguration(
            bootstrapServers: bootstrapServers, groupID: file.groupId, clientID: file.clientId ?? "switchyard", topics: topics,
            metrics: MetricsConfiguration(host: metrics.host ?? "0.0.0.0", port: metrics.port ?? 9464, maxTypeLabels: metrics.maxTypeLabels ?? 100),
            controlTopic: file.controlTopic ?? WorkerConfiguration.defaultControlTopic, shutdownTimeout: .seconds(file.shutdownTimeoutSeconds ?? 25),
            maxRecordBytes: file.maxRecordBytes ?? WorkerConfiguration.defaultMaxRecordBytes, kafka: kafka)
        guard (file.deadLetterLogsPerSecond ?? 10) >= 0 else {
            throw ConfigurationError(path: "deadLetterLogsPerSecond", reason: "must be at least 0 (0 writes only the summaries)")
        }
        configuration.deadLetterLogsPerSecond = file.deadLetterLogsPerSecond ?? 10
        if let records = file.maxPendingRecordsPerPartition {
            guard records >= 1 else { throw ConfigurationError(path: "maxPendingRecordsPerPartition", reason: "must be at least 1") }
            configuration.maxPendingRecordsPerPartition = records
        }
        if let bytes = file.maxPendingBytes {
            guard bytes >= 1 else { throw ConfigurationError(path: "maxPendingBytes", reason: "must be at least 1") }
            configuration.maxPendingBytes = bytes
        }
        configuration.kafkaConsumer = kafkaConsumer
        configuration.kafkaProducer = kafkaProducer
        configuration.service = file.service
        // DeliveryGuarantees.swift: kafka properties the guarantees depend on, message.max.bytes.
        try configuration.validateDeliveryGuarantees()
        if let secret = file.controlTopicSecret {
            do {
                configuration.controlTopicSecret = try resolveSecret(secret, key: "", environment: environment)
            } catch {
                throw ConfigurationError(path: "controlTopic.secret", reason: error.reason)
            }
            guard configuration.controlTopicSecret?.isEmpty == false else {
                throw ConfigurationError(path: "controlTopic.secret", reason: "must not be empty")
            }
        }
        return configuration
    }

    /// `${NAME}` is the environment variable NAME; `${file:/path}` is the file's content without a
    /// trailing newline; anything else is literal.
    static func resolveSecret(_ value: String, key: String, environment: [String: String]) throws(ConfigurationError) -> String {
        guard value.hasPrefix("${"), value.hasSuffix("}") else { return value }
        let reference = String(value.dropFirst(2).dropLast())
        if reference.hasPrefix("file:") {
            let path = String(reference.dropFirst(5))
            do {
                var text = try String(contentsOfFile: path, encoding: .utf8)
                while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
                return text
            } catch {
                throw ConfigurationError(path: "kafka[\"\(key)\"]", reason: "cannot read the file it references (\(path))")
            }
        }
        guard let resolved = environment[reference] else {
            throw ConfigurationError(path: "kafka[\"\(key)\"]", reason: "environment variable \(reference) is not set")
        }
        return resolved
    }
}

// MARK: - The file's shape

/// The file as written; every object rejects keys it does not know.
struct ConfigFile: Decodable {
    var brokers: String
    var groupId: String
    var clientId: String?
    var topics: [String: Topic]
    var metrics: Metrics?
    var controlTopic: String?
    /// `controlTopic` may be an object: `{"name": …, "secret": "${file:…}"}`.
    var controlTopicSecret: String?
    var shutdownTimeoutSeconds: Double?
    var maxRecordBytes: Int?
    var deadLetterLogsPerSecond: Int?
    var maxPendingRecordsPerPartition: Int?
    var maxPendingBytes: Int?
    var kafka: [String: String]?
    var kafkaConsumer: [String: String]?
    var kafkaProducer: [String: String]?
    var service: RawJSON?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case brokers, groupId, clientId, topics, metrics, controlTopic, shutdownTimeoutSeconds, maxRecordBytes, deadLetterLogsPerSecond
        case maxPendingRecordsPerPartition, maxPendingBytes, kafka, kafkaConsumer, kafkaProducer, service
    }

    init(from decoder: any Decoder) throws {
        // Unknown keys first: a typo explains a "missing" key better than keyNotFound does.
        try rejectUnknownKeys(decoder, CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        brokers = try c.decode(String.self, forKey: .brokers)
        groupId = try c.decode(String.self, forKey: .groupId)
        clientId = try c.decodeIfPresent(String.self, forKey: .clientId)
        topics = try c.decode([String: Topic].self, forKey: .topics)
        metrics = try c.decodeIfPresent(Metrics.self, forKey: .metrics)
        if c.contains(.controlTopic), (try? c.decode(String.self, forKey: .controlTopic)) == nil {
            let control = try c.decode(ControlTopic.self, forKey: .controlTopic)
            controlTopic = control.name
            controlTopicSecret = control.secret
        } else {
            controlTopic = try c.decodeIfPresent(String.self, forKey: .controlTopic)
        }
        shutdownTimeoutSeconds = try c.decodeIfPresent(Double.self, forKey: .shutdownTimeoutSeconds)
        maxRecordBytes = try c.decodeIfPresent(Int.self, forKey: .maxRecordBytes)
        deadLetterLogsPerSecond = try c.decodeIfPresent(Int.self, forKey: .deadLetterLogsPerSecond)
        maxPendingRecordsPerPartition = try c.decodeIfPresent(Int.self, forKey: .maxPendingRecordsPerPartition)
        maxPendingBytes = try c.decodeIfPresent(Int.self, forKey: .maxPendingBytes)
        kafka = try c.decodeIfPresent([String: String].self, forKey: .kafka)
        kafkaConsumer = try c.decodeIfPresent([String: String].self, forKey: .kafkaConsumer)
        kafkaProducer = try c.decodeIfPresent([String: String].self, forKey: .kafkaProducer)
        service = try c.decodeIfPresent(RawJSON.self, forKey: .service)
    }

    struct Topic: Decodable {
        var catalog: String
        var policy: TopicPolicy?
        var onFailure: TopicConfiguration.OnFailure?
        var deadLetterTopic: String?
        var republishTo: String?
        var republishMode: TopicConfiguration.RepublishMode?
        var ordering: TopicConfiguration.Ordering?
        var retry: Retry?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case catalog, policy, onFailure, deadLetterTopic, republishTo, republishMode, ordering, retry
        }

        init(from decoder: any Decoder) throws {
            try rejectUnknownKeys(decoder, CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            catalog = try c.decode(String.self, forKey: .catalog)
            policy = try c.contains(.policy) ? choice(c, .policy) : nil
            onFailure = try c.contains(.onFailure) ? choice(c, .onFailure) : nil
            deadLetterTopic = try c.decodeIfPresent(String.self, forKey: .deadLetterTopic)
            republishTo = try c.decodeIfPresent(String.self, forKey: .republishTo)
            republishMode = try c.contains(.republishMode) ? choice(c, .republishMode) : nil
            ordering = try c.contains(.ordering) ? choice(c, .ordering) : nil
            retry = try c.decodeIfPresent(Retry.self, forKey: .retry)
        }
    }

    struct Retry: Decodable {
        var attempts: Int?
        var initialBackoffMilliseconds: Int?
        var maxBackoffMilliseconds: Int?
        var onExhausted: RetryPolicy.Exhausted?

        enum CodingKeys: String, CodingKey, CaseIterable { case attempts, initialBackoffMilliseconds, maxBackoffMilliseconds, onExhausted }

        init(from decoder: any Decoder) throws {
            try rejectUnknownKeys(decoder, CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            attempts = try c.decodeIfPresent(Int.self, forKey: .attempts)
            initialBackoffMilliseconds = try c.decodeIfPresent(Int.self, forKey: .initialBackoffMilliseconds)
            maxBackoffMilliseconds = try c.decodeIfPresent(Int.self, forKey: .maxBackoffMilliseconds)
            onExhausted = try c.contains(.onExhausted) ? choice(c, .onExhausted) : nil
        }

        /// The policy, the file's omissions filled with ``RetryPolicy``'s defaults.
        func policy(path: String) throws(ConfigurationError) -> RetryPolicy {
            var policy = RetryPolicy(onExhausted: onExhausted)
            if let attempts { policy.attempts = attempts }
            if let initialBackoffMilliseconds { policy.initialBackoff = .milliseconds(initialBackoffMilliseconds) }
            if let maxBackoffMilliseconds { policy.maxBackoff = .milliseconds(maxBackoffMilliseconds) }
            try policy.validate(path: path)
            return policy
        }
    }

    struct ControlTopic: Decodable {
        var name: String?
        var secret: String?

        enum CodingKeys: String, CodingKey, CaseIterable { case name, secret }

        init(from decoder: any Decoder) throws {
            try rejectUnknownKeys(decoder, CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            name = try c.decodeIfPresent(String.self, forKey: .name)
            secret = try c.decodeIfPresent(String.self, forKey: .secret)
        }
    }

    struct Metrics: Decodable {
        var host: String?
        var port: Int?
        var maxTypeLabels: Int?

        enum CodingKeys: String, CodingKey, CaseIterable { case host, port, maxTypeLabels }

        init() {}

        init(from decoder: any Decoder) throws {
            try rejectUnknownKeys(decoder, CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            host = try c.decodeIfPresent(String.self, forKey: .host)
            port = try c.decodeIfPresent(Int.self, forKey: .port)
            maxTypeLabels = try c.decodeIfPresent(Int.self, forKey: .maxTypeLabels)
        }
    }
}

/// Decodes one of a string enum's values, or says which values there are.
private func choice<K: CodingKey, T: RawRepresentable & CaseIterable>(_ c: KeyedDecodingContainer<K>, _ key: K) throws -> T
where T.RawValue == String {
    let text = try c.decode(String.self, forKey: key)
    guard let value = T(rawValue: text) else {
        throw ConfigurationError(
            path: CodingPathRenderer.render(c.codingPath + [key]),
            reason: "must be one of \(T.allCases.map { $0.rawValue }.joined(separator: ", ")), not '\(text)'")
    }
    return value
}

/// Throws for the first key of the decoder's object that `Keys` does not have, naming the nearest.
private func rejectUnknownKeys<Keys: CodingKey & CaseIterable>(_ decoder: any Decoder, _ keys: Keys.Type) throws {
    let unknown = try UnknownFields(from: decoder, excluding: Keys.self)
    guard let key = unknown.keys.first else { return }
    let path = CodingPathRenderer.render(decoder.codingPath + [JSONKey(stringValue: key)])
    var reason = "unknown key"
    let names = Keys.allCases.map(\.stringValue)
    if let nearest = nearestName(to: key, among: names) {
        reason += "; did you mean '\(nearest)'?"
    } else {
        reason += "; expected one of: \(names.joined(separator: ", "))"
    }
    throw ConfigurationError(path: path, reason: reason)
}

/// The name of `names` nearest to a misspelt `name`, if one is close enough to suggest.
func nearestName(to name: String, among names: [String]) -> String? {
    guard let nearest = names.min(by: { editDistance($0, name) < editDistance($1, name) }) else { return nil }
    return editDistance(nearest, name) <= max(2, name.count / 3) ? nearest : nil
}

/// Levenshtein distance, case-insensitive, for "did you mean" (the config's keys, catalog names, the CLI's
/// subcommands, options and values).
package func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a.lowercased())
    let b = Array(b.lowercased())
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}
