/// A Kafka-protocol cluster in this process: librdkafka's mock cluster, listening on localhost TCP ports.
///
/// Any Kafka client (this module, kcat, another process) can connect to ``bootstrapServers``. Records live in
/// memory and vanish with the broker. Supported: produce (idempotent too), fetch, consumer groups with offset
/// commits, metadata. Not supported by the mock: the admin API (CreateTopics), so topics are created here
/// (``createTopic(_:partitions:)``) or automatically: in librdkafka 2.0.2 the mock creates an unknown topic on any
/// metadata request that names it — a producer's first send, and a consumer's subscription too (the mock ignores
/// `allow.auto.create.topics`) — with its default of 4 partitions.
///
/// Fault injection: ``setBrokerDown(_:)``/``setBrokerUp(_:)``, ``pushRequestErrors(_:_:)``,
/// ``setTopicError(_:_:)``, ``setPartitionLeader(topic:partition:broker:)``.
///
/// - Important: The cluster stops when the last reference goes away; keep it alive while clients use it.
public final class EmbeddedBroker: Sendable {
    /// A Kafka protocol request type (`ApiKey`), for error injection.
    public struct APIKey: RawRepresentable, Hashable, Sendable {
        public var rawValue: Int16
        public init(rawValue: Int16) { self.rawValue = rawValue }

        public static let produce = APIKey(rawValue: 0)
        public static let fetch = APIKey(rawValue: 1)
        public static let listOffsets = APIKey(rawValue: 2)
        public static let metadata = APIKey(rawValue: 3)
        public static let offsetCommit = APIKey(rawValue: 8)
        public static let offsetFetch = APIKey(rawValue: 9)
        public static let findCoordinator = APIKey(rawValue: 10)
        public static let joinGroup = APIKey(rawValue: 11)
        public static let heartbeat = APIKey(rawValue: 12)
        public static let syncGroup = APIKey(rawValue: 14)
        public static let initProducerID = APIKey(rawValue: 22)
    }

    /// A Kafka protocol error code (`rd_kafka_resp_err_t`), for error injection.
    public struct ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// `UNKNOWN_TOPIC_OR_PART` (3), retriable.
        public static let unknownTopicOrPartition = ErrorCode(rawValue: 3)
        /// `NOT_LEADER_FOR_PARTITION` (6), retriable.
        public static let notLeaderForPartition = ErrorCode(rawValue: 6)
        /// `REQUEST_TIMED_OUT` (7), retriable.
        public static let requestTimedOut = ErrorCode(rawValue: 7)
        /// `MSG_SIZE_TOO_LARGE` (10), permanent.
        public static let messageSizeTooLarge = ErrorCode(rawValue: 10)
        /// `NOT_COORDINATOR` (16), retriable.
        public static let notCoordinator = ErrorCode(rawValue: 16)
        /// `NOT_ENOUGH_REPLICAS` (19), retriable.
        public static let notEnoughReplicas = ErrorCode(rawValue: 19)
        /// `TOPIC_AUTHORIZATION_FAILED` (29), permanent.
        public static let topicAuthorizationFailed = ErrorCode(rawValue: 29)
        /// `INVALID_RECORD` (87), permanent.
        public static let invalidRecord = ErrorCode(rawValue: 87)
        /// librdkafka's local `_TRANSPORT` (-195): the mock broker drops the connection instead of answering.
        public static let transport = ErrorCode(rawValue: -195)

        /// The librdkafka name, e.g. `TOPIC_AUTHORIZATION_FAILED`.
        public var description: String { RDKafkaErrors.name(rawValue) }
    }

    private let cluster: RDKafkaMockCluster
    /// The listeners on chosen ports (``make(brokers:topics:port:)``), if any.
    private let relay: EmbeddedBrokerRelay?

    /// `host:port[,host:port…]`, the value for `bootstrap.servers`.
    public let bootstrapServers: String
    /// ``bootstrapServers`` as a list, for ``KafkaConfiguration/bootstrapServers``.
    public var bootstrapServerList: [String] { KafkaConfiguration.bootstrapServers(parsing: bootstrapServers) }
    /// How many brokers the cluster has; their ids are 1…brokerCount.
    public let brokerCount: Int

    private init(cluster: RDKafkaMockCluster, relay: EmbeddedBrokerRelay?, brokerCount: Int) {
        self.cluster = cluster
        self.relay = relay
        self.bootstrapServers = relay.map { relay in relay.ports.map { "\(relay.host):\($0)" }.joined(separator: ",") } ?? cluster.bootstrapServers
        self.brokerCount = brokerCount
    }

    /// Starts a cluster of `brokers` brokers and creates `topics` (name → partition count, replication factor 1).
    ///
    /// With `port`, broker 1 is reached at `port`, broker 2 at `port + 1`, and so on, and the brokers advertise
    /// those ports (a relay in this process in front of each mock broker; see ``EmbeddedBrokerRelay``).
    ///
    /// - Throws: ``KafkaError/Code/unavailable`` when a chosen port is in use.
    public static func make(brokers: Int = 1, topics: [String: Int] = [:], port: Int? = nil) throws -> EmbeddedBroker {
        guard (1...32).contains(brokers) else {
            throw KafkaError.configuration(reason: "the embedded broker needs 1 to 32 brokers, got \(brokers)")
        }
        let cluster = try RDKafkaMockCluster.make(brokerCount: Int32(brokers))
        var relay: EmbeddedBrokerRelay?
        if let port {
            let targets = cluster.bootstrapServers.split(separator: ",").map { address -> (host: String, port: Int) in
                let colon = address.lastIndex(of: ":")!
                return (String(address[..<colon]), Int(address[address.index(after: colon)...])!)
            }
            relay = try EmbeddedBrokerRelay.start(brokers: targets, firstPort: port)
        }
        let broker = EmbeddedBroker(cluster: cluster, relay: relay, brokerCount: brokers)
        for (name, partitions) in topics.sorted(by: { $0.key < $1.key }) {
            try broker.createTopic(name, partitions: partitions)
        }
        return broker
    }

    /// Creates a topic with replication factor 1.
    public func createTopic(_ name: String, partitions: Int) throws {
        guard !name.isEmpty, (1...10_000).contains(partitions) else {
            throw KafkaError.configuration(reason: "a topic needs a name and 1 to 10000 partitions, got \(partitions)")
        }
        try cluster.createTopic(name, partitions: Int32(partitions), replicationFactor: 1)
    }

    /// Takes a broker down: its connections close and it refuses new ones until ``setBrokerUp(_:)``.
    public func setBrokerDown(_ id: Int) throws {
        try cluster.setBrokerDown(Int32(id))
    }

    /// Brings a broker back up.
    public func setBrokerUp(_ id: Int) throws {
        try cluster.setBrokerUp(Int32(id))
    }

    /// Makes the next `errors.count` requests of type `apiKey` (to any broker) fail with these errors, in order.
    public func pushRequestErrors(_ apiKey: APIKey, _ errors: [ErrorCode]) {
        cluster.pushRequestErrors(apiKey: apiKey.rawValue, errors: errors.map(\.rawValue))
    }

    /// Forgets the errors still queued for `apiKey`.
    public func clearRequestErrors(_ apiKey: APIKey) {
        cluster.clearRequestErrors(apiKey: apiKey.rawValue)
    }

    /// Makes metadata responses report `error` for `topic` (`TOPIC_AUTHORIZATION_FAILED`: an ACL revoked;
    /// `UNKNOWN_TOPIC_OR_PART`: deleted); nil clears it. Creates the topic when it does not exist.
    public func setTopicError(_ topic: String, _ error: ErrorCode?) {
        cluster.setTopicError(topic, error: error?.rawValue ?? 0)
    }

    /// Moves a partition's leadership to broker `broker` (or -1: no leader).
    public func setPartitionLeader(topic: String, partition: Int, broker: Int) throws {
        try cluster.setPartitionLeader(topic: topic, partition: Int32(partition), broker: Int32(broker))
    }

    /// Moves a consumer group's coordinator to broker `broker`.
    public func setGroupCoordinator(group: String, broker: Int) throws {
        try cluster.setCoordinator(group: group, broker: Int32(broker))
    }
}
