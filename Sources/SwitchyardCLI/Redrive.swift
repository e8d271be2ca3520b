import Foundation
import Switchyard
import SwitchyardKafka

#if canImport(Glibc)
import Glibc
#endif

/// What `dlq redrive` has sent, one JSON line per acknowledged record, written as each acknowledgement
/// arrives: a rerun (after Ctrl-C, a crash, or to try again) skips what it lists, so nothing is sent twice.
final class RedriveJournal {
    /// One sent record.
    struct Entry {
        /// The dead letter it was sent from (`payments.dlq/0@3`).
        var deadLetter: String
        /// Where it was written (`payments/0@12`).
        var sentTo: String
    }

    let path: String
    /// Where each dead letter went, by its location.
    private(set) var sent: [String: [String]] = [:]
    private var fd: Int32 = -1

    /// Reads the journal at `path` if there is one (a missing file is an empty journal).
    init(path: String) throws {
        self.path = path
        guard FileManager.default.fileExists(atPath: path) else { return }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw CommandError(.dataError, "cannot read the redrive journal \(path): \(plainReason(error))")
        }
        for (i, line) in text.split(separator: "\n").enumerated() {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let deadLetter = object["deadLetter"] as? String, let sentTo = object["sentTo"] as? String
            else {
                // A line cut short by a crash is the only damage a journal written line by line can have: the
                // record it names was acknowledged, but which one is lost. Say so rather than guess.
                throw CommandError(
                    .dataError, "the redrive journal \(path) has an unreadable line \(i + 1): fix or remove that line, then run again")
            }
            sent[deadLetter, default: []].append(sentTo)
        }
    }

    /// The default journal of a DLQ: `$XDG_STATE_HOME/switchyard/redrive/NAME.jsonl` (else under
    /// `~/.local/state`).
    static func defaultPath(for name: String) -> String {
        let environment = ProcessInfo.processInfo.environment
        let state = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/state")
        let safe = String(name.map { $0.isLetter || $0.isNumber || "._-".contains($0) ? $0 : "_" })
        return state + "/switchyard/redrive/" + safe + ".jsonl"
    }

    /// Appends one line (one `write(2)`: a crash leaves whole lines, or a last line cut short).
    func append(_ entry: Entry) throws {
        if fd < 0 {
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty {
                do {
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                } catch {
                    throw CommandError(.software, "cannot create \(directory) for the redrive journal: \(plainReason(error))")
                }
            }
            fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            guard fd >= 0 else {
                throw CommandError(.software, "cannot write the redrive journal \(path): \(String(cString: strerror(errno)))")
            }
        }
        var o = JSONObject()
        o.set("deadLetter", entry.deadLetter)
        o.set("sentTo", entry.sentTo)
        o.set("at", Timestamp(Date()).text)
        let line = o.bytes + [UInt8(ascii: "\n")]
        let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == line.count else {
            throw CommandError(.software, "cannot write the redrive journal \(path): \(String(cString: strerror(errno)))")
        }
        sent[entry.deadLetter, default: []].append(entry.sentTo)
    }

    deinit {
        if fd >= 0 { close(fd) }
    }
}

extension DLQCommand {
    // MARK: - redrive

    /// One dead letter's fate in a redrive.
    enum RedriveDecision {
        /// Send it; `forcedPast` is the failure this build would report (sent only with --force).
        case send(KafkaProducerRecord, forcedPast: DecodeFailure?, unchecked: String?)
        /// Not sent, a refusal (exit 1).
        case refuse(reason: String, json: String)
        /// Not sent: it went already (the journal, or a later dead letter that links to it).
        case skip(sentAs: [String], evidence: String)
    }

    /// Decodes dead letters' payloads as the worker of this build would, per original topic.
    struct RedriveChecker {
        var config: WorkerConfiguration?
        private var codecs: [String: TopicCodec?] = [:]

        init(config: WorkerConfiguration?) {
            self.config = config
        }

        /// The failure this build reports for `d`'s payload on its original topic; nil when it decodes (or
        /// is unknown on a lenient topic); `unchecked` when no catalog of this binary covers the topic.
        mutating func check(_ d: DeadLetter, topic: String) -> (failure: DecodeFailure?, unchecked: String?) {
            if codecs[topic] == nil {
                let maxBytes = config?.maxRecordBytes ?? 1 << 20
                let options = JSONReader.Options(maxBytes: maxBytes, rejectDuplicateKeys: true)
                if let t = config?.topics[topic] {
                    codecs[topic] = TopicCodec(catalog: t.catalog, policy: t.policy, readerOptions: options, keepsEvents: false)
                } else if let catalog = SwitchyardCommand.catalogs[topic] {
                    codecs[topic] = TopicCodec(catalog: catalog, policy: catalog.defaultPolicy, readerOptions: options, keepsEvents: false)
                } else {
                    codecs[topic] = .some(nil)
                }
            }
            guard var codec = codecs[topic] ?? nil else {
                return (nil, "not checked: this binary has no catalog for \(topic)")
            }
            let outcome = codec.decode(d.value).outcome
            codecs[topic] = codec
            if case .failed(let failure) = outcome { return (failure, nil) }
            return (nil, nil)
        }
    }

    /// Sends the selected dead letters back (or says what it would send), streaming: a first read counts the
    /// redrives already made (dead letters that link to an earlier one), a second decides and sends, one
    /// record at a time. Each record is printed as the broker acknowledges it, and journaled; SIGINT or
    /// SIGTERM stops sending, waits for what is in flight, and ends with a summary (exit 130).
    func redrive(
        _ source: DeadLetterSource, options: DeadLetterSource.ReadOptions, out: Output, style: Style, observe: (DeadLetter) -> Void,
        brokers: String?, properties: [String: String], config: WorkerConfiguration?, afterFirstRead: () throws -> Void
    ) async throws -> ExitCode {
        // First read: which dead letters were redriven already, by the dead letters their records became.
        var links: [String: [(sentAs: String, deadLetter: String)]] = [:]
        var firstTopic: String?
        let first = try await source.read(options) { d in
            observe(d)
            firstTopic = firstTopic ?? d.topic
            if let of = d.redriveOf { links[of, default: []].append((d.originalLocation, Self.dlqPosition(d))) }
            return true
        }
        try afterFirstRead()
        // A partial first read misses links to what was redriven already: nothing is decided on it.
        if let cutShort = first.cutShort { throw CommandError(.unavailable, "incomplete: nothing was redriven: \(cutShort)") }
        let journal = try RedriveJournal(
            path: journalPath ?? RedriveJournal.defaultPath(for: source.topicName ?? firstTopic ?? file.map { ($0 as NSString).lastPathComponent } ?? "dlq"))

        var publisher: Publisher?
        var partitionCounts: [String: Int] = [:]
        if execute {
            guard let brokers else {
                throw CommandError.usage("dlq redrive --execute needs --brokers (or --config) to send to")
            }
            publisher = try await Publisher.connect(
                brokers: brokers, properties: properties, clientID: "switchyard-redrive", rate: rate, connectTimeout: connectTimeout)
            partitionCounts = publisher!.partitionCounts
        }
        let termination = execute ? TerminationFlag.install() : nil
        let table = StreamingTable(
            header: ["DEAD LETTER", "TO", "REDRIVES", "TYPE", "KIND", "PATH", "ACTION"], out: out, style: style, sample: execute ? 1 : 500)
        var checker = RedriveChecker(config: config)
        var (sendable, sent, refused, skipped) = (0, 0, 0, 0)
        var selectedCount = 0
        var stopped = false
        var journalError: (any Error)?

        func emit(_ d: DeadLetter, to: String, counts: String, action: String, json o: JSONObject) {
            if json {
                out.line(o.bytes)
            } else {
                table.add([Self.dlqPosition(d), to, counts, d.type ?? "-", d.kind, Self.dash(d.path), action])
            }
            if execute { table.flush() }
        }

        // Sent records, in the order they were sent, until the broker acknowledges them.
        var inFlight: [(d: DeadLetter, location: String, note: String, json: JSONObject)] = []
        var inFlightHead = 0
        publisher?.onAcknowledged = { report in
            let item = inFlight[inFlightHead]
            inFlightHead += 1
            // Acknowledged records are let go of: the list holds at most the publisher's window, plus 1,024.
            if inFlightHead > 1024 {
                inFlight.removeFirst(inFlightHead)
                inFlightHead = 0
            }
            let sentTo = "\(report.topic)/\(report.partition)@\(report.offset)"
            do {
                try journal.append(RedriveJournal.Entry(deadLetter: item.location, sentTo: sentTo))
            } catch {
                journalError = journalError ?? error
            }
            sent += 1
            var o = item.json
            o.set("action", "sent")
            o.set("sentTo", sentTo)
            emit(item.d, to: sentTo, counts: "\(item.d.redriveCount)→\(item.d.redriveCount + 1)", action: "sent" + item.note, json: o)
        }

        var second = DeadLetterSource.ReadSummary()
        do {
            second = try await source.read(options) { d in
                guard selected(d) else { return true }
                selectedCount += 1
                if let termination, termination.isSet {
                    stopped = true
                    return false
                }
                let location = Self.dlqPosition(d)
                var o = Self.basics(d)
                switch decide(d, location: location, links: links[location] ?? [], journal: journal, checker: &checker, partitionCounts: partitionCounts) {
                case .refuse(let reason, let short):
                    refused += 1
                    o.set("action", "refused")
                    o.set("reason", short)
                    emit(d, to: "-", counts: String(d.redriveCount), action: "refused: " + reason, json: o)
                case .skip(let sentAs, let evidence):
                    skipped += 1
                    o.set("action", "skipped")
                    o.set("reason", "already redriven")
                    o.set("sentAs", sentAs)
                    emit(d, to: sentAs.joined(separator: ","), counts: String(d.redriveCount), action: "skipped: already redriven (\(evidence))", json: o)
                case .send(let record, let failure, let unchecked):
                    sendable += 1
                    o.set("to", record.topic)
                    o.setIfPresent("toPartition", record.partition)
                    o.set("newRedriveCount", d.redriveCount + 1)
                    var note = ""
                    if let failure {
                        note = " (forced: would fail again: \(Self.failureText(failure)))"
                        o.set("forced", true)
                        o.set("wouldFail", "\(failure.kind.rawValue) at '\(failure.path)'")
                    } else if let unchecked {
                        note = " (\(unchecked))"
                        o.set("checked", false)
                    }
                    if let publisher {
                        inFlight.append((d, location, note, o))
                        // Waits while the window of unacknowledged records is full: the read holds at most that many.
                        try await publisher.send(record)
                        if let journalError { throw journalError }
                    } else {
                        o.set("action", "redrive")
                        let to = record.topic + (record.partition.map { "/\($0)" } ?? "")
                        emit(d, to: to, counts: "\(d.redriveCount)→\(d.redriveCount + 1)", action: "would send" + note, json: o)
                    }
                }
                return true
            }
            try await publisher?.finish()
            if let journalError { throw journalError }
        } catch {
            table.flush()
            out.flush()
            await publisher?.abandon()
            if execute {
                printError("redrive: stopped by an error after \(sent) record(s) sent and acknowledged (journal \(journal.path))")
            }
            throw error
        }
        table.flush()
        if !json && selectedCount == 0 { out.line("no dead letter selected") }
        let skippedText = skipped > 0 ? ", skipped \(skipped) already redriven" : ""
        if stopped {
            out.flush()
            printError(
                "redrive: interrupted: sent \(sent) record(s), refused \(refused)\(skippedText); the rest was not sent. "
                    + "The journal \(journal.path) lists what went: run the same command again to send the rest, nothing twice")
            return .interrupted
        }
        if let cutShort = second.cutShort {
            out.flush()
            printError("error: incomplete: sent \(sent) record(s), refused \(refused)\(skippedText) of those read: \(cutShort)")
            return .unavailable
        }
        if !json {
            if execute {
                out.line("sent \(sent) record(s) to their original topic(s); refused \(refused)\(skippedText)")
                if sent > 0 { out.line("they stay in the DLQ; the journal \(journal.path) lists them, and a rerun skips them") }
            } else {
                out.line(
                    style.bold("DRY RUN") + ": \(sendable) record(s) would be redriven, \(refused) refused\(skippedText). Add --execute to send.")
            }
        } else {
            out.flush()
            printError(
                execute ? "redrive: sent \(sent), refused \(refused), skipped \(skipped)" : "redrive (dry run): would send \(sendable), refused \(refused), skipped \(skipped)")
        }
        return refused > 0 ? .findings : .success
    }

    /// Whether `d` goes back: not when it went already, reached the loop guard, has no original topic, or
    /// would fail again with this build (unless --force).
    func decide(
        _ d: DeadLetter, location: String, links: [(sentAs: String, deadLetter: String)], journal: RedriveJournal, checker: inout RedriveChecker,
        partitionCounts: [String: Int]
    ) -> RedriveDecision {
        let journaled = journal.sent[location] ?? []
        if !journaled.isEmpty || !links.isEmpty {
            var sentAs = journaled
            for link in links where !sentAs.contains(link.sentAs) { sentAs.append(link.sentAs) }
            var evidence: [String] = []
            if !journaled.isEmpty { evidence.append("journal") }
            if !links.isEmpty { evidence.append("dead-lettered again as " + links.map(\.deadLetter).joined(separator: ", ")) }
            return .skip(sentAs: sentAs, evidence: "as \(sentAs.joined(separator: ", ")); " + evidence.joined(separator: "; "))
        }
        if d.redriveCount >= maxRedrives {
            return .refuse(reason: "redriven \(d.redriveCount) time(s), limit \(maxRedrives)", json: "redrive limit reached")
        }
        guard let topic = d.originalTopic, let record = d.redriveRecord(from: location, partitionCounts: partitionCounts) else {
            return .refuse(reason: "no original topic in the headers", json: "no original topic")
        }
        let (failure, unchecked) = checker.check(d, topic: topic)
        if let failure, !force {
            return .refuse(
                reason: "would fail again: \(Self.failureText(failure)) (this build; --force sends it anyway)",
                json: "would fail again")
        }
        return .send(record, forcedPast: failure, unchecked: unchecked)
    }

    /// `typeMismatch at 'amount.value'` (the root: `(root)`).
    static func failureText(_ failure: DecodeFailure) -> String {
        "\(failure.kind.rawValue) at '\(failure.path.isEmpty ? "(root)" : failure.path)'"
    }
}
