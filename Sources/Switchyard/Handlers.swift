import Foundation
import SwitchyardKafka
import Synchronization

// MARK: - Outcomes

/// What a handler decided for its record.
///
/// A handler registered with ``EventHandlers/handle(_:_:)`` returns one of these (one registered with
/// ``EventHandlers/on(_:_:)`` returns nothing: handled), or throws. A thrown error is retried per the topic's
/// ``RetryPolicy`` (``HandlerErrors/isRetryable(_:)`` says which errors are); ``RecordRejected`` is the thrown
/// form of ``deadLetter(kind:reason:)``.
public enum HandlerOutcome: Sendable, Hashable {
    /// The record is done. Its offset is stored once everything the handler published through its
    /// ``RecordContext`` (and the topic's `republishTo` copy, if configured) is acknowledged by the broker.
    case handled
    /// Write this record to the topic's dead-letter topic, through the worker's own dead-letter path: the
    /// original key, value and headers, the standard `switchyard.*` headers, counted in
    /// `switchyard_dead_letters_total{topic,kind}`. The offset is stored once the dead letter is acknowledged.
    /// What the handler published in this attempt is discarded, and the record is not republished.
    ///
    /// - Parameters:
    ///   - kind: A short, fixed name for the business reason (`invalidOrder`): the `switchyard.error.kind`
    ///     header and the metric's `kind` label. Not a record value.
    ///   - reason: What is wrong, for the on-call engineer (`switchyard.error.message`). No record values.
    case deadLetter(kind: DeadLetterKind, reason: String)
    /// Nothing more for this record: its offset is stored, it is not republished, and what the handler
    /// published in this attempt is discarded.
    case skip
}

/// Why a record was dead-lettered: its `switchyard.error.kind` header and the `kind` label of
/// `switchyard_dead_letters_total`.
///
/// A handler names its own business kinds with a string literal (`.deadLetter(kind: "invalidOrder", …)`): a
/// short, fixed name, never a record value. Switchyard's own kinds are the decode failures' (``init(_:)``) and
/// ``handlerFailed``.
public struct DeadLetterKind: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The header's and the label's text.
    public var rawValue: String

    /// The kind named `rawValue`.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The kind named by a literal: `"invalidOrder"`.
    public init(stringLiteral value: String) {
        rawValue = value
    }

    /// The kind of a record that failed to decode: `keyNotFound`, `unknownType`, ….
    public init(_ failure: FailureKind) {
        rawValue = failure.rawValue
    }

    /// A handler's error was permanent, or its retries ran out (``RetryPolicy``).
    public static let handlerFailed: DeadLetterKind = "handlerFailed"

    /// The kind's name, as in the header.
    public var description: String { rawValue }
}

/// Thrown by a handler (or anything it calls) to dead-letter its record at once, without retries: the same
/// as returning ``HandlerOutcome/deadLetter(kind:reason:)``.
public struct RecordRejected: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `switchyard.error.kind` header and the metric's `kind` label (`invalidOrder`).
    public var kind: DeadLetterKind
    /// The `switchyard.error.message` header. No record values.
    public var reason: String

    /// A rejection of the record for `reason`, named `kind`.
    public init(kind: DeadLetterKind, reason: String) {
        self.kind = kind
        self.reason = reason
    }

    /// `kind: reason`.
    public var description: String { "\(kind.rawValue): \(reason)" }
}

/// Wraps an error that no retry can fix: the record's retries are skipped, and it goes straight to what its
/// topic's ``RetryPolicy`` does when retries are exhausted (dead-letter, or dead-letter and halt).
public struct PermanentError: Error, Sendable, CustomStringConvertible {
    /// The error that happened.
    public var underlying: any Error

    /// Marks `underlying` as permanent.
    public init(_ underlying: any Error) {
        self.underlying = underlying
    }

    /// `permanent: ` and the underlying error.
    public var description: String { "permanent: \(underlying)" }
}

/// An error type that says itself whether a retry can fix it (conform your own errors to it).
public protocol RetryClassifiedError: Error {
    /// Whether retrying the handler can succeed. False: the record goes straight to its topic's exhaustion
    /// action.
    var isRetryable: Bool { get }
}

/// How the worker classifies what a handler throws.
public enum HandlerErrors {
    /// Whether a retry of the handler may succeed: false for ``PermanentError``, ``RecordRejected``, a
    /// ``RetryClassifiedError`` that says so, and a fatal ``KafkaError`` (`isFatal`); true for a retriable
    /// ``KafkaError`` (`isRetriable`) and, by default, for every other error.
    public static func isRetryable(_ error: any Error) -> Bool {
        switch error {
        case is PermanentError, is RecordRejected: return false
        case let classified as any RetryClassifiedError: return classified.isRetryable
        case let kafka as KafkaError: return kafka.isRetriable || !kafka.isFatal
        default: return true
        }
    }
}

// MARK: - The registry

/// The handlers a team registers, by event type, for the worker to run.
///
/// ```swift
/// var handlers = EventHandlers()
/// handlers.handle(OrderPlaced.self) { order, context in
///     guard !order.items.isEmpty else { return .deadLetter(kind: "emptyOrder", reason: "an order without items") }
///     try await inventory.reserve(order)                        // a thrown error is retried (RetryPolicy)
///     try context.publish(OrderReserved(order), to: "orders.reserved", key: context.key)
///     return .handled
/// }
/// handlers.on(OrderShipped.self) { shipped, _ in book.ship(shipped) }   // no return value: handled
/// let worker = try Worker(configuration: configuration, handlers: handlers)
/// ```
///
/// Handlers are found by the event's Swift type, so two catalogs that share a tag each reach their own
/// handler. Registering a type twice, or a type that no configured topic's catalog carries, is an error when
/// the ``Worker`` is made (``validate(for:)``).
public struct EventHandlers: Sendable {
    typealias Handler = @Sendable (any Event, RecordContext) async throws -> HandlerOutcome

    struct Entry: Sendable {
        let type: any Event.Type
        let handler: Handler
    }

    var byType: [ObjectIdentifier: Entry] = [:]
    var unknownHandler: (@Sendable (String, RawJSON, RecordContext) async throws -> HandlerOutcome)?
    /// Types registered more than once, reported by ``validate(for:)``.
    var duplicates: [String] = []

    /// No handlers.
    public init() {}

    /// Runs `handler` for every decoded event of type `E`; what it returns decides the record's outcome.
    ///
    /// (A name of its own, not an overload of ``on(_:_:)``: a one-line closure that returns an outcome would
    /// otherwise fit the `Void` overload too, with its outcome dropped.)
    public mutating func handle<E: Event>(
        _ type: E.Type, _ handler: @escaping @Sendable (E, RecordContext) async throws -> HandlerOutcome
    ) {
        let key = ObjectIdentifier(E.self)
        if byType[key] != nil { duplicates.append("\(E.self) ('\(E.type)')") }
        byType[key] = Entry(type: E.self) { event, context in
            // The lookup is by `E`'s identity: the cast cannot fail.
            guard let typed = event as? E else { return .handled }
            return try await handler(typed, context)
        }
    }

    /// Runs `handler` for every decoded event of type `E`; returning is ``HandlerOutcome/handled`` (throw
    /// ``RecordRejected`` to dead-letter the record).
    public mutating func on<E: Event>(_ type: E.Type, _ handler: @escaping @Sendable (E, RecordContext) async throws -> Void) {
        handle(type) { (event: E, context: RecordContext) async throws -> HandlerOutcome in
            try await handler(event, context)
            return .handled
        }
    }

    /// Runs `handler` for every event with an unrecognised tag on a lenient topic; what it returns decides the
    /// record's outcome.
    public mutating func handleUnknown(
        _ handler: @escaping @Sendable (_ type: String, _ raw: RawJSON, RecordContext) async throws -> HandlerOutcome
    ) {
        if unknownHandler != nil { duplicates.append("onUnknown") }
        unknownHandler = handler
    }

    /// Runs `handler` for every event with an unrecognised tag on a lenient topic; returning is
    /// ``HandlerOutcome/handled``.
    public mutating func onUnknown(_ handler: @escaping @Sendable (_ type: String, _ raw: RawJSON, RecordContext) async throws -> Void) {
        handleUnknown { (type: String, raw: RawJSON, context: RecordContext) async throws -> HandlerOutcome in
            try await handler(type, raw, context)
            return .handled
        }
    }

    /// Whether no handler is registered (the record loop then calls none and makes no context).
    public var isEmpty: Bool { byType.isEmpty && unknownHandler == nil }

    /// The event types with a handler, by tag (for messages).
    public var registeredTypes: [any Event.Type] { byType.values.map(\.type) }

    /// Whether a handler applies to `event`.
    public func handles(_ event: any EventCatalog) -> Bool {
        switch event.content {
        case .known(let payload): byType[ObjectIdentifier(Swift.type(of: payload))] != nil
        case .unknown: unknownHandler != nil
        }
    }

    /// Runs the handler registered for `event`, as the worker does for a record: the way to test handlers
    /// without a broker.
    ///
    /// ```swift
    /// let context = RecordContext(topic: "orders", value: Array(line.utf8))
    /// let outcome = try await handlers.dispatch(.placed(order), context: context)
    /// #expect(outcome == .handled && context.published.count == 1)
    /// ```
    ///
    /// - Returns: The handler's outcome; ``HandlerOutcome/handled`` when no handler applies (the worker
    ///   then completes the record at once).
    /// - Throws: What the handler throws (the worker retries it per the topic's ``RetryPolicy``).
    public func dispatch(_ event: any EventCatalog, context: RecordContext) async throws -> HandlerOutcome {
        guard let handler = handler(for: event) else { return .handled }
        return try await handler(context)
    }

    /// The call to make for `event`, if a handler applies.
    func handler(for event: any EventCatalog) -> (@Sendable (RecordContext) async throws -> HandlerOutcome)? {
        switch event.content {
        case .known(let payload):
            guard let entry = byType[ObjectIdentifier(Swift.type(of: payload))] else { return nil }
            return { context in try await entry.handler(payload, context) }
        case .unknown(let type, let raw):
            guard let handler = unknownHandler else { return nil }
            return { context in try await handler(type, raw, context) }
        }
    }

    /// Checks the registrations against the topics a worker consumes: a type registered twice, or a handler
    /// that no configured topic can reach (its type is in none of their catalogs; `onUnknown` without a
    /// lenient topic), is a ``ConfigurationError``.
    public func validate(for configuration: WorkerConfiguration) throws(ConfigurationError) {
        if let duplicate = duplicates.first {
            throw ConfigurationError(path: "handlers", reason: "a handler for \(duplicate) is registered twice; register each event type once")
        }
        let topics = configuration.topics
        var reachable: Set<ObjectIdentifier> = []
        for topic in topics.values {
            for payload in topic.catalog.type.payloadTypes { reachable.insert(ObjectIdentifier(payload)) }
        }
        for (key, entry) in byType.sorted(by: { $0.value.type.type < $1.value.type.type }) where !reachable.contains(key) {
            let names = configuration.topicNames.map { "\($0) (\(topics[$0]!.catalog.name))" }.joined(separator: ", ")
            throw ConfigurationError(
                path: "handlers",
                reason: "the handler for \(entry.type) ('\(entry.type.type)') can never run: no configured topic's catalog "
                    + "carries that type (topics: \(names))")
        }
        if unknownHandler != nil, !topics.values.contains(where: { $0.policy == .lenient }) {
            throw ConfigurationError(
                path: "handlers",
                reason: "the onUnknown handler can never run: only a lenient topic hands on unknown types, and no configured topic is lenient")
        }
    }

    /// The configured topics whose records no handler can reach and that republish nowhere: the worker only
    /// counts their records and stores their offsets.
    public func topicsWithoutEffect(in configuration: WorkerConfiguration) -> [String] {
        configuration.topicNames.filter { name in
            let topic = configuration.topics[name]!
            guard topic.republishTo == nil else { return false }
            if topic.policy == .lenient, unknownHandler != nil { return false }
            return !topic.catalog.type.payloadTypes.contains { byType[ObjectIdentifier($0)] != nil }
        }
    }
}

extension EventCatalog {
    /// The Swift types of the catalog's known events.
    static var payloadTypes: [any Event.Type] { eventTypes.map(\.payload) }
}
