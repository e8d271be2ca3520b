import Foundation
import Orders
import Switchyard
import SwitchyardJSON
import Testing

/// The handlers without a broker: each fixture event dispatched as the worker would
/// (`EventHandlers.dispatch`), with a context made for the test and an inventory that answers from memory.
@Suite struct OrderHandlersTests {
    /// Stock per SKU; a SKU with an error answers it instead.
    struct StubInventory: Inventory {
        var stock: [String: Int] = ["SKU-TEA-01": 10, "SKU-MUG-02": 10, "SKU-KETTLE-9": 10]
        var errors: [String: InventoryError] = [:]

        func available(sku: String) async throws -> Int {
            if let error = errors[sku] { throw error }
            guard let units = stock[sku] else { throw InventoryError.unknownSku }
            return units
        }
    }

    /// The first fixture: order ord-1001, two lines (SKU-TEA-01 ×2, SKU-MUG-02 ×1).
    static func firstOrder() throws -> (event: OrderEvent, bytes: [UInt8]) {
        let line = try #require(try fixtureLines().first)
        var codec = TopicCodec(catalog: Catalog(OrderEvent.self), policy: .strict)
        let event = try #require(codec.decode(Array(line.utf8)).event as? OrderEvent)
        return (event, Array(line.utf8))
    }

    static func context(_ bytes: [UInt8], attempt: Int = 1) -> RecordContext {
        RecordContext(topic: "orders", partition: 0, offset: 12, key: Array("ord-1001".utf8), value: bytes, attempt: attempt)
    }

    @Test func aPlacedOrderIsBookedAndPublishesItsReservation() async throws {
        let (event, bytes) = try Self.firstOrder()
        let book = OrderBook.Shared()
        let handlers = OrderHandlers(inventory: StubInventory(), reservationsTopic: "orders.reserved", book: book).handlers
        let context = Self.context(bytes)
        #expect(try await handlers.dispatch(event, context: context) == .handled)
        #expect(book.snapshot.orders["ord-1001"]?.status == .placed)
        let published = try #require(context.published.first)
        #expect(context.published.count == 1 && published.topic == "orders.reserved")
        #expect(published.key == Array("ord-1001".utf8))
        // The reservation is an event of the reservations catalog: tag first, and it decodes there.
        var reservations = TopicCodec(catalog: Catalog(ReservationEvent.self), policy: .strict)
        guard case .reserved(let reserved) = reservations.decode(published.value).event as? ReservationEvent else {
            Issue.record("not an order.reserved: \(String(decoding: published.value ?? [], as: UTF8.self))")
            return
        }
        #expect(reserved.orderId == "ord-1001" && reserved.units == 3 && reserved.placedEventId == "evt-0001")
        #expect(String(decoding: published.value ?? [], as: UTF8.self).hasPrefix(#"{"type":"order.reserved""#))
    }

    @Test func businessRejectionsDeadLetterWithoutRetries() async throws {
        let (event, bytes) = try Self.firstOrder()
        var unknown = StubInventory()
        unknown.stock["SKU-MUG-02"] = nil
        let rejected = try await OrderHandlers(inventory: unknown, reservationsTopic: "orders.reserved").handlers
            .dispatch(event, context: Self.context(bytes))
        #expect(rejected == .deadLetter(kind: "unknownSku", reason: "a line's SKU is not in the inventory"))

        var short = StubInventory()
        short.stock["SKU-TEA-01"] = 1
        let context = Self.context(bytes)
        let outcome = try await OrderHandlers(inventory: short, reservationsTopic: "orders.reserved").handlers.dispatch(event, context: context)
        #expect(outcome == .deadLetter(kind: "outOfStock", reason: "a line asks for more units than the inventory has"))
        #expect(context.published.isEmpty, "nothing published for a rejected order")
    }

    @Test func anUnavailableInventoryIsRetriedARefusalIsNot() async throws {
        let (event, bytes) = try Self.firstOrder()
        var down = StubInventory()
        down.errors["SKU-TEA-01"] = .unavailable
        do {
            _ = try await OrderHandlers(inventory: down, reservationsTopic: "orders.reserved").handlers.dispatch(event, context: Self.context(bytes))
            Issue.record("an unavailable inventory did not throw")
        } catch {
            #expect(HandlerErrors.isRetryable(error), "the worker retries it: \(error)")
        }
        var refusing = StubInventory()
        refusing.errors["SKU-TEA-01"] = .badRequest(status: 400)
        do {
            _ = try await OrderHandlers(inventory: refusing, reservationsTopic: "orders.reserved").handlers.dispatch(event, context: Self.context(bytes))
            Issue.record("a refused request did not throw")
        } catch {
            #expect(!HandlerErrors.isRetryable(error), "permanent: no retries: \(error)")
        }
    }

    @Test func theHandlerFactoryReadsTheServiceSection() throws {
        let url = packageRoot.appendingPathComponent("config/orders.json")
        let configuration = try WorkerConfiguration.load(
            path: url.path, catalogs: CatalogRegistry([OrderEvent.self, ReservationEvent.self]), environment: [:])
        let settings = try configuration.service(as: OrdersSettings.self)
        #expect(settings.inventoryURL.hasPrefix("http://") && settings.reservationsTopic == "orders.reserved")
        #expect(configuration.topics["orders"]?.retry.attempts == 5)
    }
}
