import Foundation
import Switchyard
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// `dlq show` on the location that /status, the logs and the alerts give (the source record, `payments/0@3`):
/// its dead letter, else what this build makes of the record; never a made-up dead letter.
@Suite(.serialized, .timeLimit(.minutes(3))) struct DLQShowSourceTests {
    @Test func aSourceLocationShowsItsDeadLetterOrItsDiagnosis() async throws {
        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["payments": 1, "payments.dlq": 1])
        let bad = try DLQRedriveTests.payload("fail-amount-value-string.json")
        let good = try DLQRedriveTests.payload("payment-captured-v2.json")
        let producer = try KafkaProducer.make(
            configuration: KafkaProducerConfiguration(
                kafka: KafkaConfiguration(bootstrapServers: [broker.bootstrapServers], clientID: "fixtures", logLevel: .error)),
            logger: NoOpKafkaLogger())
        for value in [good, bad, bad] {
            _ = try await producer.send(KafkaProducerRecord(topic: "payments", partition: 0, key: Array("k".utf8), value: value))
        }
        // payments/0@2 was dead-lettered (as payments.dlq/0@0); payments/0@1 was not (yet).
        _ = try await producer.send(DLQRedriveTests.deadLetter(of: 2, payload: bad))
        // payments/0@9 is no longer in payments (retention, or a recreated topic); its dead letter is.
        _ = try await producer.send(DLQRedriveTests.deadLetter(of: 9, payload: bad))
        await producer.close()
        let b = ["-b", broker.bootstrapServers]

        let dead = try await CLI.runOffPool(["dlq", "show", "payments/0@2"] + b)
        #expect(dead.exitCode == 0, "\(dead.stderr)")
        #expect(dead.stdout.hasPrefix("Dead letter payments.dlq/0@0  (switchyard headers)"), "\(dead.stdout)")
        #expect(dead.stderr.contains("payments/0@2 is a record of payments: showing its dead letter, payments.dlq/0@0"), "\(dead.stderr)")

        let source = try await CLI.runOffPool(["dlq", "show", "payments/0@1"] + b)
        #expect(source.exitCode == 0, "\(source.stderr)")
        #expect(!source.stdout.contains("none headers") && !source.stdout.contains("Dead letter"), "no made-up dead letter: \(source.stdout)")
        #expect(source.stdout.hasPrefix("Record payments/0@1  (a source record: no dead letter of it in payments.dlq)"), "\(source.stdout)")
        #expect(source.stdout.contains("This build  typeMismatch at 'amount.value' in payment.captured: "), "\(source.stdout)")
        #expect(source.stdoutLines.contains { $0.contains("◀ typeMismatch at 'amount.value'") }, "\(source.stdout)")

        let gone = try await CLI.runOffPool(["dlq", "show", "payments/0@9"] + b)
        #expect(gone.exitCode == 0 && gone.stdout.hasPrefix("Dead letter payments.dlq/0@1  (switchyard headers)"), "\(gone.stdout)\(gone.stderr)")
        #expect(gone.stderr.contains("payments/0@9 is a record of payments (no longer in it): showing its dead letter, payments.dlq/0@1"))

        let beyond = try await CLI.runOffPool(["dlq", "show", "payments.dlq/0@7"] + b)
        #expect(beyond.exitCode == 1, "\(beyond.stderr)")
        #expect(beyond.stderr.hasPrefix("error: no dead letter at payments.dlq/0@7 (0 read): payments.dlq/0 holds offsets 0…1"), "\(beyond.stderr)")

        let decoded = try await CLI.runOffPool(["dlq", "show", "payments/0@0", "--json"] + b)
        #expect(decoded.exitCode == 0, "\(decoded.stderr)")
        let o = try ReplayCommandTests.object(decoded.stdout)
        #expect(o["outcome"] as? String == "decoded" && o["location"] as? String == "payments/0@0" && o["deadLetter"] is NSNull, "\(decoded.stdout)")
    }
}
