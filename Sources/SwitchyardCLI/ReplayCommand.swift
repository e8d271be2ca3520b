import Foundation
import Switchyard

/// `switchyard replay`: decodes captured records offline and reports what a worker would do.
struct ReplayCommand: Command {
    static let name = "replay"
    static let abstract = "Decode captured topic dumps offline: would this build decode that traffic?"
    static let usage = "switchyard replay --topic payments|feeds [--json|--records|--emit] [--roundtrip] FILE…"

    init(arguments: inout Arguments) throws {
        _ = try arguments.positionals()
    }

    func run() async throws -> ExitCode { .success }
}
