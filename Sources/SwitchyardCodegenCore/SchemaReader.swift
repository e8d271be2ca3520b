/// Reads catalog schemas (JSON Schema 2020-12) into ``CatalogModel``s and the types they use.
///
/// Supported: `type` (object, string, integer, number, boolean, array), `properties`, `required`,
/// `additionalProperties: true`, `items`, `$ref` (relative files and `#/$defs/…` pointers; siblings
/// refine it), `$defs`, `default`, `enum` and the open-enum idiom `anyOf: [{enum}, {type: string}]`,
/// `format` (`date-time`, `int32`, `int64`), `minLength: 1`, `minimum`/`maximum` on integers,
/// `const` on the tag, `oneOf` in the catalog schema, the annotations (`title`, `description`,
/// `examples`, `$comment`, `$schema`, `$id`, `deprecated`), and the escape hatches `x-swift-name`
/// and `x-swift-type`. Every other keyword is an error naming the file, the pointer and the keyword.
public struct SchemaReader {
    /// Reads a file by its path relative to the target root; nil when it does not exist.
    public typealias FileReader = (String) throws -> [UInt8]?

    private let readFile: FileReader
    private var files: [String: JSONValue] = [:]
    /// Generated types, by the schema location that defines them (one type per definition).
    public private(set) var types: [SchemaLocation: TypeModel] = [:]
    /// The order types were first met in (for deterministic output).
    public private(set) var typeOrder: [SchemaLocation] = []
    /// The catalog (by name) that first used each type.
    public private(set) var usedBy: [SchemaLocation: Set<String>] = [:]
    private var namesTaken: [String: SchemaLocation] = [:]
    private var inProgress: Set<SchemaLocation> = []
    private var currentCatalog = ""

    public init(readFile: @escaping FileReader) {
        self.readFile = readFile
    }

    static let annotations: Set<String> = ["title", "description", "examples", "$comment", "$schema", "$id", "deprecated"]
    static let reservedMembers: Set<String> = ["envelope", "unknownFields", "type", "content"]
    static let envelopeMembers = ["id", "occurredAt", "schemaVersion"]

    // MARK: - Files and references

    mutating func document(_ file: String, referencedFrom: SchemaLocation?) throws -> JSONValue {
        if let cached = files[file] { return cached }
        let bytes: [UInt8]?
        do {
            bytes = try readFile(file)
        } catch {
            throw (referencedFrom ?? SchemaLocation(file: file, pointer: "#")).error("cannot read '\(file)': \(error)")
        }
        guard let bytes else {
            throw (referencedFrom ?? SchemaLocation(file: file, pointer: "#")).error("$ref target '\(file)' does not exist")
        }
        do {
            let value = try JSONParser.parse(bytes)
            files[file] = value
            return value
        } catch {
            throw CodegenError(file: file, pointer: "#", message: error.description)
        }
    }

    /// The schema at `location`.
    mutating func schema(at location: SchemaLocation, referencedFrom: SchemaLocation? = nil) throws -> JSONValue {
        var value = try document(location.file, referencedFrom: referencedFrom)
        let tokens = location.pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for raw in tokens {
            let token = String(raw).replacing("~1", with: "/").replacing("~0", with: "~")
            if let next = value[token] {
                value = next
            } else if let elements = value.elements, let index = Int(token), elements.indices.contains(index) {
                value = elements[index]
            } else {
                throw (referencedFrom ?? location).error("$ref '\(location)' does not resolve: no '\(token)'")
            }
        }
        return value
    }

    /// Resolves a `$ref` written at `from`.
    func resolve(_ ref: String, from: SchemaLocation) throws -> SchemaLocation {
        let parts = ref.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0])
        let fragment = parts.count > 1 ? "#" + parts[1] : "#"
        guard fragment == "#" || fragment.hasPrefix("#/") else {
            throw from.error("$ref '\(ref)': only JSON pointer fragments (#/…) are supported")
        }
        if path.isEmpty { return SchemaLocation(file: from.file, pointer: fragment) }
        guard !path.contains("://"), !path.hasPrefix("/") else {
            throw from.error("$ref '\(ref)': only relative file references are supported")
        }
        return SchemaLocation(file: Self.join(directory(of: from.file), path), pointer: fragment)
    }

    func directory(of file: String) -> String {
        guard let slash = file.lastIndex(of: "/") else { return "" }
        return String(file[..<slash])
    }

    /// `a/b` + `../c/d.json` → `a/c/d.json`.
    public static func join(_ directory: String, _ path: String) -> String {
        var parts = directory.split(separator: "/").map(String.init)
        for component in path.split(separator: "/").map(String.init) {
            switch component {
            case ".": continue
            case "..":
                if parts.isEmpty || parts.last == ".." { parts.append("..") } else { parts.removeLast() }
            default: parts.append(component)
            }
        }
        return parts.joined(separator: "/")
    }

    // MARK: - Keywords

    func object(_ value: JSONValue, at location: SchemaLocation) throws -> [(key: String, value: JSONValue)] {
        guard let members = value.members else { throw location.error("a schema must be an object, not \(value.kindName)") }
        return members
    }

    func check(_ members: [(key: String, value: JSONValue)], allowed: Set<String>, at location: SchemaLocation) throws {
        for (key, _) in members where !allowed.contains(key) && !Self.annotations.contains(key) {
            throw location.error("unsupported keyword '\(key)'")
        }
    }

    func string(_ value: JSONValue?, _ keyword: String, at location: SchemaLocation) throws -> String? {
        guard let value else { return nil }
        guard let s = value.string else { throw location.error("'\(keyword)' must be a string, not \(value.kindName)") }
        return s
    }

    func doc(_ value: JSONValue) -> String? { value["description"]?.string }

    // MARK: - Catalogs

    /// Reads one catalog: the catalog schema's `oneOf` names each event by the `const` of its tag.
    public mutating func readCatalog(name: String, schemaFile: String, swiftName: String, policy: CatalogPolicy) throws -> CatalogModel {
        currentCatalog = name
        let root = SchemaLocation(file: schemaFile, pointer: "#")
        let schema = try document(schemaFile, referencedFrom: nil)
        let members = try object(schema, at: root)
        try check(members, allowed: ["type", "required", "properties", "oneOf", "additionalProperties", "$defs"], at: root)
        try checkAdditionalProperties(schema, at: root)
        guard let branches = schema["oneOf"]?.elements, !branches.isEmpty else {
            throw root.error("a catalog schema lists its events in 'oneOf'")
        }
        try claim(swiftName, for: root, what: "catalog")
        var tagKey: String?
        var entries: [EventEntry] = []
        var tags: [String: SchemaLocation] = [:]
        var pending: [(tag: String, location: SchemaLocation, branch: JSONValue)] = []
        var unknownBranch: (at: SchemaLocation, target: SchemaLocation)?
        for (index, branch) in branches.enumerated() {
            let at = root.appending("oneOf", String(index))
            let branchMembers = try object(branch, at: at)
            try check(branchMembers, allowed: ["properties", "$ref", "x-swift-type", "x-swift-name", "required", "type"], at: at)
            if branch["properties"] == nil, let ref = branch["$ref"]?.string, branchMembers.count == 1 {
                unknownBranch = (at, try resolve(ref, from: at.appending("$ref")))
                continue
            }
            guard let properties = branch["properties"]?.members else {
                throw at.error("an event entry names its tag in 'properties' with a 'const'")
            }
            let consts = properties.filter { $0.value["const"] != nil }
            guard consts.count == 1, let tagProperty = consts.first else {
                throw at.appending("properties").error(consts.isEmpty ? "the tag has no 'const': each entry must say which tag selects it" : "more than one member has a 'const'; only the tag may")
            }
            let constAt = at.appending("properties", tagProperty.key, "const")
            guard let tag = tagProperty.value["const"]?.string, !tag.isEmpty else { throw constAt.error("the tag's 'const' must be a non-empty string") }
            if let key = tagKey, key != tagProperty.key {
                throw at.appending("properties", tagProperty.key).error("tag key '\(tagProperty.key)' differs from '\(key)' in an earlier entry")
            }
            tagKey = tagProperty.key
            if let first = tags[tag] { throw constAt.error("duplicate tag '\(tag)' (first at \(first))") }
            tags[tag] = constAt
            pending.append((tag, at, branch))
        }
        let key = tagKey ?? "type"
        if let unknownBranch {
            try checkUnknownBranch(unknownBranch.target, from: unknownBranch.at, tagKey: key, tags: pending.map(\.tag), policy: policy)
        }
        for (tag, at, branch) in pending {
            let caseName = Self.caseName(for: tag, among: pending.map(\.tag))
            guard !caseName.isEmpty, caseName != "unknown" else {
                throw at.error("the tag '\(tag)' would be the enum case '\(caseName)', which is taken; give the entry an 'x-swift-name'")
            }
            let finalCase = try string(branch["x-swift-name"], "x-swift-name", at: at) ?? caseName
            if let handWritten = try string(branch["x-swift-type"], "x-swift-type", at: at) {
                entries.append(EventEntry(tag: tag, caseName: finalCase, swiftType: handWritten, isHandWritten: true))
                continue
            }
            guard let ref = try string(branch["$ref"], "$ref", at: at) else {
                throw at.error("an event entry needs a '$ref' to the event's schema (or 'x-swift-type' for a hand-written event)")
            }
            let target = try resolve(ref, from: at.appending("$ref"))
            let typeName = try eventStruct(at: target, tag: tag, tagKey: key, catalog: swiftName, referencedFrom: at.appending("$ref"))
            entries.append(EventEntry(tag: tag, caseName: finalCase, swiftType: typeName, isHandWritten: false))
        }
        var seenCases: [String: String] = [:]
        for entry in entries {
            if let other = seenCases[entry.caseName] {
                throw root.appending("oneOf").error("tags '\(other)' and '\(entry.tag)' both become the case '\(entry.caseName)'; give one an 'x-swift-name'")
            }
            seenCases[entry.caseName] = entry.tag
        }
        return CatalogModel(name: name, swiftName: swiftName, policy: policy, tagKey: key, doc: doc(schema), location: root, events: entries)
    }

    /// The lenient catalog's branch for unknown events: an object whose tag is a string that is `not` one of
    /// the known tags (what `.unknown(type:raw:)` accepts). It must exclude exactly the catalog's tags.
    mutating func checkUnknownBranch(_ target: SchemaLocation, from at: SchemaLocation, tagKey: String, tags: [String], policy: CatalogPolicy) throws {
        let schema = try self.schema(at: target, referencedFrom: at.appending("$ref"))
        let tagAt = target.appending("properties", tagKey)
        guard let excluded = schema["properties"]?[tagKey]?["not"]?["enum"]?.elements?.compactMap(\.string) else {
            throw at.error("an entry without a tag 'const' must be the unknown-events branch: a $ref to an object whose '\(tagKey)' is a string 'not' in the known tags")
        }
        guard policy == .lenient else {
            throw at.error("the catalog schema accepts unknown event types (this entry) but its policy is strict: make the policy lenient or remove the entry")
        }
        guard Set(excluded) == Set(tags) else {
            let missing = Set(tags).subtracting(excluded).sorted()
            let extra = Set(excluded).subtracting(tags).sorted()
            throw tagAt.appending("not", "enum").error("the unknown-events branch must exclude exactly the known tags" + (missing.isEmpty ? "" : "; missing: \(missing.joined(separator: ", "))") + (extra.isEmpty ? "" : "; not in the catalog: \(extra.joined(separator: ", "))"))
        }
    }

    /// `payment.captured` → `captured` when every tag of the catalog starts with `payment.`; else `paymentCaptured`.
    static func caseName(for tag: String, among tags: [String]) -> String {
        let words = Naming.words(tag)
        let firsts = Set(tags.map { Naming.words($0).first ?? "" })
        if firsts.count == 1, words.count > 1, tags.allSatisfy({ Naming.words($0).count > 1 }) {
            return Naming.lowerCamel(Array(words.dropFirst()))
        }
        return Naming.lowerCamel(words)
    }

    func checkAdditionalProperties(_ schema: JSONValue, at location: SchemaLocation) throws {
        if let additional = schema["additionalProperties"], additional != .bool(true) {
            throw location.appending("additionalProperties").error("unsupported 'additionalProperties' other than true: unknown fields never fail a record (PRODUCT.md rule 2)")
        }
    }

    mutating func claim(_ name: String, for location: SchemaLocation, what: String) throws {
        guard Naming.isIdentifier(name) else { throw location.error("'\(name)' is not a Swift identifier; set 'x-swift-name'") }
        guard !Naming.keywords.contains(name) else { throw location.error("the \(what) name '\(name)' is a Swift keyword; set 'x-swift-name'") }
        if let other = namesTaken[name], other != location {
            throw location.error("the type name '\(name)' is already used by \(other); set 'x-swift-name'")
        }
        namesTaken[name] = location
    }

    // MARK: - Structs

    /// The event struct for the schema at `location`.
    mutating func eventStruct(at location: SchemaLocation, tag: String, tagKey: String, catalog: String, referencedFrom: SchemaLocation) throws -> String {
        if let existing = types[location] {
            usedBy[location, default: []].insert(currentCatalog)
            return existing.swiftName
        }
        let schema = try self.schema(at: location, referencedFrom: referencedFrom)
        let name = try string(schema["x-swift-name"], "x-swift-name", at: location) ?? Naming.upperCamel(Naming.words(tag))
        try claim(name, for: location, what: "event")
        var members = try objectMembers(of: schema, at: location, typeName: name, tagKey: tagKey, tag: tag)
        // The envelope: id, occurredAt, schemaVersion, as the runtime's `Envelope` reads and writes them.
        for envelopeName in Self.envelopeMembers {
            guard let index = members.firstIndex(where: { $0.jsonName == envelopeName }) else {
                throw location.error("an event must carry the envelope member '\(envelopeName)' (PRODUCT.md): add \"$ref\" to an envelope definition with id, occurredAt and schemaVersion")
            }
            let member = members.remove(at: index)
            let expected: (FieldType, Presence, String)
            switch envelopeName {
            case "id": expected = (.string(identifier: true), .required, "a required string with minLength 1 (the identity is never defaulted)")
            case "occurredAt": expected = (.timestamp, .required, "a required string with format date-time")
            default: expected = (.integer(swiftType: "Int", minimum: "1", maximum: nil), .defaulted("1"), "an optional integer with minimum 1 and default 1")
            }
            guard member.type == expected.0, member.presence == expected.1 else {
                throw member.location.error("the envelope member '\(envelopeName)' must be \(expected.2)")
            }
        }
        let model = StructModel(swiftName: name, doc: doc(schema), location: location, tag: tag, catalogSwiftName: catalog, members: members)
        types[location] = .structure(model)
        typeOrder.append(location)
        usedBy[location, default: []].insert(currentCatalog)
        return name
    }

    /// The members of an object schema, its `$ref` base's first (2020-12: `$ref` beside `properties` applies both).
    mutating func objectMembers(of schema: JSONValue, at location: SchemaLocation, typeName: String, tagKey: String?, tag: String?) throws
        -> [Member]
    {
        let keywords = try object(schema, at: location)
        try check(keywords, allowed: ["type", "properties", "required", "additionalProperties", "$ref", "x-swift-name", "$defs"], at: location)
        if let type = schema["type"], type != .string("object") {
            throw location.appending("type").error("an object schema's 'type' must be \"object\", not \(type)")
        }
        try checkAdditionalProperties(schema, at: location)
        var members: [Member] = []
        var required: Set<String> = []
        if let ref = try string(schema["$ref"], "$ref", at: location) {
            let base = try resolve(ref, from: location.appending("$ref"))
            let baseSchema = try self.schema(at: base, referencedFrom: location.appending("$ref"))
            members = try objectMembers(of: baseSchema, at: base, typeName: typeName, tagKey: tagKey, tag: tag)
            required = Set(members.filter { $0.presence == .required }.map(\.jsonName))
        }
        if let list = schema["required"] {
            guard let names = list.elements?.compactMap(\.string), names.count == list.elements?.count else {
                throw location.appending("required").error("'required' must be an array of strings")
            }
            required.formUnion(names)
        }
        guard let properties = schema["properties"] ?? (members.isEmpty ? nil : .object([])) else {
            throw location.error("an object schema needs 'properties'")
        }
        guard let list = properties.members else { throw location.appending("properties").error("'properties' must be an object") }
        for (jsonName, sub) in list {
            let at = location.appending("properties", jsonName)
            if let tagKey, jsonName == tagKey {
                try checkTag(sub, at: at, tag: tag)
                continue
            }
            guard !members.contains(where: { $0.jsonName == jsonName }) else {
                throw at.error("the member '\(jsonName)' is already declared by the $ref base")
            }
            members.append(try member(jsonName, sub, at: at, parent: typeName, required: required.contains(jsonName)))
        }
        // Members the base declared optional may be made required by this schema.
        for k in members.indices where required.contains(members[k].jsonName) && members[k].presence != .required {
            guard members[k].presence == .optional else {
                throw location.appending("required").error("'\(members[k].jsonName)' is required here but has a default in its declaration")
            }
            members[k].presence = .required
        }
        for name in required where name != tagKey && !members.contains(where: { $0.jsonName == name }) {
            throw location.appending("required").error("'\(name)' is required but not declared in 'properties'")
        }
        guard members.count <= 63 else { throw location.error("more than 63 members: the fast path tracks members in one 64-bit word") }
        return members
    }

    /// A tag member in an event's schema: a string, or the event's `const`.
    func checkTag(_ schema: JSONValue, at location: SchemaLocation, tag: String?) throws {
        let keywords = try object(schema, at: location)
        try check(keywords, allowed: ["type", "const"], at: location)
        if let type = schema["type"], type != .string("string") { throw location.error("the tag must be a string") }
        if let const = schema["const"], let tag, const != .string(tag) {
            throw location.appending("const").error("the event's tag const \(const) differs from the catalog's '\(tag)'")
        }
    }

    mutating func member(_ jsonName: String, _ schema: JSONValue, at location: SchemaLocation, parent: String, required: Bool) throws -> Member {
        guard !jsonName.isEmpty, jsonName.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) else {
            throw location.error("member name '\(jsonName)' must be printable ASCII without quotes or backslashes (the fast path compares names as bytes)")
        }
        var swiftName = Naming.isIdentifier(jsonName) ? jsonName : Naming.lowerCamel(Naming.words(jsonName))
        // `x-swift-name` on a schema that defines a type (an inline object or open enum) names the type;
        // anywhere else it names the member.
        let definesType = schema["$ref"] == nil && (isObjectSchema(schema) || Self.openEnumValues(schema) != nil)
        if !definesType, let explicit = try string(schema["x-swift-name"], "x-swift-name", at: location) {
            swiftName = explicit
        }
        guard Naming.isIdentifier(swiftName) else { throw location.error("'\(swiftName)' is not a Swift identifier; set 'x-swift-name'") }
        guard !Naming.keywords.contains(swiftName) else {
            throw location.error("the member name '\(swiftName)' is a Swift keyword; set 'x-swift-name'")
        }
        guard !Self.reservedMembers.contains(swiftName) || Self.envelopeMembers.contains(jsonName) else {
            throw location.error("the member name '\(swiftName)' is reserved by the generated code; set 'x-swift-name'")
        }
        let (type, defaultValue) = try field(schema, at: location, nameHint: parent + Naming.upperCamel(Naming.words(jsonName)))
        let presence: Presence
        if let defaultValue {
            guard !required else {
                if jsonName == "id" { throw location.error("the identity 'id' is never defaulted (PRODUCT.md): remove its 'default'") }
                throw location.error("a required member cannot have a 'default' (a default applies when it is absent)")
            }
            presence = .defaulted(try literal(defaultValue, for: type, at: location.appending("default")))
        } else {
            presence = required ? .required : .optional
        }
        if case .string(identifier: true) = type, presence != .required, jsonName != "id" {
            throw location.error("'minLength: 1' is supported on required members only")
        }
        return Member(jsonName: jsonName, swiftName: swiftName, type: type, presence: presence, doc: doc(schema), location: location)
    }

    // MARK: - Field types

    /// The keywords of a scalar schema with its `$ref` chain merged (the referring schema's keywords win).
    mutating func flattened(_ schema: JSONValue, at location: SchemaLocation) throws -> (keywords: [(key: String, value: JSONValue)], origin: SchemaLocation) {
        var keywords = try object(schema, at: location)
        guard let ref = try string(schema["$ref"], "$ref", at: location) else { return (keywords, location) }
        let target = try resolve(ref, from: location.appending("$ref"))
        let targetSchema = try self.schema(at: target, referencedFrom: location.appending("$ref"))
        let (base, _) = try flattened(targetSchema, at: target)
        keywords.removeAll { $0.key == "$ref" }
        var merged = base.filter { b in !keywords.contains { $0.key == b.key } }
        merged.append(contentsOf: keywords)
        return (merged, target)
    }

    /// Whether a schema describes an object (a struct).
    func isObjectSchema(_ schema: JSONValue) -> Bool {
        schema["type"] == .string("object") || schema["properties"] != nil
    }

    /// The type of a member or array element, and its `default` if any.
    mutating func field(_ schema: JSONValue, at location: SchemaLocation, nameHint: String) throws -> (FieldType, JSONValue?) {
        _ = try object(schema, at: location)
        if let custom = try string(schema["x-swift-type"], "x-swift-type", at: location) {
            guard Naming.isTypeName(custom) else { throw location.appending("x-swift-type").error("'\(custom)' is not a Swift type name") }
            return (.custom(custom), nil)
        }
        // A reference to an object or open-enum definition: one type per definition, siblings are annotations.
        if let ref = try string(schema["$ref"], "$ref", at: location) {
            let target = try resolve(ref, from: location.appending("$ref"))
            let targetSchema = try self.schema(at: target, referencedFrom: location.appending("$ref"))
            if isObjectSchema(targetSchema) || Self.openEnumValues(targetSchema) != nil {
                try check(try object(schema, at: location), allowed: ["$ref", "x-swift-name"], at: location)
                let name = try namedType(at: target, schema: targetSchema, referencedFrom: location.appending("$ref"), nameHint: Self.definitionName(target))
                return (isObjectSchema(targetSchema) ? .object(name) : .openEnum(name), nil)
            }
        }
        let (keywords, origin) = try flattened(schema, at: location)
        let flat = JSONValue.object(keywords)
        let defaultValue = flat["default"]
        if Self.openEnumValues(flat) != nil {
            try check(keywords, allowed: ["anyOf", "enum", "type", "default", "x-swift-name"], at: location)
            let name = try namedType(at: origin == location ? location : origin, schema: flat, referencedFrom: location, nameHint: nameHint)
            return (.openEnum(name), defaultValue)
        }
        if isObjectSchema(flat) {
            let name = try namedType(at: location, schema: schema, referencedFrom: location, nameHint: nameHint)
            return (.object(name), nil)
        }
        guard let typeValue = flat["type"] else {
            if flat["anyOf"] != nil { throw location.error("unsupported 'anyOf' (only the open-enum idiom anyOf: [{enum: […]}, {type: string}] is)") }
            if flat["oneOf"] != nil { throw location.error("unsupported keyword 'oneOf' outside the catalog schema") }
            throw location.error("a member schema needs a 'type'")
        }
        guard let type = typeValue.string else {
            throw location.appending("type").error("unsupported 'type' \(typeValue.kindName == "an array" ? "list" : typeValue.kindName): one type per member (an optional member is one not in 'required')")
        }
        switch type {
        case "string":
            try check(keywords, allowed: ["type", "format", "minLength", "pattern", "default", "x-swift-name"], at: location)
            let format = try string(flat["format"], "format", at: location)
            if let format, format != "date-time" { throw location.appending("format").error("unsupported format '\(format)' for a string") }
            if flat["pattern"] != nil, format != "date-time" {
                throw location.appending("pattern").error("unsupported keyword 'pattern' (only beside format date-time, whose grammar it spells)")
            }
            if format == "date-time" {
                if flat["minLength"] != nil { throw location.appending("minLength").error("unsupported keyword 'minLength' on a date-time") }
                if defaultValue != nil { throw location.appending("default").error("a date-time member cannot have a default") }
                return (.timestamp, nil)
            }
            if let minLength = flat["minLength"] {
                guard minLength == .number("1") || minLength == .number("0") else {
                    throw location.appending("minLength").error("unsupported 'minLength' \(minLength): only 1 (a non-empty identifier) is supported")
                }
                return (.string(identifier: minLength == .number("1")), defaultValue)
            }
            return (.string(identifier: false), defaultValue)
        case "integer":
            try check(keywords, allowed: ["type", "format", "minimum", "maximum", "default", "x-swift-name"], at: location)
            var swiftType = "Int"
            var bounds: (String, String) = ("-9223372036854775808", "9223372036854775807")
            switch try string(flat["format"], "format", at: location) {
            case nil: break
            case "int64": swiftType = "Int64"
            case "int32":
                swiftType = "Int32"
                bounds = ("-2147483648", "2147483647")
            case let other?: throw location.appending("format").error("unsupported format '\(other)' for an integer (int32 or int64)")
            }
            func bound(_ keyword: String) throws -> String? {
                guard let value = flat[keyword] else { return nil }
                guard case .number(let text) = value, let n = Int64(text) else {
                    throw location.appending(keyword).error("'\(keyword)' must be an integer that fits Int64")
                }
                let limit = keyword == "minimum" ? Int64(bounds.0)! : Int64(bounds.1)!
                if keyword == "minimum" ? n <= limit : n >= limit { return nil }  // the type's own range
                return String(n)
            }
            return (.integer(swiftType: swiftType, minimum: try bound("minimum"), maximum: try bound("maximum")), defaultValue)
        case "number":
            try check(keywords, allowed: ["type", "default", "x-swift-name"], at: location)
            return (.number, defaultValue)
        case "boolean":
            try check(keywords, allowed: ["type", "default", "x-swift-name"], at: location)
            return (.boolean, defaultValue)
        case "array":
            try check(keywords, allowed: ["type", "items", "default", "x-swift-name"], at: location)
            guard let items = flat["items"] else { throw location.error("an array needs 'items'") }
            let itemsAt = origin == location ? location.appending("items") : origin.appending("items")
            let (element, elementDefault) = try field(items, at: itemsAt, nameHint: Naming.singular(nameHint))
            if elementDefault != nil { throw itemsAt.appending("default").error("unsupported 'default' on array items") }
            switch element {
            case .string(identifier: true): throw itemsAt.error("unsupported 'minLength' on array items")
            case .integer(_, let min, let max) where min != nil || max != nil: throw itemsAt.error("unsupported 'minimum'/'maximum' on array items")
            case .array: throw itemsAt.error("unsupported: arrays of arrays")
            default: break
            }
            return (.array(element), defaultValue)
        case "object":
            throw location.error("an object member needs 'properties'")
        default:
            throw location.appending("type").error("unsupported type '\(type)'")
        }
    }

    /// The known values of an open enum: `enum: [strings]` (with `type: string`), or `anyOf: [{enum}, {type: string}]`.
    static func openEnumValues(_ schema: JSONValue) -> [String]? {
        func strings(_ value: JSONValue?) -> [String]? {
            guard let elements = value?.elements else { return nil }
            let s = elements.compactMap(\.string)
            return s.count == elements.count && !s.isEmpty ? s : nil
        }
        if let values = strings(schema["enum"]), schema["type"] == nil || schema["type"] == .string("string") { return values }
        guard let branches = schema["anyOf"]?.elements, branches.count == 2 else { return nil }
        let enumBranch = branches.first { $0["enum"] != nil }
        let stringBranch = branches.first { $0 == .object([("type", .string("string"))]) }
        guard let enumBranch, stringBranch != nil, enumBranch.members?.count == 1 else { return nil }
        return strings(enumBranch["enum"])
    }

    static func definitionName(_ location: SchemaLocation) -> String {
        let last = location.pointer.split(separator: "/").last.map(String.init) ?? ""
        if location.pointer == "#" || last == "#" {
            let base = location.file.split(separator: "/").last.map(String.init) ?? location.file
            return Naming.upperCamel(Naming.words(base.hasSuffix(".json") ? String(base.dropLast(5)) : base))
        }
        return Naming.isIdentifier(last) ? Naming.upperCamel([last]) : Naming.upperCamel(Naming.words(last))
    }

    /// The struct or open enum defined at `location` (made once).
    mutating func namedType(at location: SchemaLocation, schema: JSONValue, referencedFrom: SchemaLocation, nameHint: String) throws -> String {
        if let existing = types[location] {
            usedBy[location, default: []].insert(currentCatalog)
            return existing.swiftName
        }
        guard !inProgress.contains(location) else { throw referencedFrom.error("recursive $ref: a type that contains itself") }
        inProgress.insert(location)
        defer { inProgress.remove(location) }
        let name = try string(schema["x-swift-name"], "x-swift-name", at: location) ?? nameHint
        try claim(name, for: location, what: "type")
        let model: TypeModel
        if let values = Self.openEnumValues(schema) {
            for (k, v) in values.enumerated() where values[..<k].contains(v) {
                throw location.error("the enum value '\(v)' is listed twice")
            }
            var cases: [String: String] = [:]
            for value in values {
                let c = Naming.caseName(value)
                if let other = cases[c] { throw location.error("the enum values '\(other)' and '\(value)' both become the case '\(c)'") }
                cases[c] = value
            }
            model = .openEnum(OpenEnumModel(swiftName: name, doc: doc(schema), location: location, values: values))
        } else {
            let members = try objectMembers(of: schema, at: location, typeName: name, tagKey: nil, tag: nil)
            model = .structure(StructModel(swiftName: name, doc: doc(schema), location: location, tag: nil, catalogSwiftName: nil, members: members))
        }
        types[location] = model
        typeOrder.append(location)
        usedBy[location, default: []].insert(currentCatalog)
        return name
    }

    // MARK: - Defaults

    /// A `default` as Swift source for the member's type.
    func literal(_ value: JSONValue, for type: FieldType, at location: SchemaLocation) throws -> String {
        switch (type, value) {
        case (.string, .string(let s)): return Naming.stringLiteral(s)
        case (.integer(_, let min, let max), .number(let text)):
            guard let n = Int64(text) else { throw location.error("the default \(text) is not an integer") }
            if let min, n < Int64(min)! { throw location.error("the default \(text) is below the minimum \(min)") }
            if let max, n > Int64(max)! { throw location.error("the default \(text) is above the maximum \(max)") }
            return text
        case (.number, .number(let text)): return text.contains(".") || text.contains("e") || text.contains("E") ? text : text + ".0"
        case (.boolean, .bool(let b)): return b ? "true" : "false"
        case (.openEnum(let name), .string(let s)): return "\(name)(rawValue: \(Naming.stringLiteral(s)))"
        case (.array(let element), .array(let elements)):
            return "[" + (try elements.enumerated().map { try literal($1, for: element, at: location.appending(String($0))) }).joined(separator: ", ") + "]"
        case (.timestamp, _), (.object, _), (.custom, _):
            throw location.error("unsupported 'default' for a member of type \(type.swiftType)")
        default:
            throw location.error("the default \(value.kindName) does not match the member's type \(type.swiftType)")
        }
    }
}
