import CRdKafka
#if canImport(Glibc)
import Glibc
#endif

/// Owns a librdkafka mock cluster and the `rd_kafka_t` it needs for bookkeeping.
///
/// `@unchecked Sendable`: the mock cluster runs its own thread and every `rd_kafka_mock_*` call used here is
/// forwarded to it as an operation (thread-safe); this wrapper only holds the two immutable pointers and frees them
/// once, in `deinit`.
final class RDKafkaMockCluster: @unchecked Sendable {
    private let client: OpaquePointer
    private let cluster: OpaquePointer

    private init(client: OpaquePointer, cluster: OpaquePointer) {
        self.client = client
        self.cluster = cluster
    }

    deinit {
        // The cluster first: it belongs to the client's bookkeeping.
        rd_kafka_mock_cluster_destroy(cluster)
        rd_kafka_destroy(client)
    }

    /// Starts `brokerCount` brokers (ids 1…brokerCount) listening on localhost ephemeral ports.
    static func make(brokerCount: Int32) throws -> RDKafkaMockCluster {
        guard let conf = rd_kafka_conf_new() else { throw KafkaError.state(reason: "rd_kafka_conf_new failed") }
        var errstr = [CChar](repeating: 0, count: 512)
        // The bookkeeping producer never connects anywhere; keep it quiet.
        _ = rd_kafka_conf_set(conf, "log_level", "0", &errstr, errstr.count)
        _ = rd_kafka_conf_set(conf, "client.id", "switchyard-embedded-broker", &errstr, errstr.count)
        guard let client = rd_kafka_new(RD_KAFKA_PRODUCER, conf, &errstr, errstr.count) else {
            rd_kafka_conf_destroy(conf)
            throw KafkaError.state(reason: "cannot create the mock cluster's client: \(String(cBuffer: errstr))")
        }
        guard let cluster = rd_kafka_mock_cluster_new(client, brokerCount) else {
            rd_kafka_destroy(client)
            throw KafkaError.state(reason: "rd_kafka_mock_cluster_new failed")
        }
        let mock = RDKafkaMockCluster(client: client, cluster: cluster)
        mock.disableNagleOnListeners()
        return mock
    }

    /// Sets `TCP_NODELAY` on the brokers' listening sockets, which accepted connections inherit (Linux).
    ///
    /// Apache Kafka sets it on every connection; librdkafka 2.0.2's mock broker does not. Without it a small
    /// response written while the previous one is still unacknowledged waits for the client's delayed ACK
    /// (40 ms on Linux): a producer waiting for its last acknowledgements stalls 40 ms at a time, which no real
    /// cluster does. The mock gives no handle on its sockets, so they are found among this process's
    /// descriptors as the TCP sockets listening on the brokers' ports. Called again after a broker comes back up
    /// (the mock opens a new listener then). Best effort: a socket that cannot be changed keeps Nagle.
    func disableNagleOnListeners() {
        let ports = Set(bootstrapServers.split(separator: ",").compactMap { $0.split(separator: ":").last.flatMap { UInt16($0) } })
        guard let directory = opendir("/proc/self/fd") else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let fd = Int32(name) else { continue }
            var listening: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0, listening == 1 else { continue }
            var address = sockaddr_in()
            var addressLength = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &addressLength) }
            }
            guard named == 0, address.sin_family == sa_family_t(AF_INET), ports.contains(UInt16(bigEndian: address.sin_port)) else { continue }
            var on: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// `host:port,host:port…` of the brokers.
    var bootstrapServers: String {
        String(cString: rd_kafka_mock_cluster_bootstraps(cluster))
    }

    func createTopic(_ name: String, partitions: Int32, replicationFactor: Int32) throws {
        let err = rd_kafka_mock_topic_create(cluster, name, partitions, replicationFactor)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError.rdKafka(err, code: .underlying, context: "cannot create topic \(name)")
        }
    }

    func setBrokerDown(_ id: Int32) throws {
        let err = rd_kafka_mock_broker_set_down(cluster, id)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError.rdKafka(err, code: .underlying, context: "cannot take broker \(id) down")
        }
    }

    func setBrokerUp(_ id: Int32) throws {
        let err = rd_kafka_mock_broker_set_up(cluster, id)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError.rdKafka(err, code: .underlying, context: "cannot bring broker \(id) up")
        }
        disableNagleOnListeners()
    }

    /// The next `errors.count` requests of this API key fail with these error codes, in order.
    func pushRequestErrors(apiKey: Int16, errors: [Int32]) {
        let codes = errors.map { rd_kafka_resp_err_t(rawValue: $0) }
        codes.withUnsafeBufferPointer {
            rd_kafka_mock_push_request_errors_array(cluster, apiKey, $0.count, $0.baseAddress)
        }
    }

    func clearRequestErrors(apiKey: Int16) {
        rd_kafka_mock_clear_request_errors(cluster, apiKey)
    }

    /// Topic-level error returned in metadata responses (e.g. `TOPIC_AUTHORIZATION_FAILED`); 0 clears it.
    func setTopicError(_ topic: String, error: Int32) {
        rd_kafka_mock_topic_set_error(cluster, topic, rd_kafka_resp_err_t(rawValue: error))
    }

    func setPartitionLeader(topic: String, partition: Int32, broker: Int32) throws {
        let err = rd_kafka_mock_partition_set_leader(cluster, topic, partition, broker)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError.rdKafka(err, code: .underlying, context: "cannot move the leader of \(topic)[\(partition)]")
        }
    }

    func setCoordinator(group: String, broker: Int32) throws {
        let err = rd_kafka_mock_coordinator_set(cluster, "group", group, broker)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError.rdKafka(err, code: .underlying, context: "cannot move the coordinator of \(group)")
        }
    }
}
