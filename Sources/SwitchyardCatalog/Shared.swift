import SwitchyardJSON

/// An amount of money in minor units (cents): `{"value": 1999, "currency": "EUR"}`.
public struct Money: Codable, Sendable, Hashable {
    /// Minor units.
    public var value: Int64
    /// ISO 4217 code.
    @InlineString public var currency: String
    /// Members a newer producer added.
    public var unknownFields = UnknownFields()

    public init(value: Int64, currency: String) {
        self.value = value
        self.currency = currency
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case value, currency }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        value = try c.decode(Int64.self, forKey: .value)
        currency = try c.decode(String.self, forKey: .currency)
        unknownFields = try UnknownFields(from: decoder, excluding: CodingKeys.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(value, forKey: .value)
        try c.encode(currency, forKey: .currency)
        try unknownFields.encode(to: encoder)
    }
}

/// The merchant a payment is for.
public struct Merchant: Codable, Sendable, Hashable {
    @InlineString public var id: String
    @InlineString public var name: String
    /// ISO 3166 country code, when known.
    @OptionalInlineString public var country: String?
    public var unknownFields = UnknownFields()

    public init(id: String, name: String, country: String? = nil) {
        self.id = id
        self.name = name
        self.country = country
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case id, name, country }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        name = try c.decode(String.self, forKey: .name)
        country = try c.decodeIfPresent(String.self, forKey: .country)
        unknownFields = try UnknownFields(from: decoder, excluding: CodingKeys.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encodeIfPresent(country, forKey: .country)
        try unknownFields.encode(to: encoder)
    }
}

/// A payment card, as much of it as may be stored.
public struct Card: Codable, Sendable, Hashable {
    @InlineString public var brand: String
    @InlineString public var last4: String
    public var expMonth: Int
    public var expYear: Int
    public var unknownFields = UnknownFields()

    public init(brand: String, last4: String, expMonth: Int, expYear: Int) {
        self.brand = brand
        self.last4 = last4
        self.expMonth = expMonth
        self.expYear = expYear
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case brand, last4, expMonth, expYear }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        brand = try c.decode(String.self, forKey: .brand)
        last4 = try c.decode(String.self, forKey: .last4)
        expMonth = try c.decode(Int.self, forKey: .expMonth)
        expYear = try c.decode(Int.self, forKey: .expYear)
        unknownFields = try UnknownFields(from: decoder, excluding: CodingKeys.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(brand, forKey: .brand)
        try c.encode(last4, forKey: .last4)
        try c.encode(expMonth, forKey: .expMonth)
        try c.encode(expYear, forKey: .expYear)
        try unknownFields.encode(to: encoder)
    }
}

// MARK: - Fast path (shared)

// The fast path of every model (here, and at the end of Payments.swift and Feeds.swift): a direct
// reader and writer beside `init(from:)` and `encode(to:)`, with the same fields, defaults and order.
// A record the reader does not decide goes to `init(from:)`, which gives the exact diagnosis.
// `FastPathTests` compares both paths on every fixture, the bench corpus and mutated records; the
// `fuzz-decode` invariants compare them on fuzzed input.
//
// A reader starts from a placeholder (`unread`: every member empty or at its default) and reads the
// members in place, nested models into their own member: no optionals to unwrap, no copy of the
// model. The field table's required bits say which members the record must have had; a missing one
// bails, and `init(from:)` names it.
//
// Identifiers and short texts are stored as `InlineString`s (`_paymentId`): the readers fill the
// storage without making a `String`, and the writers write it as it is. A wrapped member starts empty
// (the wrapper's `init()`), so `init(unread:)` only sets the others.

extension Money: FastCodable {
    static let fields = FieldTable(CodingKeys.self)

    /// Every member at its placeholder or default.
    @inline(__always) public init(unread: Void) {
        value = 0
    }

    public mutating func read(_ cursor: inout JSONCursor) throws(FastPathBail) {
        var members = try cursor.beginObject(Self.fields)
        while let key = try cursor.nextField(Self.fields, &members) {
            switch key {
            case .value: value = try cursor.int64()
            case .currency: _currency = try cursor.inlineString()
            }
        }
        unknownFields = members.unknown
    }

    public func write(to writer: inout CanonicalWriter) {
        writer.beginObject()
        writer.key("value")
        writer.int(value)
        writer.key("currency")
        writer.string(_currency)
        writer.endObject(unknown: unknownFields)
    }
}

extension Merchant: FastCodable {
    static let fields = FieldTable(CodingKeys.self, optional: [.country])

    /// Every member at its placeholder or default.
    @inline(__always) public init(unread: Void) {}

    public mutating func read(_ cursor: inout JSONCursor) throws(FastPathBail) {
        var members = try cursor.beginObject(Self.fields)
        while let key = try cursor.nextField(Self.fields, &members) {
            switch key {
            case .id: _id = try cursor.inlineString()
            case .name: _name = try cursor.inlineString()
            case .country: _country.projectedValue = try cursor.null() ? nil : try cursor.inlineString()
            }
        }
        unknownFields = members.unknown
    }

    public func write(to writer: inout CanonicalWriter) {
        writer.beginObject()
        writer.key("id")
        writer.string(_id)
        writer.key("name")
        writer.string(_name)
        if let country = _country.projectedValue {
            writer.key("country")
            writer.string(country)
        }
        writer.endObject(unknown: unknownFields)
    }
}

extension Card: FastCodable {
    static let fields = FieldTable(CodingKeys.self)

    /// Every member at its placeholder or default.
    @inline(__always) public init(unread: Void) {
        expMonth = 0
        expYear = 0
    }

    public mutating func read(_ cursor: inout JSONCursor) throws(FastPathBail) {
        var members = try cursor.beginObject(Self.fields)
        while let key = try cursor.nextField(Self.fields, &members) {
            switch key {
            case .brand: _brand = try cursor.inlineString()
            case .last4: _last4 = try cursor.inlineString()
            case .expMonth: expMonth = try cursor.int()
            case .expYear: expYear = try cursor.int()
            }
        }
        unknownFields = members.unknown
    }

    public func write(to writer: inout CanonicalWriter) {
        writer.beginObject()
        writer.key("brand")
        writer.string(_brand)
        writer.key("last4")
        writer.string(_last4)
        writer.key("expMonth")
        writer.int(expMonth)
        writer.key("expYear")
        writer.int(expYear)
        writer.endObject(unknown: unknownFields)
    }
}
