import SwitchyardJSON

// The fast path of every model: a direct reader and writer beside `init(from:)` and `encode(to:)`,
// with the same fields, defaults and order. A record the reader does not decide goes to `init(from:)`,
// which gives the exact diagnosis. `FastPathTests` compares both paths on every fixture, the bench
// corpus and mutated records; the `fuzz-decode` invariants compare them on fuzzed input.
//
// A reader starts every member at a placeholder (or its default) and reads members in place: no
// optionals to unwrap, no copy of the model. The field table's required bits say which members the
// record must have had; a missing one bails, and `init(from:)` names it.

// MARK: - Shared

extension Money: FastCodable {
    static let fields = FieldTable(CodingKeys.self)

    public init(reading cursor: inout JSONCursor) throws(FastPathBail) {
        value = 0
        currency = ""
        var members = try cursor.beginObject(Self.fields)
        while let key = try cursor.nextField(Self.fields, &members) {
            switch key {
            case .value: value = try cursor.int64()
            case .currency: currency = try cursor.string()
            }
        }
        unknownFields = members.unknown
    }

    public func write(to writer: inout CanonicalWriter) {
        writer.beginObject()
        writer.key("value")
        writer.int(value)
        writer.key("currency")
        writer.string(currency)
        writer.endObject(unknown: unknownFields)
    }
}

extension Merchant: FastCodable {
    static let fields = FieldTable(CodingKeys.self, optional: [.country])

    public init(reading cursor: inout JSONCursor) throws(FastPathBail) {
        id = ""
        name = ""
        country = nil
        var members = try cursor.beginObject(Self.fields)
        while let key = try cursor.nextField(Self.fields, &members) {
            switch key {
            case .id: id = try cursor.string()
            case .name: name = try cursor.string()
            case .country: country = try cursor.optionalString()
            }
        }
        unknownFields = members.unknown
    }

    public func write(to writer: inout CanonicalWriter) {
        writer.beginObject()
        writer.key("id")
        writer.string(id)
        writer.key("name")
        writer.string(name)
        if let country {
            writer.key("country")
            writer.string(country)
        }
        writer.endObject(unknown: unknownFields)
    }
}

extension Card: FastCodable {
    static let fields = FieldTable(CodingKeys.self)

    public init(reading cursor: inout JSONCursor) throws(FastPathBail) {
        brand = ""
        last4 = ""
        expMonth = 0
        expYear = 0
        var members = try cursor.beginObject(Self.fields)
        while let key = try cursor.nextField(Self.fields, &members) {
            switch key {
            case .brand: brand = try cursor.string()
            case .last4: last4 = try cursor.string()
            case .expMonth: expMonth = try cursor.int()
            case .expYear: expYear = try cursor.int()
            }
        }
        unknownFields = members.unknown
    }

    public func write(to writer: inout CanonicalWriter) {
        writer.beginObject()
        writer.key("brand")
        writer.string(brand)
        writer.key("last4")
        writer.string(last4)
        writer.key("expMonth")
        writer.int(expMonth)
        writer.key("expYear")
        writer.int(expYear)
        writer.endObject(unknown: unknownFields)
    }
}

// MARK: - Payments

extension PaymentFailureReason: FastCodable {
    static let fields = FieldTable(CodingKeys.self, optional: [.message])

    public init(reading cursor: inout JSONCursor) throws(FastPathBail) {
        code = ""
        message = nil
        var members = try cursor.beginObject(Self.fields)
        while let key = try cursor.nextField(Self.fields, &members) {
            switch key {
            case .code: code = try cursor.string()
            case .message: message = try cursor.optionalString()
            }
        }
        unknownFields = members.unknown
    }

    public func write(to writer: inout CanonicalWriter) {
        writer.beginObject()
        writer.key("code")
        writer.string(code)
        if let message {
            writer.key("message")
            writer.string(message)
        }
        writer.endObject(unknown: unknownFields)
    }
}

extension PaymentAuthorized: FastCodable {
    static let fields = FieldTable(CodingKeys.self, tag: PaymentEvent.tagKey, optional: [.schemaVersion, .card])

    public init(reading cursor: inout JSONCursor) throws(FastPathBail) {
        envelope = .unread
        paymentId = ""
        amount = Money(value: 0, currency: "")
        merchant = Merchant(id: "", name: "")
        method = PaymentMethod(rawValue: "")
        card = nil
        var members = try cursor.beginObject(Self.fields)
        while let key = try cursor.nextField(Self.fields, &members) {
            switch key {
            case .id, .occurredAt, .schemaVersion: try envelope.read(key, &cursor)
            case .paymentId: paymentId = try cursor.string()
            case .amount: amount = try Money(reading: &cursor)
            case .merchant: merchant = try Merchant(reading: &cursor)
            case .method: method = PaymentMethod(rawValue: try cursor.string())
            case .card: card = try cursor.null() ? nil : try Card(reading: &cursor)
            }
        }
        unknownFields = members.unknown
    }

    public func write(to writer: inout CanonicalWriter) {
        writer.beginEvent(tagKey: PaymentEvent.tagKey, type: Self.type)
        envelope.write(to: &writer)
        writer.key("paymentId")
        writer.string(paymentId)
        writer.key("amount")
        writer.value(amount)
        writer.key("merchant")
        writer.value(merchant)
        writer.key("method")
        writer.string(method.rawValue)
        if let card {
            writer.key("card")
            writer.value(card)
        }
        writer.endObject(unknown: unknownFields)
    }
}

extension PaymentCaptured: FastCodable {
    static let fields = FieldTable(CodingKeys.self, tag: PaymentEvent.tagKey, optional: [.schemaVersion, .installments])

    public init(reading cursor: inout JSONCursor) throws(FastPathBail) {
        envelope = .unread
        paymentId = ""
        amount = Money(value: 0, currency: "")
        merchant = Merchant(id: "", name: "")
        installments = 1
        var members = try cursor.beginObject(Self.fields)
        while let key = try cursor.nextField(Self.fields, &members) {
            switch key {
            case .id, .occurredAt, .schemaVersion: try envelope.read(key, &cursor)
            case .paymentId: paymentId = try cursor.string()
            case .amount: amount = try Money(reading: &cursor)
            case .merchant: merchant = try Merchant(reading: &cursor)
            case .installments: installments = try cursor.optionalInt() ?? 1
            }
        }
        unknownFields = members.unknown
    }

    public func write(to writer: inout CanonicalWriter) {
        writer.beginEvent(tagKey: PaymentEvent.tagKey, type: Self.type)
        envelope.write(to: &writer)
        writer.key("paymentId")
        writer.string(paymentId)
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
    static let fields = FieldTable(CodingKeys.self, tag: PaymentEvent.tagKey, optional: [.schemaVersion])

    public init(reading cursor: inout JSONCursor) throws(FastPathBail) {
        envelope = .unread
        paymentId = ""
        amount = Money(value: 0, currency: "")
        reason = RefundReason(rawValue: "")
        var members = try cursor.beginObject(Self.fields)
        while let key = try cursor.nextField(Self.fields, &members) {
            switch key {
            case .id, .occurredAt, .schemaVersion: try envelope.read(key, &cursor)
            case .paymentId: paymentId = try cursor.string()
            case .amount: amount = try Money(reading: &cursor)
            case .reason: reason = RefundReason(rawValue: try cursor.string())
            }
        }
        unknownFields = members.unknown
    }

    public func write(to writer: inout CanonicalWriter) {
        writer.beginEvent(tagKey: PaymentEvent.tagKey, type: Self.type)
        envelope.write(to: &writer)
        writer.key("paymentId")
        writer.string(paymentId)
        writer.key("amount")
        writer.value(amount)
        writer.key("reason")
        writer.string(reason.rawValue)
        writer.endObject(unknown: unknownFields)
    }
}

extension PaymentFailed: FastCodable {
    static let fields = FieldTable(CodingKeys.self, tag: PaymentEvent.tagKey, optional: [.schemaVersion])

    public init(reading cursor: inout JSONCursor) throws(FastPathBail) {
        envelope = .unread
        paymentId = ""
        amount = Money(value: 0, currency: "")
        failure = PaymentFailureReason(code: "")
        var members = try cursor.beginObject(Self.fields)
        while let key = try cursor.nextField(Self.fields, &members) {
            switch key {
            case .id, .occurredAt, .schemaVersion: try envelope.read(key, &cursor)
            case .paymentId: paymentId = try cursor.string()
            case .amount: amount = try Money(reading: &cursor)
            case .failure: failure = try PaymentFailureReason(reading: &cursor)
            }
        }
        unknownFields = members.unknown
    }

    public func write(to writer: inout CanonicalWriter) {
        writer.beginEvent(tagKey: PaymentEvent.tagKey, type: Self.type)
        envelope.write(to: &writer)
        writer.key("paymentId")
        writer.string(paymentId)
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

// MARK: - Feeds

extension PostCreated: FastCodable {
    static let fields = FieldTable(CodingKeys.self, tag: FeedEvent.tagKey, optional: [.schemaVersion, .tags, .visibility, .mediaCount])

    public init(reading cursor: inout JSONCursor) throws(FastPathBail) {
        envelope = .unread
        postId = ""
        authorId = ""
        text = ""
        tags = []
        visibility = Visibility(.public)
        mediaCount = 0
        var members = try cursor.beginObject(Self.fields)
        while let key = try cursor.nextField(Self.fields, &members) {
            switch key {
            case .id, .occurredAt, .schemaVersion: try envelope.read(key, &cursor)
            case .postId: postId = try cursor.string()
            case .authorId: authorId = try cursor.string()
            case .text: text = try cursor.string()
            case .tags: tags = try cursor.null() ? [] : try cursor.strings()
            case .visibility: visibility = try cursor.optionalString().map(Visibility.init(rawValue:)) ?? Visibility(.public)
            case .mediaCount: mediaCount = try cursor.optionalInt() ?? 0
            }
        }
        unknownFields = members.unknown
    }

    public func write(to writer: inout CanonicalWriter) {
        writer.beginEvent(tagKey: FeedEvent.tagKey, type: Self.type)
        envelope.write(to: &writer)
        writer.key("postId")
        writer.string(postId)
        writer.key("authorId")
        writer.string(authorId)
        writer.key("text")
        writer.string(text)
        writer.key("tags")
        writer.strings(tags)
        writer.key("visibility")
        writer.string(visibility.rawValue)
        writer.key("mediaCount")
        writer.int(mediaCount)
        writer.endObject(unknown: unknownFields)
    }
}

extension PostLiked: FastCodable {
    static let fields = FieldTable(CodingKeys.self, tag: FeedEvent.tagKey, optional: [.schemaVersion])

    public init(reading cursor: inout JSONCursor) throws(FastPathBail) {
        envelope = .unread
        postId = ""
        userId = ""
        var members = try cursor.beginObject(Self.fields)
        while let key = try cursor.nextField(Self.fields, &members) {
            switch key {
            case .id, .occurredAt, .schemaVersion: try envelope.read(key, &cursor)
            case .postId: postId = try cursor.string()
            case .userId: userId = try cursor.string()
            }
        }
        unknownFields = members.unknown
    }

    public func write(to writer: inout CanonicalWriter) {
        writer.beginEvent(tagKey: FeedEvent.tagKey, type: Self.type)
        envelope.write(to: &writer)
        writer.key("postId")
        writer.string(postId)
        writer.key("userId")
        writer.string(userId)
        writer.endObject(unknown: unknownFields)
    }
}

extension CommentAdded: FastCodable {
    static let fields = FieldTable(CodingKeys.self, tag: FeedEvent.tagKey, optional: [.schemaVersion])

    public init(reading cursor: inout JSONCursor) throws(FastPathBail) {
        envelope = .unread
        postId = ""
        commentId = ""
        authorId = ""
        text = ""
        var members = try cursor.beginObject(Self.fields)
        while let key = try cursor.nextField(Self.fields, &members) {
            switch key {
            case .id, .occurredAt, .schemaVersion: try envelope.read(key, &cursor)
            case .postId: postId = try cursor.string()
            case .commentId: commentId = try cursor.string()
            case .authorId: authorId = try cursor.string()
            case .text: text = try cursor.string()
            }
        }
        unknownFields = members.unknown
    }

    public func write(to writer: inout CanonicalWriter) {
        writer.beginEvent(tagKey: FeedEvent.tagKey, type: Self.type)
        envelope.write(to: &writer)
        writer.key("postId")
        writer.string(postId)
        writer.key("commentId")
        writer.string(commentId)
        writer.key("authorId")
        writer.string(authorId)
        writer.key("text")
        writer.string(text)
        writer.endObject(unknown: unknownFields)
    }
}

extension UserFollowed: FastCodable {
    static let fields = FieldTable(CodingKeys.self, tag: FeedEvent.tagKey, optional: [.schemaVersion])

    public init(reading cursor: inout JSONCursor) throws(FastPathBail) {
        envelope = .unread
        followerId = ""
        followeeId = ""
        var members = try cursor.beginObject(Self.fields)
        while let key = try cursor.nextField(Self.fields, &members) {
            switch key {
            case .id, .occurredAt, .schemaVersion: try envelope.read(key, &cursor)
            case .followerId: followerId = try cursor.string()
            case .followeeId: followeeId = try cursor.string()
            }
        }
        unknownFields = members.unknown
    }

    public func write(to writer: inout CanonicalWriter) {
        writer.beginEvent(tagKey: FeedEvent.tagKey, type: Self.type)
        envelope.write(to: &writer)
        writer.key("followerId")
        writer.string(followerId)
        writer.key("followeeId")
        writer.string(followeeId)
        writer.endObject(unknown: unknownFields)
    }
}

extension FeedEvent {
    public func writeCanonical(to writer: inout CanonicalWriter) -> Bool {
        switch self {
        case .postCreated(let event): event.write(to: &writer)
        case .postLiked(let event): event.write(to: &writer)
        case .commentAdded(let event): event.write(to: &writer)
        case .userFollowed(let event): event.write(to: &writer)
        case .unknown(_, let raw): writer.raw(raw)
        }
        return true
    }
}
