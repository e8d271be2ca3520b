import Switchyard
import SwitchyardJSON
import Synchronization

/// The state of every order this service has seen, built by applying `orders` events in order.
///
/// The handlers are written against the generated types (`OrderPlaced`, `OrderShipped`,
/// `OrderCancelled`): a new event type in the schema is a new `case` the compiler asks ``apply(_:)``
/// to handle. A real service would write to its database here; ``OrderHandlers`` applies the events
/// the worker hands it.
public struct OrderBook: Sendable, Hashable {
    /// Where an order is in its life.
    public enum Status: String, Sendable, Hashable {
        case placed, shipped, cancelled
    }

    /// What the book knows about one order.
    public struct Order: Sendable, Hashable {
        public var customerId: String
        public var status: Status
        /// Units per SKU.
        public var units: [String: Int]
        public var total: OrderEvent.Money
        public var giftWrap: Bool
        public var loyaltyPoints: Int
        /// The shipping country, nil for store pickup.
        public var country: String?
        /// Tracking numbers of the parcels shipped so far.
        public var trackingNumbers: [String] = []
        /// Whether the cancelled items go back on the shelf.
        public var restocked = false
    }

    public private(set) var orders: [String: Order] = [:]
    /// Events whose order this book never saw placed (out of order, or placed before the topic's retention).
    public private(set) var orphans = 0
    /// Events of a type this build does not know (only on a lenient topic; `orders` is strict).
    public private(set) var unknownEvents = 0

    public init() {}

    /// Applies one event.
    public mutating func apply(_ event: OrderEvent) {
        switch event {
        case .placed(let placed): apply(placed)
        case .shipped(let shipped): apply(shipped)
        case .cancelled(let cancelled): apply(cancelled)
        case .unknown: unknownEvents += 1
        }
    }

    public mutating func apply(_ event: OrderEvent.OrderPlaced) {
        var units: [String: Int] = [:]
        for item in event.items { units[item.sku, default: 0] += item.quantity }
        orders[event.orderId] = Order(
            customerId: event.customerId, status: .placed, units: units, total: event.total,
            giftWrap: event.giftWrap, loyaltyPoints: event.loyaltyPoints, country: event.shippingAddress?.country)
    }

    public mutating func apply(_ event: OrderEvent.OrderShipped) {
        guard orders[event.orderId] != nil else { return orphans += 1 }
        orders[event.orderId]!.status = .shipped
        orders[event.orderId]!.trackingNumbers += event.parcels.map(\.trackingNumber)
    }

    public mutating func apply(_ event: OrderEvent.OrderCancelled) {
        guard orders[event.orderId] != nil else { return orphans += 1 }
        orders[event.orderId]!.status = .cancelled
        // An unrecognised reason (a newer producer's) still cancels; only fraud keeps the stock back.
        orders[event.orderId]!.restocked = event.restock && event.reason.known != .fraudSuspected
    }

    /// A book shared between the worker's partitions.
    public final class Shared: Sendable {
        private let book = Mutex(OrderBook())

        public init() {}

        public func withLock<R: Sendable>(_ body: (inout OrderBook) -> R) -> R { book.withLock { body(&$0) } }

        public var snapshot: OrderBook { withLock { $0 } }
    }
}
