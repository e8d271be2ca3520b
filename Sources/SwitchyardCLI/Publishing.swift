import Foundation
import Switchyard
import SwitchyardKafka

/// Produces records in input order with a bounded window of unacknowledged sends and an optional rate limit:
/// what `replay --republish` and `dlq redrive --execute` share. Used by one task.
///
/// Order is kept because each send is enqueued synchronously (`Task.immediate` runs ``KafkaProducer/send(_:)``
/// up to its first suspension, which is after `rd_kafka_produce`), and the producer is idempotent, so librdkafka's
/// retries do not reorder a partition.
final class Publisher {
    let producer: KafkaProducer
    /// Records per second; nil for no limit.
    let rate: Double?
    /// Sends awaiting their acknowledgement before the next one waits. Default: 64.
    let window: Int
    private var inFlight: [Task<KafkaDeliveryReport, any Error>] = []
    private var head = 0
    private let start = ContinuousClock.now
    /// Sends started.
    private(set) var sent = 0
    /// Sends the broker acknowledged.
    private(set) var acknowledged = 0
    /// Partition counts of the target topics (to keep a record's partition when the target has it).
    private(set) var partitionCounts: [String: Int] = [:]
    /// Called with each acknowledgement, in the order the records were sent (what `dlq redrive` prints and
    /// journals).
    var onAcknowledged: (KafkaDeliveryReport) -> Void = { _ in }

    private init(producer: KafkaProducer, rate: Double?, window: Int) {
        self.producer = producer
        self.rate = rate
        self.window = window
    }

    /// Connects (a metadata request bounded by `connectTimeout`), or throws exit 69/78.
    static func connect(
        brokers: String, properties: [String: String], clientID: String, rate: Double?, window: Int = 64,
        connectTimeout: Duration
    ) async throws -> Publisher {
        let kafka = KafkaConfiguration(
            bootstrapServers: brokers.split(separator: ",").map(String.init), clientID: clientID, properties: properties,
            logLevel: .error)
        let producer: KafkaProducer
        do {
            // linger 0: records go out at once; the window does the batching that matters here.
            producer = try KafkaProducer.make(
                configuration: KafkaProducerConfiguration(kafka: kafka, linger: .zero), logger: NoOpKafkaLogger())
        } catch let error as KafkaError {
            throw CommandError(error)
        }
        let publisher = Publisher(producer: producer, rate: rate, window: window)
        do {
            // Fails fast, with the cause, on a refused or unresolvable address.
            let metadata = try await KafkaCluster.metadata(kafka: kafka, timeout: connectTimeout)
            for topic in metadata.topics where topic.errorName == nil { publisher.partitionCounts[topic.name] = topic.partitionCount }
        } catch let error as KafkaError {
            await producer.close(timeout: .zero)
            throw CommandError(error)
        }
        return publisher
    }

    /// Starts sending `record` once the rate and the window allow; throws the first failed delivery.
    func send(_ record: KafkaProducerRecord) async throws {
        if let rate {
            let due = start + .seconds(Double(sent) / rate)
            if ContinuousClock.now < due { try await Task.sleep(until: due, clock: .continuous) }
        }
        while inFlight.count - head >= window { try await awaitOldest() }
        let producer = self.producer
        inFlight.append(Task.immediate { try await producer.send(record) })
        sent += 1
    }

    /// Waits for every send; throws the first failed delivery.
    func finish() async throws {
        while head < inFlight.count { try await awaitOldest() }
        await producer.close()
    }

    /// Abandons what is pending (after a failure) and closes the producer.
    func abandon() async {
        await producer.close(timeout: .seconds(2))
    }

    private func awaitOldest() async throws {
        let task = inFlight[head]
        head += 1
        if head > 1024 {
            inFlight.removeFirst(head)
            head = 0
        }
        do {
            let report = try await task.value
            acknowledged += 1
            onAcknowledged(report)
        } catch let error as KafkaError {
            throw CommandError(.unavailable, "delivery failed after \(acknowledged) acknowledged record(s): \(error.reason)")
        }
    }
}

/// Parses `--rate N` or `--rate N/s` (records per second, > 0).
func parseRate(_ text: String?) throws -> Double? {
    guard var text else { return nil }
    if text.hasSuffix("/s") { text.removeLast(2) }
    guard let value = Double(text), value > 0, value.isFinite else {
        throw CommandError.usage("--rate needs a positive number of records per second (like 500 or 500/s)")
    }
    return value
}

/// Parses `--connect-timeout SECONDS`. Default: 10 s.
func parseConnectTimeout(_ text: String?) throws -> Duration {
    guard let text else { return .seconds(10) }
    guard let value = Double(text), value > 0, value.isFinite else {
        throw CommandError.usage("--connect-timeout needs a positive number of seconds")
    }
    return .milliseconds(Int64(value * 1000))
}
