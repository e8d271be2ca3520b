import Foundation
import SwitchyardJSON

// The orders events written by hand the way a Swift developer writes Codable models without Switchyard:
// plain structs, `decode` for required members, `decodeIfPresent(…) ?? default` for members with a
// default, `decodeIfPresent` for optional ones, the same names, required-ness and declaration order as
// the schemas. Foundation's `JSONDecoder` over these is the oracle the differential test compares the
// generated catalog with. Nothing here is generated, and nothing here uses Switchyard's decoder.

/// Checks that hand-written models make on top of what Codable checks (the schema's `minLength: 1`,
/// `minimum`, `format: date-time`), thrown as Foundation does: `dataCorrupted` at the member.
extension KeyedDecodingContainer {
    func identifier(_ key: Key) throws -> String {
        let value = try decode(String.self, forKey: key)
        guard !value.isEmpty else { throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "empty identifier") }
        return value
    }

    func timestamp(_ key: Key) throws -> Date {
        try Self.date(try decode(String.self, forKey: key), key, self)
    }

    func timestampIfPresent(_ key: Key) throws -> Date? {
        try decodeIfPresent(String.self, forKey: key).map { try Self.date($0, key, self) }
    }

    func integer<I: FixedWidthInteger & Decodable>(_ type: I.Type, _ key: Key, minimum: I) throws -> I {
        try Self.check(try decode(I.self, forKey: key), minimum, key, self)
    }

    func integerIfPresent<I: FixedWidthInteger & Decodable>(_ type: I.Type, _ key: Key, minimum: I) throws -> I? {
        try decodeIfPresent(I.self, forKey: key).map { try Self.check($0, minimum, key, self) }
    }

    private static func check<I: FixedWidthInteger>(_ value: I, _ minimum: I, _ key: Key, _ c: Self) throws -> I {
        guard value >= minimum else { throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "below \(minimum)") }
        return value
    }

    /// RFC 3339 with or without fractional seconds, `Z` or an offset (Foundation's ISO 8601 parser).
    private static func date(_ text: String, _ key: Key, _ c: Self) throws -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "not an RFC 3339 date-time")
    }
}

struct HandMoney: Decodable, Equatable {
    var value: Int64
    var currency: String
}

struct HandAddress: Decodable, Equatable {
    var line1: String
    var line2: String?
    var city: String
    var postalCode: String?
    var country: String
}

struct HandLineItem: Decodable, Equatable {
    var sku: String
    var quantity: Int
    var unitPrice: HandMoney

    enum CodingKeys: String, CodingKey { case sku, quantity, unitPrice }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        sku = try c.decode(String.self, forKey: .sku)
        quantity = try c.integer(Int.self, .quantity, minimum: 1)
        unitPrice = try c.decode(HandMoney.self, forKey: .unitPrice)
    }
}

struct HandParcel: Decodable, Equatable {
    var trackingNumber: String
    var skus: [String]
    var weightGrams: Int?
}

/// The envelope every event carries: id (non-empty), occurredAt, schemaVersion (default 1, minimum 1).
struct HandEnvelope: Equatable {
    var id: String
    var occurredAt: Date
    var schemaVersion: Int

    enum CodingKeys: String, CodingKey { case id, occurredAt, schemaVersion }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.identifier(.id)
        occurredAt = try c.timestamp(.occurredAt)
        schemaVersion = try c.integerIfPresent(Int.self, .schemaVersion, minimum: 1) ?? 1
    }
}

struct HandOrderPlaced: Decodable, Equatable {
    var envelope: HandEnvelope
    var orderId: String
    var customerId: String
    var items: [HandLineItem]
    var total: HandMoney
    var channel: String
    var shippingAddress: HandAddress?
    var giftWrap: Bool
    var deliverBy: Date?
    var loyaltyPoints: Int

    enum CodingKeys: String, CodingKey {
        case orderId, customerId, items, total, channel, shippingAddress, giftWrap, deliverBy, loyaltyPoints
    }

    init(from decoder: any Decoder) throws {
        envelope = try HandEnvelope(from: decoder)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        orderId = try c.identifier(.orderId)
        customerId = try c.decode(String.self, forKey: .customerId)
        items = try c.decode([HandLineItem].self, forKey: .items)
        total = try c.decode(HandMoney.self, forKey: .total)
        channel = try c.decode(String.self, forKey: .channel)
        shippingAddress = try c.decodeIfPresent(HandAddress.self, forKey: .shippingAddress)
        giftWrap = try c.decodeIfPresent(Bool.self, forKey: .giftWrap) ?? false
        deliverBy = try c.timestampIfPresent(.deliverBy)
        loyaltyPoints = try c.integerIfPresent(Int.self, .loyaltyPoints, minimum: 0) ?? 0
    }
}

struct HandOrderShipped: Decodable, Equatable {
    var envelope: HandEnvelope
    var orderId: String
    var carrier: String
    var parcels: [HandParcel]
    var estimatedDelivery: Date?

    enum CodingKeys: String, CodingKey { case orderId, carrier, parcels, estimatedDelivery }

    init(from decoder: any Decoder) throws {
        envelope = try HandEnvelope(from: decoder)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        orderId = try c.identifier(.orderId)
        carrier = try c.decode(String.self, forKey: .carrier)
        parcels = try c.decode([HandParcel].self, forKey: .parcels)
        estimatedDelivery = try c.timestampIfPresent(.estimatedDelivery)
    }
}

struct HandOrderCancelled: Decodable, Equatable {
    var envelope: HandEnvelope
    var orderId: String
    var reason: String
    var note: String?
    var refund: HandMoney?
    var restock: Bool

    enum CodingKeys: String, CodingKey { case orderId, reason, note, refund, restock }

    init(from decoder: any Decoder) throws {
        envelope = try HandEnvelope(from: decoder)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        orderId = try c.identifier(.orderId)
        reason = try c.decode(String.self, forKey: .reason)
        note = try c.decodeIfPresent(String.self, forKey: .note)
        refund = try c.decodeIfPresent(HandMoney.self, forKey: .refund)
        restock = try c.decodeIfPresent(Bool.self, forKey: .restock) ?? true
    }
}

/// The catalog by hand: read the `type` tag, then the event from the same object (internal tagging).
enum HandOrderEvent: Decodable, Equatable {
    case placed(HandOrderPlaced)
    case shipped(HandOrderShipped)
    case cancelled(HandOrderCancelled)
    /// A tag this build does not know (the strict topic fails it as `unknownType`).
    case unknown(type: String)

    enum TagKey: String, CodingKey { case type }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: TagKey.self)
        switch try c.decode(String.self, forKey: .type) {
        case "order.placed": self = .placed(try HandOrderPlaced(from: decoder))
        case "order.shipped": self = .shipped(try HandOrderShipped(from: decoder))
        case "order.cancelled": self = .cancelled(try HandOrderCancelled(from: decoder))
        case let other: self = .unknown(type: other)
        }
    }
}
