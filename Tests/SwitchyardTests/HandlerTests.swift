import Foundation
import Switchyard
import SwitchyardCatalog
import SwitchyardKafka
import Testing

// Two small catalogs that share the tag `order.placed`, each with its own event type: handlers are found by
// type, so each reaches its own.

struct PlacedA: Event {
    static let type = "order.placed"
    var id: String
    var occurredAt: Timestamp
    var envelope: Envelope { Envelope(id: id, occurredAt: occurredAt) }
}

struct PlacedB: Event {
    static let type = "order.placed"
    var id: String
    var occurredAt: Timestamp
    var shop: String
    var envelope: Envelope { Envelope(id: id, occurredAt: occurredAt) }
}

enum CatalogA: EventCatalog {
    case placed(PlacedA)
    case unknown(type: String, raw: RawJSON)
    static let name = "a"
    static let eventTypes = [EventType(PlacedA.self, CatalogA.placed)]
    var content: EventContent {
        switch self {
        case .placed(let event): .known(event)
        case .unknown(let type, let raw): .unknown(type: type, raw: raw)
        }
    }
    init(from decoder: any Decoder) throws { self = try Self.decodeTagged(from: decoder) }
    func encode(to encoder: any Encoder) throws { try encodeTagged(to: encoder) }
    static func makeRecordDecoder(readerOptions: JSONReader.Options) -> RecordDecoder {
        RecordDecoder(EventDecoder<CatalogA>(readerOptions: readerOptions))
    }
}

enum CatalogB: EventCatalog {
    case placed(PlacedB)
    case unknown(type: String, raw: RawJSON)
    static let name = "b"
    static let eventTypes = [EventType(PlacedB.self, CatalogB.placed)]
    var content: EventContent {
        switch self {
        case .placed(let event): .known(event)
        case .unknown(let type, let raw): .unknown(type: type, raw: raw)
        }
    }
    init(from decoder: any Decoder) throws { self = try Self.decodeTagged(from: decoder) }
    func encode(to encoder: any Encoder) throws { try encodeTagged(to: encoder) }
    static func makeRecordDecoder(readerOptions: JSONReader.Options) -> RecordDecoder {
        RecordDecoder(EventDecoder<CatalogB>(readerOptions: readerOptions))
    }
}

/// The handler API without a broker: lookup by type, validation at start, outcomes, publishing, the
/// context, the retry policy and its configuration.
@Suite struct HandlerTests {
    static let at = Timestamp(rfc3339: "2026-01-02T03:04:05Z")!

    static func configuration(_ topics: [String: TopicConfiguration]) -> WorkerConfiguration {
        WorkerConfiguration(bootstrapServers: ["127.0.0.1:1"], groupID: "g", topics: topics)
    }

    @Test func twoCatalogsSharingATagEachReachTheirOwnHandler() async throws {
        var handlers = EventHandlers()
        handlers.handle(PlacedA.self) { _, _ in .skip }
        handlers.handle(PlacedB.self) { event, _ in .deadLetter(kind: "wrongShop", reason: "shop \(event.shop.count) chars") }
        let a = CatalogA.placed(PlacedA(id: "1", occurredAt: Self.at))
        let b = CatalogB.placed(PlacedB(id: "2", occurredAt: Self.at, shop: "x"))
        #expect(try await handlers.dispatch(a, context: RecordContext(topic: "a")) == .skip)
        #expect(try await handlers.dispatch(b, context: RecordContext(topic: "b")) == .deadLetter(kind: "wrongShop", reason: "shop 1 chars"))
        // Both reachable when both catalogs are configured.
        let both = Self.configuration(["a": TopicConfiguration(catalog: Catalog(CatalogA.self)), "b": TopicConfiguration(catalog: Catalog(CatalogB.self))])
        _ = try Worker(configuration: both, handlers: handlers)
    }

    @Test func aTypeRegisteredTwiceIsAnErrorAtStart() throws {
        var handlers = EventHandlers()
        handlers.on(PlacedA.self) { _, _ in }
        handlers.on(PlacedA.self) { _, _ in }
        let configuration = Self.configuration(["a": TopicConfiguration(catalog: Catalog(CatalogA.self))])
        let error = try #require(throws: WorkerError.self) { try Worker(configuration: configuration, handlers: handlers) }
        #expect(error.code == .configuration)
        #expect(error.reason.contains("PlacedA") && error.reason.contains("registered twice"), "\(error)")
    }

    @Test func aHandlerNoTopicCanReachIsAnErrorAtStart() throws {
        var handlers = EventHandlers()
        handlers.on(PlacedB.self) { _, _ in }
        let configuration = Self.configuration(["a": TopicConfiguration(catalog: Catalog(CatalogA.self))])
        let error = try #require(throws: WorkerError.self) { try Worker(configuration: configuration, handlers: handlers) }
        #expect(error.reason.contains("PlacedB") && error.reason.contains("can never run") && error.reason.contains("a (a)"), "\(error)")

        var unknown = EventHandlers()
        unknown.onUnknown { _, _, _ in }
        let strict = Self.configuration(["payments": TopicConfiguration(catalog: .payments)])
        #expect(throws: WorkerError.self) { try Worker(configuration: strict, handlers: unknown) }
        _ = try Worker(configuration: Self.configuration(["feeds": TopicConfiguration(catalog: .feeds)]), handlers: unknown)
    }

    @Test func topicsWithoutHandlerOrRepublishAreNamed() {
        var handlers = EventHandlers()
        handlers.on(PaymentCaptured.self) { _, _ in }
        let configuration = Self.configuration([
            "payments": TopicConfiguration(catalog: .payments), "feeds": TopicConfiguration(catalog: .feeds),
            "feeds2": TopicConfiguration(catalog: .feeds, republishTo: "feeds.out"),
        ])
        #expect(handlers.topicsWithoutEffect(in: configuration) == ["feeds"])
        #expect(EventHandlers().topicsWithoutEffect(in: configuration) == ["feeds", "payments"])
    }

    @Test func thrownRejectionsAndErrorsReachTheCaller() async throws {
        var handlers = EventHandlers()
        handlers.on(PlacedA.self) { _, context in
            if context.attempt == 1 { throw RecordRejected(kind: "invalidOrder", reason: "no items") }
            throw PermanentError(TestError())
        }
        let event = CatalogA.placed(PlacedA(id: "1", occurredAt: Self.at))
        await #expect(throws: RecordRejected(kind: "invalidOrder", reason: "no items")) {
            try await handlers.dispatch(event, context: RecordContext(topic: "a"))
        }
        await #expect(throws: PermanentError.self) { try await handlers.dispatch(event, context: RecordContext(topic: "a", attempt: 2)) }
        // No handler for the type: handled.
        #expect(try await EventHandlers().dispatch(event, context: RecordContext(topic: "a")) == .handled)
    }

    @Test func deadLetterKindsAreTypedAndNameTheirHeader() {
        let business: DeadLetterKind = "invalidOrder"
        #expect(business.rawValue == "invalidOrder" && business == DeadLetterKind(rawValue: "invalidOrder"))
        #expect(DeadLetterKind(.unknownType).rawValue == "unknownType")
        #expect(DeadLetterKind.handlerFailed.rawValue == "handlerFailed")
        #expect(RecordRejected(kind: .handlerFailed, reason: "r").description == "handlerFailed: r")
        let halt = HaltInfo(
            offset: 3, failure: DecodeFailure(kind: .dataCorrupted, path: "", type: nil, message: "m"), handlerKind: "outOfStock",
            since: Self.at)
        #expect(halt.kind == "outOfStock")
        #expect(HaltInfo(offset: 3, failure: halt.failure, since: Self.at).kind == "dataCorrupted")
    }

    @Test func errorsAreRetryableUnlessMarkedPermanent() {
        struct Classified: RetryClassifiedError { var isRetryable: Bool }
        #expect(HandlerErrors.isRetryable(TestError()))
        #expect(!HandlerErrors.isRetryable(PermanentError(TestError())))
        #expect(!HandlerErrors.isRetryable(RecordRejected(kind: "k", reason: "r")))
        #expect(!HandlerErrors.isRetryable(Classified(isRetryable: false)))
        #expect(HandlerErrors.isRetryable(Classified(isRetryable: true)))
    }

    // MARK: - Publishing and the context

    @Test func publishedEventsCarryTheirTagAndWhereTheyCameFrom() async throws {
        var decoder = TopicCodec(catalog: .payments, policy: .strict)
        let captured = try #require(decoder.decode(Array(Self.paymentCaptured.utf8)).event as? PaymentEvent)
        guard case .captured(let event) = captured else { Issue.record("not a capture"); return }
        var handlers = EventHandlers()
        handlers.handle(PaymentCaptured.self) { event, context in
            try context.publish(event, to: "ledger", key: context.key)
            try context.publish(PlacedA(id: "a-1", occurredAt: HandlerTests.at), to: "ledger", key: "a-1")
            context.publish(KafkaProducerRecord(topic: "raw", key: nil, value: Array("x".utf8)))
            return .handled
        }
        let context = RecordContext(topic: "payments", partition: 2, offset: 41, key: Array("k".utf8), value: Array(Self.paymentCaptured.utf8))
        #expect(try await handlers.dispatch(captured, context: context) == .handled)
        let published = context.published
        #expect(published.map(\.topic) == ["ledger", "ledger", "raw"])
        // A fast-path event and a Codable-only one both start with their tag.
        let first = String(decoding: published[0].value ?? [], as: UTF8.self)
        #expect(first.hasPrefix(#"{"type":"payment.captured","id":"evt_1""#), "\(first)")
        #expect(published[0].key == Array("k".utf8))
        #expect(String(decoding: published[1].value ?? [], as: UTF8.self).hasPrefix(#"{"type":"order.placed","id":"a-1""#))
        #expect(published[1].key == Array("a-1".utf8))
        for record in published {
            #expect(record.headers.last == KafkaHeader(name: "switchyard.published.from", string: "payments/2/41"))
        }
        // What was published decodes as the same event under its catalog.
        var codec = TopicCodec(catalog: .payments, policy: .strict)
        let again = codec.decode(published[0].value)
        #expect(again.outcome.type == "payment.captured")
        #expect(try event.canonicalJSON() == published[0].value)
    }

    @Test func theContextCarriesTheRecordAndALoggerWithItsMetadata() {
        let logs = InMemoryLogHandler()
        let context = RecordContext(
            topic: "orders", partition: 1, offset: 7, key: Array("o-1".utf8), value: Array("{}".utf8),
            headers: [KafkaHeader(name: "trace", string: "t")], timestampMilliseconds: 1_700_000_000_000, attempt: 3, group: "orders-service",
            logger: SwitchyardLogger(handler: logs))
        #expect(context.value == Array("{}".utf8) && context.key == Array("o-1".utf8) && context.headers.first?.name == "trace")
        #expect(context.location.description == "orders/1@7" && context.attempt == 3 && context.group == "orders-service")
        #expect(context.timestamp == Date(timeIntervalSince1970: 1_700_000_000))
        context.logger.info("reserved", ["order.id": "o-1"])
        let entry = logs.entries.first
        #expect(entry?.metadata["kafka.record"] == "orders/1@7")
        #expect(entry?.metadata["handler.attempt"] == "3")
        #expect(entry?.metadata["order.id"] == "o-1")
    }

    // MARK: - Retry policy and configuration

    @Test func backoffDoublesUpToTheMaximum() {
        let policy = RetryPolicy(attempts: 6, initialBackoff: .milliseconds(100), maxBackoff: .milliseconds(500))
        #expect((1...5).map { policy.backoff(after: $0) } == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(500), .milliseconds(500)])
    }

    @Test func exhaustionFollowsTheTopicUnlessTheRetryPolicySays() throws {
        let json = #"""
            {"brokers": "b:9092", "groupId": "g",
             "topics": {"payments": {"catalog": "payments"},
                        "feeds": {"catalog": "feeds", "retry": {"attempts": 3, "initialBackoffMilliseconds": 10, "maxBackoffMilliseconds": 40}},
                        "ledger": {"catalog": "payments", "retry": {"onExhausted": "deadLetter"}}},
             "kafka": {"client.rack": "r1"}, "kafkaConsumer": {"fetch.max.bytes": "1048576"}, "kafkaProducer": {"linger.ms": "20"},
             "service": {"inventoryURL": "http://inventory:8080", "timeoutSeconds": 2}}
            """#
        let configuration = try WorkerConfiguration.parse(Array(json.utf8), catalogs: CatalogRegistry(Catalog.shipped))
        #expect(configuration.topics["payments"]!.retry == RetryPolicy())
        #expect(configuration.topics["feeds"]!.retry == RetryPolicy(attempts: 3, initialBackoff: .milliseconds(10), maxBackoff: .milliseconds(40)))
        #expect(configuration.topics["ledger"]!.retry.onExhausted == .deadLetter)
        #expect(configuration.topics["payments"]!.deadLetterTopic == "payments.dlq")
        #expect(configuration.kafkaConsumer == ["fetch.max.bytes": "1048576"] && configuration.kafkaProducer == ["linger.ms": "20"])
        struct Settings: Decodable { var inventoryURL: String; var timeoutSeconds: Int }
        let settings = try configuration.service(as: Settings.self)
        #expect(settings.inventoryURL == "http://inventory:8080" && settings.timeoutSeconds == 2)
        struct Missing: Decodable { var password: String }
        let error = try #require(throws: ConfigurationError.self) { try configuration.service(as: Missing.self) }
        #expect(error.path == "service.password", "\(error)")
    }

    @Test func badRetryPoliciesAndGuaranteedPropertiesAreRefused() throws {
        func refusal(_ topic: String, extra: String = "") throws -> ConfigurationError {
            let json = #"{"brokers": "b:9092", "groupId": "g", "topics": {"feeds": \#(topic)}\#(extra)}"#
            return try #require(throws: ConfigurationError.self) {
                try WorkerConfiguration.parse(Array(json.utf8), catalogs: CatalogRegistry(Catalog.shipped))
            }
        }
        #expect(try refusal(#"{"catalog": "feeds", "retry": {"attempts": 0}}"#).path == "topics.feeds.retry.attempts")
        #expect(try refusal(#"{"catalog": "feeds", "retry": {"atempts": 2}}"#).description.contains("did you mean 'attempts'"))
        #expect(try refusal(#"{"catalog": "feeds", "retry": {"onExhausted": "skip"}}"#).path == "topics.feeds.retry.onExhausted")
        let guarded = try refusal(#"{"catalog": "feeds"}"#, extra: #", "kafkaProducer": {"acks": "1"}"#)
        #expect(guarded.path == #"kafkaProducer["acks"]"#, "\(guarded)")
        // The same defaults from Swift: no dead-letter topic named is `<topic>.dlq`.
        let swift = WorkerConfiguration(bootstrapServers: ["b"], groupID: "g", topics: ["feeds": TopicConfiguration(catalog: .feeds)])
        #expect(swift.topics["feeds"]!.deadLetterTopic == "feeds.dlq")
    }

    static let paymentCaptured = #"{"type":"payment.captured","id":"evt_1","occurredAt":"2024-04-30T23:59:59Z","paymentId":"pay_1","amount":{"value":1999,"currency":"GBP"},"merchant":{"id":"mrc_1","name":"Pret A Manger","country":"GB"}}"#
}

struct TestError: Error {}
