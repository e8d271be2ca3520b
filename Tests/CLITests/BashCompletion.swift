import Foundation
import SwitchyardTestSupport
import Testing

/// The binary's bash completion script in a file, asked to complete words as bash does on Tab.
struct BashCompletion {
    let file: URL

    /// Writes `switchyard completion bash` to a temporary file (`remove()` deletes it).
    init() throws {
        let script = try CLI.run(["completion", "bash"])
        #expect(script.exitCode == 0, "\(script.stderr)")
        file = temporaryFile("switchyard.bash")
        try Data(script.stdout.utf8).write(to: file)
    }

    /// What the script offers for `words`, the last one being the word typed so far.
    func complete(_ words: [String]) async throws -> [String] {
        let array = words.map { "'\($0)'" }.joined(separator: " ")
        let program = "source \(file.path); COMP_WORDS=(\(array)); COMP_CWORD=\(words.count - 1); _switchyard; printf '%s\\n' \"${COMPREPLY[@]}\""
        let result = try await runTool("/bin/bash", ["-c", program])
        #expect(result.status == 0, "\(result.stderr)")
        return OnCallTests.lines(result.stdout)
    }

    func remove() { try? FileManager.default.removeItem(at: file) }
}
