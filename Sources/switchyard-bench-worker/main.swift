// switchyard-bench-worker: the worker with a benchmark handler that waits a fixed time per record, for
// scripts/bench_worker.py's slow-handler rows ("a benchmark handler that sleeps 1 ms per record"), or that
// publishes one event per record through its context, for scripts/bench_handler_publish.py.
//
//   switchyard-bench-worker CONFIG.json [--handler-sleep-ms N] [--publish-to TOPIC]
//
// The same runtime as `switchyard consume` (policies, dead letters, offsets, /metrics and /status), built on
// the library API the way Examples/PaymentsLedger is: one handler per feeds event type and one for unknown
// types, each awaiting `Task.sleep` for N ms (a handler waiting on I/O, not burning a core). N = 0 registers
// no handler at all, so the run is `switchyard consume` with this binary's catalogs. --publish-to TOPIC: every
// handler publishes its event (an unknown one: its original bytes) to TOPIC with the record's key, tracked
// against the record's offset as `republishTo` is. SIGTERM drains and
// commits, as the shipped worker does. Exit codes: 64 usage, 78 configuration, 69 broker, 70 fatal.
import Foundation
import Switchyard
import SwitchyardCatalog
import SwitchyardKafka

func usage(_ message: String) -> Never {
    FileHandle.standardError.write(Data("switchyard-bench-worker: \(message)\nusage: switchyard-bench-worker CONFIG.json [--handler-sleep-ms N]\n".utf8))
    exit(64)
}

var configPath: String?
var sleepMilliseconds = 0
var publishTopic: String?
var arguments = Array(CommandLine.arguments.dropFirst())
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "--handler-sleep-ms":
        guard !arguments.isEmpty, let n = Int(arguments.removeFirst()), n >= 0 else {
            usage("--handler-sleep-ms needs a non-negative integer")
        }
        sleepMilliseconds = n
    case "--publish-to":
        guard !arguments.isEmpty else { usage("--publish-to needs a topic") }
        publishTopic = arguments.removeFirst()
    case "-h", "--help":
        print("usage: switchyard-bench-worker CONFIG.json [--handler-sleep-ms N]")
        exit(0)
    default:
        guard configPath == nil, !argument.hasPrefix("-") else { usage("unexpected argument '\(argument)'") }
        configPath = argument
    }
}
guard let configPath else { usage("CONFIG.json is required") }

let configuration: WorkerConfiguration
do {
    configuration = try WorkerConfiguration.load(path: configPath, catalogs: CatalogRegistry(Catalog.shipped))
} catch {
    FileHandle.standardError.write(Data("\(configPath): \(error)\n".utf8))
    exit(78)
}

var handlers = EventHandlers()
if sleepMilliseconds > 0 {
    let pause = Duration.milliseconds(sleepMilliseconds)
    handlers.on(PostCreated.self) { _, _ in try await Task.sleep(for: pause) }
    handlers.on(PostLiked.self) { _, _ in try await Task.sleep(for: pause) }
    handlers.on(CommentAdded.self) { _, _ in try await Task.sleep(for: pause) }
    handlers.on(UserFollowed.self) { _, _ in try await Task.sleep(for: pause) }
    handlers.onUnknown { _, _, _ in try await Task.sleep(for: pause) }
} else if let publishTopic {
    handlers.on(PostCreated.self) { event, context in try context.publish(event, to: publishTopic, key: context.key) }
    handlers.on(PostLiked.self) { event, context in try context.publish(event, to: publishTopic, key: context.key) }
    handlers.on(CommentAdded.self) { event, context in try context.publish(event, to: publishTopic, key: context.key) }
    handlers.on(UserFollowed.self) { event, context in try context.publish(event, to: publishTopic, key: context.key) }
    handlers.onUnknown { _, raw, context in
        context.publish(KafkaProducerRecord(topic: publishTopic, key: context.key, value: raw.bytes))
    }
}

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
    FileHandle.standardError.write(Data("switchyard-bench-worker: \(error)\n".utf8))
    exit(error.code == .unavailable ? 69 : error.code == .configuration ? 78 : 70)
}
