import Foundation
import Testing

@testable import Switchyard

/// The worker's log line (`JSONLogHandler`): one JSON object per line, `ts`, `level`, `msg` first, then the
/// metadata in sorted key order, every value a string, each key once. Read back with Foundation's parser.
@Suite struct JSONLogLineTests {
    static let ts = Timestamp(Date(timeIntervalSince1970: 1_796_304_906.019))

    /// The line's keys in order and its values, parsed independently of the writer.
    static func parse(_ line: [UInt8]) throws -> (keys: [String], values: [String: String]) {
        #expect(line.last == UInt8(ascii: "\n"), "one line, newline-terminated")
        #expect(!line.dropLast().contains(UInt8(ascii: "\n")), "no newline inside the line")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: String])
        // The key order, from the text: where each key, quoted and followed by a colon, first appears.
        let text = String(decoding: line, as: UTF8.self)
        var positions: [(key: String, at: String.Index)] = []
        for key in object.keys {
            let quoted = String(decoding: try JSONEncoder().encode(key), as: UTF8.self) + ":"
            let range = try #require(text.range(of: quoted), "key \(key) in \(text)")
            positions.append((key, range.lowerBound))
        }
        return (positions.sorted { $0.at < $1.at }.map(\.key), object)
    }

    @Test("fixed keys first, metadata sorted, values escaped and read back exactly")
    func layout() throws {
        let metadata = [
            "kafka.topic": "feeds", "error.message": "Expected \"String\" but found a number\\n\u{1}",
            "a.first": "é 🇨🇭", "kafka.offset": "13734", "z.last": "",
        ]
        let line = JSONLogHandler.line(level: .warning, message: "record dead-lettered", metadata: metadata, ts: Self.ts)
        let (keys, values) = try Self.parse(line)
        #expect(keys == ["ts", "level", "msg", "a.first", "error.message", "kafka.offset", "kafka.topic", "z.last"])
        #expect(values["ts"] == Self.ts.text)
        #expect(values["level"] == "warning")
        #expect(values["msg"] == "record dead-lettered")
        for (key, value) in metadata { #expect(values[key] == value, "\(key)") }
    }

    @Test("a metadata value under ts, level or msg takes that key's place; no key appears twice")
    func overrides() throws {
        let line = JSONLogHandler.line(
            level: .info, message: "m", metadata: ["msg": "from metadata", "level": "custom", "b": "1"], ts: Self.ts)
        let text = String(decoding: line, as: UTF8.self)
        let (keys, values) = try Self.parse(line)
        #expect(keys == ["ts", "level", "msg", "b"])
        #expect(values["msg"] == "from metadata")
        #expect(values["level"] == "custom")
        #expect(text.components(separatedBy: "\"msg\":").count == 2, "msg once: \(text)")
    }

    @Test("no metadata: the three keys only")
    func empty() throws {
        let (keys, values) = try Self.parse(JSONLogHandler.line(level: .error, message: "", metadata: [:], ts: Self.ts))
        #expect(keys == ["ts", "level", "msg"])
        #expect(values["msg"] == "")
    }
}
