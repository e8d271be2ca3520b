import Foundation
import SwitchyardTestSupport
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
        // The dead-letter table's title is its own line, and its columns line up.
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
        #expect(out.contains("switchyard release -b ") && out.contains(" --group switchyard-demo payments/1@20 --operator \"${USER:-demo}\" --reason"))
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

/// What the demo tells you to run runs as printed, against the demo it printed it for.
@Suite(.serialized, .timeLimit(.minutes(4))) struct DemoSuggestionTests {
    @Test func everyCommandTheDemoSuggestsRunsAsPrinted() async throws {
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = ["demo", "--stay", "--metrics-port", "0"]
        process.currentDirectoryURL = CLI.packageRoot
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let handle = pipe.fileHandleForReading
        // Read until the last suggested command (the release, which ends with its --reason).
        let output = try await withDeadline(.seconds(150), "the demo's suggestions") {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
                DispatchQueue.global().async {
                    var text = ""
                    while !text.contains("--reason \"demo: record inspected\"\n") {
                        let chunk = handle.availableData
                        if chunk.isEmpty { return continuation.resume(throwing: TestFailure("the demo closed stdout: \(text)")) }
                        text += String(decoding: chunk, as: UTF8.self)
                    }
                    continuation.resume(returning: text)
                }
            }
        }
        let tail = try #require(output.components(separatedBy: "Look around (the broker and worker stay up until Ctrl-C):\n").last)
        let commands = tail.replacingOccurrences(of: " \\\n", with: " ").split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(commands.count == 5, "curl ×2, kcat, dlq show, release: \(commands)")
        for command in commands {
            let result = try await runTool("/bin/bash", ["-c", "PATH=\(CLI.binary.deletingLastPathComponent().path):$PATH; \(command)"])
            #expect(result.status == 0, "\(command): \(result.stderr)")
            #expect(!result.stdout.isEmpty, "\(command)")
            if command.hasPrefix("switchyard release") {
                #expect(result.stdout.hasPrefix("release recorded: payments/1@20 for group switchyard-demo"), "\(result.stdout)\(result.stderr)")
            }
        }
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}

/// A busy --metrics-port is found before the demo produces anything.
@Suite struct DemoPortTests {
    @Test func aBusyMetricsPortIsRefusedFirst() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        #expect(listen(listener, 1) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        let port = Int(UInt16(bigEndian: address.sin_port))

        let start = ContinuousClock.now
        let result = try CLI.run(["demo", "--exit", "--metrics-port", String(port)], timeout: 180)
        #expect(result.exitCode == 78, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.hasPrefix("error: --metrics-port \(port) cannot be used (address already in use)"), "\(result.stderr)")
        #expect(result.stdout.isEmpty, "nothing produced, nothing printed: \(result.stdout)")
        #expect(ContinuousClock.now - start < .seconds(5))
    }
}
