/// Writes Swift source for catalogs and types: plain declarations first (stored properties in schema
/// order, `///` from `description`), then, under one marker, the support for the Switchyard runtime:
/// coding keys, the Codable path, the fast path and the canonical writer, all written from the same
/// ``Member`` list so that they cannot disagree.
struct SwiftEmitter {
    private(set) var out = ""
    private var indent = 0

    // MARK: - Lines

    mutating func line(_ text: String = "") {
        out += text.isEmpty ? "\n" : String(repeating: "    ", count: indent) + text + "\n"
    }

    mutating func block(_ opening: String, _ body: (inout SwiftEmitter) -> Void) {
        line(opening + " {")
        indent += 1
        body(&self)
        indent -= 1
        line("}")
    }

    /// A `switch`: its cases at the switch's own indentation (swift-format's style).
    mutating func switchBlock(_ subject: String, _ body: (inout SwiftEmitter) -> Void) {
        line("switch \(subject) {")
        body(&self)
        line("}")
    }

    mutating func doc(_ text: String?, remark: SchemaLocation? = nil) {
        var lines: [String] = []
        if let text {
            for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
                lines.append(contentsOf: Self.wrap(String(paragraph), width: 100 - indent * 4 - 4))
            }
        }
        if let remark {
            if !lines.isEmpty { lines.append("") }
            lines.append("- Remark: Generated from `\(remark)`.")
        }
        for l in lines { line(l.isEmpty ? "///" : "/// " + l) }
    }

    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if !current.isEmpty && current.count + 1 + word.count > width {
                lines.append(current)
                current = ""
            }
            current += current.isEmpty ? String(word) : " " + word
        }
        lines.append(current)
        return lines
    }

    // MARK: - Declarations

    mutating func declare(_ type: TypeModel) {
        switch type {
        case .openEnum(let e): declareOpenEnum(e)
        case .structure(let s): declareStruct(s)
        }
    }

    mutating func declareOpenEnum(_ e: OpenEnumModel) {
        doc(e.doc ?? "An open enum: a value this build does not know decodes, shows a fallback, and re-encodes unchanged.", remark: e.location)
        block("public struct \(e.swiftName): OpenEnum") { w in
            w.block("public enum Known: String, CaseIterable, Sendable") { w in
                for value in e.values {
                    let name = Naming.caseName(value)
                    w.line(name.trimmingBackticks == value ? "case \(name)" : "case \(name) = \(Naming.stringLiteral(value))")
                }
            }
            w.line("@InlineString public var rawValue: String")
            w.line("public init(rawValue: String) { self.rawValue = rawValue }")
        }
    }

    mutating func declareStruct(_ s: StructModel) {
        doc(s.doc, remark: s.location)
        block("public struct \(s.swiftName): \(s.isEvent ? "Event, Hashable" : "Codable, Sendable, Hashable")") { w in
            if let tag = s.tag {
                w.line("public static let type = \(Naming.stringLiteral(tag))")
                w.line("public var envelope: Envelope")
            }
            for m in s.members {
                w.doc(m.doc.map { text in
                    if case .defaulted(let d) = m.presence { return text + (text.contains("efault") ? "" : " Default: \(d).") }
                    return text
                } ?? { if case .defaulted(let d) = m.presence { return "Default: \(d)." } else { return nil } }())
                w.line(Self.declaration(m))
            }
            w.line("/// Members a newer producer added, kept verbatim and written back after the known ones.")
            w.line("public var unknownFields = UnknownFields()")
            w.line()
            var parameters: [String] = s.isEvent ? ["envelope: Envelope"] : []
            for m in s.members {
                switch m.presence {
                case .required: parameters.append("\(m.swiftName): \(m.type.swiftType)")
                case .defaulted(let d): parameters.append("\(m.swiftName): \(m.type.swiftType) = \(d)")
                case .optional: parameters.append("\(m.swiftName): \(m.type.swiftType)? = nil")
                }
            }
            let signature = "public init(\(parameters.joined(separator: ", ")))"
            let opening: String
            if signature.count + 4 * w.indent <= 120 {
                opening = signature
            } else {
                opening = "public init(\n" + parameters.map { String(repeating: "    ", count: w.indent + 1) + $0 }.joined(separator: ",\n") + "\n" + String(repeating: "    ", count: w.indent) + ")"
            }
            w.block(opening) { w in
                if s.isEvent { w.line("self.envelope = envelope") }
                for m in s.members { w.line("self.\(m.swiftName) = \(m.swiftName)") }
            }
        }
    }

    static func declaration(_ m: Member) -> String {
        switch (m.type, m.presence) {
        case (.string, .optional): "@OptionalInlineString public var \(m.swiftName): String?"
        case (.string, _): "@InlineString public var \(m.swiftName): String"
        case (_, .optional): "@Nullable public var \(m.swiftName): \(m.type.swiftType)?"
        default: "public var \(m.swiftName): \(m.type.swiftType)"
        }
    }

    mutating func declareCatalog(_ c: CatalogModel) {
        doc(c.doc, remark: c.location)
        block("public indirect enum \(c.swiftName): EventCatalog, Hashable") { w in
            for e in c.events { w.line("case \(e.caseName)(\(e.swiftType))") }
            w.line("case unknown(type: String, raw: RawJSON)")
        }
    }

    // MARK: - Support: Codable

    mutating func support(_ type: TypeModel) {
        switch type {
        case .openEnum(let e):
            block("extension \(e.swiftName)") { w in
                w.line("init(raw: InlineString) { _rawValue = raw }")
            }
        case .structure(let s):
            supportCodable(s)
            line()
            supportFastPath(s)
        }
    }

    static func codingKey(_ m: Member) -> String {
        m.swiftName == m.jsonName ? m.swiftName : "\(m.swiftName) = \(Naming.stringLiteral(m.jsonName))"
    }

    mutating func supportCodable(_ s: StructModel) {
        let keys = (s.isEvent ? SchemaReader.envelopeMembers : []) + s.members.map(Self.codingKey)
        block("extension \(s.swiftName)") { w in
            let plain = keys.allSatisfy { !$0.contains("=") }
            let conformance = s.isEvent ? "EnvelopeCodingKey" : "CodingKey"
            if plain {
                w.line("enum CodingKeys: String, \(conformance), CaseIterable { case \(keys.joined(separator: ", ")) }")
            } else {
                w.block("enum CodingKeys: String, \(conformance), CaseIterable") { w in
                    for key in keys { w.line("case \(key)") }
                }
            }
            w.line()
            w.block("public init(from decoder: any Decoder) throws") { w in
                w.line("let c = try decoder.container(keyedBy: CodingKeys.self)")
                if s.isEvent { w.line("envelope = try Envelope(from: c)") }
                for m in s.members { w.line(Self.codableDecode(m)) }
                w.line("unknownFields = try UnknownFields(from: decoder, excluding: CodingKeys.self)")
            }
            w.line()
            w.block("public func encode(to encoder: any Encoder) throws") { w in
                w.line("var c = encoder.container(keyedBy: CodingKeys.self)")
                if s.isEvent { w.line("try envelope.encode(to: &c)") }
                for m in s.members {
                    w.line(m.presence == .optional ? "try c.encode(nullable: _\(m.swiftName), forKey: .\(m.swiftName))" : "try c.encode(\(m.swiftName), forKey: .\(m.swiftName))")
                }
                w.line("try unknownFields.encode(to: encoder)")
            }
        }
    }

    static func range(_ type: FieldType) -> String {
        guard case .integer(_, let min, let max) = type, min != nil || max != nil else { return "" }
        return (min.map { ", minimum: \($0)" } ?? "") + (max.map { ", maximum: \($0)" } ?? "")
    }

    static func codableDecode(_ m: Member) -> String {
        let key = ".\(m.swiftName)"
        switch m.presence {
        case .required:
            if case .string(identifier: true) = m.type { return "\(m.swiftName) = try c.decodeIdentifier(forKey: \(key))" }
            return "\(m.swiftName) = try c.decode(\(m.type.swiftType).self, forKey: \(key)\(range(m.type)))"
        case .defaulted(let d):
            return "\(m.swiftName) = try c.decodeIfPresent(\(m.type.swiftType).self, forKey: \(key)\(range(m.type))) ?? \(defaultExpression(m, d))"
        case .optional:
            if m.isInlineString { return "_\(m.swiftName) = try c.decodeNullableString(forKey: \(key))" }
            return "_\(m.swiftName) = try c.decodeNullable(\(m.type.swiftType).self, forKey: \(key)\(range(m.type)))"
        }
    }

    /// A default as an expression: an open enum's is kept in a static (a copy costs less than making it).
    static func defaultExpression(_ m: Member, _ literal: String) -> String {
        if case .openEnum = m.type { return "Self.\(m.swiftName)Default" }
        return literal
    }

    // MARK: - Support: fast path

    mutating func supportFastPath(_ s: StructModel) {
        var optional = s.isEvent ? [".schemaVersion"] : []
        optional += s.members.filter { $0.presence != .required }.map { ".\($0.swiftName)" }
        var table = "FieldTable(CodingKeys.self"
        if let catalog = s.catalogSwiftName { table += ", tag: \(catalog).tagKey, type: type" }
        if !optional.isEmpty { table += ", optional: [\(optional.joined(separator: ", "))]" }
        table += ")"
        block("extension \(s.swiftName): FastCodable") { w in
            w.line("static let fields = \(table)")
            for m in s.members {
                if case .defaulted(let d) = m.presence, case .openEnum = m.type {
                    w.line("static let \(m.swiftName)Default = \(d)")
                }
            }
            w.line()
            w.line("/// Every member at its placeholder or default.")
            let unread = Self.unreadLines(s)
            if unread.isEmpty {
                w.line("@inline(__always) public init(unread: Void) {}")
            } else {
                w.block("@inline(__always) public init(unread: Void)") { w in
                    for l in unread { w.line(l) }
                }
            }
            w.line()
            w.block("public mutating func read(_ cursor: inout JSONCursor) throws(FastPathBail)") { w in
                var cases = s.isEvent ? ["case .id, .occurredAt, .schemaVersion: try envelope.read(key, &cursor)"] : []
                cases += s.members.map { "case .\($0.swiftName): \(Self.fastRead($0))" }
                w.readMembers(s, cases)
                w.line("unknownFields = members.unknown")
            }
            w.line()
            w.block("public static func validate(_ cursor: inout JSONCursor) throws(FastPathBail)") { w in
                var cases = s.isEvent ? ["case .id, .occurredAt, .schemaVersion: try Envelope.validate(key, &cursor)"] : []
                cases += s.members.map { "case .\($0.swiftName): \(Self.fastValidate($0))" }
                w.readMembers(s, cases)
            }
            w.line()
            w.block("public func write(to writer: inout CanonicalWriter)") { w in
                if s.isEvent {
                    w.line("writer.beginEvent(Self.fields)")
                    w.line("envelope.write(to: &writer)")
                } else {
                    w.line("writer.beginObject()")
                }
                for m in s.members { w.fastWrite(m) }
                w.line("writer.endObject(unknown: unknownFields)")
            }
        }
    }

    /// The member loop of a fast reader: `cases` (a `switch` on `key`) read one member's value. The members
    /// are first taken in the model's order where compact JSON has them (the usual record: no lookup, no
    /// dispatch), then, from the first that is not there, in any order and spelling by `nextField`.
    mutating func readMembers(_ s: StructModel, _ cases: [String]) {
        // A local function's name hides the model's member of that name inside the reader.
        var value = "memberValue"
        while s.members.contains(where: { $0.swiftName == value }) { value += "_" }
        block("@inline(__always) func \(value)(_ key: CodingKeys, _ cursor: inout JSONCursor) throws(FastPathBail)") { w in
            w.switchBlock("key") { w in
                for c in cases { w.line(c) }
            }
        }
        line("var members = try cursor.beginObject(Self.fields)")
        block("inOrder: do") { w in
            let keys = (s.isEvent ? SchemaReader.envelopeMembers : []) + s.members.map(\.swiftName)
            for (index, key) in keys.enumerated() {
                w.line("guard cursor.take(\(index), Self.fields, &members) else { break inOrder }")
                w.line("try \(value)(.\(key), &cursor)")
            }
        }
        block("while let key = try cursor.nextField(Self.fields, &members)") { w in
            w.line("try \(value)(key, &cursor)")
        }
    }

    static func unreadLines(_ s: StructModel) -> [String] {
        var lines: [String] = s.isEvent ? ["envelope = .unread"] : []
        for m in s.members {
            switch m.presence {
            case .optional: continue  // a wrapper, absent until read
            case .defaulted(let d):
                lines.append(m.isInlineString ? "_\(m.swiftName) = InlineString(\(d))" : "\(m.swiftName) = \(defaultExpression(m, d))")
            case .required:
                switch m.type {
                case .string: continue  // a wrapper, empty until read
                case .integer, .number: lines.append("\(m.swiftName) = 0")
                case .boolean: lines.append("\(m.swiftName) = false")
                case .timestamp, .object, .custom: lines.append("\(m.swiftName) = .unread")
                case .openEnum(let name): lines.append("\(m.swiftName) = \(name)(raw: InlineString())")
                case .array: lines.append("\(m.swiftName) = []")
                }
            }
        }
        return lines
    }

    /// The expression that reads a value of `type` at `cursor`.
    static func reader(_ type: FieldType, inline: Bool) -> String {
        switch type {
        case .string(let identifier): inline ? (identifier ? "try cursor.inlineIdentifier()" : "try cursor.inlineString()") : "try cursor.string()"
        case .integer(let t, let min, let max):
            if t == "Int", let min { "try cursor.int(minimum: \(min)\(max.map { ", maximum: \($0)" } ?? ""))" } else if min != nil || max != nil { "try cursor.integer(\(t).self\(range(type)))" } else { t == "Int" ? "try cursor.int()" : t == "Int64" ? "try cursor.int64()" : "try cursor.integer(\(t).self)" }
        case .number: "try cursor.double()"
        case .boolean: "try cursor.bool()"
        case .timestamp: "try cursor.timestamp()"
        case .object(let t), .custom(let t): "try \(t).read(from: &cursor)"
        case .openEnum(let t): "\(t)(raw: try cursor.inlineString())"
        case .array(.string): "try cursor.strings()"
        case .array(let element): "try cursor.array { (cursor: inout JSONCursor) throws(FastPathBail) in \(reader(element, inline: false)) }"
        }
    }

    static func fastRead(_ m: Member) -> String {
        let read = reader(m.type, inline: true)
        let target = m.isInlineString ? "_\(m.swiftName)" : m.swiftName
        switch m.presence {
        case .required:
            if case .object = m.type { return "try \(m.swiftName).read(&cursor)" }
            return "\(target) = \(read)"
        case .defaulted(let d):
            let fallback = m.isInlineString ? "InlineString(\(d))" : defaultExpression(m, d)
            return "\(target) = try cursor.null() ? \(fallback) : \(read)"
        case .optional:
            return "_\(m.swiftName) = try cursor.null() ? .null : \(m.isInlineString ? "OptionalInlineString" : "Nullable")(\(read))"
        }
    }

    /// The statement that checks a value of `type` at `cursor` as ``reader(_:inline:)``'s expression does,
    /// making nothing.
    static func validator(_ type: FieldType) -> String {
        switch type {
        case .string(let identifier): identifier ? "try cursor.skipIdentifier()" : "try cursor.skipString()"
        case .openEnum: "try cursor.skipString()"
        case .timestamp: "try cursor.skipTimestamp()"
        case .object(let t), .custom(let t): "try \(t).validate(&cursor)"
        case .array(.string): "try cursor.skipStrings()"
        case .array(let element): "try cursor.skipArray { (cursor: inout JSONCursor) throws(FastPathBail) in \(validator(element)) }"
        case .integer, .number, .boolean: "_ = \(reader(type, inline: false))"
        }
    }

    /// ``fastRead(_:)``'s checks, making nothing: for the generated `validate`.
    static func fastValidate(_ m: Member) -> String {
        let check = validator(m.type)
        switch m.presence {
        case .required: return check
        case .defaulted, .optional: return "if try !cursor.null() { \(check) }"
        }
    }

    /// The statement that writes `value` of `type`.
    static func writer(_ type: FieldType, _ value: String) -> String {
        switch type {
        case .string: "writer.string(\(value))"
        case .integer: "writer.int(\(value))"
        case .number: "writer.double(\(value))"
        case .boolean: "writer.bool(\(value))"
        case .timestamp: "writer.timestamp(\(value))"
        case .object, .custom: "writer.value(\(value))"
        case .openEnum: "writer.string(\(value).$rawValue)"
        case .array(.string): "writer.strings(\(value))"
        case .array(let element): "writer.array(\(value)) { writer, element in \(writer(element, "element")) }"
        }
    }

    mutating func fastWrite(_ m: Member) {
        let key = "writer.key(\(Naming.stringLiteral(m.jsonName)))"
        switch m.presence {
        case .optional:
            line("if let \(m.swiftName) = _\(m.swiftName).value {")
            indent += 1
            line(key)
            line(Self.writer(m.type, m.swiftName))
            indent -= 1
            line("} else if _\(m.swiftName).isNull {")
            indent += 1
            line(key)
            line("writer.null()")
            indent -= 1
            line("}")
        default:
            line(key)
            line(Self.writer(m.type, m.isInlineString ? "_\(m.swiftName)" : m.swiftName))
        }
    }

    // MARK: - Support: the catalog

    mutating func supportCatalog(_ c: CatalogModel) {
        block("extension \(c.swiftName)") { w in
            w.line("public static let name = \(Naming.stringLiteral(c.name))")
            if c.tagKey != "type" { w.line("public static let tagKey = \(Naming.stringLiteral(c.tagKey))") }
            w.line("public static let defaultPolicy = TopicPolicy.\(c.policy.rawValue)")
            w.line("public static let eventTypes: [EventType<\(c.swiftName)>] = [")
            w.indent += 1
            for e in c.events { w.line("EventType(\(e.swiftType).self, \(c.swiftName).\(e.caseName)),") }
            w.indent -= 1
            w.line("]")
            w.line()
            w.block("public var content: EventContent") { w in
                w.switchBlock("self") { w in
                    for e in c.events { w.line("case .\(e.caseName)(let e): .known(e)") }
                    w.line("case .unknown(let type, let raw): .unknown(type: type, raw: raw)")
                }
            }
            w.line()
            w.line("public init(from decoder: any Decoder) throws { self = try Self.decodeTagged(from: decoder) }")
            w.line("public func encode(to encoder: any Encoder) throws { try encodeTagged(to: encoder) }")
            w.line()
            w.block("public func writeCanonical(to writer: inout CanonicalWriter) -> Bool") { w in
                w.switchBlock("self") { w in
                    for e in c.events { w.line("case .\(e.caseName)(let event): event.write(to: &writer)") }
                    w.line("case .unknown(_, let raw): writer.raw(raw)")
                }
                w.line("return true")
            }
            w.line()
            w.line("/// A record decoder specialized for this catalog.")
            w.block("public static func makeRecordDecoder(readerOptions: JSONReader.Options) -> RecordDecoder") { w in
                w.line("RecordDecoder(EventDecoder<\(c.swiftName)>(readerOptions: readerOptions))")
            }
        }
    }
}

extension String {
    var trimmingBackticks: String { replacing("`", with: "") }
}
