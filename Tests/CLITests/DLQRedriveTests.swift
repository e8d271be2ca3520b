import Foundation
import Switchyard
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// `dlq redrive` cannot make things worse: it decodes each record with this build and refuses what would fail
/// again (unless --force), never sends a dead letter twice (its journal, and the dead letters that link to the
/// one they were redriven from), prints each record as it is sent, and stops cleanly on SIGINT.
@Suite(.serialized, .timeLimit(.minutes(5))) struct DLQRedriveTests {
    static func high(_ broker: EmbeddedBroker, _ topic: String) async throws -> Int64 {
        let kafka = KafkaConfiguration(bootstrapServers: [broker.bootstrapServers], clientID: "probe", logLevel: .error)
        let tp = KafkaTopicPartition(topic: topic, partition: 0)
        return try await KafkaConsumer.watermarks([tp], kafka: kafka)[tp]?.high ?? -1
    }

    static func payload(_ fixture: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: ReplayCommandTests.fixtures.appendingPathComponent(fixture)))
    }

    /// A dead letter of payments/0@`offset`, as the worker writes it.
    static func deadLetter(
        of offset: Int, payload: [UInt8], kind: String = "typeMismatch", path: String = "amount.value", redrives: Int = 0, of link: String? = nil
    ) -> KafkaProducerRecord {
        var headers = [
            ("trace", "t-\(offset)"), ("switchyard.original.topic", "payments"), ("switchyard.original.partition", "0"),
            ("switchyard.original.offset", String(offset)), ("switchyard.error.kind", kind), ("switchyard.error.path", path),
            ("switchyard.error.type", "payment.captured"), ("switchyard.consumer.group", "payments-workers"),
            ("switchyard.failed.at", Timestamp(Date()).text), ("switchyard.redrive.count", String(redrives)),
        ]
        if let link { headers.append(("switchyard.redrive.of", link)) }
        return KafkaProducerRecord(
            topic: "payments.dlq", partition: 0, key: Array("k-\(offset)".utf8), value: payload, headers: headers.map { KafkaHeader(name: $0.0, string: $0.1) })
    }

    static func produce(_ broker: EmbeddedBroker, _ records: [KafkaProducerRecord]) async throws {
        let producer = try KafkaProducer.make(
            configuration: KafkaProducerConfiguration(
                kafka: KafkaConfiguration(bootstrapServers: [broker.bootstrapServers], clientID: "fixtures", logLevel: .error)),
            logger: NoOpKafkaLogger())
        for record in records { _ = try await producer.send(record) }
        await producer.close()
    }

    static func row(_ result: CLI.Result, _ location: String) -> String? {
        result.stdoutLines.first { $0.hasPrefix(location + " ") }
    }

    @Test func aRecordThisBuildStillFailsIsRefusedUnlessForcedAndNothingIsSentTwice() async throws {
        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["payments": 1, "payments.dlq": 1])
        // @0 still fails with this build; @1 decodes now (the fix is deployed).
        try await Self.produce(broker, [
            Self.deadLetter(of: 3, payload: try Self.payload("fail-amount-value-string.json")),
            Self.deadLetter(of: 4, payload: try Self.payload("payment-captured-v2.json")),
        ])
        let journal = temporaryFile("redrive.jsonl")
        defer { try? FileManager.default.removeItem(at: journal) }
        let source = ["dlq", "redrive", "-b", broker.bootstrapServers, "-t", "payments.dlq", "--journal", journal.path]

        let dry = try await CLI.runOffPool(source)
        #expect(dry.exitCode == 1, "a refusal: \(dry.stdout)\(dry.stderr)")
        #expect(
            Self.row(dry, "payments.dlq/0@0")?.contains("refused: would fail again: typeMismatch at 'amount.value' (this build; --force sends it anyway)") == true,
            "\(dry.stdout)")
        #expect(Self.row(dry, "payments.dlq/0@1")?.hasSuffix("would send") == true, "\(dry.stdout)")
        #expect(dry.stdout.contains("DRY RUN: 1 record(s) would be redriven, 1 refused."))

        let executed = try await CLI.runOffPool(source + ["--execute"])
        #expect(executed.exitCode == 1, "\(executed.stdout)\(executed.stderr)")
        #expect(Self.row(executed, "payments.dlq/0@1")?.contains("payments/0@0") == true, "printed with where it went: \(executed.stdout)")
        #expect(executed.stdout.contains("sent 1 record(s) to their original topic(s); refused 1"))
        #expect(try await Self.high(broker, "payments") == 1, "only the record that decodes now")
        let lines = try String(contentsOf: journal, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains(#""deadLetter":"payments.dlq/0@1""#) && lines[0].contains(#""sentTo":"payments/0@0""#), "\(lines)")

        // Run twice: the same payment is not offered again.
        let again = try await CLI.runOffPool(source + ["--execute"])
        #expect(Self.row(again, "payments.dlq/0@1")?.contains("skipped: already redriven (as payments/0@0; journal)") == true, "\(again.stdout)")
        #expect(again.stdout.contains("sent 0 record(s) to their original topic(s); refused 1, skipped 1 already redriven"), "\(again.stdout)")
        #expect(try await Self.high(broker, "payments") == 1, "nothing sent twice")

        // --force sends the known-bad record, and says so.
        let forced = try await CLI.runOffPool(source + ["--execute", "--force"])
        #expect(forced.exitCode == 0, "\(forced.stdout)\(forced.stderr)")
        #expect(Self.row(forced, "payments.dlq/0@0")?.contains("sent (forced: would fail again: typeMismatch at 'amount.value')") == true, "\(forced.stdout)")
        #expect(try await Self.high(broker, "payments") == 2)
        let redriven = try await DLQLiveTests.readAll(broker, "payments", count: 2)
        #expect(redriven.map { DLQLiveTests.header($0, "switchyard.redrive.of") } == ["payments.dlq/0@1", "payments.dlq/0@0"], "the link to the dead letter")
        #expect(redriven.allSatisfy { DLQLiveTests.header($0, "switchyard.redrive.count") == "1" })
    }

    @Test func redrivesAreCountedByTheDeadLettersThatLinkBack() async throws {
        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["payments": 1, "payments.dlq": 1])
        let bad = try Self.payload("fail-amount-value-string.json")
        // @0 was redriven once (by another machine: no journal here) and dead-lettered again as @1.
        try await Self.produce(broker, [
            Self.deadLetter(of: 3, payload: bad),
            Self.deadLetter(of: 9, payload: bad, redrives: 1, of: "payments.dlq/0@0"),
        ])
        let journal = temporaryFile("redrive.jsonl")
        defer { try? FileManager.default.removeItem(at: journal) }
        let result = try await CLI.runOffPool([
            "dlq", "redrive", "-b", broker.bootstrapServers, "-t", "payments.dlq", "--journal", journal.path, "--execute", "--force",
            "--max-redrives", "1",
        ])
        #expect(result.exitCode == 1, "\(result.stdout)\(result.stderr)")
        #expect(
            Self.row(result, "payments.dlq/0@0")?.contains("skipped: already redriven (as payments/0@9; dead-lettered again as payments.dlq/0@1)") == true,
            "\(result.stdout)")
        #expect(Self.row(result, "payments.dlq/0@1")?.contains("refused: redriven 1 time(s), limit 1") == true, "\(result.stdout)")
        #expect(try await Self.high(broker, "payments") == 0, "--max-redrives 1: nothing sent")

        let list = try await CLI.runOffPool(["dlq", "list", "-b", broker.bootstrapServers, "-t", "payments.dlq", "--json"])
        let objects = try list.stdoutLines.map(ReplayCommandTests.object)
        #expect(objects.map { $0["redriveCount"] as? Int } == [0, 1])
        #expect(objects.last?["redriveOf"] as? String == "payments.dlq/0@0")
        let table = try await CLI.runOffPool(["dlq", "list", "-b", broker.bootstrapServers, "-t", "payments.dlq"])
        #expect(table.stdoutLines.first?.contains("REDRIVES") == true, "\(table.stdout)")
    }

    @Test func aFileDumpIsRedrivenToTheBrokersGiven() async throws {
        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["feeds": 2])
        let journal = temporaryFile("redrive.jsonl")
        defer { try? FileManager.default.removeItem(at: journal) }
        let dump = OnCallTests.fixture("feeds-dlq-two-partitions.kcat.jsonl")
        let result = try await CLI.runOffPool([
            "dlq", "redrive", "--file", dump, "-b", broker.bootstrapServers, "--journal", journal.path, "--execute", "--force",
        ])
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("sent "), "\(result.stdout)")
    }

    @Test func sigintStopsCleanlyWithASummaryAndARerunResumes() async throws {
        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["payments": 1, "payments.dlq": 1])
        let good = try Self.payload("payment-captured-v2.json")
        try await Self.produce(broker, (0..<20).map { Self.deadLetter(of: $0, payload: good) })
        let journal = temporaryFile("redrive.jsonl")
        defer { try? FileManager.default.removeItem(at: journal) }
        let arguments = ["dlq", "redrive", "-b", broker.bootstrapServers, "-t", "payments.dlq", "--journal", journal.path, "--execute", "--rate", "4/s"]

        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        try await Task.sleep(for: .seconds(2.5))
        process.interrupt()
        let (stdout, stderr) = try await withDeadline(.seconds(30), "redrive ends after SIGINT") {
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    let o = out.fileHandleForReading.readDataToEndOfFile()
                    let e = err.fileHandleForReading.readDataToEndOfFile()
                    process.waitUntilExit()
                    continuation.resume(returning: (String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self)))
                }
            }
        }
        #expect(process.terminationStatus == 130, "interrupted is not success: \(stdout)\(stderr)")
        let sentRows = stdout.split(separator: "\n").filter { $0.hasPrefix("payments.dlq/0@") && $0.contains(" sent") }
        let sent = try await Self.high(broker, "payments")
        #expect(sent > 0 && sent < 20, "\(sent)")
        #expect(sentRows.count == Int(sent), "each record printed as it was sent: \(stdout)")
        #expect(stderr.contains("redrive: interrupted: sent \(sent) record(s)") && stderr.contains("run the same command again"), "\(stderr)")
        #expect(try String(contentsOf: journal, encoding: .utf8).split(separator: "\n").count == Int(sent))

        let resumed = try await CLI.runOffPool(Array(arguments.dropLast(2)))
        #expect(resumed.exitCode == 0, "\(resumed.stdout)\(resumed.stderr)")
        #expect(resumed.stdout.contains("sent \(20 - sent) record(s) to their original topic(s); refused 0, skipped \(sent) already redriven"), "\(resumed.stdout)")
        #expect(try await Self.high(broker, "payments") == 20, "every record once")
    }
}
