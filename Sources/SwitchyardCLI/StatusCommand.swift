import Foundation
import Switchyard
import SwitchyardHTTP

/// `switchyard status`: a running worker's state from its `/status` endpoint, readable at a glance.
struct StatusCommand: Command {
    static let spec = CommandSpec(
        ["status"], abstract: "A running worker's halts, retries, assignment and lag, from its /status endpoint.",
        synopsis: ["status [--url http://HOST:PORT | -c FILE | --file STATUS.json] [--json] [--timeout S]"],
        discussion: """
            Reads the worker's /status (the metrics address: --url, else the config's metrics port on
            127.0.0.1, else http://127.0.0.1:9464) and prints, most urgent first: the halted partitions (the
            record, why, since when, its dead letter, and the commands to look at it and release it), the
            records whose handler is being retried, the assignment with each partition's lag, and the last
            errors. A URL without a path (or another path of the worker, such as /metrics) reads /status.
            --file reads a saved document instead (curl -s http://pod:9464/status > status.json).

            --json prints the document as the worker served it.
            """,
        options: [
            OptionSpec("--url", .text("URL"), help: "The worker's metrics address (http://pod:9464) or its /status URL."),
            OptionSpec("--config", short: "-c", .file("FILE"), help: "Take the metrics port from the worker's config (on 127.0.0.1)."),
            OptionSpec("--file", .file("STATUS.json"), help: "Read a saved /status document (- for standard input) instead of asking a worker."),
            OptionSpec("--json", help: "Print the /status document as served."),
            OptionSpec("--timeout", .number("S"), help: "Seconds to wait for the answer. Default: 10."),
        ],
        examples: [
            Example("switchyard status --file status.json", "A saved /status document, read for people (a worker's: --url http://pod:9464)."),
        ],
        exitCodes: [
            (.success, "the worker runs; nothing halted, nothing retried"),
            (.findings, "something needs attention: a halted partition, a record being retried, or a worker not running"),
            (.usage, "usage"), (.dataError, "the answer (or --file) is not a worker's status document, or --file cannot be read"),
            (.unavailable, "nothing answered at the URL"), (.config, "bad --config"),
        ])

    var url: String?
    var configPath: String?
    var file: String?
    var json: Bool
    var timeout: Duration

    init(_ arguments: ParsedArguments) throws {
        url = arguments.option("--url")
        configPath = arguments.option("--config")
        file = arguments.option("--file")
        json = arguments.flag("--json")
        timeout = .milliseconds(Int((arguments.number("--timeout") ?? 10) * 1000))
    }

    func validate() throws {
        if [url, configPath, file].compactMap({ $0 }).count > 1 { throw CommandError.usage("give one of --url, --config and --file") }
        if let url, !url.hasPrefix("http://") {
            throw CommandError.usage("--url needs an http:// URL (a worker's /status is plain HTTP), got '\(url)'")
        }
    }

    /// The `/status` URL to read.
    func statusURL() throws -> String {
        var base = url
        if let configPath {
            let config = try loadWorkerConfiguration(configPath)
            base = "http://127.0.0.1:\(config.metrics.port)"
        }
        guard var components = URLComponents(string: base ?? "http://127.0.0.1:9464"), components.host != nil else {
            throw CommandError.usage("--url is not a URL: '\(base ?? "")'")
        }
        // A worker serves its status at /status on its metrics port: any other path of it means that.
        components.path = "/status"
        components.query = nil
        return components.string ?? "\(base ?? "")/status"
    }

    func run() async throws -> ExitCode {
        let target: String
        let body: [UInt8]
        if let file {
            target = file
            do {
                body = file == "-" ? Array(FileHandle.standardInput.readDataToEndOfFile()) : Array(try Data(contentsOf: URL(fileURLWithPath: file)))
            } catch {
                throw CommandError(.dataError, "cannot read \(file): \(plainReason(error))")
            }
        } else {
            target = try statusURL()
            let response: HTTPClient.Response
            do {
                response = try HTTPClient.get(target, timeout: timeout)
            } catch {
                throw CommandError(.unavailable, "cannot read \(target): \(error.description) (is the worker running, and is this its metrics address?)")
            }
            guard response.status == 200 else {
                throw CommandError(.dataError, "\(target) answered HTTP \(response.status), not a worker's status document")
            }
            body = response.body
        }
        let document = try workerStatusDocument(body, from: target)
        let view = StatusView(document)
        if json {
            FileHandle.standardOutput.write(Data(body))
            if body.last != UInt8(ascii: "\n") { print() }
        } else {
            print(view.render(source: file == nil ? target : "(saved status \(target))", statusURL: file == nil ? target : nil, style: Style.forStandardOutput()), terminator: "")
        }
        return view.needsAttention ? .findings : .success
    }
}

/// A `/status` document, read for people.
struct StatusView {
    let document: [String: Any]

    init(_ document: [String: Any]) {
        self.document = document
    }

    var phase: String { document["phase"] as? String ?? "?" }
    var group: String { document["group"] as? String ?? "?" }
    var halted: [[String: Any]] { document["halted"] as? [[String: Any]] ?? [] }
    var retrying: [[String: Any]] { document["retrying"] as? [[String: Any]] ?? [] }
    var assignment: [[String: Any]] { document["assignment"] as? [[String: Any]] ?? [] }
    var recentErrors: [[String: Any]] { document["recentErrors"] as? [[String: Any]] ?? [] }

    /// A halted partition, a record being retried, or a worker that is not running.
    var needsAttention: Bool { !halted.isEmpty || !retrying.isEmpty || phase != "running" }

    static func text(_ value: Any?) -> String {
        switch value {
        case let number as NSNumber: number.stringValue
        case let string as String: string.isEmpty ? "(root)" : string
        default: "-"
        }
    }

    /// The report; `source` is where the document came from, `statusURL` the worker's /status when it was asked.
    func render(source: String, statusURL: String?, style: Style) -> String {
        var lines: [String] = []
        let processed = (document["processed"] as? NSNumber)?.intValue ?? 0
        let totalLag = assignment.compactMap { ($0["lag"] as? NSNumber)?.int64Value }.reduce(0, +)
        lines.append(
            style.bold("Worker \(source)") + ": \(phase), group \(group), \(processed) record(s) processed, "
                + "\(assignment.count) partition(s) assigned, lag \(totalLag)")
        lines.append("")
        if halted.isEmpty {
            lines.append("Halted: none")
        } else {
            lines.append(style.bold("HALTED (\(halted.count))") + ": these partitions wait at one record until a build decodes it or it is released")
            for h in halted {
                let record = Self.text(h["record"])
                let type = h["type"] as? String
                lines.append(
                    "  " + style.highlight(record) + "  \(Self.text(h["kind"])) at '\(Self.text(h["path"]))'" + (type.map { " (\($0))" } ?? "")
                        + "  since \(Self.text(h["since"]))")
                if let message = h["message"] as? String { lines.append("    \(message)") }
                if let deadLetter = (h["deadLetter"] as? [String: Any])?["record"] as? String { lines.append("    dead letter: \(deadLetter)") }
                lines.append("    look:    switchyard dlq show -b BROKERS \(record)")
                lines.append("    release: switchyard release -b BROKERS --group \(shellQuoted(group)) \(record) --status \(shellQuoted(statusURL ?? "http://HOST:PORT/status")) --reason '…'")
            }
        }
        lines.append("")
        if retrying.isEmpty {
            lines.append("Retrying: none")
        } else {
            lines.append(style.bold("RETRYING (\(retrying.count))") + ": a handler failed and is tried again")
            var table = Table(header: ["RECORD", "ATTEMPT", "SINCE", "ERROR"])
            for r in retrying { table.rows.append([Self.text(r["record"]), Self.text(r["attempt"]), Self.text(r["since"]), Self.text(r["error"])]) }
            lines.append(table.render())
        }
        lines.append("")
        lines.append(style.bold("ASSIGNMENT (\(assignment.count))"))
        if assignment.isEmpty {
            lines.append("  (none: the worker has no partitions" + (phase == "running" ? ", or has not joined its group yet)" : ")"))
        } else {
            var table = Table(header: ["TOPIC", "PARTITION", "LAG", "STATE"])
            let haltedKeys = Set(halted.map { "\(Self.text($0["topic"]))/\(Self.text($0["partition"]))" })
            for p in assignment {
                let key = "\(Self.text(p["topic"]))/\(Self.text(p["partition"]))"
                table.rows.append([Self.text(p["topic"]), Self.text(p["partition"]), Self.text(p["lag"]), haltedKeys.contains(key) ? "HALTED" : "ok"])
            }
            lines.append(table.render())
        }
        if !recentErrors.isEmpty {
            lines.append("")
            lines.append(style.bold("RECENT ERRORS (last \(min(5, recentErrors.count)) of \(recentErrors.count))"))
            for e in recentErrors.suffix(5) { lines.append("  \(Self.text(e["at"]))  \(Self.text(e["message"]))") }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Parses what `source` answered (or holds) as a worker's `/status` document: a JSON object with its `phase`.
///
/// - Throws: ``CommandError`` (`.dataError`) saying what it is instead, with `hint` (where the status is) appended.
func workerStatusDocument(_ body: [UInt8], from source: String, hint: String? = nil) throws -> [String: Any] {
    let advice = hint.map { " (\($0))" } ?? ""
    let parsed: Any
    do {
        parsed = try JSONSerialization.jsonObject(with: Data(body))
    } catch {
        throw CommandError(.dataError, "\(source) answered something that is not JSON, not a worker's status document\(advice)")
    }
    guard let object = parsed as? [String: Any], object["phase"] is String else {
        throw CommandError(.dataError, "\(source) answered JSON that is not a worker's status document (no phase)\(advice)")
    }
    return object
}
