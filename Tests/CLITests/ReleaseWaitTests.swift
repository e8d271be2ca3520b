import Foundation
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// `switchyard release --wait` returns once the worker applied the release, and says so when it does not.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ReleaseWaitTests {
    @Test func waitReturnsOnceTheWorkerMovedPastTheRecord() async throws {
        let worker = try await HaltedPaymentsWorker.start(extraTopics: ["switchyard.control": 1])
        defer { worker.stop() }
        let (port, group, config) = (worker.port, worker.group, worker.config)

        let start = ContinuousClock.now
        let release = try await CLI.runOffPool([
            "release", "-c", config.path, "payments/0@1", "--reason", "inspected", "--operator", "ana", "--wait", "--wait-timeout", "60",
        ])
        #expect(release.exitCode == 0, "\(release.stdout)\(release.stderr)")
        #expect(release.stdout.hasPrefix("release recorded: payments/0@1"), "\(release.stdout)")
        #expect(release.stderr.contains("release: applied: group \(group) committed payments/0 up to @"), "\(release.stderr)")
        #expect(ContinuousClock.now - start < .seconds(60))
        // By then the worker is past it.
        let status = await httpGet(port: port, "/status")?.body ?? ""
        #expect(!status.contains("\"record\":\"payments/0@1\""), "\(status)")
    }

    @Test func waitSaysWhenNoWorkerAppliesIt() async throws {
        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["payments": 2, "payments.dlq": 1, "switchyard.control": 1])
        let group = unique("payments-workers")
        try await ReleaseCheckTests.halt(broker, group: group)
        let release = try await CLI.runOffPool([
            "release", "-b", broker.bootstrapServers, "--group", group, "payments/1@20", "--reason", "x", "--operator", "ana", "--wait", "--wait-timeout", "2",
        ])
        #expect(release.exitCode == 1, "\(release.stdout)\(release.stderr)")
        #expect(release.stdout.hasPrefix("release recorded: payments/1@20"), "\(release.stdout)")
        #expect(
            release.stderr.contains(
                "release: not applied within 2.0 s (group \(group)'s committed offset is none): is a worker of group \(group) running and assigned payments/1?"),
            "\(release.stderr)")
        let usage = try await CLI.runOffPool(["release", "-b", broker.bootstrapServers, "--group", group, "payments/1@20", "--reason", "x", "--operator", "ana", "--wait-timeout", "2"])
        #expect(usage.exitCode == 64 && usage.stderr.hasPrefix("error: --wait-timeout goes with --wait"), "\(usage.stderr)")

        // The audit trail: the release just recorded, listed with who and why.
        let listed = try await CLI.runOffPool(["releases", "-b", broker.bootstrapServers, "--group", group])
        #expect(listed.exitCode == 0, "\(listed.stderr)")
        let row = try #require(listed.stdout.split(separator: "\n").first { $0.contains("payments/1@20") }, "\(listed.stdout)")
        #expect(row.contains(group) && row.contains(" ana ") && row.hasSuffix(" x"), "\(row)")
        #expect(listed.stdout.hasSuffix("1 release(s) of group \(group) of 1 in switchyard.control\n"), "\(listed.stdout)")
        let json = try await CLI.runOffPool(["releases", "-b", broker.bootstrapServers, "--json"])
        let o = try ReplayCommandTests.object(json.stdout)
        #expect(o["record"] as? String == "payments/1@20" && (o["release"] as? [String: Any])?["operator"] as? String == "ana", "\(json.stdout)")
        let other = try await CLI.runOffPool(["releases", "-b", broker.bootstrapServers, "--group", "nobody"])
        #expect(other.exitCode == 0 && other.stdout == "0 release(s) of group nobody of 1 in switchyard.control\n", "\(other.stdout)")
        // No control topic yet: none.
        let none = try await CLI.runOffPool(["releases", "-b", broker.bootstrapServers, "--control-topic", "no.such.control"])
        #expect(none.exitCode == 0 && none.stdout == "0 release(s) of 0 in no.such.control\n", "\(none.stdout)\(none.stderr)")
    }
}
