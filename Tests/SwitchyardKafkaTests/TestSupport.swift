import Foundation
import Synchronization
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// Keeps librdkafka's log lines for inspection instead of printing them.
final class CollectingLogger: KafkaLogger {
    let lines = Mutex<[String]>([])

    func log(level: KafkaLogLevel, message: String, metadata: [String: String]) {
        lines.withLock { $0.append("[\(level)] \(message) \(metadata)") }
    }

    var text: String { lines.withLock { $0.joined(separator: "\n") } }
}

/// Test settings tuned for the embedded broker on a loaded machine: fast heartbeats and commits.
func consumerConfiguration(
    _ broker: EmbeddedBroker,
    group: String,
    topics: [String],
    maxBuffered: Int = 1000,
    properties: [String: String] = [:]
) -> KafkaConsumerConfiguration {
    KafkaConsumerConfiguration(
        groupID: group,
        topics: topics,
        kafka: KafkaConfiguration(
            bootstrapServers: [broker.bootstrapServers],
            clientID: "switchyard-tests",
            properties: [
                "heartbeat.interval.ms": "500",
                "topic.metadata.refresh.interval.ms": metadataRefreshMilliseconds,
                "reconnect.backoff.max.ms": "1000",
            ].merging(properties) { $1 },
            logLevel: .error
        ),
        sessionTimeout: .seconds(6),
        commitInterval: .milliseconds(500),
        statisticsInterval: .seconds(1),
        maxBufferedRecords: maxBuffered
    )
}

func producerConfiguration(_ broker: EmbeddedBroker, deliveryTimeout: Duration = .seconds(60)) -> KafkaProducerConfiguration {
    KafkaProducerConfiguration(
        kafka: KafkaConfiguration(
            bootstrapServers: [broker.bootstrapServers],
            clientID: "switchyard-tests",
            properties: ["reconnect.backoff.max.ms": "1000", "topic.metadata.refresh.interval.ms": metadataRefreshMilliseconds],
            logLevel: .error
        ),
        deliveryTimeout: deliveryTimeout
    )
}

extension String {
    var bytes: [UInt8] { Array(utf8) }
}

