import Foundation
import Testing

/// The built `orders-switchyard replay` over the example's fixtures: what a release engineer runs
/// against yesterday's dump before shipping a build.
@Suite(.timeLimit(.minutes(2)))
struct ReplayTests {
    /// What each line of `Fixtures/orders.ndjson` must decode to: outcome, type, failure kind and path.
    static let expected: [(outcome: String, type: String, kind: String?, path: String?)] = [
        ("decoded", "order.placed", nil, nil),  // v1: no giftWrap, loyaltyPoints, deliverBy
        ("decoded", "order.placed", nil, nil),  // v2: every member
        ("decoded", "order.placed", nil, nil),  // unknown fields (nested too), unknown channel, explicit nulls
        ("decoded", "order.shipped", nil, nil),
        ("decoded", "order.shipped", nil, nil),  // weightGrams and estimatedDelivery null, unknown field
        ("decoded", "order.cancelled", nil, nil),  // v1: restock absent
        ("decoded", "order.cancelled", nil, nil),  // v2, unknown reason, note null
        ("failed", "order.placed", "keyNotFound", "customerId"),
        ("failed", "order.placed", "typeMismatch", "items[1].quantity"),
        ("failed", "order.returned", "unknownType", ""),
        ("failed", "order.shipped", "typeMismatch", "parcels[0].skus[1]"),
        ("failed", "order.cancelled", "typeMismatch", "restock"),
        ("failed", "order.placed", "dataCorrupted", "items[0].quantity"),  // minimum 1
        ("failed", "order.shipped", "dataCorrupted", "orderId"),  // minLength 1
        ("failed", "order.placed", "dataCorrupted", "deliverBy"),  // not RFC 3339
    ]

    @Test func recordsClassifiesEveryFixtureLine() async throws {
        let result = try await ordersSwitchyard(["replay", "--catalog", "orders", "--records", "Fixtures/orders.ndjson"])
        #expect(result.exitCode == 1, "a strict catalog with failures exits 1; stderr: \(result.stderr)")
        let lines = result.stdoutLines
        try #require(lines.count == Self.expected.count, "\(result.stdout)")
        for (index, (line, expected)) in zip(lines, Self.expected).enumerated() {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(record["index"] as? Int == index, "\(line)")
            #expect(record["outcome"] as? String == expected.outcome, "line \(index + 1): \(line)")
            #expect(record["type"] as? String == expected.type, "line \(index + 1): \(line)")
            #expect(record["kind"] as? String == expected.kind, "line \(index + 1): \(line)")
            #expect(record["path"] as? String == expected.path, "line \(index + 1): \(line)")
        }
    }

    @Test func summaryCountsAndRoundTrip() async throws {
        let result = try await ordersSwitchyard(["replay", "--catalog", "orders", "--roundtrip", "--json", "Fixtures/orders.ndjson"])
        #expect(result.exitCode == 1, "\(result.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
        let decoded = Self.expected.filter { $0.outcome == "decoded" }.count
        #expect(summary["records"] as? Int == Self.expected.count, "\(result.stdout)")
        #expect(summary["decoded"] as? Int == decoded, "\(result.stdout)")
        #expect(summary["failed"] as? Int == Self.expected.count - decoded, "\(result.stdout)")
        #expect(summary["unknownFields"] as? Int == 4, "kept: affiliate, discountCode, region, warehouse: \(result.stdout)")
        #expect(summary["lossy"] as? Int == 0, "every decoded record round-trips: \(result.stdout)")
    }

    @Test func decodedRecordsOnlyExitZero() async throws {
        let good = try fixtureLines().prefix(7).joined(separator: "\n") + "\n"
        let result = try await ordersSwitchyard(["replay", "--catalog", "orders", "--roundtrip"], stdin: Data(good.utf8))
        #expect(result.exitCode == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("7 records: 7 decoded"), "\(result.stdout)")
        #expect(result.stdout.contains("Round trip: 7 of 7 decoded records faithful"), "\(result.stdout)")
    }

    @Test func unknownCatalogIsAUsageError() async throws {
        let result = try await ordersSwitchyard(["replay", "--catalog", "order", "Fixtures/orders.ndjson"])
        #expect(result.exitCode == 64, "\(result.stderr)")
        #expect(result.stderr.contains("orders"), "did you mean: \(result.stderr)")
    }
}
