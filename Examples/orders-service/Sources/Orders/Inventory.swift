import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Stock levels: what the `order.placed` handler asks before it reserves.
public protocol Inventory: Sendable {
    /// Units of `sku` in stock.
    ///
    /// - Throws: ``InventoryError``: `unknownSku` for a SKU the inventory does not know, `badRequest` when it
    ///   refuses the request itself, `unavailable` when it cannot answer now (worth a retry).
    func available(sku: String) async throws -> Int
}

/// What the inventory answered instead of a stock level.
public enum InventoryError: Error, Equatable {
    /// The inventory does not know the SKU (404).
    case unknownSku
    /// The inventory refused the request itself (4xx): retrying cannot help.
    case badRequest(status: Int)
    /// The inventory could not answer (5xx, no connection): a retry may succeed.
    case unavailable
}

/// The inventory service over HTTP: `GET {baseURL}/stock/{sku}` answers the units in stock as text.
public struct HTTPInventory: Inventory {
    /// `http://host:port`, without a trailing slash.
    public var baseURL: String

    /// The inventory at `baseURL`.
    public init(baseURL: String) {
        self.baseURL = baseURL
    }

    public func available(sku: String) async throws -> Int {
        let path = sku.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? sku
        guard let url = URL(string: "\(baseURL)/stock/\(path)") else { throw InventoryError.badRequest(status: 0) }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(from: url)
        } catch {
            throw InventoryError.unavailable
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        switch status {
        case 200:
            guard let units = Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw InventoryError.unavailable
            }
            return units
        case 404: throw InventoryError.unknownSku
        case 400..<500: throw InventoryError.badRequest(status: status)
        default: throw InventoryError.unavailable
        }
    }
}
