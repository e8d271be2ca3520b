import Foundation
import Testing

import SwitchyardTestSupport

/// `switchyard replay --config` applies the worker's `maxRecordBytes`: a dump is judged as the
/// worker would judge it.
@Suite struct ReplayLimitTests {
    @Test func configMaxRecordBytesFailsLargerRecords() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("replay-limit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("worker.json")
        try Data(#"{"brokers":"localhost:9092","groupId":"g","topics":{"feeds":{"catalog":"feeds"}},"maxRecordBytes":200}"#.utf8).write(to: config)
        let small = #"{\"type\":\"post.liked\",\"id\":\"e\",\"occurredAt\":\"2026-01-01T00:00:00Z\",\"postId\":\"p\",\"userId\":\"u\"}"#
        let large = #"{\"type\":\"post.liked\",\"id\":\"e\",\"occurredAt\":\"2026-01-01T00:00:00Z\",\"postId\":\"p\",\"userId\":\"u\",\"pad\":\"\#(String(repeating: "x", count: 300))\"}"#
        let dump = directory.appendingPathComponent("feeds.jsonl")
        let lines = [small, large].enumerated().map { i, payload in
            #"{"topic":"feeds","partition":0,"offset":\#(i),"tstype":"create","ts":0,"headers":[],"key":null,"payload":"\#(payload)"}"#
        }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: dump)
        let result = try CLI.run(["replay", "--config", config.path, "--records", dump.path])
        let out = result.stdout.split(separator: "\n").map(String.init)
        #expect(out.count == 2)
        #expect(out.first?.contains(#""outcome":"decoded""#) == true)
        #expect(out.last?.contains(#""outcome":"failed""#) == true && out.last?.contains(#""kind":"dataCorrupted""#) == true, "\(out)")
    }
}
