import Foundation
import Testing

/// `orders-switchyard demo` over the team's own catalog: the fixtures on the embedded broker, under the
/// catalog's default policy (strict), with the dead letter and the halt in the summary.
@Suite(.timeLimit(.minutes(2)))
struct DemoTests {
    @Test func demoRunsOverTheTeamsCatalog() async throws {
        let result = try await ordersSwitchyard(
            ["demo", "--exit", "--metrics-port", "0", "--records", "orders=Fixtures/orders.ndjson"], timeout: 100)
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Produced \(try fixtureLines().count) records to orders (strict)."), "\(result.stdout)")
        #expect(result.stdout.contains("orders (strict):"))
        #expect(result.stdout.contains("Dead-lettered to orders.dlq:"))
        #expect(result.stdout.contains("HALTED: orders"))
        #expect(result.stdout.contains("The record is in orders.dlq"))
    }

    @Test func demoWithoutRecordsSaysWhatToPass() async throws {
        let result = try await ordersSwitchyard(["demo", "--exit"])
        #expect(result.exitCode == 64)
        #expect(result.stderr.hasPrefix("error: this binary's catalogs (orders, reservations) have no built-in sample stream: pass --records orders=FILE (NDJSON)"))
    }
}
