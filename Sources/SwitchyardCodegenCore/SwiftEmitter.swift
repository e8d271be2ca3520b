/// Writes Swift source for catalogs and types: plain declarations first (stored properties in schema
/// order, `///` from `description`, types nested in their catalog's enum and inline types in the struct
/// that uses them), then, under one marker, the support for the Switchyard runtime: coding keys, the
/// Codable path, the fast path and the canonical writer, all written from the same ``Member`` list so
/// that they cannot disagree.
///
/// Generated code names its own members `self.x` and its locals with names no member can shadow, so a
/// schema's member names never capture the generated code's.
struct SwiftEmitter {
    private(set) var out = ""
    private var indent = 0
    /// Every type of the file, by qualified name.
    var types: [String: TypeModel] = [:]
    /// The types declared in each type, by qualified name, in order.
    var nested: [String: [String]] = [:]

    // MARK: - Lines

    mutating func line(_ text: String = "") {
        out += text.isEmpty ? "\n" : String(repeating: "    ", count: indent) + text + "\n"
    }

    mutating func lines(_ texts: [String]) {
        for text in texts { line(text) }
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

    /// Declares `name` (qualified) and the types nested in it.
    mutating func declare(_ name: String) {
        guard let type = types[name] else { return }
        switch type {
        case .openEnum(let e): declareOpenEnum(e)
        case .structure(let s): declareStruct(s, qualified: name)
        case .union(let u): declareUnion(u, qualified: name)
        }
    }

    mutating func declareNested(in name: String) {
        for child in nested[name] ?? [] {
            line()
            declare(child)
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

    static func memberDoc(_ m: Member) -> String? {
        var parts: [String] = []
        if let doc = m.doc { parts.append(doc) }
        if let format = m.format {
            parts.append(m.checks.contains(.format(format)) ? "Format: \(format) (checked, kept as written)." : "Format: \(format) (kept as written).")
        }
        if m.presence == .requiredNullable { parts.append("Required; may be null.") }
        if let json = m.defaultJSON, !(m.doc ?? "").contains("efault") { parts.append("Default: \(json).") }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    mutating func declareStruct(_ s: StructModel, qualified: String) {
        if let shape = s.tuple { return declareTuple(s, shape, qualified: qualified) }
        doc(s.doc, remark: s.location)
        let conformances = s.isEvent ? (s.hasEnvelope ? "EnvelopeEvent, Hashable" : "Event, Hashable") : "Codable, Sendable, Hashable"
        block("public struct \(s.swiftName): \(conformances)") { w in
            if let tag = s.tag {
                w.line("\(s.isEvent ? "public static let type" : "public static let tag") = \(Naming.stringLiteral(tag))")
            }
            if s.hasEnvelope { w.line("public var envelope: Envelope") }
            for m in s.members {
                w.doc(Self.memberDoc(m))
                w.line(Self.declaration(m))
            }
            w.line("/// Members a newer producer added, kept verbatim and written back after the known ones.")
            w.line("public var unknownFields = UnknownFields()")
            w.line()
            var parameters: [String] = s.hasEnvelope ? ["envelope: Envelope"] : []
            for m in s.members {
                let name = Naming.escaped(m.swiftName)
                switch m.presence {
                case .required: parameters.append("\(name): \(m.type.swiftType)")
                case .defaulted(let d): parameters.append("\(name): \(m.type.swiftType) = \(d)")
                case .optional: parameters.append("\(name): \(m.type.swiftType)? = nil")
                case .requiredNullable: parameters.append("\(name): \(m.type.swiftType)?")
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
                if s.hasEnvelope { w.line("self.envelope = envelope") }
                for m in s.members {
                    let name = Naming.escaped(m.swiftName)
                    w.line("self.\(name) = \(name)")
                }
            }
            for m in s.members {
                guard let accessor = m.formatAccessor, let format = m.format else { continue }
                let name = Naming.escaped(m.swiftName)
                let type = accessor.swiftType.dropFirst("Foundation.".count)
                w.line()
                let day = format == "date" ? " (the day's start in UTC)" : ""
                w.doc("`\(m.swiftName)` as a `\(type)`\(day); nil when it is \(m.isNullable ? "absent, null or " : "")not a valid \(format).")
                let value = m.isNullable ? "self.\(name).flatMap(\(accessor.parser))" : "\(accessor.parser)(self.\(name))"
                w.line("public var \(Naming.escaped(accessor.name)): \(accessor.swiftType)? { \(value) }")
            }
            w.declareNested(in: qualified)
        }
    }

    /// Whether any of the types `names` declares a typed accessor (their file imports Foundation).
    func declaresFormatAccessors(_ names: [String]) -> Bool {
        names.contains { name in
            guard case .structure(let s)? = types[name] else { return false }
            return s.members.contains { $0.formatAccessor != nil }
        }
    }

    static func declaration(_ m: Member) -> String {
        let name = Naming.escaped(m.swiftName)
        switch (m.type, m.isNullable) {
        case (.string, true): return "@OptionalInlineString public var \(name): String?"
        case (.string, false): return "@InlineString public var \(name): String"
        case (_, true): return "@Nullable public var \(name): \(m.type.swiftType)?"
        default: return "public var \(name): \(m.type.swiftType)"
        }
    }

    mutating func declareUnion(_ u: UnionModel, qualified: String) {
        doc(u.doc ?? Self.unionDoc(u), remark: u.location)
        block("public enum \(u.swiftName): Codable, Sendable, Hashable") { w in
            switch u.branches {
            case .tagged(let key, let variants):
                for v in variants { w.line("case \(Naming.escaped(v.caseName))(\(v.type))") }
                w.line("/// A '\(key)' this build does not know: the value as it was written.")
                w.line("case unknown(RawJSON)")
            case .byJSONType(let cases):
                for c in cases { w.line("case \(Naming.escaped(c.caseName))(\(c.type.swiftType))") }
            }
            w.declareNested(in: qualified)
        }
    }

    static func unionDoc(_ u: UnionModel) -> String {
        switch u.branches {
        case .tagged(let key, _): "One of several objects, told apart by their '\(key)'."
        case .byJSONType(let cases): "A value of one of several JSON types: " + cases.map(\.caseName).joined(separator: ", ") + "."
        }
    }

    mutating func declareCatalog(_ c: CatalogModel) {
        doc(c.doc, remark: c.location)
        block("public indirect enum \(c.swiftName): EventCatalog, Hashable") { w in
            for e in c.events { w.line("case \(e.caseName)(\(e.swiftType))") }
            w.line("case unknown(type: String, raw: RawJSON)")
        }
    }

    // MARK: - Support

    mutating func support(_ name: String) {
        switch types[name] {
        case .openEnum?:
            block("extension \(name)") { w in
                w.line("init(raw: InlineString) { _rawValue = raw }")
            }
        case .structure(let s)? where s.tuple != nil:
            supportTuple(s, qualified: name)
        case .structure(let s)?:
            supportCodable(s, qualified: name)
            line()
            supportFastPath(s, qualified: name)
        case .union(let u)?:
            supportUnion(u, qualified: name)
        case nil:
            break
        }
    }

    static func codingKey(_ m: Member) -> String {
        let name = Naming.escaped(m.swiftName)
        return m.swiftName == m.jsonName ? name : "\(name) = \(Naming.stringLiteral(m.jsonName))"
    }

    mutating func supportCodable(_ s: StructModel, qualified: String) {
        let keys = (s.hasEnvelope ? SchemaReader.envelopeMembers : []) + s.members.map(Self.codingKey)
        block("extension \(qualified)") { w in
            let plain = keys.allSatisfy { !$0.contains("=") }
            let conformance = s.hasEnvelope ? "EnvelopeCodingKey" : "CodingKey"
            if keys.isEmpty {
                w.line("enum CodingKeys: \(conformance), CaseIterable {}")
            } else if plain && keys.joined(separator: ", ").count < 70 {
                w.line("enum CodingKeys: String, \(conformance), CaseIterable { case \(keys.joined(separator: ", ")) }")
            } else {
                w.block("enum CodingKeys: String, \(conformance), CaseIterable") { w in
                    for key in keys { w.line("case \(key)") }
                }
            }
            for m in s.members {
                for check in m.checks { if case .pattern(let p) = check { w.line("static let \(m.swiftName)Pattern = SchemaPattern(\(Naming.stringLiteral(p)))") } }
            }
            w.line()
            let empty = s.members.isEmpty && !s.hasEnvelope
            w.block("public init(from decoder: any Decoder) throws") { w in
                w.line(empty ? "_ = try decoder.container(keyedBy: CodingKeys.self)" : "let container = try decoder.container(keyedBy: CodingKeys.self)")
                if s.hasEnvelope { w.line("self.envelope = try Envelope(from: container)") }
                for m in s.members { w.lines(Self.codableDecode(m)) }
                w.line("self.unknownFields = try UnknownFields(from: decoder, excluding: CodingKeys.self)")
            }
            w.line()
            w.block("public func encode(to encoder: any Encoder) throws") { w in
                w.line(empty ? "_ = encoder.container(keyedBy: CodingKeys.self)" : "var container = encoder.container(keyedBy: CodingKeys.self)")
                if s.hasEnvelope { w.line("try self.envelope.encode(to: &container)") }
                for m in s.members {
                    let name = Naming.escaped(m.swiftName)
                    w.line(m.isNullable ? "try container.encode(nullable: self._\(m.swiftName), forKey: .\(name))" : "try container.encode(self.\(name), forKey: .\(name))")
                }
                w.line("try self.unknownFields.encode(to: encoder)")
            }
        }
    }

    static func range(_ type: FieldType) -> String {
        guard case .integer(_, let min, let max) = type, min != nil || max != nil else { return "" }
        return (min.map { ", minimum: \($0)" } ?? "") + (max.map { ", maximum: \($0)" } ?? "")
    }

    /// The check of a member's value `v` against its validation keywords, as one Boolean expression, and the
    /// keyword named in the failure message; nil without checks.
    static func checkExpression(_ m: Member, _ v: String) -> (condition: String, rule: String)? {
        guard !m.checks.isEmpty else { return nil }
        var parts: [String] = []
        var rules: [String] = []
        for check in m.checks {
            switch check {
            case .minLength(let n):
                parts.append("SchemaRule.length(\(v)) >= \(n)")
                rules.append("minLength")
            case .maxLength(let n):
                parts.append("SchemaRule.length(\(v)) <= \(n)")
                rules.append("maxLength")
            case .pattern:
                parts.append("Self.\(m.swiftName)Pattern.matches(\(v))")
                rules.append("pattern")
            case .minimum(let n, let exclusive), .maximum(let n, let exclusive):
                let isMinimum: Bool
                if case .minimum = check { isMinimum = true } else { isMinimum = false }
                let op = isMinimum ? (exclusive ? ">" : ">=") : (exclusive ? "<" : "<=")
                if case .number = m.type {
                    let function = isMinimum ? (exclusive ? "above" : "atLeast") : (exclusive ? "below" : "atMost")
                    parts.append("SchemaRule.\(function)(\(v), \(Naming.stringLiteral(n)))")
                } else if Int64(n) != nil {
                    parts.append("\(v) \(op) \(n)")
                } else {
                    parts.append("Double(\(v)) \(op) \(n)")
                }
                rules.append(isMinimum ? (exclusive ? "exclusiveMinimum" : "minimum") : (exclusive ? "exclusiveMaximum" : "maximum"))
            case .multipleOf(let n):
                if case .number = m.type { parts.append("SchemaRule.isMultiple(\(v), of: \(Naming.stringLiteral(n)))") } else { parts.append("SchemaRule.isMultiple(\(v), of: \(n))") }
                rules.append("multipleOf")
            case .minItems(let n):
                parts.append("\(v).count >= \(n)")
                rules.append("minItems")
            case .maxItems(let n):
                parts.append("\(v).count <= \(n)")
                rules.append("maxItems")
            case .uniqueItems:
                parts.append("SchemaRule.isUnique(\(v))")
                rules.append("uniqueItems")
            case .minProperties(let n):
                parts.append("\(v).count >= \(n)")
                rules.append("minProperties")
            case .maxProperties(let n):
                parts.append("\(v).count <= \(n)")
                rules.append("maxProperties")
            case .format(let name):
                parts.append("SchemaRule.isValid(\(v), format: .\(name))")
                rules.append("format")
            case .oneOf(let values):
                switch m.type {
                case .number: parts.append("SchemaRule.isOneOf(\(v), [\(values.map { Naming.stringLiteral(SchemaReader.compact($0)) }.joined(separator: ", "))])")
                case .raw: parts.append("[\(values.map { "RawJSON(bytes: Array(\(Naming.stringLiteral(SchemaReader.compact($0))).utf8))" }.joined(separator: ", "))].contains(\(v))")
                case .string: parts.append("[\(values.map { $0.string.map(Naming.stringLiteral) ?? "\"\"" }.joined(separator: ", "))].contains(\(v))")
                default: parts.append("[\(values.map { SchemaReader.compact($0) }.joined(separator: ", "))].contains(\(v))")
                }
                rules.append(values.count == 1 ? "const" : "enum")
            }
        }
        return (parts.joined(separator: " && "), rules.count == 1 ? rules[0] : "validation keywords")
    }

    /// The expression that reads a member's value to check it: made even by a cursor that discards values
    /// (``JSONCursor/checkedString()``), as the checks need it.
    static func checkedReader(_ type: FieldType) -> String {
        switch type {
        case .string(identifier: true): "try cursor.checkedIdentifier()"
        case .string: "try cursor.checkedString()"
        case .array(.string): "try cursor.array { (cursor: inout JSONCursor) throws(FastPathBail) in try cursor.checkedString() }"
        default: reader(type, inline: false)
        }
    }

    static func codableDecode(_ m: Member) -> [String] {
        let name = Naming.escaped(m.swiftName)
        let key = ".\(name)"
        let t = m.type.swiftType
        let decoded: String
        switch m.presence {
        case .required:
            if case .string(identifier: true) = m.type { decoded = "try container.decodeIdentifier(forKey: \(key))" } else { decoded = "try container.decode(\(t).self, forKey: \(key)\(range(m.type)))" }
        case .defaulted(let d):
            decoded = "try container.decodeIfPresent(\(t).self, forKey: \(key)\(range(m.type))) ?? \(defaultExpression(m, d))"
        case .optional:
            decoded = m.isInlineString ? "try container.decodeNullableString(forKey: \(key))" : "try container.decodeNullable(\(t).self, forKey: \(key)\(range(m.type)))"
        case .requiredNullable:
            decoded = m.isInlineString ? "try container.decodeRequiredNullableString(forKey: \(key))" : "try container.decodeRequiredNullable(\(t).self, forKey: \(key)\(range(m.type)))"
        }
        let target = m.isNullable ? "self._\(m.swiftName)" : "self.\(name)"
        guard let (condition, rule) = checkExpression(m, "value") else { return ["\(target) = \(decoded)"] }
        var lines = ["do {", "    let value = \(decoded)"]
        if m.isNullable {
            let unwrapped = m.isInlineString ? "value.value?.string" : "value.value"
            lines.append("    if let value = \(unwrapped) { try container.require(\(condition), forKey: \(key), \(Naming.stringLiteral(rule))) }")
        } else {
            lines.append("    try container.require(\(condition), forKey: \(key), \(Naming.stringLiteral(rule)))")
        }
        lines += ["    \(target) = value", "}"]
        return lines
    }

    /// A default as an expression: an open enum's, an object's or a map's is kept in a static (a copy costs
    /// less than making it).
    static func defaultExpression(_ m: Member, _ literal: String) -> String {
        hasStaticDefault(m) ? "Self.\(m.swiftName)Default" : literal
    }

    static func hasStaticDefault(_ m: Member) -> Bool {
        guard case .defaulted = m.presence else { return false }
        switch m.type {
        case .openEnum, .object, .map: return true
        default: return false
        }
    }

    // MARK: - Support: fast path

    /// Whether the fast path can read the struct: its members fit the field table (at most 63, names without
    /// quotes, backslashes or control characters). Otherwise the general decoder reads it.
    static func hasFastPath(_ s: StructModel) -> Bool {
        let count = s.members.count + (s.hasEnvelope ? 3 : 0) + (s.tagKey == nil ? 0 : 1)
        return count <= 64 && s.members.allSatisfy { m in m.jsonName.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") } }
    }

    mutating func supportFastPath(_ s: StructModel, qualified: String) {
        let fast = Self.hasFastPath(s)
        var optional = s.hasEnvelope ? [".schemaVersion"] : []
        optional += s.members.filter { $0.presence != .required && $0.presence != .requiredNullable }.map { ".\(Naming.escaped($0.swiftName))" }
        var table = "FieldTable(CodingKeys.self"
        if let tagKey = s.tagKey { table += ", tag: \(Naming.stringLiteral(tagKey)), type: \(s.isEvent ? "type" : "tag")" }
        if !optional.isEmpty { table += ", optional: [\(optional.joined(separator: ", "))]" }
        table += ")"
        block("extension \(qualified): FastCodable") { w in
            if fast { w.line("static let fields = \(table)") }
            for m in s.members where Self.hasStaticDefault(m) {
                if case .defaulted(let d) = m.presence { w.line("static let \(m.swiftName)Default = \(d)") }
            }
            if fast || s.members.contains(where: Self.hasStaticDefault) { w.line() }
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
            guard fast else {
                w.line("/// Left to the general decoder: the members do not fit the fast path's field table.")
                w.block("public mutating func read(_ cursor: inout JSONCursor) throws(FastPathBail)") { w in w.line("throw FastPathBail()") }
                w.line()
                w.block("public static func validate(_ cursor: inout JSONCursor) throws(FastPathBail)") { w in w.line("throw FastPathBail()") }
                w.line()
                w.writeFunction(s, table: false)
                return
            }
            w.block("public mutating func read(_ cursor: inout JSONCursor) throws(FastPathBail)") { w in
                var cases: [[String]] = s.hasEnvelope ? [["case .id, .occurredAt, .schemaVersion: try self.envelope.read(key, &cursor)"]] : []
                cases += s.members.map { Self.fastRead($0) }
                w.readMembers(s, cases)
                w.line("self.unknownFields = members.unknown")
            }
            w.line()
            w.block("public static func validate(_ cursor: inout JSONCursor) throws(FastPathBail)") { w in
                var cases: [[String]] = s.hasEnvelope ? [["case .id, .occurredAt, .schemaVersion: try Envelope.validate(key, &cursor)"]] : []
                cases += s.members.map { Self.fastValidate($0) }
                w.readMembers(s, cases)
            }
            w.line()
            w.writeFunction(s, table: true)
        }
    }

    mutating func writeFunction(_ s: StructModel, table: Bool) {
        block("public func write(to writer: inout CanonicalWriter)") { w in
            if let tagKey = s.tagKey, table {
                _ = tagKey
                w.line("writer.beginEvent(Self.fields)")
            } else if let tagKey = s.tagKey {
                w.line("writer.beginObject()")
                w.line("writer.key(\(Self.keyLiteral(tagKey)))")
                w.line("writer.string(\(s.isEvent ? "Self.type" : "Self.tag"))")
            } else {
                w.line("writer.beginObject()")
            }
            if s.hasEnvelope { w.line("self.envelope.write(to: &writer)") }
            for m in s.members { w.fastWrite(m) }
            w.line("writer.endObject(unknown: self.unknownFields)")
        }
    }

    /// A member name as a `StaticString` literal holding its JSON text (escaped as JSON needs).
    static func keyLiteral(_ name: String) -> String {
        Naming.stringLiteral(String(SchemaReader.jsonString(name).dropFirst().dropLast()))
    }

    /// The member loop of a fast reader: `cases` (a `switch` on `key`) read one member's value. The members
    /// are first taken in the model's order where compact JSON has them (the usual record: no lookup, no
    /// dispatch), then, from the first that is not there, in any order and spelling by `nextField`.
    mutating func readMembers(_ s: StructModel, _ cases: [[String]]) {
        guard !cases.isEmpty else {
            // No members: every member is unknown (kept) or the tag.
            line("var members = try cursor.beginObject(Self.fields)")
            line("while try cursor.nextField(Self.fields, &members) != nil {}")
            return
        }
        block("@inline(__always) func memberValue(_ key: CodingKeys, _ cursor: inout JSONCursor) throws(FastPathBail)") { w in
            w.switchBlock("key") { w in
                for c in cases { w.lines(c) }
            }
        }
        line("var members = try cursor.beginObject(Self.fields)")
        let keys = (s.hasEnvelope ? SchemaReader.envelopeMembers : []) + s.members.map { Naming.escaped($0.swiftName) }
        if !keys.isEmpty {
            block("inOrder: do") { w in
                for (index, key) in keys.enumerated() {
                    w.line("guard cursor.take(\(index), Self.fields, &members) else { break inOrder }")
                    w.line("try memberValue(.\(key), &cursor)")
                }
            }
        }
        block("while let key = try cursor.nextField(Self.fields, &members)") { w in
            w.line("try memberValue(key, &cursor)")
        }
    }

    static func unreadLines(_ s: StructModel) -> [String] {
        var lines: [String] = s.hasEnvelope ? ["self.envelope = .unread"] : []
        for m in s.members {
            let name = Naming.escaped(m.swiftName)
            switch m.presence {
            case .optional, .requiredNullable: continue  // a wrapper, absent until read
            case .defaulted(let d):
                lines.append(m.isInlineString ? "self._\(m.swiftName) = InlineString(\(d))" : "self.\(name) = \(defaultExpression(m, d))")
            case .required:
                switch m.type {
                case .string: continue  // a wrapper, empty until read
                case .integer, .number: lines.append(m.type == .number ? "self.\(name) = .unread" : "self.\(name) = 0")
                case .boolean: lines.append("self.\(name) = false")
                case .timestamp, .object, .custom, .raw, .union: lines.append("self.\(name) = .unread")
                case .openEnum(let type): lines.append("self.\(name) = \(type)(raw: InlineString())")
                case .array: lines.append("self.\(name) = []")
                case .map: lines.append("self.\(name) = JSONMap()")
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
            if t == "Int", let min {
                "try cursor.int(minimum: \(min)\(max.map { ", maximum: \($0)" } ?? ""))"
            } else if min != nil || max != nil {
                "try cursor.integer(\(t).self\(range(type)))"
            } else {
                t == "Int" ? "try cursor.int()" : t == "Int64" ? "try cursor.int64()" : t == "UInt64" ? "try cursor.uint64()" : "try cursor.integer(\(t).self)"
            }
        case .number: "try ExactNumber.read(from: &cursor)"
        case .boolean: "try cursor.bool()"
        case .timestamp: "try cursor.timestamp()"
        case .object(let t), .custom(let t), .union(let t): "try \(t).read(from: &cursor)"
        case .raw: "try RawJSON.read(from: &cursor)"
        case .openEnum(let t): "\(t)(raw: try cursor.inlineString())"
        case .array(.string): "try cursor.strings()"
        case .array(let element): "try cursor.array { (cursor: inout JSONCursor) throws(FastPathBail) in \(reader(element, inline: false)) }"
        case .map(let element): "try cursor.map { (cursor: inout JSONCursor) throws(FastPathBail) in \(reader(element, inline: false)) }"
        }
    }

    static func fastRead(_ m: Member) -> [String] {
        let name = Naming.escaped(m.swiftName)
        let head = "case .\(name):"
        let checked = checkExpression(m, "value")
        let read = checked != nil ? checkedReader(m.type) : reader(m.type, inline: true)
        let guardLine = checked.map { "guard \($0.condition) else { throw FastPathBail() }" }
        switch m.presence {
        case .required:
            if checked == nil, case .object = m.type { return ["\(head) try self.\(name).read(&cursor)"] }
            let target = m.isInlineString && checked == nil ? "self._\(m.swiftName)" : "self.\(name)"
            guard let guardLine else { return ["\(head) \(target) = \(read)"] }
            return [head, "    let value = \(read)", "    \(guardLine)", "    \(target) = value"]
        case .defaulted(let d):
            if guardLine == nil {
                let fallback = m.isInlineString ? "InlineString(\(d))" : defaultExpression(m, d)
                let target = m.isInlineString ? "self._\(m.swiftName)" : "self.\(name)"
                return ["\(head) \(target) = try cursor.null() ? \(fallback) : \(read)"]
            }
            return [head, "    if try cursor.null() {", "        self.\(name) = \(defaultExpression(m, d))", "    } else {", "        let value = \(read)", "        \(guardLine!)", "        self.\(name) = value", "    }"]
        case .optional, .requiredNullable:
            let wrap = m.isInlineString ? "OptionalInlineString" : "Nullable"
            guard let guardLine else { return ["\(head) self._\(m.swiftName) = try cursor.null() ? .null : \(wrap)(\(read))"] }
            let value = m.isInlineString ? "InlineString(value)" : "value"
            return [head, "    if try cursor.null() {", "        self._\(m.swiftName) = .null", "    } else {", "        let value = \(read)", "        \(guardLine)", "        self._\(m.swiftName) = \(wrap)(\(value))", "    }"]
        }
    }

    /// The statement that checks a value of `type` at `cursor` as ``reader(_:inline:)``'s expression does,
    /// making nothing.
    static func validator(_ type: FieldType) -> String {
        switch type {
        case .string(let identifier): identifier ? "try cursor.skipIdentifier()" : "try cursor.skipString()"
        case .openEnum: "try cursor.skipString()"
        case .timestamp: "try cursor.skipTimestamp()"
        case .object(let t), .custom(let t), .union(let t): "try \(t).validate(&cursor)"
        case .number: "try ExactNumber.validate(&cursor)"
        case .raw: "try RawJSON.validate(&cursor)"
        case .array(.string): "try cursor.skipStrings()"
        case .array(let element): "try cursor.skipArray { (cursor: inout JSONCursor) throws(FastPathBail) in \(validator(element)) }"
        case .map(let element): "try cursor.skipMap { (cursor: inout JSONCursor) throws(FastPathBail) in \(validator(element)) }"
        case .integer, .boolean: "_ = \(reader(type, inline: false))"
        }
    }

    /// ``fastRead(_:)``'s checks, making nothing: for the generated `validate`.
    static func fastValidate(_ m: Member) -> [String] {
        let head = "case .\(Naming.escaped(m.swiftName)):"
        if let (condition, _) = checkExpression(m, "value") {
            // The value is made: its checks need it.
            let read = checkedReader(m.type)
            let body = ["let value = \(read)", "guard \(condition) else { throw FastPathBail() }"]
            if m.presence == .required { return [head] + body.map { "    " + $0 } }
            return [head, "    if try !cursor.null() {"] + body.map { "        " + $0 } + ["    }"]
        }
        let check = validator(m.type)
        switch m.presence {
        case .required: return ["\(head) \(check)"]
        case .defaulted, .optional, .requiredNullable: return ["\(head) if try !cursor.null() { \(check) }"]
        }
    }

    /// The statement that writes `value` of `type`.
    static func writer(_ type: FieldType, _ value: String) -> String {
        switch type {
        case .string: "writer.string(\(value))"
        case .integer: "writer.int(\(value))"
        case .boolean: "writer.bool(\(value))"
        case .timestamp: "writer.timestamp(\(value))"
        case .object, .custom, .number, .union: "writer.value(\(value))"
        case .raw: "writer.raw(\(value))"
        case .openEnum: "writer.string(\(value).$rawValue)"
        case .array(.string): "writer.strings(\(value))"
        case .array(let element): "writer.array(\(value)) { writer, element in \(writer(element, "element")) }"
        case .map(let element): "writer.map(\(value)) { writer, element in \(writer(element, "element")) }"
        }
    }

    mutating func fastWrite(_ m: Member) {
        let key = "writer.key(\(Self.keyLiteral(m.jsonName)))"
        if m.isNullable {
            line("if let value = self._\(m.swiftName).value {")
            indent += 1
            line(key)
            line(Self.writer(m.type, "value"))
            indent -= 1
            line("} else if self._\(m.swiftName).isNull {")
            indent += 1
            line(key)
            line("writer.null()")
            indent -= 1
            line("}")
        } else {
            line(key)
            line(Self.writer(m.type, m.isInlineString ? "self._\(m.swiftName)" : "self.\(Naming.escaped(m.swiftName))"))
        }
    }

    // MARK: - Tuples

    /// A tuple (`prefixItems`): a struct whose stored properties are the array's positions, in order.
    mutating func declareTuple(_ s: StructModel, _ shape: TupleShape, qualified: String) {
        doc(s.doc ?? "A JSON array of \(s.members.count) positions" + (shape == .keepsExtraItems ? ", then any items kept as written." : ", and no more."), remark: s.location)
        block("public struct \(s.swiftName): Codable, Sendable, Hashable") { w in
            for m in s.members {
                w.doc(m.doc.map { "\($0) (position \(m.jsonName))" } ?? "Position \(m.jsonName).")
                w.line("public var \(Naming.escaped(m.swiftName)): \(m.type.swiftType)")
            }
            if shape == .keepsExtraItems {
                w.line("/// The items after the positions, kept verbatim and written back after them.")
                w.line("public var extraItems: [RawJSON]")
            }
            w.line()
            var parameters = s.members.map { "\(Naming.escaped($0.swiftName)): \($0.type.swiftType)" }
            if shape == .keepsExtraItems { parameters.append("extraItems: [RawJSON] = []") }
            w.block("public init(\(parameters.joined(separator: ", ")))") { w in
                for m in s.members { w.line("self.\(Naming.escaped(m.swiftName)) = \(Naming.escaped(m.swiftName))") }
                if shape == .keepsExtraItems { w.line("self.extraItems = extraItems") }
            }
            w.declareNested(in: qualified)
        }
    }

    mutating func supportTuple(_ s: StructModel, qualified: String) {
        let shape = s.tuple ?? .keepsExtraItems
        let count = s.members.count
        block("extension \(qualified)") { w in
            w.block("public init(from decoder: any Decoder) throws") { w in
                w.line("var container = try decoder.unkeyedContainer()")
                for m in s.members { w.line("self.\(Naming.escaped(m.swiftName)) = try container.decode(\(m.type.swiftType).self)") }
                switch shape {
                case .keepsExtraItems:
                    w.line("var extraItems: [RawJSON] = []")
                    w.line("while !container.isAtEnd { extraItems.append(try container.decode(RawJSON.self)) }")
                    w.line("self.extraItems = extraItems")
                case .refusesExtraItems:
                    w.block("guard container.isAtEnd else") { w in
                        w.line("throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: \"More than \(count) items (items: false).\"))")
                    }
                }
            }
            w.line()
            w.block("public func encode(to encoder: any Encoder) throws") { w in
                w.line("var container = encoder.unkeyedContainer()")
                for m in s.members { w.line("try container.encode(self.\(Naming.escaped(m.swiftName)))") }
                if shape == .keepsExtraItems { w.line("for item in self.extraItems { try container.encode(item) }") }
            }
        }
        line()
        block("extension \(qualified): FastCodable") { w in
            w.line("/// Every position at its placeholder.")
            w.block("@inline(__always) public init(unread: Void)") { w in
                for m in s.members { w.line("self.\(Naming.escaped(m.swiftName)) = \(Self.placeholder(m.type))") }
                if shape == .keepsExtraItems { w.line("self.extraItems = []") }
            }
            w.line()
            w.block("public mutating func read(_ cursor: inout JSONCursor) throws(FastPathBail)") { w in
                w.line("var elements = try cursor.beginArray()")
                for m in s.members {
                    w.line("guard try cursor.nextElement(&elements) else { throw FastPathBail() }")
                    w.line("self.\(Naming.escaped(m.swiftName)) = \(Self.reader(m.type, inline: false))")
                }
                switch shape {
                case .keepsExtraItems:
                    w.line("var extraItems: [RawJSON] = []")
                    w.line("while try cursor.nextElement(&elements) { extraItems.append(try RawJSON.read(from: &cursor)) }")
                    w.line("self.extraItems = extraItems")
                case .refusesExtraItems:
                    w.line("guard try !cursor.nextElement(&elements) else { throw FastPathBail() }")
                }
            }
            w.line()
            w.block("public static func validate(_ cursor: inout JSONCursor) throws(FastPathBail)") { w in
                w.line("var elements = try cursor.beginArray()")
                for m in s.members {
                    w.line("guard try cursor.nextElement(&elements) else { throw FastPathBail() }")
                    w.line(Self.validator(m.type))
                }
                switch shape {
                case .keepsExtraItems: w.line("while try cursor.nextElement(&elements) { try RawJSON.validate(&cursor) }")
                case .refusesExtraItems: w.line("guard try !cursor.nextElement(&elements) else { throw FastPathBail() }")
                }
            }
            w.line()
            w.block("public func write(to writer: inout CanonicalWriter)") { w in
                w.line("writer.beginArray()")
                for m in s.members {
                    w.line("writer.element()")
                    w.line(Self.writer(m.type, "self.\(Naming.escaped(m.swiftName))"))
                }
                if shape == .keepsExtraItems {
                    w.block("for item in self.extraItems") { w in
                        w.line("writer.element()")
                        w.line("writer.raw(item)")
                    }
                }
                w.line("writer.endArray()")
            }
        }
    }

    // MARK: - Support: unions

    mutating func supportUnion(_ u: UnionModel, qualified: String) {
        switch u.branches {
        case .tagged(let key, let variants):
            let keyExpression = "JSONKey(stringValue: \(Naming.stringLiteral(key)))"
            block("extension \(qualified)") { w in
                w.block("public init(from decoder: any Decoder) throws") { w in
                    w.line("let container = try decoder.container(keyedBy: JSONKey.self)")
                    w.switchBlock("try container.decode(String.self, forKey: \(keyExpression))") { w in
                        for v in variants { w.line("case \(Naming.stringLiteral(v.tag)): self = .\(Naming.escaped(v.caseName))(try \(v.type)(from: decoder))") }
                        w.line("default: self = .unknown(try RawJSON(from: decoder))")
                    }
                }
                w.line()
                w.block("public func encode(to encoder: any Encoder) throws") { w in
                    w.switchBlock("self") { w in
                        for v in variants {
                            w.line("case .\(Naming.escaped(v.caseName))(let value):")
                            w.line("    var container = encoder.container(keyedBy: JSONKey.self)")
                            w.line("    try container.encode(\(v.type).tag, forKey: \(keyExpression))")
                            w.line("    try value.encode(to: encoder)")
                        }
                        w.line("case .unknown(let raw): try raw.encode(to: encoder)")
                    }
                }
            }
            line()
            block("extension \(qualified): FastCodable") { w in
                w.line("@inline(__always) public init(unread: Void) { self = .unknown(.unread) }")
                w.line()
                w.block("public mutating func read(_ cursor: inout JSONCursor) throws(FastPathBail)") { w in
                    w.switchBlock("try cursor.peekMember(\(Self.keyLiteral(key)))") { w in
                        for v in variants { w.line("case \(Naming.stringLiteral(v.tag)): self = .\(Naming.escaped(v.caseName))(try \(v.type).read(from: &cursor))") }
                        w.line("default: self = .unknown(try RawJSON.read(from: &cursor))")
                    }
                }
                w.line()
                w.block("public static func validate(_ cursor: inout JSONCursor) throws(FastPathBail)") { w in
                    w.switchBlock("try cursor.peekMember(\(Self.keyLiteral(key)))") { w in
                        for v in variants { w.line("case \(Naming.stringLiteral(v.tag)): try \(v.type).validate(&cursor)") }
                        w.line("default: try RawJSON.validate(&cursor)")
                    }
                }
                w.line()
                w.block("public func write(to writer: inout CanonicalWriter)") { w in
                    w.switchBlock("self") { w in
                        for v in variants { w.line("case .\(Naming.escaped(v.caseName))(let value): value.write(to: &writer)") }
                        w.line("case .unknown(let raw): writer.raw(raw)")
                    }
                }
            }
        case .byJSONType(let cases):
            func kind(_ type: FieldType) -> String {
                switch type {
                case .string, .openEnum, .timestamp: ".string"
                case .integer: ".integer"
                case .number: ".number"
                case .boolean: ".bool"
                case .array: ".array"
                default: ".object"
                }
            }
            // A number without a fraction goes to the integer case when there is one, and the other way round.
            func order(_ cases: [(caseName: String, type: FieldType)]) -> [(pattern: String, caseName: String, type: FieldType)] {
                let hasInteger = cases.contains { kind($0.type) == ".integer" }
                let hasNumber = cases.contains { kind($0.type) == ".number" }
                return cases.map { c in
                    let k = kind(c.type)
                    if k == ".integer" && !hasNumber { return (".integer, .number", c.caseName, c.type) }
                    if k == ".number" && !hasInteger { return (".integer, .number", c.caseName, c.type) }
                    return (k, c.caseName, c.type)
                }
            }
            let ordered = order(cases)
            let expected = Naming.stringLiteral("Expected one of: " + cases.map { String(kind($0.type).dropFirst()) }.joined(separator: ", ") + ".")
            block("extension \(qualified)") { w in
                w.block("public init(from decoder: any Decoder) throws") { w in
                    w.switchBlock("try JSONValueKind.of(decoder)") { w in
                        for c in ordered {
                            let t = c.type.swiftType
                            w.line("case \(c.pattern): self = .\(Naming.escaped(c.caseName))(try decoder.singleValueContainer().decode(\(t).self))")
                        }
                        w.line("default: throw DecodingError.typeMismatch(Self.self, .init(codingPath: decoder.codingPath, debugDescription: \(expected)))")
                    }
                }
                w.line()
                w.block("public func encode(to encoder: any Encoder) throws") { w in
                    w.line("var container = encoder.singleValueContainer()")
                    w.switchBlock("self") { w in
                        for c in cases { w.line("case .\(Naming.escaped(c.caseName))(let value): try container.encode(value)") }
                    }
                }
            }
            line()
            block("extension \(qualified): FastCodable") { w in
                let first = cases[0]
                w.line("@inline(__always) public init(unread: Void) { self = .\(Naming.escaped(first.caseName))(\(Self.placeholder(first.type))) }")
                w.line()
                w.block("public mutating func read(_ cursor: inout JSONCursor) throws(FastPathBail)") { w in
                    w.switchBlock("try cursor.peekKind()") { w in
                        for c in ordered { w.line("case \(c.pattern): self = .\(Naming.escaped(c.caseName))(\(Self.reader(c.type, inline: false)))") }
                        w.line("default: throw FastPathBail()")
                    }
                }
                w.line()
                w.block("public static func validate(_ cursor: inout JSONCursor) throws(FastPathBail)") { w in
                    w.switchBlock("try cursor.peekKind()") { w in
                        for c in ordered { w.line("case \(c.pattern): \(Self.validator(c.type))") }
                        w.line("default: throw FastPathBail()")
                    }
                }
                w.line()
                w.block("public func write(to writer: inout CanonicalWriter)") { w in
                    w.switchBlock("self") { w in
                        for c in cases { w.line("case .\(Naming.escaped(c.caseName))(let value): \(Self.writer(c.type, "value"))") }
                    }
                }
            }
        }
    }

    /// A value of `type` to start from.
    static func placeholder(_ type: FieldType) -> String {
        switch type {
        case .string: "\"\""
        case .integer: "0"
        case .boolean: "false"
        case .array: "[]"
        case .map: "JSONMap()"
        case .openEnum(let t): "\(t)(raw: InlineString())"
        default: ".unread"
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
