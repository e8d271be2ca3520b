import Testing

@testable import SwitchyardJSON

@Suite struct InlineStringTests {
    /// Texts on both sides of the inline capacity, with UTF-8, escapes-to-be and an empty one.
    static let texts = [
        "", "a", "evt_01J5Z4MXX80X6ZZN04H6P493P6", "123e4567-e89b-12d3-a456-426614174000",
        String(repeating: "x", count: 39), String(repeating: "x", count: 40), String(repeating: "x", count: 41),
        "Grüße aus Zürich 🇨🇭", "Ramen \"Ichiban\"", "tab\there", "back\\slash", String(repeating: "ü", count: 20),
        String(repeating: "ü", count: 21), "\u{0}nul",
    ]

    @Test(arguments: texts) func keepsTheTextAndItsSize(_ text: String) {
        let value = InlineString(text)
        #expect(value.string == text)
        #expect(value.utf8Count == text.utf8.count)
        #expect(value.isEmpty == text.isEmpty)
        if case .inline = value.storage {
            #expect(text.utf8.count <= InlineString.capacity)
        } else {
            #expect(text.utf8.count > InlineString.capacity)
        }
    }

    @Test(arguments: texts) func writesLikeTheStringWriter(_ text: String) {
        var viaString = CanonicalWriter()
        viaString.string(text)
        var viaInline = CanonicalWriter()
        viaInline.string(InlineString(text))
        // Copies out first: `#expect` cannot read a non-copyable value's property.
        let expected = viaString.bytes
        let written = viaInline.bytes
        #expect(written == expected)
    }

    @Test func writesWithoutLeftoversBetweenValues() {
        var writer = CanonicalWriter(capacity: 16)
        writer.beginArray()
        for text in Self.texts {
            writer.element()
            writer.string(InlineString(text))
        }
        writer.endArray()
        let bytes = writer.bytes
        var expected: [UInt8] = []
        JSONArrayText.append(Self.texts, to: &expected)
        #expect(bytes == expected)
    }

    @Test func equalityAndHashFollowTheBytes() {
        for a in Self.texts {
            for b in Self.texts {
                #expect((InlineString(a) == InlineString(b)) == (Array(a.utf8) == Array(b.utf8)))
            }
            #expect(InlineString(a).hashValue == InlineString(String(decoding: Array(a.utf8), as: UTF8.self)).hashValue)
        }
        // Canonically equivalent, different bytes: `String` says equal, the wire does not.
        #expect("\u{E9}" == "e\u{301}")
        #expect(InlineString("\u{E9}") != InlineString("e\u{301}"))
        #expect(InlineString("abc") < InlineString("abd"))
        #expect(InlineString("ab") < InlineString("abc"))
        #expect(!(InlineString("b") < InlineString("abc")))
    }

    @Test func wrapsAStringProperty() {
        struct Model: Hashable {
            @InlineString var id: String
            @OptionalInlineString var note: String?

            init(id: String, note: String?) {
                self.id = id
                self.note = note
            }
        }
        var model = Model(id: "evt_1", note: nil)
        #expect(model.id == "evt_1")
        #expect(model.$id == InlineString("evt_1"))
        #expect(model.note == nil)
        model.id = String(repeating: "z", count: 64)
        model.note = "hello"
        #expect(model.id == String(repeating: "z", count: 64))
        #expect(model.$note.value == InlineString("hello"))
        #expect(model == Model(id: String(repeating: "z", count: 64), note: "hello"))
    }
}

/// The reference for the writer test: each text through ``JSONString/appendQuoted(_:to:)``.
private enum JSONArrayText {
    static func append(_ texts: [String], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (k, text) in texts.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            JSONString.appendQuoted(text, to: &out)
        }
        out.append(UInt8(ascii: "]"))
    }
}
