import Foundation
import Switchyard

/// `switchyard consume`: the deployed worker.
struct ConsumeCommand: Command {
    static let spec = CommandSpec(
        ["consume"], abstract: "Run the worker: consume the configured topics in a consumer group.",
        synopsis: ["consume -c FILE [--log-level debug|info|notice|warning|error]"],
        discussion: """
            Consumes the configured topics in the configured group; decodes every record; applies each
            topic's policy (strict: dead-letter and halt; lenient: dead-letter and go on); runs this
            binary's handlers (retried per the topic's retry policy); republishes; stores offsets only once
            a record's outcome is durable. Serves /metrics, /healthz, /readyz and
            /status on the configured metrics address. SIGTERM or SIGINT drain and commit, within
            shutdownTimeoutSeconds. Logs are JSON lines on stderr, without record values.

            ENVIRONMENT: SWITCHYARD_BROKERS, SWITCHYARD_GROUP_ID override the file's brokers and groupId.

            Properties the delivery guarantees depend on (enable.auto.offset.store, enable.auto.commit,
            enable.idempotence, acks, isolation.level, auto.offset.reset, group.id, …) cannot be set in the
            config's kafka map.
            """,
        options: [
            OptionSpec("--config", short: "-c", .file("FILE"), help: "The worker's config (required)."),
            OptionSpec("--log-level", .choice(["debug", "info", "notice", "warning", "error"]), help: "Default: info."),
        ],
        examples: [Example("switchyard consume -c worker.json", "Run the worker until SIGTERM.")],
        exitCodes: [
            (.success, "stopped cleanly"), (.usage, "usage"), (.unavailable, "broker unavailable"),
            (.software, "fatal Kafka error, or a dead letter or republish that can never be produced (too large)"),
            (.config, "bad configuration"),
        ])

    var configPath: String
    var logLevel: LogLevel

    init(_ arguments: ParsedArguments) throws {
        guard let path = arguments.option("--config") else { throw CommandError.usage("--config FILE is required") }
        configPath = path
        let levels = ["debug": LogLevel.debug, "info": .info, "notice": .notice, "warning": .warning, "error": .error]
        logLevel = levels[arguments.option("--log-level") ?? "info"] ?? .info
    }

    func run() async throws -> ExitCode {
        let configuration = try loadWorkerConfiguration(configPath)
        try await checkBrokersAnswer(configuration)
        let logger = SwitchyardLogger(level: logLevel)
        var handlers = EventHandlers()
        if let factory = SwitchyardCommand.handlers {
            do {
                handlers = try await factory(HandlerSetup(configuration: configuration, logger: logger))
            } catch let error as ConfigurationError {
                throw CommandError(.config, "\(configPath): \(error)")
            } catch {
                throw CommandError(.config, "\(configPath): the handlers could not be set up: \(error)")
            }
        }
        do {
            let worker = try Worker(configuration: configuration, handlers: handlers, logger: logger)
            let server = try worker.serveEndpoints()
            defer { server.stop() }
            let signals = Task {
                let name = await waitForTermination()
                worker.logger.notice("signal received", ["signal": name])
                worker.stop()
            }
            defer { signals.cancel() }
            try await worker.run()
            return .success
        } catch let error as WorkerError {
            throw CommandError(error)
        }
    }
}

extension CommandError {
    /// Maps a worker error to the CLI's exit codes: unreachable broker 69, bad configuration 78, fatal 70.
    init(_ error: WorkerError) {
        switch error.code {
        case .unavailable: self.init(.unavailable, error.reason)
        case .configuration: self.init(.config, error.reason)
        case .fatal: self.init(.software, error.reason)
        }
    }
}
