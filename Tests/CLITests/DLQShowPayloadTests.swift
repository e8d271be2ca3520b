import Foundation
import SwitchyardKafka
import SwitchyardTestSupport
import Testing

/// `dlq show --reveal` shows a payload that is not JSON as bytes (an xxd-like dump), and `-o json` carries the
/// payload as JSON when it is JSON (`payloadValue`) and as hex otherwise (`payloadHex`).
@Suite(.serialized, .timeLimit(.minutes(3))) struct DLQShowPayloadTests {
    @Test func aPayloadThatIsNotJSONIsShownAsBytesAndJSONOutputCarriesThePayload() async throws {
        let broker = try EmbeddedBroker.make(brokers: 1, topics: ["feeds.dlq": 1])
        let producer = try DLQFollowTests.producer(broker)
        // @0: a JSON payload spread over lines; @1: bytes that are not JSON (a protobuf-like frame).
        var json = DLQFollowTests.deadLetter(0, path: "userId")
        json.value = Array("{\"type\": \"post.liked\",\n \"postId\": \"p\", \"n\": 12}".utf8)
        _ = try await producer.send(json)
        var binary = DLQFollowTests.deadLetter(1, path: "")
        binary.value = [0x0A, 0x05] + Array("hello".utf8) + [0x10, 0x96, 0x01, 0xFF, 0x00] + Array("tail of the frame!".utf8)
        _ = try await producer.send(binary)
        await producer.close()
        let base = ["dlq", "show", "-b", broker.bootstrapServers, "-t", "feeds.dlq"]

        let hex = try await CLI.runOffPool(base + ["1", "--reveal"])
        #expect(hex.exitCode == 0, "\(hex.stderr)")
        #expect(hex.stdout.contains("Payload bytes (30, not JSON):"), "\(hex.stdout)")
        #expect(hex.stdout.contains("  00000000: 0a05 6865 6c6c 6f10 9601 ff00 7461 696c  ..hello.....tail"), "\(hex.stdout)")
        #expect(hex.stdout.contains("  00000010: 206f 6620 7468 6520 6672 616d 6521        of the frame!"), "\(hex.stdout)")
        // Redacted (no --reveal): no bytes of the payload.
        let redacted = try await CLI.runOffPool(base + ["1"])
        #expect(redacted.exitCode == 0, "\(redacted.stderr)")
        #expect(!redacted.stdout.contains("hello") && !redacted.stdout.contains("6865 6c6c"), "\(redacted.stdout)")

        let binaryJSON = try await CLI.runOffPool(base + ["1", "--reveal", "-o", "json"])
        #expect(binaryJSON.exitCode == 0, "\(binaryJSON.stderr)")
        let b = try ReplayCommandTests.object(binaryJSON.stdout)
        #expect(b["payloadHex"] as? String == "0a0568656c6c6f109601ff007461696c206f6620746865206672616d6521", "\(binaryJSON.stdout)")
        #expect(b["payloadValue"] == nil)

        let objectJSON = try await CLI.runOffPool(base + ["0", "--reveal", "--json"])
        #expect(objectJSON.exitCode == 0, "\(objectJSON.stderr)")
        #expect(objectJSON.stdoutLines.count == 1, "one line: \(objectJSON.stdout)")
        let o = try ReplayCommandTests.object(objectJSON.stdout)
        let value = try #require(o["payloadValue"] as? [String: Any], "\(objectJSON.stdout)")
        #expect(value["type"] as? String == "post.liked" && value["postId"] as? String == "p" && value["n"] as? Int == 12)
        #expect(o["payloadHex"] == nil)
        // Redacted JSON output carries neither.
        let redactedJSON = try ReplayCommandTests.object(try await CLI.runOffPool(base + ["0", "--json"]).stdout)
        #expect(redactedJSON["payloadValue"] == nil && redactedJSON["payloadHex"] == nil && redactedJSON["redacted"] as? Bool == true)
    }
}
