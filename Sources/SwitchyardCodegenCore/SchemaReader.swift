import Foundation

/// Reads catalog schemas (JSON Schema 2020-12, draft-07, OpenAPI 3.0's `nullable`) into ``CatalogModel``s
/// and the types they use.
///
/// Read as teams write them: objects (`properties`, `required`, `additionalProperties` of any kind,
/// `patternProperties`), `$ref` (relative files and `#/$defs/…` or `#/definitions/…` pointers; siblings
/// refine it; recursion through arrays and maps), `allOf` (merged), `oneOf`/`anyOf` (unions tagged by a
/// member, unions of JSON types, `null` branches), `type` lists, `nullable`, `enum` and `const`, every
/// `format` (an annotation), the validation keywords (`pattern`, lengths, ranges, `multipleOf`, item
/// counts, `uniqueItems`), tuples (`prefixItems`), free-form values (`{}`, `true`), the annotations and any `x-` extension.
/// Every other keyword is an error naming the file, the pointer and the keyword; every error of a run is
/// collected (``errors``), as a compiler reports them all.
public struct SchemaReader {
    /// Reads a file by its path relative to the target root; nil when it does not exist.
    public typealias FileReader = (String) throws -> [UInt8]?

    private let readFile: FileReader
    private var files: [String: JSONValue] = [:]
    /// Generated types, by key (the schema location; for an event or a union variant, with its tag).
    public private(set) var types: [String: TypeModel] = [:]
    /// The order types were first met in (for deterministic output).
    public private(set) var typeOrder: [String] = []
    /// The catalogs (by name) that use each type.
    public private(set) var usedBy: [String: Set<String>] = [:]
    /// The type each type is declared in; a type without one is declared in its catalog's namespace.
    public private(set) var enclosing: [String: String] = [:]
    /// Every error found so far.
    public private(set) var errors: [CodegenError] = []
    /// Each type's qualified Swift name (`PaymentEvent.PaymentFailed.Reason`), once ``finish()`` ran.
    public private(set) var qualifiedNames: [String: String] = [:]
    private var inProgress: [String: Int] = [:]
    private var collectionDepth = 0
    private var currentCatalog = ""
    private var catalogNamespaces: [String: String] = [:]
    /// Each catalog's `validateFormats`, by name: the catalogs sharing a type must agree where it has a
    /// format they would check.
    private var catalogValidatesFormats: [String: Bool] = [:]
    /// Whether the catalog being read checks the formats in ``checkedFormats`` (its configuration's
    /// `validateFormats`); otherwise a format is an annotation.
    public var validatesFormats = false

    /// The formats a catalog with `validateFormats` checks (SwitchyardJSON's `StringFormat`); `date-time`
    /// is always checked, as a `Timestamp`.
    public static let checkedFormats: Set<String> = ["uuid", "date", "time", "duration", "email", "ipv4", "ipv6", "uri", "hostname"]

    public init(readFile: @escaping FileReader) {
        self.readFile = readFile
    }

    /// The namespace of types used by more than one catalog of a configuration.
    public static let sharedNamespace = "SwitchyardDefinitions"

    static let annotations: Set<String> = [
        "title", "description", "examples", "$comment", "$schema", "$id", "$anchor", "deprecated", "readOnly", "writeOnly",
        "contentEncoding", "contentMediaType", "discriminator", "externalDocs", "example", "xml",
    ]
    static let envelopeMembers = ["id", "occurredAt", "schemaVersion"]
    /// Names the generated code uses: a generated type of one of these names would hide it.
    static let reservedTypeNames: Set<String> = [
        "String", "Int", "Int32", "Int64", "UInt32", "UInt64", "Bool", "Double", "Float", "Array", "Dictionary", "Optional", "Set",
        "Character", "Void", "Never", "Error", "Codable", "Decodable", "Encodable", "Sendable", "Hashable", "Equatable", "Decoder",
        "Encoder", "CodingKey", "CaseIterable", "Type", "Protocol", "Self", "Any", "Swift", "Event", "EnvelopeEvent", "EventCatalog",
        "EventType", "EventContent", "Envelope", "EnvelopeCodingKey", "Timestamp", "ExactNumber", "RawJSON", "JSONMap", "JSONKey",
        "JSONValueKind", "Nullable", "InlineString", "OptionalInlineString", "UnknownFields", "OpenEnum", "FieldTable", "JSONCursor",
        "CanonicalWriter", "FastPathBail", "FastCodable", "TopicPolicy", "RecordDecoder", "EventDecoder", "JSONReader", "SchemaRule",
        "SchemaPattern", "DecodingError", "CodingKeys", "Known", "SwitchyardJSON", "Foundation",
    ]

    // MARK: - Errors

    /// Runs `body`, keeping its error for the report and going on: nil when it failed.
    mutating func collect<T>(_ body: (inout SchemaReader) throws -> T) -> T? {
        do {
            return try body(&self)
        } catch let error as CodegenError {
            if !errors.contains(error) { errors.append(error) }
        } catch let many as CodegenErrors {
            for error in many.errors where !errors.contains(error) { errors.append(error) }
        } catch {
            errors.append(CodegenError(file: "", pointer: "#", message: "\(error)"))
        }
        return nil
    }

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
    mutating func schema(at location: SchemaLocation, referencedFrom: SchemaLocation? = nil, ref: String? = nil) throws -> JSONValue {
        var value = try document(location.file, referencedFrom: referencedFrom)
        let tokens = location.pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for raw in tokens {
            let token = String(raw).replacing("~1", with: "/").replacing("~0", with: "~")
            if let next = value[token] {
                value = next
            } else if let elements = value.elements, let index = Int(token), elements.indices.contains(index) {
                value = elements[index]
            } else {
                throw (referencedFrom ?? location).error("$ref '\(ref ?? location.description)' does not resolve: no '\(token)'")
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
            throw from.error("$ref '\(ref)': only JSON pointer fragments (#/…) are supported; use a pointer to the definition")
        }
        if path.isEmpty { return SchemaLocation(file: from.file, pointer: fragment) }
        guard !path.contains("://"), !path.hasPrefix("/") else {
            throw from.error("$ref '\(ref)': only relative file references are supported (schemas are read from the target, not fetched)")
        }
        return SchemaLocation(file: Self.join(directory(of: from.file), path), pointer: fragment)
    }

    func directory(of file: String) -> String {
        guard let slash = file.lastIndex(of: "/") else { return "" }
        return String(file[..<slash])
    }

    /// `a/b` + `../c/d.json` → `a/c/d.json`; an absolute directory stays absolute.
    public static func join(_ directory: String, _ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var parts = directory.split(separator: "/").map(String.init)
        for component in path.split(separator: "/").map(String.init) {
            switch component {
            case ".": continue
            case "..":
                if parts.isEmpty || parts.last == ".." { parts.append("..") } else { parts.removeLast() }
            default: parts.append(component)
            }
        }
        return (directory.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
    }

    // MARK: - Keywords

    func object(_ value: JSONValue, at location: SchemaLocation) throws -> [(key: String, value: JSONValue)] {
        if value == .bool(true) { return [] }
        guard let members = value.members else {
            throw location.error(value == .bool(false) ? "the schema 'false' accepts nothing; remove the member instead" : "a schema must be an object, not \(value.kindName)")
        }
        return members
    }

    /// Every keyword of `members` that is not in `allowed`, an annotation or an `x-` extension: one error each.
    func check(_ members: [(key: String, value: JSONValue)], allowed: Set<String>, at location: SchemaLocation, hint: String = "") throws {
        let unsupported = members.filter { !allowed.contains($0.key) && !Self.annotations.contains($0.key) && !$0.key.hasPrefix("x-") }
        guard !unsupported.isEmpty else { return }
        throw CodegenErrors(unsupported.map { location.error("unsupported keyword '\($0.key)'\(hint)") })
    }

    func string(_ value: JSONValue?, _ keyword: String, at location: SchemaLocation) throws -> String? {
        guard let value else { return nil }
        guard let s = value.string else { throw location.appending(keyword).error("'\(keyword)' must be a string, not \(value.kindName)") }
        return s
    }

    func doc(_ value: JSONValue) -> String? { value["description"]?.string ?? value["title"]?.string }

    // MARK: - Catalogs

    /// Reads one catalog: the catalog schema's `oneOf` names each event by the `const` of its tag. Errors
    /// are collected (``errors``); ``finish()`` reports them.
    public mutating func readCatalog(name: String, schemaFile: String, swiftName: String, policy: CatalogPolicy) throws -> CatalogModel {
        currentCatalog = name
        catalogNamespaces[name] = swiftName
        catalogValidatesFormats[name] = validatesFormats
        let root = SchemaLocation(file: schemaFile, pointer: "#")
        var model = CatalogModel(name: name, swiftName: swiftName, policy: policy, tagKey: "type", doc: nil, location: root, events: [])
        guard let schema = collect({ try $0.document(schemaFile, referencedFrom: nil) }) else { return model }
        model.doc = doc(schema)
        _ = collect { r in
            let members = try r.object(schema, at: root)
            try r.check(members, allowed: ["type", "required", "properties", "oneOf", "anyOf", "additionalProperties", "$defs", "definitions"], at: root)
        }
        guard let branches = (schema["oneOf"] ?? schema["anyOf"])?.elements, !branches.isEmpty else {
            errors.append(root.error("a catalog schema lists its events in 'oneOf'"))
            return model
        }
        var tagKey: String?
        var tags: [String: SchemaLocation] = [:]
        var pending: [(tag: String, location: SchemaLocation, branch: JSONValue)] = []
        var unknownBranch: (at: SchemaLocation, target: SchemaLocation)?
        let list = schema["oneOf"] != nil ? "oneOf" : "anyOf"
        for (index, branch) in branches.enumerated() {
            let at = root.appending(list, String(index))
            _ = collect { r in
                let branchMembers = try r.object(branch, at: at)
                try r.check(branchMembers, allowed: ["properties", "$ref", "x-swift-type", "x-swift-name", "required", "type"], at: at)
                if branch["properties"] == nil, let ref = branch["$ref"]?.string, branchMembers.count == 1 {
                    unknownBranch = (at, try r.resolve(ref, from: at.appending("$ref")))
                    return
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
        }
        let key = tagKey ?? "type"
        model.tagKey = key
        if let unknownBranch {
            _ = collect { try $0.checkUnknownBranch(unknownBranch.target, from: unknownBranch.at, tagKey: key, tags: pending.map(\.tag), policy: policy) }
        }
        var seenCases: [String: (tag: String, at: SchemaLocation)] = [:]
        for (tag, at, branch) in pending {
            _ = collect { r in
                let finalCase = try r.string(branch["x-swift-name"], "x-swift-name", at: at) ?? Self.caseName(for: tag, among: pending.map(\.tag))
                guard !finalCase.isEmpty, finalCase != "unknown" else {
                    throw at.error("the tag '\(tag)' would be the enum case '\(finalCase)', which is taken; give the entry an 'x-swift-name'")
                }
                if let other = seenCases[finalCase] {
                    throw at.error("tags '\(other.tag)' (\(other.at)) and '\(tag)' both become the case '\(finalCase)'; give one an 'x-swift-name'")
                }
                seenCases[finalCase] = (tag, at)
                if let handWritten = try r.string(branch["x-swift-type"], "x-swift-type", at: at) {
                    model.events.append(EventEntry(tag: tag, caseName: Naming.escaped(finalCase), swiftType: handWritten, isHandWritten: true))
                    return
                }
                guard let ref = try r.string(branch["$ref"], "$ref", at: at) else {
                    throw at.error("an event entry needs a '$ref' to the event's schema (or 'x-swift-type' for a hand-written event)")
                }
                let target = try r.resolve(ref, from: at.appending("$ref"))
                let typeKey = try r.eventStruct(at: target, tag: tag, tagKey: key, referencedFrom: at.appending("$ref"), ref: ref)
                model.events.append(EventEntry(tag: tag, caseName: Naming.escaped(finalCase), swiftType: typeKey, isHandWritten: false))
            }
        }
        return model
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
        let firsts = Set(tags.map { Naming.words($0).first?.lowercased() ?? "" })
        if firsts.count == 1, words.count > 1, tags.allSatisfy({ Naming.words($0).count > 1 }) {
            return Naming.memberName(Naming.lowerCamel(Array(words.dropFirst())))
        }
        return Naming.memberName(Naming.lowerCamel(words))
    }

    // MARK: - Types

    /// Registers a type under `key`, declared in `parent` (nil: the namespace).
    mutating func register(_ key: String, _ model: TypeModel, parent: String?) {
        if types[key] == nil { typeOrder.append(key) }
        types[key] = model
        if let parent { enclosing[key] = parent }
        usedBy[key, default: []].insert(currentCatalog)
    }

    /// The event struct for the schema at `location` with tag `tag`; its key.
    mutating func eventStruct(at location: SchemaLocation, tag: String, tagKey: String, referencedFrom: SchemaLocation, ref: String) throws -> String {
        let key = "\(location)|\(tagKey)=\(tag)"
        if types[key] != nil {
            usedBy[key, default: []].insert(currentCatalog)
            return key
        }
        let schema = try self.schema(at: location, referencedFrom: referencedFrom, ref: ref)
        let name = try string(schema["x-swift-name"], "x-swift-name", at: location) ?? Naming.upperCamel(Naming.words(tag))
        guard Naming.isIdentifier(name) else { throw location.error("the tag '\(tag)' gives no Swift type name; set 'x-swift-name'") }
        // Registered first, so that a member referring back to the event finds it.
        register(key, .structure(StructModel(swiftName: name, doc: doc(schema), location: location, tag: tag, tagKey: tagKey, isEvent: true, hasEnvelope: false, members: [])), parent: nil)
        inProgress[key] = collectionDepth
        defer { inProgress[key] = nil }
        var members = try objectMembers(of: schema, at: location, typeKey: key, tagKey: tagKey, tag: tag)
        // The shipped catalogs' envelope: id, occurredAt, schemaVersion first, as the runtime's `Envelope`
        // reads and writes them. Any other shape is a plain member.
        let envelope = members.prefix(3)
        let hasEnvelope =
            envelope.count == 3 && envelope.map(\.jsonName) == Self.envelopeMembers
            && envelope[0].type == .string(identifier: true) && envelope[0].presence == .required && envelope[0].checks.isEmpty
            && envelope[1].type == .timestamp && envelope[1].presence == .required
            && envelope[2].type == .integer(swiftType: "Int", minimum: "1", maximum: nil) && envelope[2].presence == .defaulted("1")
        if hasEnvelope { members.removeFirst(3) }
        register(key, .structure(StructModel(swiftName: name, doc: doc(schema), location: location, tag: tag, tagKey: tagKey, isEvent: true, hasEnvelope: hasEnvelope, members: members)), parent: nil)
        return key
    }

    /// The members of an object schema: its bases' first (`$ref` beside `properties`, and each `allOf`
    /// branch, as 2020-12 applies them all), then its own.
    mutating func objectMembers(of schema: JSONValue, at location: SchemaLocation, typeKey: String, tagKey: String?, tag: String?) throws -> [Member] {
        let keywords = try object(schema, at: location)
        try check(
            keywords,
            allowed: ["type", "properties", "required", "additionalProperties", "patternProperties", "$ref", "allOf", "x-swift-name", "$defs", "definitions", "default", "nullable", "unevaluatedProperties"],
            at: location)
        if let type = schema["type"], type != .string("object"), type != .array([.string("object"), .string("null")]), type != .array([.string("null"), .string("object")]) {
            throw location.appending("type").error("an object schema's 'type' must be \"object\", not \(type)")
        }
        var members: [Member] = []
        var required: Set<String> = []
        var bases: [(ref: String?, schema: JSONValue, at: SchemaLocation)] = []
        if let ref = try string(schema["$ref"], "$ref", at: location) {
            let base = try resolve(ref, from: location.appending("$ref"))
            bases.append((ref, try self.schema(at: base, referencedFrom: location.appending("$ref"), ref: ref), base))
        }
        for (index, branch) in (schema["allOf"]?.elements ?? []).enumerated() {
            let at = location.appending("allOf", String(index))
            if let ref = branch["$ref"]?.string, (branch.members?.count ?? 0) == 1 {
                let base = try resolve(ref, from: at.appending("$ref"))
                bases.append((ref, try self.schema(at: base, referencedFrom: at.appending("$ref"), ref: ref), base))
            } else {
                bases.append((nil, branch, at))
            }
        }
        var errors: [CodegenError] = []
        for base in bases {
            let baseMembers: [Member]? = collect { r in try r.objectMembers(of: base.schema, at: base.at, typeKey: typeKey, tagKey: tagKey, tag: tag) }
            for member in baseMembers ?? [] {
                if let k = members.firstIndex(where: { $0.jsonName == member.jsonName }) {
                    // The same member in two bases: the later one refines it (its checks add up).
                    members[k].checks += member.checks.filter { !members[k].checks.contains($0) }
                    if member.presence == .required { members[k].presence = .required }
                } else {
                    members.append(member)
                }
            }
            required.formUnion((baseMembers ?? []).filter { $0.presence == .required || $0.presence == .requiredNullable }.map(\.jsonName))
        }
        if let list = schema["required"] {
            guard let names = list.elements?.compactMap(\.string), names.count == list.elements?.count else {
                throw location.appending("required").error("'required' must be an array of strings")
            }
            required.formUnion(names)
        }
        let properties = schema["properties"]?.members ?? []
        if let p = schema["properties"], p.members == nil { throw location.appending("properties").error("'properties' must be an object") }
        for (jsonName, sub) in properties {
            let at = location.appending("properties", jsonName)
            if let tagKey, jsonName == tagKey {
                _ = collect { try $0.checkTag(sub, at: at, tag: tag) }
                continue
            }
            if let k = members.firstIndex(where: { $0.jsonName == jsonName }) {
                // A member the base declared, refined here: its own schema's checks add up.
                if let refined = collect({ try $0.member(jsonName, sub, at: at, parentKey: typeKey, required: required.contains(jsonName)) }) {
                    if refined.type == members[k].type {
                        members[k].checks += refined.checks.filter { !members[k].checks.contains($0) }
                        if refined.doc != nil { members[k].doc = refined.doc }
                    } else {
                        errors.append(at.error("the member '\(jsonName)' is declared by a base (\(members[k].location)) with another type"))
                    }
                }
                continue
            }
            if let member = collect({ try $0.member(jsonName, sub, at: at, parentKey: typeKey, required: required.contains(jsonName)) }) {
                members.append(member)
            }
        }
        // Members a base declared optional may be made required by this schema.
        for k in members.indices where required.contains(members[k].jsonName) {
            switch members[k].presence {
            case .optional: members[k].presence = .required
            case .defaulted:
                errors.append(location.appending("required").error("'\(members[k].jsonName)' is required here but has a default in its declaration (\(members[k].location))"))
            case .required, .requiredNullable: break
            }
        }
        for name in required where name != tagKey && !members.contains(where: { $0.jsonName == name }) && !properties.contains(where: { $0.key == name }) {
            if bases.isEmpty || !bases.contains(where: { $0.schema["properties"]?[name] != nil }) {
                errors.append(location.appending("required").error("'\(name)' is required but not declared in 'properties'"))
            }
        }
        // Two JSON names that become one Swift name.
        var swiftNames: [String: Member] = [:]
        for member in members {
            if let other = swiftNames[member.swiftName] {
                errors.append(member.location.error("the members '\(other.jsonName)' (\(other.location)) and '\(member.jsonName)' both become '\(member.swiftName)' in Swift; set 'x-swift-name' on one"))
            }
            swiftNames[member.swiftName] = member
        }
        var accessors: [String: Member] = [:]
        for member in members {
            guard let accessor = member.formatAccessor else { continue }
            if let other = swiftNames[accessor.name] ?? accessors[accessor.name] {
                errors.append(member.location.error("the '\(member.format ?? "")' accessor of '\(member.jsonName)' is named '\(accessor.name)', which '\(other.jsonName)' (\(other.location)) also takes; set 'x-swift-name' on one"))
            }
            accessors[accessor.name] = member
        }
        if !errors.isEmpty { throw CodegenErrors(errors) }
        return members
    }

    /// A tag member in an event's schema: a string, the event's `const`, or an `enum` listing it. String
    /// validations (a shared base's `minLength: 1`) are allowed when the event's tag satisfies them.
    func checkTag(_ schema: JSONValue, at location: SchemaLocation, tag: String?) throws {
        let keywords = try object(schema, at: location)
        try check(keywords, allowed: ["type", "const", "enum", "minLength", "maxLength", "pattern"], at: location)
        if let type = schema["type"], type != .string("string") { throw location.error("the tag must be a string") }
        if let tag {
            let length = tag.unicodeScalars.count
            if let min = Self.count(schema["minLength"]), length < min {
                throw location.appending("minLength").error("the tag '\(tag)' is shorter than its 'minLength' \(min)")
            }
            if let max = Self.count(schema["maxLength"]), length > max {
                throw location.appending("maxLength").error("the tag '\(tag)' is longer than its 'maxLength' \(max)")
            }
            if let pattern = schema["pattern"]?.string {
                let expression = try? NSRegularExpression(pattern: pattern)
                let range = NSRange(tag.startIndex..., in: tag)
                if expression?.firstMatch(in: tag, range: range) == nil {
                    throw location.appending("pattern").error("the tag '\(tag)' does not match its 'pattern'")
                }
            }
        }
        if let const = schema["const"], let tag, const != .string(tag) {
            throw location.appending("const").error("the event's tag const \(Self.render(const)) differs from the catalog's '\(tag)'")
        }
        if let values = schema["enum"]?.elements, let tag, !values.contains(.string(tag)) {
            throw location.appending("enum").error("the event's tag enum does not list the catalog's '\(tag)'")
        }
    }

    /// A length keyword's value, when it is a non-negative integer.
    static func count(_ value: JSONValue?) -> Int? {
        guard case .number(let text)? = value else { return nil }
        return Int(text)
    }

    /// A JSON value as a message shows it (`"x"`, `3`, `[1, 2]`).
    static func render(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .number(let n): n
        case .string(let s): "\"\(s)\""
        case .array(let a): "[" + a.map(render).joined(separator: ", ") + "]"
        case .object(let o): "{" + o.map { "\"\($0.key)\": \(render($0.value))" }.joined(separator: ", ") + "}"
        }
    }

    mutating func member(_ jsonName: String, _ schema: JSONValue, at location: SchemaLocation, parentKey: String, required: Bool) throws -> Member {
        guard !jsonName.isEmpty else { throw location.error("a member name must not be empty") }
        var swiftName = Naming.memberName(jsonName)
        if let explicit = try memberNameOverride(schema, at: location) { swiftName = explicit }
        guard Naming.isIdentifier(swiftName) else { throw location.error("'\(swiftName)' is not a Swift identifier; set 'x-swift-name'") }
        // Names the generated code itself declares on every struct.
        if swiftName == "unknownFields" { swiftName = "unknownFields_" }
        let hint = Naming.upperCamel(Naming.words(jsonName))
        var resolved = try field(schema, at: location, nameHint: hint.isEmpty ? "Member" : hint, parentKey: parentKey)
        let presence: Presence
        var defaultJSON: String?
        if let defaultValue = resolved.defaultValue, defaultValue != .null {
            guard !required else {
                if jsonName == "id" { throw location.error("the identity 'id' is never defaulted (PRODUCT.md): remove its 'default'") }
                throw location.error("a required member cannot have a 'default' (a default applies when it is absent); remove it from 'required' or drop the default")
            }
            presence = .defaulted(try literal(defaultValue, for: resolved.type, at: location.appending("default")))
            defaultJSON = Self.compact(defaultValue)
        } else if required {
            presence = resolved.nullable ? .requiredNullable : .required
        } else {
            presence = .optional
        }
        // `minLength: 1` on a required string is the fast path's identifier; anywhere else it is a check.
        if case .string(identifier: true) = resolved.type, presence != .required {
            resolved.type = .string(identifier: false)
            resolved.checks.insert(.minLength(1), at: 0)
        }
        return Member(
            jsonName: jsonName, swiftName: swiftName, type: resolved.type, presence: presence, doc: doc(schema), location: location, checks: resolved.checks,
            format: resolved.format, defaultJSON: defaultJSON)
    }

    /// `x-swift-name` on a member schema names the member, unless the schema defines a type (an inline object
    /// or enum), where it names the type.
    func memberNameOverride(_ schema: JSONValue, at location: SchemaLocation) throws -> String? {
        guard let explicit = try string(schema["x-swift-name"], "x-swift-name", at: location) else { return nil }
        let definesType = schema["$ref"] == nil && (isObjectSchema(schema) || Self.openEnumValues(schema) != nil || schema["oneOf"] != nil || schema["anyOf"] != nil)
        return definesType ? nil : explicit
    }

    // MARK: - Field types

    /// What a member or element schema resolves to.
    struct Resolved {
        var type: FieldType
        var defaultValue: JSONValue?
        var checks: [Check] = []
        var nullable = false
        var format: String?
    }

    /// The keywords of a schema with its `$ref` chain merged (the referring schema's keywords win), for
    /// schemas that define no type of their own.
    mutating func flattened(_ schema: JSONValue, at location: SchemaLocation) throws -> (keywords: [(key: String, value: JSONValue)], origin: SchemaLocation) {
        var keywords = try object(schema, at: location)
        guard let ref = try string(schema["$ref"], "$ref", at: location) else { return (keywords, location) }
        let target = try resolve(ref, from: location.appending("$ref"))
        guard inProgress["flatten:\(target)"] == nil else { throw location.appending("$ref").error("recursive $ref '\(ref)' between schemas that define no type") }
        inProgress["flatten:\(target)"] = 0
        defer { inProgress["flatten:\(target)"] = nil }
        let targetSchema = try self.schema(at: target, referencedFrom: location.appending("$ref"), ref: ref)
        let (base, _) = try flattened(targetSchema, at: target)
        keywords.removeAll { $0.key == "$ref" }
        var merged = base.filter { b in !keywords.contains { $0.key == b.key } }
        merged.append(contentsOf: keywords)
        return (merged, target)
    }

    /// Whether a schema describes an object with members (a struct).
    func isObjectSchema(_ schema: JSONValue) -> Bool {
        schema["properties"] != nil || (schema["type"] == .string("object") && schema["allOf"] != nil)
    }

    /// Whether a schema (not a reference) defines a named type: an object with members, an open enum or a union.
    func definesType(_ schema: JSONValue) -> Bool {
        isObjectSchema(schema) || Self.openEnumValues(schema) != nil || unionBranches(schema) != nil
    }

    /// The non-null branches of a `oneOf`/`anyOf` and whether one branch is `null`; nil without either keyword.
    func unionBranches(_ schema: JSONValue) -> (keyword: String, branches: [(Int, JSONValue)], nullable: Bool)? {
        guard let keyword = schema["oneOf"] != nil ? "oneOf" : schema["anyOf"] != nil ? "anyOf" : nil,
            let list = schema[keyword]?.elements
        else { return nil }
        let isNull: (JSONValue) -> Bool = { $0["type"] == .string("null") && ($0.members?.count ?? 0) == 1 }
        let rest = list.enumerated().filter { !isNull($0.element) }.map { ($0.offset, $0.element) }
        return (keyword, rest, rest.count < list.count)
    }

    /// The type of a member or array element, its `default`, checks, nullability and format.
    mutating func field(_ schema: JSONValue, at location: SchemaLocation, nameHint: String, parentKey: String) throws -> Resolved {
        let keywords = try object(schema, at: location)
        if let custom = try string(schema["x-swift-type"], "x-swift-type", at: location) {
            guard Naming.isTypeName(custom) else { throw location.appending("x-swift-type").error("'\(custom)' is not a Swift type name") }
            return Resolved(type: .custom(custom), defaultValue: nil)
        }
        if keywords.isEmpty || keywords.allSatisfy({ Self.annotations.contains($0.key) || $0.key.hasPrefix("x-") || $0.key == "default" }) {
            // `{}`, `true`: any JSON value, kept as written.
            return Resolved(type: .raw, defaultValue: schema["default"], nullable: true)
        }
        var nullable = schema["nullable"] == .bool(true)
        // `oneOf`/`anyOf` with a `null` branch: nullable; one other branch: that branch.
        if let union = unionBranches(schema), union.nullable {
            nullable = true
            if union.branches.count == 1 {
                let (index, branch) = union.branches[0]
                var other = keywords.filter { $0.key != union.keyword && $0.key != "nullable" }
                let branchAt = location.appending(union.keyword, String(index))
                var resolved = try field(branch, at: branchAt, nameHint: nameHint, parentKey: parentKey)
                other.removeAll { Self.annotations.contains($0.key) || $0.key.hasPrefix("x-") }
                if let d = schema["default"] { resolved.defaultValue = d }
                other.removeAll { $0.key == "default" }
                if !other.isEmpty { try check(other, allowed: [], at: location, hint: " beside a nullable oneOf/anyOf") }
                resolved.nullable = true
                return resolved
            }
        }
        // A reference to a definition that is a type: one type per definition; siblings are annotations.
        if let ref = try string(schema["$ref"], "$ref", at: location) {
            let target = try resolve(ref, from: location.appending("$ref"))
            let targetSchema = try self.schema(at: target, referencedFrom: location.appending("$ref"), ref: ref)
            if definesType(targetSchema) {
                try check(keywords, allowed: ["$ref", "x-swift-name", "nullable", "default"], at: location, hint: " beside a $ref to a type (only annotations refine it)")
                let key = try namedType(at: target, schema: targetSchema, referencedFrom: location.appending("$ref"), ref: ref, nameHint: Self.definitionName(target), parentKey: nil)
                var resolved = Resolved(type: try typeOf(key), defaultValue: schema["default"])
                resolved.nullable = nullable || Self.isNullable(targetSchema)
                return resolved
            }
        }
        let (flatKeywords, origin) = try flattened(schema, at: location)
        let flat = JSONValue.object(flatKeywords)
        if flat["nullable"] == .bool(true) { nullable = true }
        let defaultValue = flat["default"]
        // `type: [T, "null"]`; `type: [T1, T2]` is a union by JSON type.
        var typeName: String?
        switch flat["type"] {
        case .string(let t)?: typeName = t
        case .array(let list)?:
            let names = list.compactMap(\.string)
            guard names.count == list.count, !names.isEmpty else { throw location.appending("type").error("'type' must be a string or a list of strings") }
            if names.contains("null") { nullable = true }
            let rest = names.filter { $0 != "null" }
            if rest.count == 1 {
                typeName = rest[0]
            } else if rest.count > 1 {
                let key = try typeUnion(rest, schema: flat, at: location, nameHint: nameHint, parentKey: parentKey)
                return Resolved(type: try typeOf(key), defaultValue: defaultValue, nullable: nullable)
            }
        case nil: break
        case let other?: throw location.appending("type").error("'type' must be a string or a list of strings, not \(other.kindName)")
        }
        if Self.openEnumValues(flat) != nil {
            // `null` is a value only when the `enum` lists it (its `type` list allowing it is not enough).
            if let values = flat["enum"]?.elements { nullable = values.contains(.null) }
            try check(flatKeywords, allowed: ["anyOf", "enum", "type", "default", "x-swift-name", "nullable", "format"], at: location)
            let key = try namedType(at: origin, schema: flat, referencedFrom: location, ref: nil, nameHint: nameHint, parentKey: origin == location ? parentKey : nil)
            return Resolved(type: try typeOf(key), defaultValue: defaultValue, nullable: nullable)
        }
        if let union = unionBranches(flat), !union.branches.isEmpty {
            let key = try namedType(at: location, schema: flat, referencedFrom: location, ref: nil, nameHint: nameHint, parentKey: parentKey)
            return Resolved(type: try typeOf(key), defaultValue: defaultValue, nullable: nullable)
        }
        if isObjectSchema(flat) || (typeName == "object" && flat["allOf"] != nil) {
            let key = try namedType(at: location, schema: schema, referencedFrom: location, ref: nil, nameHint: nameHint, parentKey: parentKey)
            return Resolved(type: try typeOf(key), defaultValue: defaultValue, nullable: nullable)
        }
        if flat["allOf"] != nil {
            // `allOf` of constraints on a value that is not an object: every branch applies.
            var merged = flatKeywords.filter { $0.key != "allOf" }
            for (index, branch) in (flat["allOf"]?.elements ?? []).enumerated() {
                let (branchKeywords, _) = try flattened(branch, at: location.appending("allOf", String(index)))
                for keyword in branchKeywords where !merged.contains(where: { $0.key == keyword.key }) { merged.append(keyword) }
            }
            return try field(.object(merged), at: location, nameHint: nameHint, parentKey: parentKey)
        }
        if typeName == nil {
            // No `type`: inferred from `const`/`enum`, else any value.
            if let const = flat["const"] { typeName = Self.jsonType(of: const) } else if let values = flat["enum"]?.elements, let first = values.first {
                let kinds = Set(values.map(Self.jsonType(of:)))
                typeName = kinds.count == 1 ? Self.jsonType(of: first) : nil
            }
            if typeName == nil {
                try check(flatKeywords, allowed: ["default", "nullable", "enum", "const"], at: location, hint: " on a member without 'type'")
                var resolved = Resolved(type: .raw, defaultValue: defaultValue, nullable: true)
                if let values = flat["enum"]?.elements { resolved.checks.append(.oneOf(values)) }
                if let const = flat["const"] { resolved.checks.append(.oneOf([const])) }
                return resolved
            }
        }
        var resolved = try scalar(typeName!, flat, keywords: flatKeywords, at: location, origin: origin, nameHint: nameHint, parentKey: parentKey)
        resolved.defaultValue = defaultValue
        resolved.nullable = resolved.nullable || nullable
        return resolved
    }

    /// Whether a definition admits `null` itself: OpenAPI's `nullable`, `null` in its `type` list, or
    /// among its untyped `enum` values.
    static func isNullable(_ schema: JSONValue) -> Bool {
        schema["nullable"] == .bool(true) || schema["type"]?.elements?.contains(.string("null")) == true
            || (schema["type"] == nil && schema["enum"]?.elements?.contains(.null) == true)
    }

    static func jsonType(of value: JSONValue) -> String? {
        switch value {
        case .string: "string"
        case .number(let text): text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) ? "number" : "integer"
        case .bool: "boolean"
        case .array: "array"
        case .object: "object"
        case .null: nil
        }
    }

    /// A schema of one JSON type.
    mutating func scalar(_ type: String, _ flat: JSONValue, keywords: [(key: String, value: JSONValue)], at location: SchemaLocation, origin: SchemaLocation, nameHint: String, parentKey: String) throws -> Resolved {
        let common: Set<String> = ["type", "default", "x-swift-name", "nullable", "const", "enum", "$ref"]
        var checks: [Check] = []
        func count(_ keyword: String) throws -> Int? {
            guard let value = flat[keyword] else { return nil }
            guard case .number(let text) = value, let n = Int(text), n >= 0 else {
                throw location.appending(keyword).error("'\(keyword)' must be a non-negative integer")
            }
            return n
        }
        func number(_ keyword: String) throws -> String? {
            guard let value = flat[keyword] else { return nil }
            guard case .number(let text) = value else { throw location.appending(keyword).error("'\(keyword)' must be a number") }
            return text
        }
        func addValues() {
            if let values = flat["enum"]?.elements { checks.append(.oneOf(values)) }
            if let const = flat["const"] { checks.append(.oneOf([const])) }
        }
        func addRange() throws {
            if let n = try number("minimum") { checks.append(.minimum(n, exclusive: false)) }
            if let n = try number("exclusiveMinimum") { checks.append(.minimum(n, exclusive: true)) }
            if let n = try number("maximum") { checks.append(.maximum(n, exclusive: false)) }
            if let n = try number("exclusiveMaximum") { checks.append(.maximum(n, exclusive: true)) }
            if let n = try number("multipleOf") {
                guard !n.hasPrefix("-"), n.contains(where: { $0 != "0" && $0 != "." }) else { throw location.appending("multipleOf").error("'multipleOf' must be greater than 0") }
                checks.append(.multipleOf(n))
            }
        }
        switch type {
        case "string":
            try check(keywords, allowed: common.union(["format", "minLength", "maxLength", "pattern"]), at: location)
            let format = try string(flat["format"], "format", at: location)
            if let pattern = try string(flat["pattern"], "pattern", at: location) {
                do {
                    _ = try NSRegularExpression(pattern: pattern)
                } catch {
                    throw location.appending("pattern").error("the pattern does not compile as a regular expression")
                }
                if format != "date-time" { checks.append(.pattern(pattern)) }
            }
            if format == "date-time" {
                if let d = flat["default"] { throw location.appending("default").error("a date-time member cannot have a default (\(Self.render(d)))") }
                return Resolved(type: .timestamp, defaultValue: nil, checks: checks, format: format)
            }
            let minLength = try count("minLength")
            let maxLength = try count("maxLength")
            var identifier = false
            if minLength == 1 { identifier = true } else if let minLength, minLength > 0 { checks.append(.minLength(minLength)) }
            if let maxLength { checks.append(.maxLength(maxLength)) }
            if let values = flat["enum"]?.elements { checks.append(.oneOf(values)) }
            if let const = flat["const"] { checks.append(.oneOf([const])) }
            if validatesFormats, let format, Self.checkedFormats.contains(format) { checks.append(.format(format)) }
            return Resolved(type: .string(identifier: identifier), defaultValue: nil, checks: checks, format: format)
        case "integer":
            try check(keywords, allowed: common.union(["format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]), at: location)
            var swiftType = "Int"
            switch try string(flat["format"], "format", at: location) {
            case "int64"?: swiftType = "Int64"
            case "int32"?: swiftType = "Int32"
            case "uint64"?, "uint"?: swiftType = "UInt64"
            case "uint32"?: swiftType = "UInt32"
            default: break  // an annotation
            }
            // Whole-number minimum and maximum inside the type are the fast path's range; the rest are checks.
            var minimum: String?
            var maximum: String?
            if let n = try number("minimum"), Int64(n) != nil { minimum = n } else if let n = try number("minimum") { checks.append(.minimum(n, exclusive: false)) }
            if let n = try number("maximum"), Int64(n) != nil { maximum = n } else if let n = try number("maximum") { checks.append(.maximum(n, exclusive: false)) }
            if let n = try number("exclusiveMinimum") { checks.append(.minimum(n, exclusive: true)) }
            if let n = try number("exclusiveMaximum") { checks.append(.maximum(n, exclusive: true)) }
            if let n = try number("multipleOf") {
                guard Int64(n).map({ $0 > 0 }) == true else { throw location.appending("multipleOf").error("'multipleOf' on an integer must be a positive integer") }
                checks.append(.multipleOf(n))
            }
            addValues()
            let (low, high) = Self.bounds(swiftType)
            if let m = minimum, let v = Int64(m), v <= low { minimum = nil }
            if let m = maximum, let v = Int64(m), high.map({ v >= $0 }) ?? false { maximum = nil }
            if swiftType == "UInt64" || swiftType == "UInt32", minimum == "0" { minimum = nil }
            return Resolved(type: .integer(swiftType: swiftType, minimum: minimum, maximum: maximum), defaultValue: nil, checks: checks)
        case "number":
            try check(keywords, allowed: common.union(["format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]), at: location)
            try addRange()
            addValues()
            return Resolved(type: .number, defaultValue: nil, checks: checks)
        case "boolean":
            try check(keywords, allowed: common, at: location)
            addValues()
            return Resolved(type: .boolean, defaultValue: nil, checks: checks)
        case "array":
            try check(keywords, allowed: common.union(["items", "minItems", "maxItems", "uniqueItems", "prefixItems", "contains"]), at: location)
            if flat["contains"] != nil {
                throw location.error("unsupported keyword 'contains': a check on some items is not generated; use 'items' with one schema")
            }
            if flat["prefixItems"] != nil {
                // A definition's tuple is named after it and declared in the namespace, as a definition's object is.
                let definition = origin != location
                let key = try tupleType(
                    flat, keywords: keywords, at: location, origin: origin, nameHint: definition ? Self.definitionName(origin) : nameHint,
                    parentKey: definition ? nil : parentKey)
                return Resolved(type: try typeOf(key), defaultValue: nil)
            }
            let itemsAt = origin == location ? location.appending("items") : origin.appending("items")
            var element: FieldType = .raw
            if let items = flat["items"] {
                collectionDepth += 1
                defer { collectionDepth -= 1 }
                element = try elementType(field(items, at: itemsAt, nameHint: nameHint + "Element", parentKey: parentKey), at: itemsAt, what: "array items")
            }
            if let n = try count("minItems"), n > 0 { checks.append(.minItems(n)) }
            if let n = try count("maxItems") { checks.append(.maxItems(n)) }
            if flat["uniqueItems"] == .bool(true) { checks.append(.uniqueItems) }
            return Resolved(type: .array(element), defaultValue: nil, checks: checks)
        case "object":
            try check(keywords, allowed: common.union(["additionalProperties", "patternProperties", "minProperties", "maxProperties"]), at: location)
            if let n = try count("minProperties"), n > 0 { checks.append(.minProperties(n)) }
            if let n = try count("maxProperties") { checks.append(.maxProperties(n)) }
            // An object without `properties`: a map of its values' schema, or of any values.
            var valueSchema: (JSONValue, SchemaLocation)?
            if let additional = flat["additionalProperties"], additional != .bool(true), additional != .bool(false) {
                valueSchema = (additional, location.appending("additionalProperties"))
            }
            if let patterns = flat["patternProperties"]?.members {
                guard patterns.count == 1, valueSchema == nil else {
                    throw location.appending("patternProperties").error("unsupported: several value schemas in one map (patternProperties beside additionalProperties or more than one pattern)")
                }
                valueSchema = (patterns[0].value, location.appending("patternProperties", patterns[0].key))
            }
            guard let (value, valueAt) = valueSchema else { return Resolved(type: .map(.raw), defaultValue: nil, checks: checks) }
            collectionDepth += 1
            defer { collectionDepth -= 1 }
            let resolved = try field(value, at: valueAt, nameHint: nameHint + "Value", parentKey: parentKey)
            if !resolved.checks.isEmpty { throw valueAt.error("unsupported validation keywords on map values") }
            if resolved.nullable && resolved.type != .raw { throw valueAt.error("unsupported: map values that may be null") }
            return Resolved(type: .map(resolved.type), defaultValue: nil, checks: checks)
        case "null":
            throw location.appending("type").error("a member whose only type is \"null\" carries nothing; remove it")
        default:
            throw location.appending("type").error("unsupported type '\(type)'")
        }
    }

    /// The type of an array's items or a tuple's position: no default, no checks, not nullable (`what`
    /// names them in errors).
    func elementType(_ resolved: Resolved, at itemsAt: SchemaLocation, what: String) throws -> FieldType {
        if resolved.defaultValue != nil { throw itemsAt.appending("default").error("unsupported 'default' on \(what)") }
        if !resolved.checks.isEmpty || resolved.type == .string(identifier: true) {
            throw itemsAt.error("unsupported validation keywords on \(what); validate the whole array (minItems, maxItems, uniqueItems) or wrap the item in an object")
        }
        if case .integer(_, let min, let max) = resolved.type, min != nil || max != nil {
            throw itemsAt.error("unsupported 'minimum'/'maximum' on \(what)")
        }
        if resolved.nullable && resolved.type != .raw {
            throw itemsAt.error("unsupported: \(what) that may be null")
        }
        return resolved.type
    }

    /// A tuple (`prefixItems`): a struct whose members are the positions, named by each item's `title`
    /// (else `_0`, `_1`…). Every position must be present (`minItems` equal to their count); items after
    /// them are kept (`items` absent or `true`) or refused (`items: false`).
    mutating func tupleType(_ flat: JSONValue, keywords: [(key: String, value: JSONValue)], at location: SchemaLocation, origin: SchemaLocation, nameHint: String, parentKey: String?) throws -> String {
        let key = origin.description
        if types[key] != nil {
            usedBy[key, default: []].insert(currentCatalog)
            return key
        }
        let prefixAt = origin.appending("prefixItems")
        guard let items = flat["prefixItems"]?.elements, !items.isEmpty else { throw prefixAt.error("'prefixItems' must be a non-empty array of schemas") }
        try check(keywords, allowed: ["type", "prefixItems", "items", "minItems", "x-swift-name", "nullable", "$ref"], at: location, hint: " beside 'prefixItems'")
        guard case .number(let text)? = flat["minItems"], Int(text) == items.count else {
            throw location.error("a tuple's positions must all be present: give it \"minItems\": \(items.count) (a shorter array is valid JSON Schema, and a struct has every member)")
        }
        let shape: TupleShape
        switch flat["items"] {
        case nil, .bool(true)?: shape = .keepsExtraItems
        case .bool(false)?: shape = .refusesExtraItems
        case _?:
            throw origin.appending("items").error("unsupported: a schema for the items after 'prefixItems'; use \"items\": false, or leave 'items' out to keep them as written")
        }
        let named = try string(flat["x-swift-name"], "x-swift-name", at: location) ?? flat["title"]?.string.map { Naming.upperCamel(Naming.words($0)) } ?? nameHint
        let name = named.isEmpty ? nameHint : named
        guard Naming.isIdentifier(name) else { throw location.error("'\(name)' is not a Swift type name; set 'x-swift-name'") }
        register(key, .structure(StructModel(swiftName: name, doc: doc(flat), location: origin, tag: nil, tagKey: nil, isEvent: false, hasEnvelope: false, members: [], tuple: shape)), parent: parentKey)
        var members: [Member] = []
        var names: [String: Int] = ["extraItems": -1]
        for (index, item) in items.enumerated() {
            let itemAt = prefixAt.appending(String(index))
            let title = item["title"]?.string.map { Naming.memberName(Naming.lowerCamel(Naming.words($0))) }.flatMap { $0.isEmpty ? nil : $0 }
            let swiftName = try string(item["x-swift-name"], "x-swift-name", at: itemAt) ?? title ?? "_\(index)"
            if let other = names[swiftName] {
                throw itemAt.error("the positions \(other < 0 ? "(the extra items)" : String(other)) and \(index) of the tuple are both named '\(swiftName)'; set 'x-swift-name' on one")
            }
            names[swiftName] = index
            let resolved = try field(item, at: itemAt, nameHint: Naming.upperCamel(Naming.words(swiftName)) + "Item", parentKey: key)
            let type = try elementType(resolved, at: itemAt, what: "tuple positions")
            members.append(Member(jsonName: String(index), swiftName: swiftName, type: type, presence: .required, doc: item["description"]?.string, location: itemAt))
        }
        register(key, .structure(StructModel(swiftName: name, doc: doc(flat), location: origin, tag: nil, tagKey: nil, isEvent: false, hasEnvelope: false, members: members, tuple: shape)), parent: parentKey)
        return key
    }

    /// An integer type's range.
    static func bounds(_ swiftType: String) -> (Int64, Int64?) {
        switch swiftType {
        case "Int32": (Int64(Int32.min), Int64(Int32.max))
        case "UInt32": (0, Int64(UInt32.max))
        case "UInt64": (0, nil)
        default: (Int64.min, Int64.max)
        }
    }

    /// The known values of an open enum: `enum: [strings]` (with `type: string`), or `anyOf: [{enum}, {type: string}]`.
    static func openEnumValues(_ schema: JSONValue) -> [String]? {
        func strings(_ value: JSONValue?) -> [String]? {
            guard let elements = value?.elements else { return nil }
            let s = elements.compactMap(\.string)
            return s.count == elements.count && !s.isEmpty ? s : nil
        }
        // A nullable enum (`type: ["string", "null"]`, `null` among the values) is as open as a plain one.
        let stringTypes: [JSONValue?] = [nil, .string("string"), .array([.string("string"), .string("null")]), .array([.string("null"), .string("string")])]
        if stringTypes.contains(schema["type"]), let values = strings(schema["enum"].map { .array(($0.elements ?? []).filter { $0 != .null }) }) {
            return values
        }
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
        return Naming.isIdentifier(last) && !last.contains("_") ? Naming.capitalized(last) : Naming.upperCamel(Naming.words(last))
    }

    /// The field type of the type registered under `key` (its key stands for its name until ``finish()``).
    func typeOf(_ key: String) throws -> FieldType {
        switch types[key] {
        case .structure?: .object(key)
        case .openEnum?: .openEnum(key)
        case .union?: .union(key)
        case nil: .object(key)  // in progress: a struct that refers back to itself
        }
    }

    /// The struct, open enum or union defined at `location` (made once); its key. `parentKey` is the type it
    /// is declared in (nil: the namespace, for definitions).
    mutating func namedType(at location: SchemaLocation, schema: JSONValue, referencedFrom: SchemaLocation, ref: String?, nameHint: String, parentKey: String?) throws -> String {
        let key = location.description
        if types[key] != nil {
            usedBy[key, default: []].insert(currentCatalog)
            return key
        }
        if let depth = inProgress[key] {
            guard collectionDepth > depth else {
                throw referencedFrom.error("recursive $ref\(ref.map { " '\($0)'" } ?? ""): a type that contains itself directly; reach it through an array or a map")
            }
            return key
        }
        inProgress[key] = collectionDepth
        defer { inProgress[key] = nil }
        let named = try string(schema["x-swift-name"], "x-swift-name", at: location) ?? schema["title"]?.string.map { Naming.upperCamel(Naming.words($0)) } ?? nameHint
        let name = named.isEmpty ? nameHint : named
        guard Naming.isIdentifier(name) else { throw location.error("'\(name)' is not a Swift type name; set 'x-swift-name'") }
        let model: TypeModel
        if let values = Self.openEnumValues(schema) {
            for (k, v) in values.enumerated() where values[..<k].contains(v) {
                throw location.error("the enum value '\(v)' is listed twice")
            }
            var cases: [String: String] = [:]
            for value in values {
                let c = Naming.caseName(value)
                if let other = cases[c] { throw location.error("the enum values '\(other)' and '\(value)' both become the case '\(c)'; rename one") }
                cases[c] = value
            }
            model = .openEnum(OpenEnumModel(swiftName: name, doc: doc(schema), location: location, values: values))
        } else if let union = unionBranches(schema), !union.branches.isEmpty {
            register(key, .union(UnionModel(swiftName: name, doc: doc(schema), location: location, branches: .byJSONType([]))), parent: parentKey)
            model = .union(try unionModel(union, schema: schema, at: location, name: name, key: key))
        } else {
            // Registered before its members are read, so that a member reaching it again (through an array)
            // finds it.
            register(key, .structure(StructModel(swiftName: name, doc: doc(schema), location: location, tag: nil, tagKey: nil, isEvent: false, hasEnvelope: false, members: [])), parent: parentKey)
            let members = try objectMembers(of: schema, at: location, typeKey: key, tagKey: nil, tag: nil)
            model = .structure(StructModel(swiftName: name, doc: doc(schema), location: location, tag: nil, tagKey: nil, isEvent: false, hasEnvelope: false, members: members))
        }
        register(key, model, parent: parentKey)
        return key
    }

    // MARK: - Unions

    /// A union: objects selected by a discriminator member (each branch names its value with `const`, or the
    /// OpenAPI `discriminator` names the member), else values selected by their JSON type.
    mutating func unionModel(_ union: (keyword: String, branches: [(Int, JSONValue)], nullable: Bool), schema: JSONValue, at location: SchemaLocation, name: String, key: String) throws -> UnionModel {
        var resolvedBranches: [(at: SchemaLocation, target: SchemaLocation, schema: JSONValue, ref: String?)] = []
        for (index, branch) in union.branches {
            let at = location.appending(union.keyword, String(index))
            if let ref = branch["$ref"]?.string {
                let target = try resolve(ref, from: at.appending("$ref"))
                resolvedBranches.append((at, target, try self.schema(at: target, referencedFrom: at.appending("$ref"), ref: ref), ref))
            } else {
                resolvedBranches.append((at, at, branch, nil))
            }
        }
        // Tagged: every branch an object with a string `const` on one common member.
        let discriminator = schema["discriminator"]?["propertyName"]?.string
        let objectBranches = resolvedBranches.allSatisfy { isObjectSchema($0.schema) }
        if objectBranches {
            var tagKey = discriminator
            if tagKey == nil {
                let candidates = resolvedBranches.map { b in Set((b.schema["properties"]?.members ?? []).filter { $0.value["const"]?.string != nil }.map(\.key)) }
                tagKey = candidates.dropFirst().reduce(candidates.first ?? []) { $0.intersection($1) }.sorted().first
            }
            if let tagKey {
                var variants: [(tag: String, caseName: String, type: String)] = []
                var seen: [String: SchemaLocation] = [:]
                let mapping = (schema["discriminator"]?["mapping"]?.members ?? []).compactMap { m in m.value.string.map { (m.key, $0) } }
                for branch in resolvedBranches {
                    let property = branch.schema["properties"]?[tagKey]
                    var tag = property?["const"]?.string ?? property?["enum"]?.elements?.first?.string
                    if tag == nil, let ref = branch.ref { tag = mapping.first { $0.1 == ref }?.0 }
                    guard let tag else {
                        throw branch.at.error("a branch of a union tagged by '\(tagKey)' must give '\(tagKey)' a 'const' (or be named in the discriminator's mapping)")
                    }
                    if let first = seen[tag] { throw branch.at.error("the tag '\(tag)' selects two branches (first at \(first))") }
                    seen[tag] = branch.at
                    let variantKey = "\(branch.target)|\(tagKey)=\(tag)"
                    if types[variantKey] == nil {
                        let variantName = try string(branch.schema["x-swift-name"], "x-swift-name", at: branch.target)
                            ?? (branch.ref != nil ? Self.definitionName(branch.target) : Naming.upperCamel(Naming.words(tag)))
                        register(variantKey, .structure(StructModel(swiftName: variantName, doc: doc(branch.schema), location: branch.target, tag: tag, tagKey: tagKey, isEvent: false, hasEnvelope: false, members: [])), parent: branch.ref == nil ? key : nil)
                        let members = try objectMembers(of: branch.schema, at: branch.target, typeKey: variantKey, tagKey: tagKey, tag: tag)
                        register(variantKey, .structure(StructModel(swiftName: variantName, doc: doc(branch.schema), location: branch.target, tag: tag, tagKey: tagKey, isEvent: false, hasEnvelope: false, members: members)), parent: branch.ref == nil ? key : nil)
                    } else {
                        usedBy[variantKey, default: []].insert(currentCatalog)
                    }
                    var caseName = Naming.caseName(tag)
                    if caseName == "unknown" { caseName = "unknown_" }
                    variants.append((tag, caseName, variantKey))
                }
                return UnionModel(swiftName: name, doc: doc(schema), location: location, branches: .tagged(key: tagKey, variants: variants))
            }
            if discriminator == nil && resolvedBranches.count > 1 {
                throw location.error("a union of objects needs a member that tells the branches apart: give each branch a 'const' on one common member (or an OpenAPI 'discriminator')")
            }
        }
        // By JSON type: one branch per JSON type.
        var cases: [(caseName: String, type: FieldType)] = []
        var kinds: [String: SchemaLocation] = [:]
        for (branch, (_, original)) in zip(resolvedBranches, union.branches) {
            let resolved = try field(original, at: branch.at, nameHint: name + "Case\(cases.count + 1)", parentKey: key)
            if case .object(let k) = resolved.type, case .structure(let s)? = types[k], s.tuple != nil {
                throw branch.at.error("unsupported: a tuple (prefixItems) as a branch of a union by JSON type; make the union's array branch an array of one item type, or the tuple a member of an object branch")
            }
            let kind: String
            switch resolved.type {
            case .string, .openEnum, .timestamp: kind = "string"
            case .integer: kind = "integer"
            case .number: kind = "number"
            case .boolean: kind = "boolean"
            case .array: kind = "array"
            case .object, .map, .union: kind = "object"
            case .raw, .custom: throw branch.at.error("a union branch must have one JSON type")
            }
            if let first = kinds[kind] {
                throw branch.at.error("two branches of this union are \(kind)s (first at \(first)): a union by JSON type has one branch per type; tag object branches with a 'const' member")
            }
            if !resolved.checks.isEmpty { throw branch.at.error("unsupported validation keywords in a union branch") }
            kinds[kind] = branch.at
            let caseName: String
            switch resolved.type {
            case .object(let k), .union(let k), .openEnum(let k): caseName = Naming.memberName(types[k]?.swiftName ?? kind)
            default: caseName = kind == "boolean" ? "bool" : kind
            }
            cases.append((caseName, resolved.type))
        }
        return UnionModel(swiftName: name, doc: doc(schema), location: location, branches: .byJSONType(cases))
    }

    /// A union of `type: [T1, T2]`: each type's keywords from the same schema.
    mutating func typeUnion(_ names: [String], schema: JSONValue, at location: SchemaLocation, nameHint: String, parentKey: String) throws -> String {
        let key = location.description
        if types[key] != nil { return key }
        var cases: [(caseName: String, type: FieldType)] = []
        for name in names {
            guard ["string", "integer", "number", "boolean"].contains(name) else {
                throw location.appending("type").error("unsupported type list with '\(name)': a list of types may hold string, integer, number, boolean and null; use oneOf for objects and arrays")
            }
            let resolved = try scalar(name, .object([("type", .string(name))]), keywords: [("type", .string(name))], at: location, origin: location, nameHint: nameHint, parentKey: parentKey)
            cases.append((name == "boolean" ? "bool" : name, resolved.type))
        }
        let others = (schema.members ?? []).filter { $0.key != "type" && $0.key != "default" && !Self.annotations.contains($0.key) && !$0.key.hasPrefix("x-") && $0.key != "nullable" }
        if !others.isEmpty { try check(others, allowed: [], at: location, hint: " beside a list of types") }
        register(key, .union(UnionModel(swiftName: nameHint, doc: doc(schema), location: location, branches: .byJSONType(cases))), parent: parentKey)
        return key
    }

    // MARK: - Defaults

    /// A `default` as Swift source for the member's type.
    func literal(_ value: JSONValue, for type: FieldType, at location: SchemaLocation) throws -> String {
        switch (type, value) {
        case (.string, .string(let s)): return Naming.stringLiteral(s)
        case (.integer(let swiftType, let min, let max), .number(let text)):
            guard let n = Int64(text) ?? (swiftType == "UInt64" ? UInt64(text).map { _ in Int64.max } : nil) else {
                throw location.error("the default \(text) is not an integer that fits \(swiftType)")
            }
            let (low, high) = Self.bounds(swiftType)
            if n < low || (high.map { n > $0 } ?? false) { throw location.error("the default \(text) does not fit \(swiftType)") }
            if let min, n < Int64(min)! { throw location.error("the default \(text) is below the minimum \(min)") }
            if let max, n > Int64(max)! { throw location.error("the default \(text) is above the maximum \(max)") }
            return text
        case (.number, .number(let text)): return "ExactNumber(literal: \(Naming.stringLiteral(text)))"
        case (.boolean, .bool(let b)): return b ? "true" : "false"
        case (.openEnum(let key), .string(let s)): return "\(Self.typeMarker(key))(rawValue: \(Naming.stringLiteral(s)))"
        case (.array(let element), .array(let elements)):
            return "[" + (try elements.enumerated().map { try literal($1, for: element, at: location.appending(String($0))) }).joined(separator: ", ") + "]"
        case (.raw, _): return "RawJSON(bytes: Array(\(Naming.stringLiteral(Self.compact(value))).utf8))"
        case (.map(let element), .object(let members)):
            if members.isEmpty { return "JSONMap()" }
            let pairs = try members.map { "(\(Naming.stringLiteral($0.key)), \(try literal($0.value, for: element, at: location.appending($0.key))))" }
            return "JSONMap([" + pairs.joined(separator: ", ") + "])"
        case (.object(let key), .object(let members)):
            // The struct's memberwise initializer: what the default gives, the rest as declared.
            guard case .structure(let structure)? = types[key], !structure.isEvent, structure.tagKey == nil else {
                throw location.error("unsupported 'default' on this member: an object default needs a plain object type")
            }
            for (name, _) in members where !structure.members.contains(where: { $0.jsonName == name }) {
                throw location.appending(name).error("the default's member '\(name)' is not declared in the object's 'properties'")
            }
            var arguments: [String] = []
            for member in structure.members {
                guard let value = members.first(where: { $0.key == member.jsonName })?.value else {
                    if member.presence == .required || member.presence == .requiredNullable {
                        throw location.error("the default lacks the required member '\(member.jsonName)'")
                    }
                    continue
                }
                let argument = value == .null && member.isNullable ? "nil" : try literal(value, for: member.type, at: location.appending(member.jsonName))
                arguments.append("\(member.swiftName): \(argument)")
            }
            return "\(Self.typeMarker(key))(" + arguments.joined(separator: ", ") + ")"
        case (.timestamp, _), (.object, _), (.custom, _), (.union, _), (.map, _):
            throw location.error("unsupported 'default' on this member: only strings, numbers, booleans, open enums, objects, maps, arrays of them and free-form values have defaults")
        default:
            throw location.error("the default \(Self.render(value)) does not match the member's type \(type.swiftType)")
        }
    }

    /// A type's key in a default's Swift source, replaced by the type's qualified name in ``finish()``.
    static func typeMarker(_ key: String) -> String { "\u{27E6}\(key)\u{27E7}" }

    /// `source` with every ``typeMarker(_:)`` replaced by its type's qualified name.
    func resolvingTypeMarkers(_ source: String) -> String {
        var out = ""
        var rest = Substring(source)
        while let open = rest.firstIndex(of: "\u{27E6}"), let close = rest[open...].firstIndex(of: "\u{27E7}") {
            out += rest[..<open]
            let key = String(rest[rest.index(after: open)..<close])
            out += qualifiedNames[key] ?? key
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    /// Compact JSON text of a value.
    static func compact(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .number(let n): n
        case .string(let s): jsonString(s)
        case .array(let a): "[" + a.map(compact).joined(separator: ",") + "]"
        case .object(let o): "{" + o.map { jsonString($0.key) + ":" + compact($0.value) }.joined(separator: ",") + "}"
        }
    }

    static func jsonString(_ s: String) -> String { Naming.jsonString(s) }

    // MARK: - Names

    /// Every type's qualified name, the checks that need the whole model, and the errors of the run: call
    /// after the last catalog. Throws ``CodegenErrors`` when any schema had an error.
    public mutating func finish() throws {
        // Top-level types go in their catalog's namespace, or the shared one when several catalogs use them.
        func namespace(_ key: String) -> String {
            let users = usedBy[key] ?? []
            if users.count == 1, let only = users.first, let name = catalogNamespaces[only] { return name }
            return Self.sharedNamespace
        }
        func qualified(_ key: String) -> String {
            if let name = qualifiedNames[key] { return name }
            let simple = types[key]?.swiftName ?? key
            let name = (enclosing[key].map(qualified) ?? namespace(key)) + "." + simple
            qualifiedNames[key] = name
            return name
        }
        // A type may not take a name the generated code uses, nor the name of a type it is declared in:
        // it would hide that type inside its scope. It is renamed, deterministically.
        let namespaces = Set(catalogNamespaces.values).union([Self.sharedNamespace])
        for key in typeOrder {
            guard var type = types[key] else { continue }
            var outer: Set<String> = namespaces
            var parent = enclosing[key]
            while let p = parent {
                if let name = types[p]?.swiftName { outer.insert(name) }
                parent = enclosing[p]
            }
            var name = type.swiftName
            while Self.reservedTypeNames.contains(name) || outer.contains(name) { name += "Schema" }
            guard name != type.swiftName else { continue }
            switch type {
            case .structure(var s): s.swiftName = name; type = .structure(s)
            case .openEnum(var e): e.swiftName = name; type = .openEnum(e)
            case .union(var u): u.swiftName = name; type = .union(u)
            }
            types[key] = type
        }
        checkSharedFormats()
        // A type declared in another keeps the outer one's users.
        for key in typeOrder.reversed() {
            if let parent = enclosing[key] { usedBy[parent, default: []].formUnion(usedBy[key] ?? []) }
        }
        for key in typeOrder { _ = qualified(key) }
        // Two types of one scope with one name.
        var scopes: [String: String] = [:]
        for key in typeOrder {
            guard let name = qualifiedNames[key], let type = types[key] else { continue }
            if let other = scopes[name], let otherType = types[other] {
                errors.append(type.location.error("the type name '\(type.swiftName)' is also given to \(otherType.location) in the same scope (\(name)); set 'x-swift-name' on one"))
            }
            scopes[name] = key
        }
        // Keys become names in every member.
        func rename(_ type: FieldType) -> FieldType {
            switch type {
            case .object(let k): .object(qualifiedNames[k] ?? k)
            case .openEnum(let k): .openEnum(qualifiedNames[k] ?? k)
            case .union(let k): .union(qualifiedNames[k] ?? k)
            case .array(let e): .array(rename(e))
            case .map(let e): .map(rename(e))
            default: type
            }
        }
        for key in typeOrder {
            switch types[key] {
            case .structure(var s)?:
                for k in s.members.indices {
                    // A default names generated types by their keys until now.
                    if case .defaulted(let d) = s.members[k].presence { s.members[k].presence = .defaulted(resolvingTypeMarkers(d)) }
                    s.members[k].type = rename(s.members[k].type)
                }
                types[key] = .structure(s)
            case .union(var u)?:
                switch u.branches {
                case .tagged(let tagKey, let variants): u.branches = .tagged(key: tagKey, variants: variants.map { ($0.tag, $0.caseName, qualifiedNames[$0.type] ?? $0.type) })
                case .byJSONType(let cases): u.branches = .byJSONType(cases.map { ($0.caseName, rename($0.type)) })
                }
                types[key] = .union(u)
            default: break
            }
        }
        if !errors.isEmpty { throw CodegenErrors(errors) }
    }

    /// A type is generated once, checking its formats or not: the catalogs that reach it (through any
    /// member, union branch or enclosing type) must agree on `validateFormats` where it has a format
    /// they would check. Otherwise an error names the member and two catalogs that differ.
    mutating func checkSharedFormats() {
        func referenced(_ type: FieldType) -> [String] {
            switch type {
            case .object(let k), .openEnum(let k), .union(let k): [k]
            case .array(let e), .map(let e): referenced(e)
            default: []
            }
        }
        var children: [String: [String]] = [:]
        for key in typeOrder {
            switch types[key] {
            case .structure(let s)?: children[key, default: []] += s.members.flatMap { referenced($0.type) }
            case .union(let u)?:
                switch u.branches {
                case .tagged(_, let variants): children[key, default: []] += variants.map(\.type)
                case .byJSONType(let cases): children[key, default: []] += cases.flatMap { referenced($0.type) }
                }
            default: break
            }
            if let parent = enclosing[key] { children[parent, default: []].append(key) }
        }
        var reach = usedBy
        var changed = true
        while changed {
            changed = false
            for key in typeOrder {
                let users = reach[key] ?? []
                for child in children[key] ?? [] where !users.isSubset(of: reach[child] ?? []) {
                    reach[child, default: []].formUnion(users)
                    changed = true
                }
            }
        }
        for key in typeOrder {
            guard case .structure(let s)? = types[key],
                let member = s.members.first(where: { $0.format.map(Self.checkedFormats.contains) == true }), let format = member.format
            else { continue }
            let users = (reach[key] ?? []).sorted()
            guard let checking = users.first(where: { catalogValidatesFormats[$0] == true }),
                let annotating = users.first(where: { catalogValidatesFormats[$0] != true })
            else { continue }
            errors.append(member.location.error(
                "the type '\(s.swiftName)' is shared by catalog '\(checking)', which validates formats, and catalog '\(annotating)', which does not: its format '\(format)' cannot be both checked and not; give both catalogs the same 'validateFormats', or each its own copy of the schema"))
        }
    }

    /// A catalog's entries with their payload types' qualified names (after ``finish()``).
    public func qualified(_ catalog: CatalogModel) -> CatalogModel {
        var catalog = catalog
        for k in catalog.events.indices where !catalog.events[k].isHandWritten {
            catalog.events[k].swiftType = qualifiedNames[catalog.events[k].swiftType] ?? catalog.events[k].swiftType
        }
        return catalog
    }

    /// Every type by its qualified name (after ``finish()``).
    public var typesByName: [String: TypeModel] {
        var out: [String: TypeModel] = [:]
        for (key, type) in types { out[qualifiedNames[key] ?? key] = type }
        return out
    }
}
