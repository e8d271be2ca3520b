// switchyard-chaos-worker: the worker with a handler that a record steers, for scripts/chaos.py (`make chaos`).
//
//   switchyard-chaos-worker CONFIG.json
//
// The same runtime as `switchyard consume` (policies, dead letters, republishing, offsets, /metrics and /status),
// built on the library API the way Examples/PaymentsLedger is, with one handler for payment.captured, one for
// post.liked and one for unknown feeds types. Each reads the record's `chaos.handler` header:
//
//   sleep:MS   waits MS milliseconds (a slow handler; a long wait is a stuck one that recovers)
//   fail:N     throws a retryable error on the first N attempts, then succeeds (a handler stuck on a failing
//              dependency, recovering through the topic's retry policy)
//
// and handles the record (republishing is the configuration's `republishTo`). No header: handled at once.
// SIGTERM drains and commits, as the shipped worker does. Exit codes: 64 usage, 78 configuration, 69 broker,
// 70 fatal.
import Foundation
import Switchyard
import SwitchyardCatalog
import SwitchyardKafka

func usage(_ message: String) -> Never {
    FileHandle.standardError.write(Data("switchyard-chaos-worker: \(message)\nusage: switchyard-chaos-worker CONFIG.json\n".utf8))
    exit(64)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 1, let configPath = arguments.first, !configPath.hasPrefix("-") else {
    usage("one argument, CONFIG.json, is required")
}

let configuration: WorkerConfiguration
do {
    configuration = try WorkerConfiguration.load(path: configPath, catalogs: CatalogRegistry(Catalog.shipped))
} catch {
    FileHandle.standardError.write(Data("\(configPath): \(error)\n".utf8))
    exit(78)
}

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

var handlers = EventHandlers()
handlers.on(PaymentCaptured.self) { _, context in try await steer(context) }
handlers.on(PostLiked.self) { _, context in try await steer(context) }
handlers.onUnknown { _, _, context in try await steer(context) }

do {
    let worker = try Worker(configuration: configuration, handlers: handlers)
    let server = try worker.serveEndpoints()
    signal(SIGTERM, SIG_IGN)
    signal(SIGINT, SIG_IGN)
    let terms = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .main)
    terms.setEventHandler { worker.stop() }
    terms.resume()
    let ints = DispatchSource.makeSignalSource(signal: SIGINT, queue: .main)
    ints.setEventHandler { worker.stop() }
    ints.resume()
    try await worker.run()
    server.stop()
} catch let error as WorkerError {
    FileHandle.standardError.write(Data("switchyard-chaos-worker: \(error)\n".utf8))
    exit(error.code == .unavailable ? 69 : error.code == .configuration ? 78 : 70)
}
