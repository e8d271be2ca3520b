import SwitchyardJSON

// MARK: - Open enums

/// How a payment was made. Open: a newer producer's method decodes and re-encodes unchanged.
public struct PaymentMethod: OpenEnum {
    public enum Known: String, CaseIterable, Sendable {
        case card
        case bankTransfer = "bank_transfer"
        case wallet
    }
    @InlineString public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    init(raw: InlineString) { _rawValue = raw }
}

/// Why a payment was refunded. Open.
public struct RefundReason: OpenEnum {
    public enum Known: String, CaseIterable, Sendable {
        case requestedByCustomer = "requested_by_customer"
        case duplicate
        case fraudulent
    }
    @InlineString public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    init(raw: InlineString) { _rawValue = raw }
}

/// Why a payment failed: `{"code": "card_declined", "message": "…"}`.
public struct PaymentFailureReason: Codable, Sendable, Hashable {
    @InlineString public var code: String
    @OptionalInlineString public var message: String?
    public var unknownFields = UnknownFields()

    public init(code: String, message: String? = nil) {
        self.code = code
        self.message = message
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case code, message }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        code = try c.decode(String.self, forKey: .code)
        message = try c.decodeIfPresent(String.self, forKey: .message)
        unknownFields = try UnknownFields(from: decoder, excluding: CodingKeys.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(code, forKey: .code)
        try c.encodeIfPresent(message, forKey: .message)
        try unknownFields.encode(to: encoder)
    }
}

// MARK: - Events

/// `payment.authorized`: funds reserved.
public struct PaymentAuthorized: Event, Hashable {
    public static let type = "payment.authorized"
    public var envelope: Envelope
    @InlineString public var paymentId: String
    public var amount: Money
    public var merchant: Merchant
    public var method: PaymentMethod
    public var card: Card?
    public var unknownFields = UnknownFields()

    public init(envelope: Envelope, paymentId: String, amount: Money, merchant: Merchant, method: PaymentMethod, card: Card? = nil) {
        self.envelope = envelope
        self.paymentId = paymentId
        self.amount = amount
        self.merchant = merchant
        self.method = method
        self.card = card
    }

    enum CodingKeys: String, EnvelopeCodingKey, CaseIterable { case id, occurredAt, schemaVersion, paymentId, amount, merchant, method, card }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        envelope = try Envelope(from: c)
        paymentId = try c.decode(String.self, forKey: .paymentId)
        amount = try c.decode(Money.self, forKey: .amount)
        merchant = try c.decode(Merchant.self, forKey: .merchant)
        method = try c.decode(PaymentMethod.self, forKey: .method)
        card = try c.decodeIfPresent(Card.self, forKey: .card)
        unknownFields = try UnknownFields(from: decoder, excluding: CodingKeys.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try envelope.encode(to: &c)
        try c.encode(paymentId, forKey: .paymentId)
        try c.encode(amount, forKey: .amount)
        try c.encode(merchant, forKey: .merchant)
        try c.encode(method, forKey: .method)
        try c.encodeIfPresent(card, forKey: .card)
        try unknownFields.encode(to: encoder)
    }
}

/// `payment.captured`: funds taken.
public struct PaymentCaptured: Event, Hashable {
    public static let type = "payment.captured"
    public var envelope: Envelope
    @InlineString public var paymentId: String
    public var amount: Money
    public var merchant: Merchant
    /// Added in schemaVersion 2; v1 records lack it. Default: 1.
    public var installments: Int
    public var unknownFields = UnknownFields()

    public init(envelope: Envelope, paymentId: String, amount: Money, merchant: Merchant, installments: Int = 1) {
        self.envelope = envelope
        self.paymentId = paymentId
        self.amount = amount
        self.merchant = merchant
        self.installments = installments
    }

    enum CodingKeys: String, EnvelopeCodingKey, CaseIterable { case id, occurredAt, schemaVersion, paymentId, amount, merchant, installments }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        envelope = try Envelope(from: c)
        paymentId = try c.decode(String.self, forKey: .paymentId)
        amount = try c.decode(Money.self, forKey: .amount)
        merchant = try c.decode(Merchant.self, forKey: .merchant)
        installments = try c.decodeIfPresent(Int.self, forKey: .installments) ?? 1
        unknownFields = try UnknownFields(from: decoder, excluding: CodingKeys.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try envelope.encode(to: &c)
        try c.encode(paymentId, forKey: .paymentId)
        try c.encode(amount, forKey: .amount)
        try c.encode(merchant, forKey: .merchant)
        try c.encode(installments, forKey: .installments)
        try unknownFields.encode(to: encoder)
    }
}

/// `payment.refunded`: funds returned.
public struct PaymentRefunded: Event, Hashable {
    public static let type = "payment.refunded"
    public var envelope: Envelope
    @InlineString public var paymentId: String
    public var amount: Money
    public var reason: RefundReason
    public var unknownFields = UnknownFields()

    public init(envelope: Envelope, paymentId: String, amount: Money, reason: RefundReason) {
        self.envelope = envelope
        self.paymentId = paymentId
        self.amount = amount
        self.reason = reason
    }

    enum CodingKeys: String, EnvelopeCodingKey, CaseIterable { case id, occurredAt, schemaVersion, paymentId, amount, reason }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        envelope = try Envelope(from: c)
        paymentId = try c.decode(String.self, forKey: .paymentId)
        amount = try c.decode(Money.self, forKey: .amount)
        reason = try c.decode(RefundReason.self, forKey: .reason)
        unknownFields = try UnknownFields(from: decoder, excluding: CodingKeys.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try envelope.encode(to: &c)
        try c.encode(paymentId, forKey: .paymentId)
        try c.encode(amount, forKey: .amount)
        try c.encode(reason, forKey: .reason)
        try unknownFields.encode(to: encoder)
    }
}

/// `payment.failed`: the attempt did not go through.
public struct PaymentFailed: Event, Hashable {
    public static let type = "payment.failed"
    public var envelope: Envelope
    @InlineString public var paymentId: String
    public var amount: Money
    public var failure: PaymentFailureReason
    public var unknownFields = UnknownFields()

    public init(envelope: Envelope, paymentId: String, amount: Money, failure: PaymentFailureReason) {
        self.envelope = envelope
        self.paymentId = paymentId
        self.amount = amount
        self.failure = failure
    }

    enum CodingKeys: String, EnvelopeCodingKey, CaseIterable { case id, occurredAt, schemaVersion, paymentId, amount, failure }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        envelope = try Envelope(from: c)
        paymentId = try c.decode(String.self, forKey: .paymentId)
        amount = try c.decode(Money.self, forKey: .amount)
        failure = try c.decode(PaymentFailureReason.self, forKey: .failure)
        unknownFields = try UnknownFields(from: decoder, excluding: CodingKeys.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try envelope.encode(to: &c)
        try c.encode(paymentId, forKey: .paymentId)
        try c.encode(amount, forKey: .amount)
        try c.encode(failure, forKey: .failure)
        try unknownFields.encode(to: encoder)
    }
}

// MARK: - The catalog

/// The `payments` topic's events. The topic is strict: an unknown type is a failure there.
public indirect enum PaymentEvent: EventCatalog, Hashable {
    case authorized(PaymentAuthorized)
    case captured(PaymentCaptured)
    case refunded(PaymentRefunded)
    case failed(PaymentFailed)
    case unknown(type: String, raw: RawJSON)

    public static let name = "payments"
    public static let eventTypes: [EventType<PaymentEvent>] = [
        EventType(PaymentAuthorized.self, PaymentEvent.authorized),
        EventType(PaymentCaptured.self, PaymentEvent.captured),
        EventType(PaymentRefunded.self, PaymentEvent.refunded),
        EventType(PaymentFailed.self, PaymentEvent.failed),
    ]


    public var content: EventContent {
        switch self {
        case .authorized(let e): .known(e)
        case .captured(let e): .known(e)
        case .refunded(let e): .known(e)
        case .failed(let e): .known(e)
        case .unknown(let type, let raw): .unknown(type: type, raw: raw)
        }
    }

    public init(from decoder: any Decoder) throws { self = try Self.decodeTagged(from: decoder) }
    public func encode(to encoder: any Encoder) throws { try encodeTagged(to: encoder) }
}

// MARK: - Fast path (payments)

extension PaymentFailureReason: FastCodable {
    static let fields = FieldTable(CodingKeys.self, optional: [.message])

    /// Every member at its placeholder or default.
    @inline(__always) public init(unread: Void) {}

    public mutating func read(_ cursor: inout JSONCursor) throws(FastPathBail) {
        var members = try cursor.beginObject(Self.fields)
        while let key = try cursor.nextField(Self.fields, &members) {
            switch key {
            case .code: _code = try cursor.inlineString()
            case .message: _message.projectedValue = try cursor.null() ? nil : try cursor.inlineString()
            }
        }
        unknownFields = members.unknown
    }

    public func write(to writer: inout CanonicalWriter) {
        writer.beginObject()
        writer.key("code")
        writer.string(_code)
        if let message = _message.projectedValue {
            writer.key("message")
            writer.string(message)
        }
        writer.endObject(unknown: unknownFields)
    }
}

extension PaymentAuthorized: FastCodable {
    static let fields = FieldTable(CodingKeys.self, tag: PaymentEvent.tagKey, type: type, optional: [.schemaVersion, .card])

    /// Every member at its placeholder or default.
    @inline(__always) public init(unread: Void) {
        envelope = .unread
        amount = .unread
        merchant = .unread
        method = PaymentMethod(raw: InlineString())
        card = nil
    }

    public mutating func read(_ cursor: inout JSONCursor) throws(FastPathBail) {
        var members = try cursor.beginObject(Self.fields)
        while let key = try cursor.nextField(Self.fields, &members) {
            switch key {
            case .id, .occurredAt, .schemaVersion: try envelope.read(key, &cursor)
            case .paymentId: _paymentId = try cursor.inlineString()
            case .amount: try amount.read(&cursor)
            case .merchant: try merchant.read(&cursor)
            case .method: method = PaymentMethod(raw: try cursor.inlineString())
            case .card: card = try cursor.null() ? nil : try Card.read(from: &cursor)
            }
        }
        unknownFields = members.unknown
    }

    public func write(to writer: inout CanonicalWriter) {
        writer.beginEvent(Self.fields)
        envelope.write(to: &writer)
        writer.key("paymentId")
        writer.string(_paymentId)
        writer.key("amount")
        writer.value(amount)
        writer.key("merchant")
        writer.value(merchant)
        writer.key("method")
        writer.string(method.$rawValue)
        if let card {
            writer.key("card")
            writer.value(card)
        }
        writer.endObject(unknown: unknownFields)
    }
}

extension PaymentCaptured: FastCodable {
    static let fields = FieldTable(CodingKeys.self, tag: PaymentEvent.tagKey, type: type, optional: [.schemaVersion, .installments])

    /// Every member at its placeholder or default.
    @inline(__always) public init(unread: Void) {
        envelope = .unread
        amount = .unread
        merchant = .unread
        installments = 1
    }

    public mutating func read(_ cursor: inout JSONCursor) throws(FastPathBail) {
        var members = try cursor.beginObject(Self.fields)
        while let key = try cursor.nextField(Self.fields, &members) {
            switch key {
            case .id, .occurredAt, .schemaVersion: try envelope.read(key, &cursor)
            case .paymentId: _paymentId = try cursor.inlineString()
            case .amount: try amount.read(&cursor)
            case .merchant: try merchant.read(&cursor)
            case .installments: installments = try cursor.optionalInt() ?? 1
            }
        }
        unknownFields = members.unknown
    }

    public func write(to writer: inout CanonicalWriter) {
        writer.beginEvent(Self.fields)
        envelope.write(to: &writer)
        writer.key("paymentId")
        writer.string(_paymentId)
        writer.key("amount")
        writer.value(amount)
        writer.key("merchant")
        writer.value(merchant)
        writer.key("installments")
        writer.int(installments)
        writer.endObject(unknown: unknownFields)
    }
}

extension PaymentRefunded: FastCodable {
    static let fields = FieldTable(CodingKeys.self, tag: PaymentEvent.tagKey, type: type, optional: [.schemaVersion])

    /// Every member at its placeholder or default.
    @inline(__always) public init(unread: Void) {
        envelope = .unread
        amount = .unread
        reason = RefundReason(raw: InlineString())
    }

    public mutating func read(_ cursor: inout JSONCursor) throws(FastPathBail) {
        var members = try cursor.beginObject(Self.fields)
        while let key = try cursor.nextField(Self.fields, &members) {
            switch key {
            case .id, .occurredAt, .schemaVersion: try envelope.read(key, &cursor)
            case .paymentId: _paymentId = try cursor.inlineString()
            case .amount: try amount.read(&cursor)
            case .reason: reason = RefundReason(raw: try cursor.inlineString())
            }
        }
        unknownFields = members.unknown
    }

    public func write(to writer: inout CanonicalWriter) {
        writer.beginEvent(Self.fields)
        envelope.write(to: &writer)
        writer.key("paymentId")
        writer.string(_paymentId)
        writer.key("amount")
        writer.value(amount)
        writer.key("reason")
        writer.string(reason.$rawValue)
        writer.endObject(unknown: unknownFields)
    }
}

extension PaymentFailed: FastCodable {
    static let fields = FieldTable(CodingKeys.self, tag: PaymentEvent.tagKey, type: type, optional: [.schemaVersion])

    /// Every member at its placeholder or default.
    @inline(__always) public init(unread: Void) {
        envelope = .unread
        amount = .unread
        failure = .unread
    }

    public mutating func read(_ cursor: inout JSONCursor) throws(FastPathBail) {
        var members = try cursor.beginObject(Self.fields)
        while let key = try cursor.nextField(Self.fields, &members) {
            switch key {
            case .id, .occurredAt, .schemaVersion: try envelope.read(key, &cursor)
            case .paymentId: _paymentId = try cursor.inlineString()
            case .amount: try amount.read(&cursor)
            case .failure: try failure.read(&cursor)
            }
        }
        unknownFields = members.unknown
    }

    public func write(to writer: inout CanonicalWriter) {
        writer.beginEvent(Self.fields)
        envelope.write(to: &writer)
        writer.key("paymentId")
        writer.string(_paymentId)
        writer.key("amount")
        writer.value(amount)
        writer.key("failure")
        writer.value(failure)
        writer.endObject(unknown: unknownFields)
    }
}

extension PaymentEvent {
    public func writeCanonical(to writer: inout CanonicalWriter) -> Bool {
        switch self {
        case .authorized(let event): event.write(to: &writer)
        case .captured(let event): event.write(to: &writer)
        case .refunded(let event): event.write(to: &writer)
        case .failed(let event): event.write(to: &writer)
        case .unknown(_, let raw): writer.raw(raw)
        }
        return true
    }
}
