import Foundation
import Testing

@testable import Switchyard
import SwitchyardCatalog
import SwitchyardFuzz
import SwitchyardTestSupport

/// The fast path (`JSONCursor` → `FastCodable` models → `CanonicalWriter`) against the general path
/// (`JSONReader` → `Decoder` → `init(from:)` → `CanonicalJSONEncoder`): same outcome, same value, same
/// unknown-field count, same bytes out. The fast path may leave a record to the general path ("bail"),
/// but it must never decide a record differently.
@Suite struct FastPathTests {
    /// What the comparison saw.
    struct Tally {
        var fast = 0
        var bailed = 0
    }

    /// Compares both paths on one input; returns whether the fast path decided it.
    @discardableResult
    static func compare<C: EventCatalog & Hashable>(_ catalog: C.Type, _ input: [UInt8], _ label: @autoclosure () -> String) -> Bool {
        let (decided, violation) = FastPathAgreement.check(catalog, input)
        #expect(violation == nil, "\(violation.map(String.init(describing:)) ?? ""): \(label())")
        return decided
    }

    static func compare(topic: String, _ input: [UInt8], _ label: @autoclosure () -> String) -> Bool {
        topic == "payments" ? compare(PaymentEvent.self, input, label()) : compare(FeedEvent.self, input, label())
    }

    @Test func fixtures() throws {
        var tally = Tally()
        for fixture in try Fixtures.expectations() {
            let decided = Self.compare(topic: fixture.topic, try Fixtures.bytes(fixture.file), fixture.file)
            if decided { tally.fast += 1 } else { tally.bailed += 1 }
            // Every valid fixture is one the fast path handles itself, except an escaped tag (documented).
            if fixture.outcome != "failed" && fixture.file != "payment-captured-escaped-tag.json" {
                #expect(decided, "\(fixture.file) left to the general path")
            }
        }
        #expect(tally.fast >= 27)
    }

    /// The bench corpus: every record that is not malformed takes the fast path.
    @Test(arguments: ShippedCatalog.allCases)
    func corpus(_ catalog: ShippedCatalog) {
        var generator = CorpusGenerator(seed: 6)
        var tally = Tally()
        for n in 0..<5_000 {
            let (value, shape, _) = generator.next(catalog)
            let decided = Self.compare(topic: catalog.rawValue, value, "\(catalog) record \(n) (\(shape)): \(String(decoding: value, as: UTF8.self))")
            if decided { tally.fast += 1 } else { tally.bailed += 1 }
            if shape != .malformed { #expect(decided, "\(shape) record left to the general path: \(String(decoding: value, as: UTF8.self))") }
        }
        #expect(tally.fast >= 4_900)
    }

    /// Validating without values checks a timestamp exactly as decoding does, though it makes no instant: a
    /// timestamp the parser refuses is left to the general path (which rejects the record) by both.
    @Test func timestampsWhenValidatingWithoutValues() {
        let options = JSONReader.Options(rejectDuplicateKeys: true)
        for (occurredAt, valid) in [
            ("2024-02-29T08:15:00.123+02:00", true), ("2026-08-01T07:33:31Z", true), ("2023-02-29T08:15:00Z", false),
            ("2024-03-01T24:00:00Z", false), ("2024-03-01T12:30:00", false), ("2024-03-01T12:30:00+0530", false),
        ] {
            let input = Array(
                #"{"type":"post.liked","id":"evt_1","occurredAt":"\#(occurredAt)","postId":"post_1","userId":"usr_1"}"#.utf8)
            let bare = input.withUnsafeBytes { FeedEvent.validateFast($0, options: options) }
            let full = input.withUnsafeBytes { FeedEvent.decodeFast($0, options: options) }
            #expect((bare != nil) == valid && (full != nil) == valid, "\(occurredAt)")
            Self.compare(FeedEvent.self, input, occurredAt)
        }
    }

    /// The Foundation differential's mutations: every field replaced by every JSON type, removed, and more.
    @Test func mutations() {
        var tally = Tally()
        for (name, input) in DifferentialTests.mutations(of: DifferentialTests.payment) {
            if Self.compare(PaymentEvent.self, Array(input.utf8), "payment \(name)") { tally.fast += 1 } else { tally.bailed += 1 }
        }
        for (name, input) in DifferentialTests.mutations(of: DifferentialTests.post) {
            if Self.compare(FeedEvent.self, Array(input.utf8), "post \(name)") { tally.fast += 1 } else { tally.bailed += 1 }
        }
        #expect(tally.fast > 50 && tally.bailed > 50)
    }

    static let liked = #"{"type":"post.liked","id":"evt_1","occurredAt":"2025-03-01T12:00:00Z","postId":"p_1","userId":"u_1"}"#

    /// Spellings the fast path must get exactly right, or leave alone.
    @Test(arguments: [
        // Layout
        #"{"id":"evt_1","type":"post.liked","occurredAt":"2025-03-01T12:00:00Z","postId":"p_1","userId":"u_1"}"#,
        #" { "type" : "post.liked" , "id" : "evt_1" , "occurredAt" : "2025-03-01T12:00:00Z" , "postId" : "p_1" , "userId" : "u_1" } "#
            + "\n\t\r",
        liked + " x", liked + "}", "\u{FEFF}" + liked, String(liked.dropLast()), liked.replacingOccurrences(of: ",", with: ",,"),
        liked.replacingOccurrences(of: "}", with: ",}"),
        // Tags
        #"{"type":"post.liked","type":"post.liked","id":"evt_1","occurredAt":"2025-03-01T12:00:00Z","postId":"p_1","userId":"u_1"}"#,
        #"{"type":"post.li\u006bed","id":"evt_1","occurredAt":"2025-03-01T12:00:00Z","postId":"p_1","userId":"u_1"}"#,
        #"{"type":1,"id":"evt_1"}"#, #"{"type":null}"#, #"{"id":"evt_1"}"#, #"{}"#, #"[]"#, #""post.liked""#, "",
        #"{"type":"x.unknown","a":{"b":[1,2,{"c":null}]},"d":"\u00e9"}"#,
        #"{"type":"x.unknown","a":{"b":1,"b":2}}"#, #"{"type":"x.unknown","a":[1,]}"#, #"{"type":"x.unknown","a":01}"#,
        #"{"type":"x.unknown","a":"\ud800"}"#, #"{"type":"x.unknown","a":1.5e+3,"b":-0.0,"c":true,"d":false}"#,
        // Keys
        #"{"type":"post.liked","id":"evt_1","occurredAt":"2025-03-01T12:00:00Z","post\u0049d":"p_1","userId":"u_1"}"#,
        #"{"type":"post.liked","id":"evt_1","occurredAt":"2025-03-01T12:00:00Z","postId":"p_1","userId":"u_1","postId":"p_2"}"#,
        #"{"type":"post.liked","id":"evt_1","occurredAt":"2025-03-01T12:00:00Z","postId":"p_1","userId":"u_1","x":1,"x":2}"#,
        #"{"type":"post.liked","id":"evt_1","occurredAt":"2025-03-01T12:00:00Z","postId":"p_1","userId":"u_1","x":{"y":1,"y":2}}"#,
        #"{"type":"post.liked","id":"evt_1","occurredAt":"2025-03-01T12:00:00Z","postId":"p_1","userId":"u_1","x":{"y":[{"z":"é\n"}]} ,"w" : [ 1 , 2 ]}"#,
        #"{"type":"post.liked","id":"evt_1","occurredAt":"2025-03-01T12:00:00Z","postId":"p_1","userId":"u_1","type2":"x"}"#,
        // Values
        #"{"type":"post.liked","id":"","occurredAt":"2025-03-01T12:00:00Z","postId":"p_1","userId":"u_1"}"#,
        #"{"type":"post.liked","id":"evt_1","occurredAt":"2025-02-30T12:00:00Z","postId":"p_1","userId":"u_1"}"#,
        #"{"type":"post.liked","id":"evt_1","occurredAt":"2025-03-01T12:00:00\u005a","postId":"p_1","userId":"u_1"}"#,
        #"{"type":"post.liked","id":"evt_1","occurredAt":"2025-03-01T12:00:00Z","postId":"p\"1\\\/\u00e9\ud83d\ude00","userId":"u_1"}"#,
        #"{"type":"post.liked","id":"evt_1","occurredAt":"2025-03-01T12:00:00Z","postId":"p_1","userId":"u\u0000"}"#,
        #"{"type":"post.liked","id":"evt_1","occurredAt":"2025-03-01T12:00:00Z","schemaVersion":null,"postId":"p_1","userId":"u_1"}"#,
        #"{"type":"post.liked","id":"evt_1","occurredAt":"2025-03-01T12:00:00Z","schemaVersion":1e0,"postId":"p_1","userId":"u_1"}"#,
        #"{"type":"post.liked","id":"evt_1","occurredAt":"2025-03-01T12:00:00Z","schemaVersion":-0,"postId":"p_1","userId":"u_1"}"#,
        #"{"type":"post.liked","id":"evt_1","occurredAt":"2025-03-01T12:00:00Z","schemaVersion":9223372036854775807,"postId":"p_1","userId":"u_1"}"#,
        #"{"type":"post.liked","id":"evt_1","occurredAt":"2025-03-01T12:00:00Z","schemaVersion":9223372036854775808,"postId":"p_1","userId":"u_1"}"#,
        #"{"type":"post.liked","id":"evt_1","occurredAt":"2025-03-01T12:00:00Z","schemaVersion":123456789012345678,"postId":"p_1","userId":"u_1"}"#,
        #"{"type":"post.created","id":"evt_1","occurredAt":"2025-03-01T12:00:00Z","postId":"p","authorId":"a","text":"t","tags":null,"visibility":null,"mediaCount":null}"#,
        #"{"type":"post.created","id":"evt_1","occurredAt":"2025-03-01T12:00:00Z","postId":"p","authorId":"a","text":"t","tags":[],"visibility":"close_friends"}"#,
        #"{"type":"post.created","id":"evt_1","occurredAt":"2025-03-01T12:00:00Z","postId":"p","authorId":"a","text":"t","tags":["a",1]}"#,
        #"{"type":"post.created","id":"evt_1","occurredAt":"2025-03-01T12:00:00Z","postId":"p","authorId":"a","text":"t","tags":["a",]}"#,
        #"{"type":"post.created","id":"evt_1","occurredAt":"2025-03-01T12:00:00Z","postId":"p","authorId":"a","text":"t","tags":[null]}"#,
    ])
    func spellings(_ json: String) {
        Self.compare(FeedEvent.self, Array(json.utf8), json)
    }

    /// Reader limits below what the fast path's depth accounting assumes: everything goes to the reader.
    @Test func tightReaderLimitsBypassTheFastPath() {
        let record = Array(Self.liked.utf8)
        record.withUnsafeBytes { bytes in
            #expect(FeedEvent.decodeFast(bytes, options: JSONReader.Options(rejectDuplicateKeys: true)) != nil)
            #expect(FeedEvent.decodeFast(bytes, options: JSONReader.Options(maxDepth: 4, rejectDuplicateKeys: true)) == nil)
            #expect(FeedEvent.decodeFast(bytes, options: JSONReader.Options(maxBytes: 10, rejectDuplicateKeys: true)) == nil)
        }
    }

    /// Every document of the JSON conformance suite as the value of an unknown member, and as a record.
    @Test func jsonTestSuiteInsideRecords() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let folder = ProcessInfo.processInfo.environment["JSON_TEST_SUITE"].map { URL(fileURLWithPath: $0) }
            ?? root.deletingLastPathComponent().appendingPathComponent("shared/testdata/JSONTestSuite/test_parsing")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(names.count > 300)
        var tally = Tally()
        let prefix = Array(Self.liked.dropLast().utf8) + Array(#","extra":"#.utf8)
        for name in names {
            let document = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
            for input in [prefix + document + [UInt8(ascii: "}")], document] {
                if Self.compare(FeedEvent.self, input, name) { tally.fast += 1 } else { tally.bailed += 1 }
            }
        }
        #expect(tally.fast > 90)
    }
}

/// Neither path reads a byte past a record: each input sits at the very end of a page whose next page
/// cannot be read, so a read past the record's last byte stops the test process instead of reading
/// whatever follows (a record from librdkafka is followed by memory that is not the record's).
@Suite struct RecordBoundsTests {
    /// Found by `fuzz-differential` (a member pattern compared eight bytes at a time near the end).
    static let fuzzFinding = """
        {
          "type": "post.liked",
          "id": "evt_01KG2B4D6F8H0K2M8:15:27.333+10:00",
          "schemaVersion": 3,
          "postId": "post_01KF9J0K2M4P6R8T0V2X4Z6B8D",
          "reaction": "heart_eyes",
          "userId": "usr_01KG1A3C5E7G9J1L3N5Q7S9U1W",
          "sessionSeq": 1234567890123456789012342"]}
        }

        """

    @Test func decodingReadsNothingPastTheRecord() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let region = try #require(mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        try #require(region != MAP_FAILED)
        defer { munmap(region, 2 * page) }
        try #require(mprotect(region + page, page, PROT_NONE) == 0)

        var inputs: [(topic: String, bytes: [UInt8])] = [("feeds", Array(Self.fuzzFinding.utf8))]
        for fixture in try Fixtures.expectations() { inputs.append((fixture.topic, try Fixtures.bytes(fixture.file))) }
        var generator = CorpusGenerator(seed: 41)
        for catalog in ShippedCatalog.allCases {
            for _ in 0..<100 { inputs.append((catalog.rawValue, generator.next(catalog).value)) }
        }
        let registry = CatalogRegistry(Catalog.shipped)
        var decoded = 0
        for (topic, bytes) in inputs where bytes.count <= page {
            let catalog = try #require(registry[topic])
            var codecs = [TopicCodec(catalog: catalog, policy: .lenient), TopicCodec(catalog: catalog, policy: .lenient, keepsEvents: false)]
            // The whole record and every prefix of it: a record may end anywhere.
            for length in stride(from: bytes.count, through: 1, by: -1) {
                let start = region + page - length
                bytes.withUnsafeBytes { start.copyMemory(from: $0.baseAddress!, byteCount: length) }
                let value = UnsafeRawBufferPointer(start: start, count: length)
                for k in codecs.indices {
                    if case .decoded = codecs[k].decode(value).outcome, length == bytes.count { decoded += 1 }
                }
            }
        }
        #expect(decoded > 300, "decoded \(decoded)")
    }
}
