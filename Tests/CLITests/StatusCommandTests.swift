import Foundation
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// `switchyard status` reads a running worker's `/status` and says what needs attention: its halts first.
@Suite(.serialized, .timeLimit(.minutes(3))) struct StatusCommandTests {
    @Test func statusShowsAWorkersHaltLagAndAssignment() async throws {
        let worker = try await HaltedPaymentsWorker.start(withLag: true)
        defer { worker.stop() }
        let (port, group, config) = (worker.port, worker.group, worker.config)

        let status = try await CLI.runOffPool(["status", "--url", "http://127.0.0.1:\(port)"])
        #expect(status.exitCode == 1, "a halt needs attention: \(status.stdout)\(status.stderr)")
        let lines = status.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Worker http://127.0.0.1:\(port)/status: running, group \(group), ") == true, "\(status.stdout)")
        #expect(lines.contains { $0.hasPrefix("HALTED (1)") }, "\(status.stdout)")
        #expect(lines.contains { $0.hasPrefix("  payments/0@1  keyNotFound at 'amount' (payment.captured)  since ") }, "\(status.stdout)")
        #expect(lines.contains { $0.hasPrefix("    dead letter: payments.dlq/0@0") }, "\(status.stdout)")
        #expect(lines.contains("    release: switchyard release -b BROKERS --group \(group) payments/0@1 --status http://127.0.0.1:\(port)/status --reason '…'"), "\(status.stdout)")
        // The assignment with its lag and state: at least the halted record and the one behind it are not done.
        let row = try #require(lines.first { $0.hasPrefix("  payments ") }, "\(status.stdout)")
        let cells = row.split(separator: " ").map(String.init)
        #expect(cells.count == 4 && cells[0] == "payments" && cells[1] == "0" && cells[3] == "HALTED", "\(row)")
        #expect((Int(cells[2]) ?? 0) >= 2, "the lag: \(row)")

        // The /status path or the config give the same; --json is the document.
        let byConfig = try await CLI.runOffPool(["status", "-c", config.path])
        #expect(byConfig.exitCode == 1 && byConfig.stdout.contains("HALTED (1)"), "\(byConfig.stdout)\(byConfig.stderr)")
        let json = try await CLI.runOffPool(["status", "--url", "http://127.0.0.1:\(port)/metrics", "--json"])
        #expect(json.exitCode == 1, "\(json.stderr)")
        let o = try ReplayCommandTests.object(json.stdout)
        #expect((o["halted"] as? [[String: Any]])?.first?["record"] as? String == "payments/0@1", "\(json.stdout)")

        // A saved document reads the same (the release line then names no URL of its own).
        let saved = temporaryFile("status.json")
        try Data(json.stdout.utf8).write(to: saved)
        defer { try? FileManager.default.removeItem(at: saved) }
        let fromFile = try await CLI.runOffPool(["status", "--file", saved.path])
        #expect(fromFile.exitCode == 1 && fromFile.stdout.contains("  payments/0@1  keyNotFound at 'amount'"), "\(fromFile.stdout)\(fromFile.stderr)")
        let notStatus = try await CLI.runOffPool(["status", "--file", OnCallTests.fixture("feeds.ndjson")])
        #expect(notStatus.exitCode == 65, "\(notStatus.stderr)")

        // Nothing listening: exit 69 saying where it looked.
        let nobody = freePort()
        let down = try await CLI.runOffPool(["status", "--url", "http://127.0.0.1:\(nobody)"])
        #expect(down.exitCode == 69, "\(down.stderr)")
        #expect(down.stderr.hasPrefix("error: cannot read http://127.0.0.1:\(nobody)/status: "), "\(down.stderr)")
    }
}
