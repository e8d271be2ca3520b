@testable import SwitchyardKafka
import SwitchyardTestSupport
import Testing

@Suite("Configuration and bad input")
struct ConfigurationTests {
    @Test("an unknown librdkafka property is a configuration error naming it")
    func unknownProperty() throws {
        var configuration = KafkaProducerConfiguration()
        configuration.kafka.properties["no.such.property"] = "1"
        let error = try #require(throws: KafkaError.self) {
            try KafkaProducer.make(configuration: configuration, logger: NoOpKafkaLogger())
        }
        #expect(error.code == .configuration)
        #expect(error.reason.contains("no.such.property"))
    }

    @Test("an invalid value is a configuration error")
    func invalidValue() throws {
        var configuration = KafkaConsumerConfiguration(groupID: "g", topics: ["t"])
        configuration.kafka.properties["security.protocol"] = "carrier-pigeon"
        let error = try #require(throws: KafkaError.self) {
            try KafkaConsumer.make(configuration: configuration, logger: NoOpKafkaLogger())
        }
        #expect(error.code == .configuration)
        #expect(error.reason.contains("security.protocol"))
    }

    @Test("secret values never appear in errors or descriptions")
    func secretsRedacted() throws {
        let secret = "hunter2-very-secret"
        var configuration = KafkaConsumerConfiguration(groupID: "g", topics: ["t"])
        configuration.kafka.properties["sasl.password"] = secret
        configuration.kafka.properties["ssl.key.password"] = secret
        configuration.kafka.properties["my.client.secret"] = secret
        #expect(!configuration.description.contains(secret))
        #expect(configuration.description.contains("sasl.password=<redacted>"))
        #expect(KafkaConfiguration.redacted(configuration.kafka.properties)["ssl.key.password"] == "<redacted>")

        // A rejected secret property: the error must not echo the value.
        configuration.kafka.properties["my.client.secret"] = nil
        configuration.kafka.properties["ssl.key.password.bogus"] = secret
        let error = try #require(throws: KafkaError.self) {
            try KafkaConsumer.make(configuration: configuration, logger: NoOpKafkaLogger())
        }
        #expect(error.code == .configuration)
        #expect(!error.description.contains(secret))
    }

    @Test("a missing group or topic list is a configuration error")
    func missingGroup() throws {
        let error = try #require(throws: KafkaError.self) {
            try KafkaConsumer.make(configuration: KafkaConsumerConfiguration(groupID: "", topics: ["t"]))
        }
        #expect(error.code == .configuration)
        #expect(throws: KafkaError.self) {
            try KafkaConsumer.make(configuration: KafkaConsumerConfiguration(groupID: "g", topics: []))
        }
    }

    @Test("an unreachable broker is 'unavailable' within the deadline, not a hang", .timeLimit(.minutes(1)))
    func unreachableBroker() async throws {
        // Port 1 on localhost: connection refused at once.
        let configuration = KafkaProducerConfiguration(
            kafka: KafkaConfiguration(bootstrapServers: ["127.0.0.1:1"], logLevel: .critical)
        )
        let producer = try KafkaProducer.make(configuration: configuration, logger: NoOpKafkaLogger())
        let started = ContinuousClock.now
        let error = await #expect(throws: KafkaError.self) {
            _ = try await producer.metadata(timeout: .seconds(2))
        }
        #expect(error?.code == .unavailable)
        #expect(error?.reason.contains("127.0.0.1:1") == true)
        #expect(ContinuousClock.now - started < .seconds(15))
        await producer.close(timeout: .seconds(1))
    }

    @Test("defaults are the documented ones")
    func defaults() {
        let producer = KafkaProducerConfiguration()
        #expect(producer.idempotence)
        #expect(producer.kafka.bootstrapServers == ["localhost:9092"])
        let consumer = KafkaConsumerConfiguration(groupID: "g", topics: ["t"])
        #expect(consumer.sessionTimeout == .seconds(45))
        #expect(consumer.offsetReset == .earliest)
        // The prefetch of a worker held to 64 MiB (the poll thread wakes librdkafka's fetchers, so a
        // small prefetch no longer costs librdkafka 2.0's one-second pause whenever its queue is full).
        #expect(consumer.maxBatchRecords == 500)
        #expect(consumer.maxBufferedRecords == 4000)
        let properties = Dictionary(consumer.rdKafkaProperties, uniquingKeysWith: { _, last in last })
        #expect(properties["queued.max.messages.kbytes"] == "16384")
        #expect(properties["queued.min.messages"] == "20000")
        // The kafka map still overrides them.
        let tuned = KafkaConsumerConfiguration(
            groupID: "g", topics: ["t"], kafka: KafkaConfiguration(properties: ["queued.max.messages.kbytes": "8192"]))
        #expect(Dictionary(tuned.rdKafkaProperties, uniquingKeysWith: { _, last in last })["queued.max.messages.kbytes"] == "8192")
    }
}

@Suite("Secrets in librdkafka logs")
struct SecretLogTests {
    @Test("a secret never reaches the logger, even with librdkafka's configuration debug dump")
    func secretNotLogged() async throws {
        let secret = "s3cr3t-value-for-logs"
        let logger = CollectingLogger()
        let configuration = KafkaProducerConfiguration(
            kafka: KafkaConfiguration(
                bootstrapServers: ["127.0.0.1:1"],
                properties: [
                    "security.protocol": "sasl_plaintext",
                    "sasl.mechanism": "PLAIN",
                    "sasl.username": "user",
                    "sasl.password": secret,
                    "debug": "conf,security",
                ],
                logLevel: .debug
            )
        )
        let producer = try KafkaProducer.make(configuration: configuration, logger: logger)
        await producer.close(timeout: .milliseconds(200))
        #expect(!logger.text.isEmpty)
        #expect(!logger.text.contains(secret))
    }
}
