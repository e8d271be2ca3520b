import Foundation
import SwitchyardTestSupport
import Testing

/// The completion scripts offer this binary's catalog names where a catalog is asked for, and its event
/// types for `dlq --type`; the commands still check the value themselves.
@Suite(.serialized, .timeLimit(.minutes(3))) struct CatalogCompletionTests {
    @Test func catalogNamesAndEventTypesComplete() async throws {
        let bash = try BashCompletion()
        defer { bash.remove() }
        func complete(_ words: [String]) async throws -> [String] { try await bash.complete(words) }
        let catalogs = try #require((try ReplayCommandTests.object(try CLI.run(["version", "--json"]).stdout)["catalogs"] as? [[String: Any]]))
        let names = catalogs.compactMap { $0["name"] as? String }
        #expect(names.contains("payments") && names.contains("feeds"))
        #expect(try await complete(["switchyard", "replay", "--catalog", ""]).sorted() == names.sorted())
        #expect(try await complete(["switchyard", "replay", "--catalog", "pay"]) == ["payments"])
        #expect(try await complete(["switchyard", "schema", "check", "--catalog", "fe"]) == ["feeds"])
        #expect(try await complete(["switchyard", "dlq", "list", "--type", "post.l"]) == ["post.liked"])

        let fish = try CLI.run(["completion", "fish"]).stdout
        #expect(fish.contains("__fish_seen_subcommand_from replay' -l catalog -x -a '\(names.joined(separator: " "))'"), "\(fish)")
        let zsh = try CLI.run(["completion", "zsh"]).stdout
        #expect(
            zsh.split(separator: "\n").contains { $0.contains("'--catalog[Decode every record") && $0.contains("]:NAME:(\(names.joined(separator: " ")))'") },
            "\(zsh)")
        // A name the binary does not have is still the command's own usage error, with did-you-mean.
        let misspelt = try CLI.run(["replay", "--catalog", "paymnts", "x.ndjson"])
        #expect(misspelt.exitCode == 64 && misspelt.stderr.contains("did you mean 'payments'?"), "\(misspelt.stderr)")
    }
}
