import Foundation
import Synchronization

/// Questions asked of a cluster without joining any group.
public enum KafkaCluster {
    /// Cluster metadata (every topic, so a broker that auto-creates topics creates none), failing fast when the
    /// brokers cannot be reached.
    ///
    /// librdkafka retries a refused connection or an unresolvable name until a request times out, which hides
    /// the cause. Here the metadata request is asked in short steps, and the client's error callback is served
    /// between them: once librdkafka reports that every bootstrap broker is down (`_ALL_BROKERS_DOWN`), or an
    /// authentication failure, the call throws at once with the cause librdkafka gave for the last broker
    /// (`Connection refused`, `Failed to resolve 'host:9092'`, an SSL handshake or SASL failure). It uses the
    /// same properties as the real client, so `security.protocol`, `sasl.*` and `ssl.*` are exercised too.
    ///
    /// - Throws: ``KafkaError/Code/unavailable`` with the cause, or after `timeout` when no broker answered;
    ///   ``KafkaError/Code/configuration`` for a rejected property.
    public static func metadata(
        kafka: KafkaConfiguration,
        timeout: Duration = .seconds(10),
        logger: any KafkaLogger = NoOpKafkaLogger()
    ) async throws -> KafkaClusterMetadata {
        let errors = Mutex<[KafkaError]>([])
        let callbacks = RDKafkaCallbacks(
            logger: logger, secrets: kafka.secretValues, onError: { error in errors.withLock { $0.append(error) } })
        let client = try RDKafkaClient.make(kind: .producer, properties: kafka.rdKafkaProperties, callbacks: callbacks)
        let bootstrap = kafka.bootstrapServers.joined(separator: ",")
        let deadline = ContinuousClock.now + timeout
        return try await runBlocking {
            while true {
                let remaining = deadline - ContinuousClock.now
                let step = Int32(clamping: min(max(remaining.milliseconds, 1), 250))
                do {
                    return try client.metadata(timeoutMilliseconds: step)
                } catch let error as KafkaError where error.code == .unavailable {
                    client.serveCallbacks()
                    let seen = errors.withLock { $0 }
                    if let cause = Self.decisiveCause(seen) {
                        throw KafkaError.unavailable(
                            reason: "cannot reach \(bootstrap): \(cause.reason)", rdKafkaName: cause.rdKafkaName,
                            rdKafkaCode: cause.rdKafkaCode)
                    }
                    if ContinuousClock.now >= deadline {
                        throw KafkaError.unavailable(
                            reason: "no broker of \(bootstrap) answered within \(timeout)", rdKafkaName: error.rdKafkaName,
                            rdKafkaCode: error.rdKafkaCode)
                    }
                }
            }
        }
    }

    /// The names of the consumer groups the brokers know (ListGroups), or nil when the brokers do not support the
    /// request (librdkafka's mock cluster, as `switchyard broker` runs it, does not).
    public static func groupNames(
        kafka: KafkaConfiguration,
        timeout: Duration = .seconds(10),
        logger: any KafkaLogger = NoOpKafkaLogger()
    ) async throws -> [String]? {
        let client = try RDKafkaClient.make(
            kind: .producer, properties: kafka.rdKafkaProperties, callbacks: RDKafkaCallbacks(logger: logger, secrets: kafka.secretValues))
        let milliseconds = Int32(clamping: timeout.milliseconds)
        return try await runBlocking { try client.groupNames(timeoutMilliseconds: milliseconds) }
    }

    /// The error that settles it: an authentication failure, or, once every broker is down, the last error
    /// that names why (a transport, resolve or SSL error) rather than the summary itself.
    static func decisiveCause(_ errors: [KafkaError]) -> KafkaError? {
        if let auth = errors.first(where: { $0.rdKafkaName == "_AUTHENTICATION" }) { return auth }
        guard errors.contains(where: { $0.rdKafkaName == "_ALL_BROKERS_DOWN" }) else { return nil }
        return errors.last { $0.rdKafkaName != "_ALL_BROKERS_DOWN" } ?? errors.last
    }
}
