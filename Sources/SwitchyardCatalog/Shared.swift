import SwitchyardJSON

/// An amount of money in minor units (cents): `{"value": 1999, "currency": "EUR"}`.
public struct Money: Codable, Sendable, Hashable {
    /// Minor units.
    public var value: Int64
    /// ISO 4217 code.
    public var currency: String
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
    public var id: String
    public var name: String
    /// ISO 3166 country code, when known.
    public var country: String?
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
    public var brand: String
    public var last4: String
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
