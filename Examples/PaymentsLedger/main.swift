// An example of the library API: your own handlers per event type, on the worker's runtime
// (policies, dead letters, offsets, metrics and /status come with it).
//
//   swift run payments-ledger config/examples/local.json
import Foundation
import Switchyard
import SwitchyardCatalog
import Synchronization

/// Running totals per currency, in minor units. A real service would write to its database here:
/// a handler that throws is retried per the topic's retry policy while its partition waits.
final class Ledger: Sendable {
    private let totals = Mutex<[String: Int64]>([:])

    func add(_ amount: Money, sign: Int64) {
        totals.withLock { $0[amount.currency, default: 0] += sign * amount.value }
    }

    var snapshot: [String: Int64] { totals.withLock { $0 } }
}

let arguments = CommandLine.arguments.dropFirst()
guard let path = arguments.first else {
    FileHandle.standardError.write(Data("usage: payments-ledger CONFIG.json\n".utf8))
    exit(64)
}
let configuration: WorkerConfiguration
do {
    configuration = try WorkerConfiguration.load(path: path, catalogs: CatalogRegistry(Catalog.shipped))
} catch {
    FileHandle.standardError.write(Data("\(path): \(error)\n".utf8))
    exit(78)
}

let ledger = Ledger()
var handlers = EventHandlers()
handlers.on(PaymentCaptured.self) { event, context in
    ledger.add(event.amount, sign: 1)
    // Unknown enum values and fields from newer producers are still here, untouched.
    _ = (event.unknownFields.count, context.offset)
}
handlers.on(PaymentRefunded.self) { event, _ in
    ledger.add(event.amount, sign: -1)
    if !event.reason.isKnown {
        // A reason this build does not know: shown as `unrecognized(<raw>)`, re-encoded as the raw string.
        print("refund with a new reason: \(event.reason)")
    }
}
handlers.onUnknown { type, _, context in
    print("unknown event type \(type) at \(context.topic)[\(context.partition)]@\(context.offset): handed on")
}

do {
    let worker = try Worker(configuration: configuration, handlers: handlers)
    let server = try worker.serveEndpoints()
    let signals = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .main)
    signal(SIGTERM, SIG_IGN)
    signals.setEventHandler { worker.stop() }
    signals.resume()
    try await worker.run()
    server.stop()
    print("ledger totals: \(ledger.snapshot)")
} catch let error as WorkerError {
    FileHandle.standardError.write(Data("payments-ledger: \(error)\n".utf8))
    exit(error.code == .unavailable ? 69 : error.code == .configuration ? 78 : 70)
}
