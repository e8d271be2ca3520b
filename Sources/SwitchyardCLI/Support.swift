import Dispatch
import Switchyard
import Foundation
import Synchronization
import SwitchyardKafka

/// Waits for SIGINT or SIGTERM (Dispatch signal sources; the default handlers are ignored meanwhile)
/// and returns the signal's name.
func waitForTermination() async -> String {
    let queue = DispatchQueue(label: "switchyard.signals")
    let (received, continuation) = AsyncStream.makeStream(of: String.self)
    var sources: [any DispatchSourceSignal] = []
    for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
        Foundation.signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
        source.setEventHandler { continuation.yield(name) }
        source.resume()
        sources.append(source)
    }
    var iterator = received.makeAsyncIterator()
    let name = await iterator.next() ?? "end"
    for source in sources { source.cancel() }
    return name
}

extension CommandError {
    /// Maps a Kafka client error to the CLI's exit codes: bad configuration 78, unreachable broker 69, else 70.
    init(_ error: KafkaError) {
        switch error.code {
        case .configuration: self.init(.config, error.reason)
        case .unavailable: self.init(.unavailable, error.reason)
        case .unknownTopic: self.init(.dataError, error.reason)
        default: self.init(.software, error.description)
        }
    }
}

/// `word` as a POSIX shell reads it back: unchanged when it is safe, else in single quotes.
func shellQuoted(_ word: String) -> String {
    let safe = word.allSatisfy { $0.isLetter || $0.isNumber || "-_./:@,=+%".contains($0) }
    return safe && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

/// Set once SIGINT or SIGTERM arrives (their default handlers are ignored from ``install()`` on): what a
/// command that follows a topic polls between reads, to end with exit 0.
final class TerminationFlag: Sendable {
    /// The first signal received (0: none yet).
    private let received = Atomic<Int32>(0)

    var isSet: Bool { received.load(ordering: .acquiring) != 0 }

    /// `SIGINT` or `SIGTERM`, once one arrived.
    var signalName: String { received.load(ordering: .acquiring) == SIGTERM ? "SIGTERM" : "SIGINT" }

    /// Starts listening for SIGINT and SIGTERM. With `secondSignalExits`, a second one ends the process at once
    /// (exit 130): a read that stops between records can still be left when it waits on something that hangs.
    static func install(secondSignalExits: Bool = false) -> TerminationFlag {
        let termination = TerminationFlag()
        let queue = DispatchQueue(label: "switchyard.follow.signals")
        for number in [SIGINT, SIGTERM] {
            Foundation.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                let first = termination.received.compareExchange(expected: 0, desired: number, ordering: .acquiringAndReleasing).exchanged
                if !first && secondSignalExits { _exit(ExitCode.interrupted.rawValue) }
            }
            source.resume()
            signalSources.append(source)
        }
        return termination
    }
}

/// The signal sources live as long as the process: a command installs them once, from its main task.
nonisolated(unsafe) private var signalSources: [any DispatchSourceSignal] = []

/// An error from a file operation in plain words (`no such file`, `permission denied`), not Foundation's
/// `Error Domain=… Code=…` text.
func plainReason(_ error: any Error) -> String {
    if let error = error as? CommandError { return error.message }
    return FileErrorText.plain(error)
}

/// The usage error of a `--since` value that is neither a duration nor an RFC 3339 time, saying what is
/// missing when it is a date or time without its time zone (which would otherwise be guessed).
func sinceUsage(_ option: String, _ text: String) -> CommandError {
    if text.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) != nil {
        return CommandError.usage("\(option) \(text) has no time and no time zone: add them, like \(text)T00:00:00Z (UTC) or \(text)T00:00:00+01:00")
    }
    if text.wholeMatch(of: /\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?/) != nil {
        let t = text.replacingOccurrences(of: " ", with: "T")
        let full = t.count == 16 ? t + ":00" : t
        return CommandError.usage("\(option) \(text) has no time zone: add Z for UTC or an offset, like \(full)Z or \(full)+01:00")
    }
    return CommandError.usage("\(option) needs a duration (90s, 15m, 2h, 7d) or an RFC 3339 time, not '\(text)'")
}

/// Why `host:port` cannot be listened on (in use, not permitted), or nil when a listener could bind it now.
func tcpPortProblem(host: String, port: Int) -> String? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return String(cString: strerror(errno)).lowercased() }
    defer { close(fd) }
    // As a server binds (SO_REUSEADDR): a port left in TIME_WAIT by an earlier run is free for it.
    var one: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return "not an IPv4 address: \(host)" }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    return bound == 0 ? nil : String(cString: strerror(errno)).lowercased()
}

/// The worker configuration at `path`, with this binary's catalogs.
///
/// - Throws: ``CommandError`` (exit 78) naming the file and what is wrong in it.
func loadWorkerConfiguration(_ path: String) throws -> WorkerConfiguration {
    do {
        return try WorkerConfiguration.load(path: path, catalogs: SwitchyardCommand.catalogs)
    } catch {
        throw CommandError(.config, "\(path): \(error)")
    }
}

/// Fails at once, with its cause (exit 69), when the worker's brokers refuse or do not resolve, as the other
/// subcommands do, rather than after the worker's connect timeout (`consume`).
func checkBrokersAnswer(_ configuration: WorkerConfiguration) async throws {
    let kafka = KafkaConfiguration(
        bootstrapServers: configuration.bootstrapServers, clientID: configuration.clientID,
        properties: configuration.kafka, logLevel: .error)
    do {
        _ = try await KafkaCluster.metadata(kafka: kafka, timeout: .seconds(10))
    } catch let error as KafkaError {
        throw CommandError(error)
    }
}

/// `SWITCHYARD_BROKERS`, the bootstrap servers every subcommand takes when `-b` is not given (as the worker's
/// config does); nil when unset or empty.
func environmentBrokers() -> String? {
    ProcessInfo.processInfo.environment["SWITCHYARD_BROKERS"].flatMap { $0.isEmpty ? nil : $0 }
}
