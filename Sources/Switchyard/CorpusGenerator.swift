/// The catalogs this package ships, for which ``CorpusGenerator`` writes sample streams.
package enum ShippedCatalog: String, Sendable, CaseIterable {
    case payments, feeds

    /// The catalog itself.
    package var catalog: Catalog { self == .payments ? .payments : .feeds }
    /// Its default policy.
    package var defaultPolicy: TopicPolicy { catalog.defaultPolicy }
}

/// Generates realistic, deterministic event streams for the demo and the benchmarks: a seeded mix of
/// current, legacy (v1), future (unknown fields and enum values), unknown-type and malformed records.
package struct CorpusGenerator: Sendable {
    /// What a generated record is meant to be.
    package enum Shape: String, Sendable, CaseIterable {
        case current, legacy, future, unknownType, malformed
    }

    /// The share of each shape, in percent (summing to 100). Default: 90/5/3/1/1 (the benchmark's mix).
    package var mix: [(Shape, Int)] = [(.current, 90), (.legacy, 5), (.future, 3), (.unknownType, 1), (.malformed, 1)]
    private var rng: SplitMix64
    private var sequence = 0

    package init(seed: UInt64) {
        rng = SplitMix64(seed: seed)
    }

    /// The next record of `catalog`: its bytes, its shape and a key (the payment or post id).
    package mutating func next(_ catalog: ShippedCatalog) -> (value: [UInt8], shape: Shape, key: String) {
        let shape = pickShape()
        return (record(catalog, shape: shape).utf8Array, shape, lastKey)
    }

    /// A record of a given shape.
    package mutating func next(_ catalog: ShippedCatalog, shape: Shape) -> (value: [UInt8], key: String) {
        (record(catalog, shape: shape).utf8Array, lastKey)
    }

    private var lastKey = ""

    mutating func pickShape() -> Shape {
        var roll = Int(rng.next() % 100)
        for (shape, share) in mix {
            if roll < share { return shape }
            roll -= share
        }
        return .current
    }

    // MARK: - Records

    mutating func record(_ catalog: ShippedCatalog, shape: Shape) -> String {
        sequence += 1
        switch catalog {
        case .payments: return payment(shape)
        case .feeds: return feed(shape)
        }
    }

    mutating func id(_ prefix: String) -> String {
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        var s = prefix + "_01J"
        for _ in 0..<23 { s.append(alphabet[Int(rng.next() % 32)]) }
        return s
    }

    mutating func timestamp() -> String {
        let day = 1 + Int(rng.next() % 28)
        let month = 1 + Int(rng.next() % 12)
        let second = Int(rng.next() % 86400)
        let millis = Int(rng.next() % 1000)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        func three(_ v: Int) -> String { v < 10 ? "00\(v)" : v < 100 ? "0\(v)" : "\(v)" }
        let offsets = ["Z", "Z", "Z", "+02:00", "-05:00", "+05:30"]
        let offset = offsets[Int(rng.next() % UInt64(offsets.count))]
        return "2026-\(two(month))-\(two(day))T\(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60)).\(three(millis))\(offset)"
    }

    mutating func pick(_ options: [String]) -> String { options[Int(rng.next() % UInt64(options.count))] }

    mutating func money() -> String {
        let value = 100 + Int(rng.next() % 250_000)
        return #"{"value":\#(value),"currency":"\#(pick(["EUR", "USD", "GBP", "CHF", "JPY"]))"}"#
    }

    mutating func merchant() -> String {
        let names = ["Café Zürich", "MediaMarkt Alexanderplatz", "Bäckerei Müller", "Nordstrom #1042", "Ramen \\\"Ichiban\\\"", "Librería Áurea"]
        let countries = ["CH", "DE", "DE", "US", "JP", "ES"]
        let i = Int(rng.next() % UInt64(names.count))
        return #"{"id":"\#(id("mrc"))","name":"\#(names[i])","country":"\#(countries[i])"}"#
    }

    mutating func payment(_ shape: Shape) -> String {
        let paymentId = id("pay")
        lastKey = paymentId
        let eventId = id("evt")
        let envelope = #""id":"\#(eventId)","occurredAt":"\#(timestamp())""#
        let version = shape == .legacy ? "" : #","schemaVersion":\#(shape == .future ? 3 : 2)"#
        var extra = ""
        if shape == .future {
            extra = #","riskScore":0.8700,"acquirerReference":123456789012345678901234567890,"routing":{"network":"visa","hops":[1,2,3]}"#
        }
        switch shape {
        case .unknownType:
            return #"{"type":"payment.disputed",\#(envelope)\#(version),"paymentId":"\#(paymentId)","amount":\#(money()),"dispute":{"reason":"fraudulent"}}"#
        case .malformed:
            return malformedPayment(envelope: envelope, paymentId: paymentId)
        default:
            break
        }
        switch rng.next() % 10 {
        case 0..<3:
            let method = shape == .future ? "crypto" : pick(["card", "card", "bank_transfer", "wallet"])
            let card = method == "card" ? #","card":{"brand":"\#(pick(["visa", "mastercard", "amex"]))","last4":"4242","expMonth":\#(1 + rng.next() % 12),"expYear":2029}"# : ""
            return #"{"type":"payment.authorized",\#(envelope)\#(version),"paymentId":"\#(paymentId)","amount":\#(money()),"merchant":\#(merchant()),"method":"\#(method)"\#(card)\#(extra)}"#
        case 3..<7:
            let installments = shape == .legacy ? "" : #","installments":\#(1 + rng.next() % 6)"#
            return #"{"type":"payment.captured",\#(envelope)\#(version),"paymentId":"\#(paymentId)","amount":\#(money()),"merchant":\#(merchant())\#(installments)\#(extra)}"#
        case 7..<9:
            let reason = shape == .future ? "chargeback_lost" : pick(["requested_by_customer", "duplicate", "fraudulent"])
            return #"{"type":"payment.refunded",\#(envelope)\#(version),"paymentId":"\#(paymentId)","amount":\#(money()),"reason":"\#(reason)"\#(extra)}"#
        default:
            return #"{"type":"payment.failed",\#(envelope)\#(version),"paymentId":"\#(paymentId)","amount":\#(money()),"failure":{"code":"\#(pick(["card_declined", "insufficient_funds", "expired_card"]))","message":"Declined by issuer"}\#(extra)}"#
        }
    }

    mutating func malformedPayment(envelope: String, paymentId: String) -> String {
        switch rng.next() % 5 {
        case 0:  // missing id
            return #"{"type":"payment.captured","occurredAt":"\#(timestamp())","paymentId":"\#(paymentId)","amount":\#(money()),"merchant":\#(merchant())}"#
        case 1:  // amount.value as a string
            return #"{"type":"payment.captured",\#(envelope),"paymentId":"\#(paymentId)","amount":{"value":"1999","currency":"EUR"},"merchant":\#(merchant())}"#
        case 2:  // null merchant name
            return #"{"type":"payment.authorized",\#(envelope),"paymentId":"\#(paymentId)","amount":\#(money()),"merchant":{"id":"\#(id("mrc"))","name":null},"method":"card"}"#
        case 3:  // not a timestamp
            return #"{"type":"payment.refunded","id":"\#(id("evt"))","occurredAt":"yesterday","paymentId":"\#(paymentId)","amount":\#(money()),"reason":"duplicate"}"#
        default:  // truncated
            return #"{"type":"payment.captured",\#(envelope),"paymentId":"\#(paymentId)","amount":{"value":12"#
        }
    }

    mutating func feed(_ shape: Shape) -> String {
        let postId = id("post")
        lastKey = postId
        let envelope = #""id":"\#(id("evt"))","occurredAt":"\#(timestamp())""#
        let version = shape == .legacy ? "" : #","schemaVersion":\#(shape == .future ? 3 : 2)"#
        let extra = shape == .future ? #","locale":"de-CH","ranking":{"score":0.125,"model":"v7"}"# : ""
        switch shape {
        case .unknownType:
            return #"{"type":"\#(pick(["story.posted", "reel.shared"]))",\#(envelope),"storyId":"\#(id("sty"))","authorId":"\#(id("usr"))"}"#
        case .malformed:
            switch rng.next() % 4 {
            case 0: return #"{"type":"post.created",\#(envelope),"postId":"\#(postId)","authorId":"\#(id("usr"))","text":"hello","tags":["a",7]}"#
            case 1: return #"{"type":"post.liked",\#(envelope),"postId":"\#(postId)"}"#
            case 2: return #"{"type":"comment.added","id":"","occurredAt":"\#(timestamp())","postId":"\#(postId)","commentId":"\#(id("cmt"))","authorId":"\#(id("usr"))","text":"hi"}"#
            default: return #"{"type":"user.followed",\#(envelope),"followerId":"\#(id("usr"))","followeeId":"\#(id("usr"))","followerId":"dup"}"#
            }
        default:
            break
        }
        switch rng.next() % 10 {
        case 0..<4:
            let text = pick(["Grüße aus Zürich 🇨🇭", "Shipping v2 today!", "Line one\\nline two", "\\\"Quoted\\\" and \\\\ slashed"])
            let tags = #"["\#(pick(["travel", "swift", "kafka"]))","\#(pick(["food", "news", "dev"]))"]"#
            let visibility = shape == .future ? "close_friends" : pick(["public", "followers", "private"])
            let media = shape == .legacy ? "" : #","mediaCount":\#(rng.next() % 4)"#
            return #"{"type":"post.created",\#(envelope)\#(version),"postId":"\#(postId)","authorId":"\#(id("usr"))","text":"\#(text)","tags":\#(tags),"visibility":"\#(visibility)"\#(media)\#(extra)}"#
        case 4..<7:
            return #"{"type":"post.liked",\#(envelope)\#(version),"postId":"\#(postId)","userId":"\#(id("usr"))"\#(extra)}"#
        case 7..<9:
            return #"{"type":"comment.added",\#(envelope)\#(version),"postId":"\#(postId)","commentId":"\#(id("cmt"))","authorId":"\#(id("usr"))","text":"Nice! 👍"\#(extra)}"#
        default:
            return #"{"type":"user.followed",\#(envelope)\#(version),"followerId":"\#(id("usr"))","followeeId":"\#(id("usr"))"\#(extra)}"#
        }
    }
}

/// A small, fast, seedable generator (SplitMix64): the same seed gives the same corpus everywhere.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension String {
    var utf8Array: [UInt8] { Array(utf8) }
}
