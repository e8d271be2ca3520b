import Switchyard
import SwitchyardCatalog

/// One hostile record and what Switchyard must make of it.
package struct AdversarialInput: Sendable {
    /// A short name (also the file name the generator writes).
    package var name: String
    /// What it is, for the table.
    package var summary: String
    /// The catalog it is replayed under.
    package var catalog: ShippedCatalog
    /// The record value.
    package var bytes: [UInt8]
    /// The expected outcome: `decoded`, `unknown` or `failed`.
    package var outcome: String
    /// For failures: the kind and path.
    package var kind: FailureKind?
    package var path: String?
    /// For failures: the start of the message (it names the reason, never a value).
    package var messagePrefix: String?
    /// The reader's size limit to decode under (the worker's `maxRecordBytes`); nil for the default.
    package var maxRecordBytes: Int?
}

/// Generates the hostile inputs — nothing large is checked in. Every input is one line
/// (no raw newline byte), so the set can be written as NDJSON and replayed.
package enum AdversarialInputs {
    static let envelope = #""id":"evt_adv","occurredAt":"2026-01-01T00:00:00Z""#

    static func post(_ middle: String) -> [UInt8] {
        Array(#"{"type":"post.created",\#(envelope),"postId":"p_1","authorId":"u_1","text":"hi""#.utf8) + Array(middle.utf8) + [UInt8(ascii: "}")]
    }

    static func post(bytes middle: [UInt8]) -> [UInt8] {
        Array(#"{"type":"post.created",\#(envelope),"postId":"p_1","authorId":"u_1","text":"#.utf8) + middle + Array(#","tags":[]}"#.utf8)
    }

    static func payment(value: String) -> [UInt8] {
        Array(#"{"type":"payment.captured",\#(envelope),"paymentId":"pay_1","amount":{"value":\#(value),"currency":"EUR"},"merchant":{"id":"m_1","name":"Shop"}}"#.utf8)
    }

    /// The inputs. `scale` 1 is the issue's sizes (20 MB, 1,000,000 levels, 100,000 keys, 10,000
    /// digits); tests may pass less.
    package static func all(scale: Double = 1) -> [AdversarialInput] {
        func n(_ full: Int) -> Int { max(1, Int(Double(full) * scale)) }
        var inputs: [AdversarialInput] = []
        func add(_ name: String, _ summary: String, _ catalog: ShippedCatalog, _ bytes: [UInt8], _ outcome: String,
                 _ kind: FailureKind? = nil, _ path: String? = nil, _ prefix: String? = nil, max: Int? = nil) {
            inputs.append(AdversarialInput(name: name, summary: summary, catalog: catalog, bytes: bytes, outcome: outcome,
                                           kind: kind, path: path, messagePrefix: prefix, maxRecordBytes: max))
        }
        // Size: a valid record carrying a 20 MB unknown field.
        let big = post(#","blob":""# + String(repeating: "a", count: n(20_000_000)) + #"""#)
        add("record-20mb", "valid post.created with a \(big.count)-byte unknown string field", .feeds, big, "decoded")
        add("record-20mb-over-limit", "the same record, maxRecordBytes 1 MiB (the worker's default)", .feeds, big, "failed",
            .dataCorrupted, "", "Invalid JSON: record larger than 1048576 bytes", max: 1 << 20)
        // Depth.
        let depth = n(1_000_000)
        add("nesting-1m", "\(depth) nested arrays in an unknown field", .feeds,
            post(#","deep":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth)), "failed",
            .dataCorrupted, "", "Invalid JSON: nesting deeper than 512")
        add("nesting-1m-objects", "\(depth) nested objects as the record", .feeds,
            Array(String(repeating: #"{"a":"#, count: depth).utf8) + [UInt8(ascii: "1")] + Array(repeating: UInt8(ascii: "}"), count: depth),
            "failed", .dataCorrupted, "", "Invalid JSON: nesting deeper than 512")
        add("nesting-512", "512 nested arrays in an unknown field (the limit: accepted)", .feeds,
            post(#","deep":"# + String(repeating: "[", count: 511) + String(repeating: "]", count: 511)), "decoded")
        // Width.
        let keys = n(100_000)
        add("keys-100k", "\(keys) distinct unknown keys in one object", .feeds,
            post((0..<keys).map { #","k\#($0)":\#($0)"# }.joined()), "decoded")
        add("keys-100k-duplicate-last", "\(keys) keys, the last repeating the first", .feeds,
            post((0..<keys).map { #","k\#($0)":\#($0)"# }.joined() + #","k0":0"#), "failed",
            .dataCorrupted, "k0", "Duplicate key")
        add("array-1m", "\(n(1_000_000)) elements in the tags array of a known field", .feeds,
            post(#","tags":["# + Array(repeating: #""t""#, count: n(1_000_000)).joined(separator: ",") + "]"), "decoded")
        // Numbers.
        let digits = String(repeating: "9", count: n(10_000))
        add("number-10k-digits-known", "a \(digits.count)-digit amount.value (Int64)", .payments, payment(value: digits), "failed",
            .dataCorrupted, "amount.value", "Number does not fit")
        add("number-10k-digits-unknown", "a \(digits.count)-digit unknown field, kept exactly", .feeds, post(#","big":"# + digits), "decoded")
        add("number-huge-exponent", "1e999999999 as amount.value", .payments, payment(value: "1e999999999"), "failed",
            .dataCorrupted, "amount.value", "Number does not fit")
        add("number-fraction-10k", "0.000…1 with \(digits.count) zeros as amount.value", .payments,
            payment(value: "0." + String(repeating: "0", count: n(10_000)) + "1"), "failed", .dataCorrupted, "amount.value", "Number does not fit")
        // Encodings.
        add("utf8-invalid", "0xFF inside a string value", .feeds, post(bytes: [0x22, 0x61, 0xFF, 0x62, 0x22]), "failed",
            .dataCorrupted, "", "Invalid JSON: invalid UTF-8")
        add("utf8-overlong-slash", "overlong 2-byte '/' (C0 AF)", .feeds, post(bytes: [0x22, 0xC0, 0xAF, 0x22]), "failed",
            .dataCorrupted, "", "Invalid JSON: invalid UTF-8")
        add("utf8-overlong-nul", "overlong 3-byte NUL (E0 80 80)", .feeds, post(bytes: [0x22, 0xE0, 0x80, 0x80, 0x22]), "failed",
            .dataCorrupted, "", "Invalid JSON: invalid UTF-8")
        add("utf8-surrogate-bytes", "a UTF-8-encoded surrogate (ED A0 80)", .feeds, post(bytes: [0x22, 0xED, 0xA0, 0x80, 0x22]), "failed",
            .dataCorrupted, "", "Invalid JSON: invalid UTF-8")
        add("utf8-above-max", "a code point above U+10FFFF (F4 90 80 80)", .feeds, post(bytes: [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22]), "failed",
            .dataCorrupted, "", "Invalid JSON: invalid UTF-8")
        add("utf8-truncated", "a truncated 3-byte sequence at the end of the record", .feeds, post(#","x":"a"#) .dropLast() + [0xE2, 0x82], "failed",
            .dataCorrupted, "", "Invalid JSON")
        add("lone-high-surrogate", #"a lone \ud800 escape in a known field"#, .feeds, post(bytes: Array(#""a\ud800b""#.utf8)), "failed",
            .dataCorrupted, "", "Invalid JSON: unpaired UTF-16 surrogate")
        add("lone-low-surrogate", #"a lone \udc00 escape in an unknown field"#, .feeds, post(#","x":"\udc00""#), "failed",
            .dataCorrupted, "", "Invalid JSON: unpaired UTF-16 surrogate")
        add("surrogate-pair", #"a valid pair \ud83d\ude00 (accepted)"#, .feeds, post(bytes: Array(#""\ud83d\ude00""#.utf8)), "decoded")
        add("nul-raw", "a raw NUL byte inside a string", .feeds, post(bytes: [0x22, 0x61, 0x00, 0x62, 0x22]), "failed",
            .dataCorrupted, "", "Invalid JSON: unescaped control character")
        add("nul-escaped", #"an escaped \u0000 in a string (valid JSON: accepted)"#, .feeds, post(bytes: Array(#""a\u0000b""#.utf8)), "decoded")
        add("nul-after-record", "a NUL byte after the record", .feeds, post("") + [0x00], "failed",
            .dataCorrupted, "", "Invalid JSON: content after the JSON value")
        add("bom", "a UTF-8 byte order mark before the record", .feeds, [0xEF, 0xBB, 0xBF] + post(""), "failed",
            .dataCorrupted, "", "Invalid JSON: byte order mark")
        // Duplicate keys.
        add("duplicate-key-depth-3", "a duplicate key three objects deep in an unknown field", .feeds,
            post(#","x":{"y":{"z":{"k":1,"k":2}}}"#), "failed", .dataCorrupted, "x.y.z.k", "Duplicate key")
        add("duplicate-key-depth-20", "a duplicate key 20 levels deep (arrays and objects)", .feeds,
            post(#","x":"# + String(repeating: #"[{"a":"#, count: 10) + #"{"k":1,"k":2}"# + String(repeating: "}]", count: 10)), "failed",
            .dataCorrupted, "x" + String(repeating: "[0].a", count: 10) + ".k", "Duplicate key")
        add("duplicate-key-escaped", #"the tag twice, once as "ty\u0070e""#, .payments,
            Array(#"{"type":"payment.captured","ty\u0070e":"payment.failed","id":"e"}"#.utf8), "failed",
            .dataCorrupted, "type", "Duplicate key")
        add("duplicate-key-known", "amount.currency twice", .payments,
            Array(String(decoding: payment(value: "1"), as: UTF8.self).replacingOccurrences(of: #""currency":"EUR""#, with: #""currency":"EUR","currency":"USD""#).utf8),
            "failed", .dataCorrupted, "amount.currency", "Duplicate key")
        return inputs
    }
}
