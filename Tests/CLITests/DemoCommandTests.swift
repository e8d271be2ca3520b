import Foundation
import Testing

/// `switchyard demo` as `make demo` runs it (not on a terminal: it stops after the summary).
@Suite(.serialized) struct DemoCommandTests {
    @Test func demoShowsTypesUnknownsDeadLettersAndTheHaltedPartition() throws {
        let result = try CLI.run(["demo", "--exit", "--metrics-port", "0"], timeout: 180)
        #expect(result.exitCode == 0, "\(result.stderr)")
        let out = result.stdout
        #expect(out.contains("embedded broker at 127.0.0.1:"))
        #expect(out.contains("feeds (lenient): 300 records handled"))
        for type in ["post.created", "post.liked", "comment.added", "user.followed", "payment.authorized", "payment.captured"] {
            #expect(out.contains(type), "\(type) missing")
        }
        #expect(out.contains("UNKNOWN TYPE (handed on)"))
        // Issue 15, item 13: the dead-letter table's title is its own line, and its columns line up.
        let lines = out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for dlq in ["feeds.dlq", "payments.dlq"] {
            let title = try #require(lines.firstIndex(of: "  Dead-lettered to \(dlq):"), "\(dlq) title")
            let header = lines[title + 1]
            #expect(header.hasPrefix("    KIND "), "\(header)")
            let columns = ["PATH", "TYPE", "COUNT"].map { header.range(of: $0)!.lowerBound.utf16Offset(in: header) }
            let rows = lines[(title + 2)...].prefix { $0.hasPrefix("    ") && !$0.hasPrefix("    KIND") }
            #expect(!rows.isEmpty)
            for row in rows {
                for column in columns {
                    let utf16 = Array(row.utf16)
                    #expect(utf16.count > column && utf16[column] != 0x20 && utf16[column - 1] == 0x20, "aligned: \(row)")
                }
            }
        }
        #expect(out.contains("HALTED: payments/1@20: "), "one way to name a record")
        #expect(out.contains("republished 80 events to payments.canonical"))
        #expect(out.contains("switchyard release -b ") && out.contains(" --group switchyard-demo payments/1@20 --reason"))
        #expect(out.contains("switchyard dlq show -b ") && out.contains(" payments.dlq/0@"))
        #expect(result.stderr.isEmpty, "the demo keeps stderr quiet: \(result.stderr)")
    }

    @Test func demoUsageErrors() throws {
        #expect(try CLI.run(["demo", "--stay", "--exit"]).exitCode == 64)
        #expect(try CLI.run(["demo", "--metrics-port", "70000"]).exitCode == 64)
        let help = try CLI.run(["demo", "--help"])
        #expect(help.exitCode == 0 && help.stdout.contains("USAGE: switchyard demo"))
    }
}
