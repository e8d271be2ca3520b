import Orders
import Switchyard
import Testing

/// The handlers, written against the generated types, over the decodable fixture records.
@Suite struct OrderBookTests {
    @Test func appliesTheFixtureEvents() throws {
        var book = OrderBook()
        var codec = TopicCodec(catalog: Catalog(OrderEvent.self), policy: .strict)
        for line in try fixtureLines() {
            guard let event = codec.decode(Array(line.utf8)).event as? OrderEvent else { continue }
            book.apply(event)
        }
        let first = try #require(book.orders["ord-1001"])
        #expect(first.status == .shipped)
        #expect(first.units == ["SKU-TEA-01": 2, "SKU-MUG-02": 1])
        #expect(first.trackingNumbers == ["JD0146000012345"])
        #expect(first.country == "DE")
        #expect(!first.giftWrap && first.loyaltyPoints == 0, "v1 defaults")

        let second = try #require(book.orders["ord-1002"])
        #expect(second.giftWrap && second.loyaltyPoints == 40 && second.country == nil)

        let third = try #require(book.orders["ord-1003"])
        #expect(third.status == .cancelled && third.restocked, "v1 cancellation: restock defaults to true")
        #expect(book.orphans == 1, "ord-1004 was cancelled but never placed here")
    }
}
