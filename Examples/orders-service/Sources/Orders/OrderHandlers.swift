import Foundation
import Switchyard
import SwitchyardJSON

/// The service's handlers: what `orders-switchyard consume` runs for each `orders` event.
///
/// For `order.placed`, it checks stock with the inventory service for every line and publishes an
/// `order.reserved` event; each way a record can end is shown:
///
/// - an order for a SKU the inventory does not know is a business rejection: dead-lettered at once
///   (`unknownSku`) with its original bytes, and the partition goes on;
/// - not enough stock: dead-lettered too (`outOfStock`);
/// - the inventory service unavailable is retried per the topic's `retry` policy (the partition waits);
/// - the inventory service refusing the request itself (400: a bug here) is a ``PermanentError``: no
///   retries, straight to the topic's exhaustion action (halt on this strict topic);
/// - otherwise the order goes into the ``OrderBook`` and `order.reserved` is published, durable before the
///   record's offset is stored.
public struct OrderHandlers: Sendable {
    /// The inventory service.
    public var inventory: any Inventory
    /// Where `order.reserved` events go (the config's `service.reservationsTopic`).
    public var reservationsTopic: String
    /// The orders seen so far.
    public var book: OrderBook.Shared

    /// Handlers over `inventory`, publishing to `reservationsTopic`.
    public init(inventory: any Inventory, reservationsTopic: String, book: OrderBook.Shared = OrderBook.Shared()) {
        self.inventory = inventory
        self.reservationsTopic = reservationsTopic
        self.book = book
    }

    /// The handlers for the worker.
    public var handlers: EventHandlers {
        var handlers = EventHandlers()
        handlers.handle(OrderEvent.OrderPlaced.self) { [self] order, context in try await placed(order, context) }
        handlers.on(OrderEvent.OrderShipped.self) { [book] event, _ in book.withLock { $0.apply(event) } }
        handlers.on(OrderEvent.OrderCancelled.self) { [book] event, _ in book.withLock { $0.apply(event) } }
        return handlers
    }

    /// Checks stock for every line; publishes `order.reserved`.
    func placed(_ order: OrderEvent.OrderPlaced, _ context: RecordContext) async throws -> HandlerOutcome {
        var units = 0
        for item in order.items {
            let stock: Int
            do {
                stock = try await inventory.available(sku: item.sku)
            } catch InventoryError.unknownSku {
                return .deadLetter(kind: "unknownSku", reason: "a line's SKU is not in the inventory")
            } catch InventoryError.badRequest(let status) {
                throw PermanentError(InventoryError.badRequest(status: status))
            }
            guard stock >= item.quantity else {
                return .deadLetter(kind: "outOfStock", reason: "a line asks for more units than the inventory has")
            }
            units += item.quantity
        }
        book.withLock { $0.apply(order) }
        let reserved = ReservationEvent.OrderReserved(
            envelope: Envelope(id: "res-\(order.id)", occurredAt: Timestamp(Date())), orderId: order.orderId, units: units,
            placedEventId: order.id)
        try context.publish(reserved, to: reservationsTopic, key: order.orderId)
        context.logger.debug("order reserved", ["order.id": order.orderId, "order.units": String(units)])
        return .handled
    }
}

/// The service's own settings: the config file's `service` section.
///
/// ```json
/// "service": {"inventoryURL": "http://127.0.0.1:8080", "reservationsTopic": "orders.reserved"}
/// ```
public struct OrdersSettings: Decodable, Sendable {
    /// The inventory service's base URL.
    public var inventoryURL: String
    /// Where `order.reserved` events go. Default: `orders.reserved`.
    public var reservationsTopic: String

    enum CodingKeys: String, CodingKey { case inventoryURL, reservationsTopic }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        inventoryURL = try c.decode(String.self, forKey: .inventoryURL)
        reservationsTopic = try c.decodeIfPresent(String.self, forKey: .reservationsTopic) ?? "orders.reserved"
    }
}
