// switchyard-chaos-worker: the `switchyard` command line with a handler that a record steers, for
// scripts/chaos.py (`make chaos`).
//
//   switchyard-chaos-worker consume -c CONFIG.json
//
// Built the way a team builds its own binary (SwitchyardCommand.main with a handler factory), so the soak runs
// the deployed `consume`: its signals, drain and exit codes. One handler for payment.captured, one for
// post.liked and one for unknown feeds types; each reads the record's `chaos.handler` header:
//
//   sleep:MS   waits MS milliseconds (a slow handler; a long wait is a stuck one that recovers)
//   fail:N     throws a retryable error on the first N attempts, then succeeds (a handler stuck on a failing
//              dependency, recovering through the topic's retry policy)
//
// and handles the record (republishing is the configuration's `republishTo`). No header: handled at once.
import Foundation
import Switchyard
import SwitchyardCLI
import SwitchyardCatalog

/// The error a `fail:N` record throws on its first N attempts.
struct DependencyUnavailable: Error, CustomStringConvertible {
    var attempt: Int
    var description: String { "the dependency is unavailable (attempt \(attempt))" }
}

/// What the record's `chaos.handler` header asks for.
@Sendable func steer(_ context: RecordContext) async throws {
    guard let header = context.headers.last(where: { $0.name == "chaos.handler" }), let value = header.value else { return }
    let text = String(decoding: value, as: UTF8.self)
    let parts = text.split(separator: ":", maxSplits: 1)
    guard parts.count == 2, let n = Int(parts[1]), n >= 0 else {
        throw RecordRejected(kind: "chaosHeader", reason: "chaos.handler must be sleep:MS or fail:N")
    }
    switch parts[0] {
    case "sleep": try await Task.sleep(for: .milliseconds(n))
    case "fail": if context.attempt <= n { throw DependencyUnavailable(attempt: context.attempt) }
    default: throw RecordRejected(kind: "chaosHeader", reason: "chaos.handler must be sleep:MS or fail:N")
    }
}

await SwitchyardCommand.main(catalogs: [PaymentEvent.self, FeedEvent.self]) { _ in
    var handlers = EventHandlers()
    handlers.on(PaymentCaptured.self) { _, context in try await steer(context) }
    handlers.on(PostLiked.self) { _, context in try await steer(context) }
    handlers.onUnknown { _, _, context in try await steer(context) }
    return handlers
}
