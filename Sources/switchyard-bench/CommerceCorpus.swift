import Switchyard

/// Seeded records of the bench's `commerce` catalog (Schemas/commerce): an order lifecycle as a shop's
/// order service publishes it, with what real catalogs carry beyond the shipped ones: payment methods as a
/// discriminated union (and arrays of them), attribute maps, required-but-nullable and optional members,
/// exact money amounts under `multipleOf: 0.01`, patterns and ranges.
///
/// The mix: 97% valid records (created 40%, paid 30%, shipped 20%, cancelled 10%), 2% an event type the
/// catalog does not list, 1% breaking a rule (an amount of three decimals, a malformed order id, a
/// quantity of 0), so that both sides pay for the failures a strict topic sees.
struct CommerceCorpus {
    private var rng: SplitMix64

    init(seed: UInt64) {
        rng = SplitMix64(seed: seed)
    }

    mutating func next() -> String {
        let roll = Int(rng.next() % 100)
        if roll < 2 { return unknownType() }
        if roll < 3 { return broken() }
        switch Int(rng.next() % 10) {
        case 0..<4: return created()
        case 4..<7: return paid()
        case 7..<9: return shipped()
        default: return cancelled()
        }
    }

    // MARK: - Parts

    private mutating func below(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
    private mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    private mutating func pick(_ options: [String]) -> String { options[below(options.count)] }

    private mutating func digits(_ count: Int) -> String {
        var s = ""
        for _ in 0..<count { s.append(Character(Unicode.Scalar(UInt8(ascii: "0") + UInt8(below(10))))) }
        return s
    }

    private mutating func hex(_ count: Int) -> String {
        let alphabet = Array("0123456789abcdef")
        var s = ""
        for _ in 0..<count { s.append(alphabet[below(16)]) }
        return s
    }

    private mutating func uuid() -> String { "\(hex(8))-\(hex(4))-4\(hex(3))-a\(hex(3))-\(hex(12))" }

    private mutating func timestamp() -> String {
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let second = below(86_400)
        return "2026-\(two(1 + below(12)))-\(two(1 + below(28)))T\(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60)).\(100 + below(900))Z"
    }

    /// An amount in cents written as JSON writes money: `49.48`, `9.5`, `120`.
    private mutating func amount(maximumCents: Int = 50_000) -> String {
        let cents = below(maximumCents)
        let whole = cents / 100
        let fraction = cents % 100
        if fraction == 0 { return "\(whole)" }
        if fraction % 10 == 0 { return "\(whole).\(fraction / 10)" }
        return fraction < 10 ? "\(whole).0\(fraction)" : "\(whole).\(fraction)"
    }

    private mutating func money(_ amount: String? = nil, currency: String) -> String {
        #"{"amount":\#(amount ?? self.amount()),"currency":"\#(currency)"}"#
    }

    private mutating func header(_ event: String, orderId: String? = nil) -> String {
        let correlation = chance(70) ? #""chk_\#(hex(6))""# : "null"
        let order = orderId ?? "ORD-\(digits(8))"
        return #""event":"\#(event)","event_id":"\#(uuid())","order_id":"\#(order)","emitted_at":"\#(timestamp())","correlation_id":\#(correlation)"#
    }

    private mutating func address() -> String {
        let places = [
            (#""name":"Erika Mustermann","line1":"Heidestraße 17""#, "Köln", "51147", "DE"),
            (#""name":"Jan de Vries","line1":"Prinsengracht 263""#, "Amsterdam", "1016 GV", "NL"),
            (#""line1":"221B Baker Street""#, "London", "NW1 6XE", "GB"),
            (#""name":"Ana García","line1":"Calle de Alcalá 42""#, "Madrid", "28014", "ES"),
            (#""name":"Chris O'Neil","line1":"1600 Amphitheatre Pkwy""#, "Mountain View", "94043", "US"),
        ]
        let p = places[below(places.count)]
        let line2 = chance(30) ? #""Apt \#(1 + below(40))""# : "null"
        return #"{\#(p.0),"line2":\#(line2),"city":"\#(p.1)","postal_code":"\#(p.2)","country":"\#(p.3)"}"#
    }

    private mutating func paymentMethod(allowGiftCard: Bool = true) -> String {
        switch below(allowGiftCard ? 4 : 3) {
        case 0:
            let secure = chance(50) ? #","three_d_secure":\#(chance(80))"# : ""
            return #"{"method":"card","brand":"\#(pick(["visa", "mastercard", "amex"]))","last4":"\#(digits(4))"\#(secure)}"#
        case 1:
            let payer = chance(50) ? #","payer_id":"PP\#(hex(10).uppercased())""# : ""
            return #"{"method":"paypal","payer_email":"buyer\#(below(10_000))@example.com"\#(payer)}"#
        case 2:
            let installments = chance(50) ? #","installments":\#(1 + below(12))"# : ""
            return #"{"method":"klarna","plan":"\#(pick(["pay_now", "pay_later", "slice_it"]))"\#(installments)}"#
        default:
            return #"{"method":"gift_card","code_suffix":"\#(hex(4).uppercased())","remaining":\#(money(currency: "EUR"))}"#
        }
    }

    // MARK: - Events

    private mutating func created() -> String {
        let currency = pick(["EUR", "EUR", "USD", "GBP", "CHF"])
        var lines: [String] = []
        for _ in 0..<(1 + below(4)) {
            let title = chance(60) ? #","title":"\#(pick(["T-Shirt schwarz M", "Kaffeebecher 0,3 l", "Running Shoe \\\"Aero\\\"", "Notebook A5", "Wool scarf"]))""# : ""
            var attributes = ""
            if chance(50) {
                var entries: [String] = []
                let keys = ["size", "color", "material", "fit"]
                for k in 0..<(1 + below(3)) { entries.append(#""\#(keys[k])":"\#(pick(["M", "black", "cotton", "regular", "blue", "L"]))""#) }
                attributes = #","attributes":{\#(entries.joined(separator: ","))}"#
            }
            let sku = "\(pick(["TSHIRT", "MUG", "SHOE", "BOOK", "SCARF"]))-\(hex(4).uppercased())"
            lines.append(#"{"sku":"\#(sku)"\#(title),"quantity":\#(1 + below(5)),"unit_price":\#(money(currency: currency))\#(attributes)}"#)
        }
        let segment = chance(70) ? #","segment":"\#(pick(["new", "returning", "vip"]))""# : ""
        let coupon = chance(20) ? #""SAVE\#(below(50))""# : "null"
        let billing = chance(40) ? address() : "null"
        let gift = chance(10) ? #","gift_wrap":true"# : ""
        return #"{\#(header("order_created")),"customer":{"id":"cus_\#(hex(8))","email":"buyer\#(below(10_000))@example.com"\#(segment)},"lines":[\#(lines.joined(separator: ","))],"total":\#(money(currency: currency)),"coupon":\#(coupon),"shipping_address":\#(address()),"billing_address":\#(billing)\#(gift)}"#
    }

    private mutating func paid() -> String {
        var split = ""
        if chance(15) {
            var methods: [String] = []
            for _ in 0..<(1 + below(2)) { methods.append(paymentMethod()) }
            split = #","split_payments":[\#(methods.joined(separator: ","))]"#
        }
        let psp = chance(80) ? #","psp_reference":"\#(digits(15))K""# : ""
        return #"{\#(header("order_paid")),"payment":\#(paymentMethod()),"amount":\#(money(currency: pick(["EUR", "USD"])))\#(split)\#(psp)}"#
    }

    private mutating func shipped() -> String {
        var parcels: [String] = []
        for _ in 0..<(1 + below(3)) {
            var skus: [String] = []
            for i in 0..<(1 + below(3)) { skus.append(#""\#(pick(["TSHIRT", "MUG", "SHOE"]))-\#(i)\#(hex(3).uppercased())""#) }
            parcels.append(#"{"weight_kg":\#(1 + below(30)).\#(below(10)),"skus":[\#(skus.joined(separator: ","))]}"#)
        }
        let delivery = chance(60) ? #""2026-12-\#(10 + below(18))""# : "null"
        let estimated = chance(80) ? #","estimated_delivery":\#(delivery)"# : ""
        return #"{\#(header("order_shipped")),"carrier":"\#(pick(["dhl", "ups", "fedex", "postnl"]))","tracking_number":"\#(hex(4).uppercased())\#(digits(10))"\#(estimated),"parcels":[\#(parcels.joined(separator: ","))]}"#
    }

    private mutating func cancelled() -> String {
        let refund = chance(70) ? money(currency: "EUR") : "null"
        let note = chance(40) ? #","note":"\#(pick(["Kunde hat storniert", "duplicate order", "address could not be verified"]))""# : ""
        return #"{\#(header("order_cancelled")),"reason":"\#(pick(["customer_request", "payment_failed", "out_of_stock", "fraud_suspected"]))"\#(note),"refund":\#(refund)}"#
    }

    private mutating func unknownType() -> String {
        #"{\#(header("order_returned")),"items":[{"sku":"MUG-01","quantity":1}],"refund":\#(money(currency: "EUR"))}"#
    }

    private mutating func broken() -> String {
        switch below(3) {
        case 0: return #"{\#(header("order_paid")),"payment":\#(paymentMethod()),"amount":{"amount":12.345,"currency":"EUR"}}"#
        case 1: return #"{\#(header("order_cancelled", orderId: "ORD-\(digits(6))")),"reason":"customer_request","refund":null}"#
        default:
            return #"{\#(header("order_created")),"customer":{"id":"cus_1","email":"a@example.com"},"lines":[{"sku":"MUG-01","quantity":0,"unit_price":{"amount":9.5,"currency":"EUR"}}],"total":{"amount":0,"currency":"EUR"},"coupon":null,"shipping_address":\#(address()),"billing_address":null}"#
        }
    }
}
