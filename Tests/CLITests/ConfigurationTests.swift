import Foundation
import Testing

@testable import Switchyard
import SwitchyardCatalog

/// The worker's config file: the shipped examples load; typos fail loudly with a path and a suggestion.
@Suite struct ConfigurationTests {
    static let examples = CLI.packageRoot.appendingPathComponent("config/examples")

    static func parse(_ json: String, environment: [String: String] = [:]) -> Result<WorkerConfiguration, ConfigurationError> {
        do {
            return .success(try WorkerConfiguration.parse(Array(json.utf8), catalogs: CatalogRegistry(Catalog.shipped), environment: environment))
        } catch {
            return .failure(error)
        }
    }

    static func error(_ json: String) -> String {
        switch parse(json) {
        case .success: return "accepted"
        case .failure(let e): return e.description
        }
    }

    @Test func everyShippedExampleLoads() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.examples.path).filter { $0.hasSuffix(".json") }
        #expect(files.count >= 3)
        let environment = ["KAFKA_USERNAME": "svc-switchyard", "KAFKA_PASSWORD": "s3cret"]
        for file in files {
            let config = try WorkerConfiguration.load(path: Self.examples.appendingPathComponent(file).path, catalogs: CatalogRegistry(Catalog.shipped), environment: environment)
            #expect(!config.topics.isEmpty, "\(file)")
            #expect(config.topics["payments"]?.policy == .strict, "\(file)")
            #expect(config.topics["payments"]?.onFailure == .halt, "\(file)")
            #expect(config.topics["feeds"]?.onFailure == .deadLetter, "\(file)")
        }
    }

    static let minimal = #"{"brokers":"k:9092","groupId":"g","topics":{"payments":{"catalog":"payments"}}}"#

    @Test func defaultsAreDocumented() throws {
        let config = try WorkerConfiguration.parse(Array(Self.minimal.utf8), catalogs: CatalogRegistry(Catalog.shipped))
        let payments = try #require(config.topics["payments"])
        #expect(payments.policy == .strict && payments.onFailure == .halt && payments.deadLetterTopic == "payments.dlq")
        #expect(payments.republishTo == nil && payments.republishMode == .canonical)
        #expect(config.metrics == MetricsConfiguration(host: "0.0.0.0", port: 9464, maxTypeLabels: 100))
        #expect(config.controlTopic == "switchyard.control" && config.shutdownTimeout == .seconds(25) && config.clientID == "switchyard")
        #expect(config.deadLetterLogsPerSecond == 10)
    }

    @Test func unknownKeysFailWithPathAndSuggestion() {
        #expect(Self.error(#"{"brokers":"k","groupId":"g","topcis":{}}"#) == "topcis: unknown key; did you mean 'topics'?")
        #expect(Self.error(#"{"brokers":"k","groupId":"g","topics":{"payments":{"catalog":"payments","polcy":"strict"}}}"#)
            == "topics.payments.polcy: unknown key; did you mean 'policy'?")
        #expect(Self.error(#"{"brokers":"k","groupId":"g","topics":{"payments":{"catalog":"payments"}},"metrics":{"prot":1}}"#)
            == "metrics.prot: unknown key; did you mean 'port'?")
        #expect(Self.error(#"{"brokers":"k","groupId":"g","topics":{"payments":{"catalog":"payments"}},"zzzzzz":1}"#)
            .hasPrefix("zzzzzz: unknown key; expected one of: brokers, groupId"))
    }

    @Test func badValuesNameTheirPath() {
        #expect(Self.error(#"{"brokers":"k","groupId":"g","topics":{"feeds":{"catalog":"feedz"}}}"#)
            == "topics.feeds.catalog: unknown catalog 'feedz'; did you mean 'feeds'? (this binary has: payments, feeds)")
        #expect(Self.error(#"{"brokers":"k","groupId":"g","topics":{"feeds":{"catalog":"feeds","policy":"loose"}}}"#)
            == "topics.feeds.policy: must be one of strict, lenient, not 'loose'")
        #expect(Self.error(#"{"groupId":"g","topics":{}}"#) == "brokers: Missing required key 'brokers'.")
        #expect(Self.error(#"{"brokers":"k","groupId":"g","topics":{}}"#) == "topics: must name at least one topic")
        #expect(Self.error(#"{"brokers":"k","groupId":"g","topics":{"a":{"catalog":"feeds","deadLetterTopic":"a"}}}"#)
            == "topics.a: a topic cannot dead-letter or republish to itself")
        #expect(Self.error(#"{"brokers":"k","groupId":"g","topics":{"a":{"catalog":"feeds"}},"kafka":{"x":1}}"#).hasPrefix("kafka.x:"))
        #expect(Self.error(#"{"brokers":"k","groupId":"g","topics":{"a":{"catalog":"feeds"}},"deadLetterLogsPerSecond":-1}"#)
            == "deadLetterLogsPerSecond: must be at least 0 (0 writes only the summaries)")
        let summariesOnly = try? Self.parse(#"{"brokers":"k","groupId":"g","topics":{"a":{"catalog":"feeds"}},"deadLetterLogsPerSecond":0}"#).get()
        #expect(summariesOnly?.deadLetterLogsPerSecond == 0)
    }

    @Test func secretsComeFromTheEnvironmentOrAFileAndNeverShowInErrors() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sy-secret-\(UUID().uuidString)")
        try "from-file\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let json = #"{"brokers":"k","groupId":"g","topics":{"a":{"catalog":"feeds"}},"kafka":{"sasl.password":"${PW}","ssl.key.password":"${file:\#(file.path)}","client.rack":"r1"}}"#
        let config = try WorkerConfiguration.parse(Array(json.utf8), catalogs: CatalogRegistry(Catalog.shipped), environment: ["PW": "hunter2"])
        #expect(config.kafka == ["sasl.password": "hunter2", "ssl.key.password": "from-file", "client.rack": "r1"])
        let missing = Self.parse(json, environment: [:])
        guard case .failure(let error) = missing else { Issue.record("accepted without PW"); return }
        #expect(error.description == #"kafka["sasl.password"]: environment variable PW is not set"#)
    }

    /// Every name librdkafka reads as a setting the worker owns is refused, naming the key as written and the
    /// property librdkafka would set; properties the worker does not own pass, with or without the prefix.
    @Test func kafkaPropertiesTheWorkerOwnsAreRefusedUnderEveryName() {
        func kafka(_ key: String, _ value: String) -> String {
            Self.error(#"{"brokers":"k","groupId":"g","topics":{"a":{"catalog":"feeds"}},"kafka":{"\#(key)":"\#(value)"}}"#)
        }
        let aliases: [(String, String)] = [
            ("topic.auto.offset.reset", "auto.offset.reset"), ("topic.topic.auto.offset.reset", "auto.offset.reset"),
            ("topic.offset.store.method", "offset.store.method"), ("auto.commit.enable", "enable.auto.commit"),
            ("topic.auto.commit.enable", "enable.auto.commit"), ("topic.enable.auto.commit", "enable.auto.commit"),
            ("request.required.acks", "acks"), ("topic.request.required.acks", "acks"), ("topic.acks", "acks"),
            ("Auto.Offset.Reset", "auto.offset.reset"), (" topic.auto.offset.reset ", "auto.offset.reset"),
            ("topic.queuing.strategy", "queuing.strategy"),
        ]
        for (key, property) in aliases {
            #expect(kafka(key, "x").hasPrefix(#"kafka["\#(key)"]: cannot be set (librdkafka reads it as \#(property)): "#), "\(key)")
        }
        for key in WorkerConfiguration.guaranteedKafkaProperties.keys {
            #expect(kafka(key, "x").hasPrefix(#"kafka["\#(key)"]: cannot be set: "#), "\(key)")
        }
        for key in ["topic.metadata.refresh.interval.ms", "auto.commit.interval.ms", "security.protocol", "linger.ms"] {
            #expect(kafka(key, "1") == "accepted", "\(key)")
        }
    }

    @Test func environmentOverridesBrokersAndGroup() throws {
        let config = try WorkerConfiguration.parse(Array(Self.minimal.utf8), catalogs: CatalogRegistry(Catalog.shipped), environment: ["SWITCHYARD_BROKERS": "a:1,b:2", "SWITCHYARD_GROUP_ID": "blue"])
        #expect(config.bootstrapServers == ["a:1", "b:2"] && config.groupID == "blue")
    }

    @Test func theFilesBrokerListIsTheSwiftBootstrapServers() throws {
        let catalogs = CatalogRegistry(Catalog.shipped)
        let spaced = try WorkerConfiguration.parse(Array(Self.minimal.utf8), catalogs: catalogs, environment: ["SWITCHYARD_BROKERS": " a:1 , b:2,"])
        #expect(spaced.bootstrapServers == ["a:1", "b:2"])
        #expect(throws: ConfigurationError.self) {
            try WorkerConfiguration.parse(Array(Self.minimal.utf8), catalogs: catalogs, environment: ["SWITCHYARD_BROKERS": " , "])
        }
        let seconds = try WorkerConfiguration.parse(
            Array(Self.minimal.replacingOccurrences(of: #""groupId""#, with: #""shutdownTimeoutSeconds": 2.5, "groupId""#).utf8), catalogs: catalogs)
        #expect(seconds.shutdownTimeout == .milliseconds(2500))
    }
}
