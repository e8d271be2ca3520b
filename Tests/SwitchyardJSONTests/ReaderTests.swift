import Testing

@testable import SwitchyardJSON

@Suite struct ReaderTests {
    func error(_ text: String, options: JSONReader.Options = .init()) -> JSONSyntaxError? {
        do {
            _ = try JSONReader(options: options).parse(Array(text.utf8))
            return nil
        } catch {
            return error
        }
    }

    func error(bytes: [UInt8]) -> JSONSyntaxError? {
        do {
            _ = try JSONReader().parse(bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test func reportsTheByteOffset() {
        #expect(error(#"{"a":1,}"#) == JSONSyntaxError(.unexpectedCharacter, at: 7))
        #expect(error(#"{"a":01}"#) == JSONSyntaxError(.invalidNumber, at: 6))
        #expect(error(#"{"a":tru}"#) == JSONSyntaxError(.unexpectedCharacter, at: 8))
        #expect(error(#"{"a":"x"#) == JSONSyntaxError(.unexpectedEnd, at: 7))
        #expect(error(#"{"a":1} x"#) == JSONSyntaxError(.trailingContent, at: 8))
        #expect(error("") == JSONSyntaxError(.empty, at: 0))
        #expect(error(#"{"a":"\x"}"#) == JSONSyntaxError(.invalidEscape, at: 6))
        #expect(error("{\"a\":\"\u{01}\"}") == JSONSyntaxError(.controlCharacterInString, at: 6))
        #expect(error(#"{"a":"\ud800"}"#)?.reason == .loneSurrogate)
        #expect(error(#"{"a":"\udc00\ud800"}"#)?.reason == .loneSurrogate)
    }

    @Test func messagesNeverQuoteInput() {
        let e = error(#"{"secret":"hunter2" x}"#)
        #expect(e != nil)
        #expect(!(e?.description.contains("hunter2") ?? true))
        #expect(e?.description.contains("byte offset 20") == true)
    }

    @Test func nestingLimitIs512() {
        let ok = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(error(ok) == nil)
        let deep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        #expect(error(deep)?.reason == .tooDeep(limit: 512))
        // A million levels fail fast at the limit, without recursion.
        let huge = String(repeating: "{\"a\":", count: 1_000_000)
        #expect(error(huge)?.reason == .tooDeep(limit: 512))
    }

    @Test func rejectsInvalidUTF8() {
        for bad: [UInt8] in [
            [0x22, 0xC0, 0xAF, 0x22],  // overlong '/'
            [0x22, 0xE0, 0x80, 0xAF, 0x22],  // overlong 3-byte
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // UTF-8 encoded surrogate
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
            [0x22, 0xFF, 0x22],
            [0x22, 0xC3, 0x22],  // truncated sequence
        ] {
            #expect(error(bytes: bad)?.reason == .invalidUTF8, "\(bad)")
        }
        #expect(error(bytes: Array("\"caf\u{e9} \u{1F600}\"".utf8)) == nil)
    }

    @Test func rejectsBOMAndNUL() {
        #expect(error(bytes: [0xEF, 0xBB, 0xBF] + Array("{}".utf8))?.reason == .byteOrderMark)
        #expect(error(bytes: Array(#"{"a":""#.utf8) + [0] + Array(#""}"#.utf8))?.reason == .controlCharacterInString)
    }

    @Test func duplicateKeysComparedAfterUnescaping() {
        let options = JSONReader.Options(rejectDuplicateKeys: true)
        #expect(error(#"{"a":1,"\u0061":2}"#, options: options) != nil)
        #expect(error(#"{"a":1,"b":{"a":2}}"#, options: options) == nil)
        // Large objects go through the hashed path.
        var members = (0..<100).map { "\"k\($0)\":\($0)" }
        #expect(error("{" + members.joined(separator: ",") + "}", options: options) == nil)
        members.append("\"k\\u0037\":1")  // "k7" again, escaped
        if case .duplicateKey? = error("{" + members.joined(separator: ",") + "}", options: options)?.reason {} else {
            Issue.record("duplicate in a large object not found")
        }
    }

    @Test func tapeRecordsRangesAndSkips() throws {
        let text = #"{"a":[1,{"b":null}],"c":"x\"y","d":-1.5e3}"#
        let tape = try JSONReader().parse(Array(text.utf8))
        #expect(tape[0].kind == .object && tape[0].count == 3)
        let members = tape.members(of: 0)
        #expect(members.count == 3)
        let array = members[0].value
        #expect(tape[array].kind == .array && tape[array].count == 2)
        #expect(tape.elements(of: array).count == 2)
        let c = tape[members[1].value]
        #expect(c.kind == .string && c.isEscaped)
        let d = tape[members[2].value]
        #expect(d.kind == .number && !d.isInteger)
        let bytes = Array(text.utf8)
        #expect(String(decoding: bytes[Int(d.start)..<Int(d.end)], as: UTF8.self) == "-1.5e3")
        #expect(tape.pathComponents(to: tape.elements(of: array)[1] + 2) == [.key(1), .index(1), .key(tape.elements(of: array)[1] + 1)])
    }
}

@Suite struct CodecTests {
    struct Item: Codable, Equatable {
        var name: String
        var count: Int
        var ratio: Double?
        var flags: [Bool]
        var nested: [String: Int]
        var unknown = UnknownFields()

        enum CodingKeys: String, CodingKey { case name, count, ratio, flags, nested }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            name = try c.decode(String.self, forKey: .name)
            count = try c.decode(Int.self, forKey: .count)
            ratio = try c.decodeIfPresent(Double.self, forKey: .ratio)
            flags = try c.decode([Bool].self, forKey: .flags)
            nested = try c.decode([String: Int].self, forKey: .nested)
            unknown = try UnknownFields(from: decoder, excluding: CodingKeys.self)
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(name, forKey: .name)
            try c.encode(count, forKey: .count)
            try c.encodeIfPresent(ratio, forKey: .ratio)
            try c.encode(flags, forKey: .flags)
            try c.encode(nested, forKey: .nested)
            try unknown.encode(to: encoder)
        }
    }

    @Test func decodesAndEncodesGenericCodable() throws {
        let input = #"{"zz":[1, 2],"name":"a\nb","count":-3,"ratio":0.5,"flags":[true,false],"nested":{"x":1},"big":1e400}"#
        let item = try SwitchyardJSONDecoder().decode(Item.self, from: Array(input.utf8))
        #expect(item.name == "a\nb" && item.count == -3 && item.ratio == 0.5 && item.flags == [true, false] && item.nested == ["x": 1])
        #expect(item.unknown.keys == ["zz", "big"])
        let output = String(decoding: try CanonicalJSONEncoder().encode(item), as: UTF8.self)
        #expect(output == #"{"name":"a\nb","count":-3,"ratio":0.5,"flags":[true,false],"nested":{"x":1},"zz":[1,2],"big":1e400}"#)
    }

    @Test func pathsRenderLikeTheContract() {
        #expect(CodingPathRenderer.render([]) == "")
        #expect(CodingPathRenderer.render([JSONKey(stringValue: "amount"), JSONKey(stringValue: "value")]) == "amount.value")
        #expect(CodingPathRenderer.render([JSONKey(stringValue: "tags"), JSONKey.index(2)]) == "tags[2]")
        #expect(CodingPathRenderer.render([JSONKey(stringValue: "items"), .index(0), JSONKey(stringValue: "address"), JSONKey(stringValue: "zip")]) == "items[0].address.zip")
        #expect(CodingPathRenderer.render([JSONKey(stringValue: "a.b")]) == #"["a.b"]"#)
        #expect(CodingPathRenderer.render([JSONKey(stringValue: "x"), JSONKey(stringValue: "a b")]) == #"x["a b"]"#)
    }

    @Test func timestampsFollowRFC3339() throws {
        for ok in ["2024-03-01T12:30:00Z", "2024-03-01T12:30:00.123456789Z", "2024-02-29T00:00:00+05:30", "2024-03-01t12:30:00z", "2024-03-01T12:30:00.1-08:00"] {
            #expect(Timestamp(rfc3339: ok) != nil, "\(ok)")
        }
        for bad in ["2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-03-01 12:30:00Z", "2024-03-01T12:30:00", "2024-03-01T24:00:00Z", "2024-03-01T12:30:00.Z", "2024-03-01T12:30:00+0530", "yesterday"] {
            #expect(Timestamp(rfc3339: bad) == nil, "\(bad)")
        }
        let t = try #require(Timestamp(rfc3339: "2024-03-01T12:30:00.250+01:00"))
        #expect(t.epochSeconds == 1_709_292_600 && t.nanoseconds == 250_000_000 && t.utcOffsetSeconds == 3600)
        #expect(Timestamp(t.date).text == "2024-03-01T11:30:00.250Z")
    }

    /// Every character of valid timestamps replaced by every byte: the parser accepts exactly what a
    /// plain character-class reference accepts, and reads the same instant.
    @Test func timestampParserAgreesWithAReferenceOnEveryOneByteChange() {
        func reference(_ b: [UInt8]) -> (Int64, Int32, Int32)? {
            func digits(_ r: Range<Int>) -> Int64? {
                guard r.upperBound <= b.count, r.allSatisfy({ b[$0] >= 0x30 && b[$0] <= 0x39 }) else { return nil }
                return r.reduce(0) { $0 * 10 + Int64(b[$1] - 0x30) }
            }
            guard b.count >= 20, let y = digits(0..<4), b[4] == 0x2D, let mo = digits(5..<7), b[7] == 0x2D, let d = digits(8..<10),
                b[10] == 0x54 || b[10] == 0x74, let h = digits(11..<13), b[13] == 0x3A, let mi = digits(14..<16), b[16] == 0x3A,
                let sec = digits(17..<19), (1...12).contains(mo), d >= 1, d <= Timestamp.daysInMonth(y, mo), h <= 23, mi <= 59, sec <= 60
            else { return nil }
            var i = 19
            var nanos: Int64 = 0
            if b[i] == 0x2E {
                let start = i + 1
                i = start
                while i < b.count, b[i] >= 0x30 && b[i] <= 0x39 { i += 1 }
                guard i > start else { return nil }
                let fraction = b[start..<min(i, start + 9)].reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }
                nanos = fraction * Int64([1, 100_000_000, 10_000_000, 1_000_000, 100_000, 10_000, 1_000, 100, 10, 1][min(i - start, 9)])
            }
            guard i < b.count else { return nil }
            var offset: Int64 = 0
            if b[i] == 0x5A || b[i] == 0x7A {
                i += 1
            } else if b[i] == 0x2B || b[i] == 0x2D {
                guard let oh = digits(i + 1..<i + 3), i + 3 < b.count, b[i + 3] == 0x3A, let om = digits(i + 4..<i + 6), oh <= 23, om <= 59 else { return nil }
                offset = (b[i] == 0x2D ? -1 : 1) * (oh * 3600 + om * 60)
                i += 6
            } else {
                return nil
            }
            guard i == b.count else { return nil }
            return (Timestamp.daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - offset, Int32(nanos), Int32(offset))
        }
        var checked = 0
        for valid in ["2024-03-01T12:30:00.250+01:00", "2028-12-31T23:59:60Z", "1999-02-28t00:00:00.123456789012-12:45"] {
            let original = Array(valid.utf8)
            for position in original.indices {
                for byte in [0x2F, 0x30, 0x35, 0x39, 0x3A, 0x2D, 0x2B, 0x2E, 0x54, 0x5A, 0x7A, 0x20, 0xC3] as [UInt8] {
                    var changed = original
                    changed[position] = byte
                    let parsed = changed.withUnsafeBufferPointer { Timestamp.parse($0) }
                    let expected = reference(changed)
                    #expect(parsed?.0 == expected?.0 && parsed?.1 == expected?.1 && parsed?.2 == expected?.2,
                            "\(String(decoding: changed, as: UTF8.self))")
                    // What a reader that discards values checks: the same answer, without the instant.
                    #expect(changed.withUnsafeBufferPointer { Timestamp.isValid($0) } == (expected != nil),
                            "isValid: \(String(decoding: changed, as: UTF8.self))")
                    checked += 1
                }
            }
        }
        #expect(checked > 1000)
    }

    @Test func jsonObjectKeepsInsertionOrder() {
        var o = JSONObject()
        o.set("z", 1)
        o.set("a", "x")
        o.set("m", [1, 2])
        o.setIfPresent("n", nil as Int?)
        o.set("z", 2)
        #expect(o.text == #"{"z":2,"a":"x","m":[1,2]}"#)
    }

    @Test("a string value is written as the encoder writes it: escapes, control characters, non-ASCII")
    func jsonObjectStringsMatchTheEncoder() throws {
        let strings = ["", "plain", "quote \" and \\ backslash", "tab\tnew\nline\r", "\u{0}\u{1F}\u{7F}", "grüße 🇨🇭", "</script>"]
        for string in strings {
            var direct = JSONObject()
            direct.set("k", string)
            var generic = JSONObject()
            generic.set("k", Optional(string))
            #expect(direct.text == generic.text)
            #expect(direct.bytes == Array("{\"k\":".utf8) + (try CanonicalJSONEncoder().encode(string)) + [UInt8(ascii: "}")])
        }
        var replaced = JSONObject()
        replaced.set("a", "first")
        replaced.set("b", 1)
        replaced.set("a", "second")
        #expect(replaced.text == #"{"a":"second","b":1}"#)
    }

    @Test func decimalComparisonIsExact() {
        #expect(DecimalText(Array("100".utf8)) == DecimalText(Array("1e2".utf8)))
        #expect(DecimalText(Array("1.10".utf8)) == DecimalText(Array("1.1".utf8)))
        #expect(DecimalText(Array("-0".utf8)) == DecimalText(Array("0".utf8)))
        #expect(DecimalText(Array("123456789012345678901234567890".utf8)) != DecimalText(Array("123456789012345678901234567891".utf8)))
        #expect(DecimalText(Array("0.001".utf8)) == DecimalText(Array("1E-3".utf8)))
    }
}
