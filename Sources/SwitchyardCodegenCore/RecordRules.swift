import Foundation

/// The rules a generated decoder applies to a record, evaluated directly on the parsed JSON against a
/// ``SchemaSnapshot`` (no Swift is compiled): `schema check --records` replays captured records
/// through the new schemas with it and counts the records each change affects.
///
/// Checked: the tag (a known one; an unknown one is `unknownType` on a strict catalog, `.unknown` on a
/// lenient one), the envelope of the events that carry it, and for every member of the event and the
/// objects, maps and unions it nests: present when required (`keyNotFound`), not `null` when required and
/// not nullable (`valueNotFound`), the JSON type (`typeMismatch`), integers without a fraction and inside
/// the member's type and `minimum`/`maximum`, non-empty identifiers (`minLength: 1`), RFC 3339 date-times
/// and the validation keywords (`dataCorrupted`), a union's discriminator. Unknown fields, open-enum values
/// and a union's unknown discriminator never fail (rules 2 and 3); hand-written (`x-swift-type`) members
/// are not checked.
/// Every violation in a record is reported, not only the first one a decoder would stop at.
public struct RecordRules: Sendable {
    /// One rule a record breaks.
    public struct Violation: Hashable, Sendable {
        /// The member's schema location (`file#/pointer`; `…/items` for an array element).
        public var pointer: String
        /// `keyNotFound`, `valueNotFound`, `typeMismatch` or `dataCorrupted`.
        public var kind: String
        /// The record path (PRODUCT.md rule 6).
        public var path: String
    }

    /// What a record is under the rules.
    public enum Outcome: Equatable, Sendable {
        case decoded(tag: String)
        /// An unrecognised tag on a lenient catalog.
        case unknown(tag: String)
        /// An unrecognised tag on a strict catalog.
        case unknownType(tag: String)
        case failed(tag: String?, violations: [Violation])
        /// Not a JSON object.
        case unreadable
    }

    public let snapshot: SchemaSnapshot

    public init(snapshot: SchemaSnapshot) {
        self.snapshot = snapshot
    }

    /// The outcome of one record value under `catalog`.
    public func check(_ bytes: [UInt8], catalog: CatalogModel) -> Outcome {
        guard let value = try? JSONParser.parse(bytes) else { return .unreadable }
        return check(value, catalog: catalog)
    }

    public func check(_ value: JSONValue, catalog: CatalogModel) -> Outcome {
        guard value.members != nil else { return .unreadable }
        guard let tagValue = value[catalog.tagKey] else {
            return .failed(tag: nil, violations: [Violation(pointer: catalog.location.description, kind: "keyNotFound", path: catalog.tagKey)])
        }
        guard let tag = tagValue.string else {
            return .failed(tag: nil, violations: [Violation(pointer: catalog.location.description, kind: "typeMismatch", path: catalog.tagKey)])
        }
        guard let entry = catalog.events.first(where: { $0.tag == tag }) else {
            return catalog.policy == .strict ? .unknownType(tag: tag) : .unknown(tag: tag)
        }
        guard let structure = snapshot.eventStruct(entry) else { return .decoded(tag: tag) }
        var violations: [Violation] = []
        if structure.hasEnvelope { checkEnvelope(value, at: catalog.location.description + " (envelope)", into: &violations) }
        checkMembers(structure, value, path: "", into: &violations)
        return violations.isEmpty ? .decoded(tag: tag) : .failed(tag: tag, violations: violations)
    }

    func checkEnvelope(_ object: JSONValue, at pointer: String, into violations: inout [Violation]) {
        switch object["id"] {
        case nil: violations.append(Violation(pointer: pointer, kind: "keyNotFound", path: "id"))
        case .null?: violations.append(Violation(pointer: pointer, kind: "valueNotFound", path: "id"))
        case .string(let s)?: if s.isEmpty { violations.append(Violation(pointer: pointer, kind: "dataCorrupted", path: "id")) }
        default: violations.append(Violation(pointer: pointer, kind: "typeMismatch", path: "id"))
        }
        switch object["occurredAt"] {
        case nil: violations.append(Violation(pointer: pointer, kind: "keyNotFound", path: "occurredAt"))
        case .null?: violations.append(Violation(pointer: pointer, kind: "valueNotFound", path: "occurredAt"))
        case .string(let s)?: if !Self.isDateTime(s) { violations.append(Violation(pointer: pointer, kind: "dataCorrupted", path: "occurredAt")) }
        default: violations.append(Violation(pointer: pointer, kind: "typeMismatch", path: "occurredAt"))
        }
        if let version = object["schemaVersion"], version != .null {
            if let kind = Self.integerViolation(version, range: 1...Int64.max) {
                violations.append(Violation(pointer: pointer, kind: kind, path: "schemaVersion"))
            }
        }
    }

    func checkMembers(_ structure: StructModel, _ object: JSONValue, path: String, into violations: inout [Violation]) {
        for member in structure.members {
            let memberPath = DiffContext.render(path, member.jsonName)
            let pointer = member.location.description
            switch object[member.jsonName] {
            case nil:
                if member.presence == .required || member.presence == .requiredNullable {
                    violations.append(Violation(pointer: pointer, kind: "keyNotFound", path: memberPath))
                }
            case .null?:
                if member.presence == .required { violations.append(Violation(pointer: pointer, kind: "valueNotFound", path: memberPath)) }
            case let value?:
                let before = violations.count
                checkValue(value, member.type, pointer: pointer, path: memberPath, into: &violations)
                if violations.count == before, !member.checks.allSatisfy({ Self.satisfies(value, $0) }) {
                    violations.append(Violation(pointer: pointer, kind: "dataCorrupted", path: memberPath))
                }
            }
        }
    }

    func checkValue(_ value: JSONValue, _ type: FieldType, pointer: String, path: String, into violations: inout [Violation]) {
        func fail(_ kind: String) { violations.append(Violation(pointer: pointer, kind: kind, path: path)) }
        switch type {
        case .string(let identifier):
            guard let s = value.string else { return fail("typeMismatch") }
            if identifier && s.isEmpty { fail("dataCorrupted") }
        case .openEnum:
            if value.string == nil { fail("typeMismatch") }
        case .timestamp:
            guard let s = value.string else { return fail("typeMismatch") }
            if !Self.isDateTime(s) { fail("dataCorrupted") }
        case .integer(let swiftType, let minimum, let maximum):
            if let kind = Self.integerViolation(value, range: Differ.range(swiftType, minimum, maximum)) { fail(kind) }
        case .number:
            guard case .number = value else { return fail("typeMismatch") }
        case .boolean:
            guard case .bool = value else { return fail("typeMismatch") }
        case .object(let name):
            if case .structure(let tuple)? = snapshot.types[name], let shape = tuple.tuple {
                guard let elements = value.elements else { return fail("typeMismatch") }
                for (index, position) in tuple.members.enumerated() {
                    let at = "\(path)[\(index)]"
                    guard index < elements.count, elements[index] != .null else {
                        violations.append(Violation(pointer: position.location.description, kind: "valueNotFound", path: at))
                        continue
                    }
                    checkValue(elements[index], position.type, pointer: position.location.description, path: at, into: &violations)
                }
                if shape == .refusesExtraItems && elements.count > tuple.members.count { fail("dataCorrupted") }
                return
            }
            guard value.members != nil else { return fail("typeMismatch") }
            if case .structure(let nested)? = snapshot.types[name] { checkMembers(nested, value, path: path, into: &violations) }
        case .array(let element):
            guard let elements = value.elements else { return fail("typeMismatch") }
            for (index, item) in elements.enumerated() {
                if item == .null {
                    violations.append(Violation(pointer: pointer + "/items", kind: "valueNotFound", path: "\(path)[\(index)]"))
                } else {
                    checkValue(item, element, pointer: pointer + "/items", path: "\(path)[\(index)]", into: &violations)
                }
            }
        case .map(let element):
            guard let members = value.members else { return fail("typeMismatch") }
            for (key, item) in members where element != .raw {
                let itemPath = DiffContext.render(path, key)
                if item == .null {
                    violations.append(Violation(pointer: pointer + "/additionalProperties", kind: "valueNotFound", path: itemPath))
                } else {
                    checkValue(item, element, pointer: pointer + "/additionalProperties", path: itemPath, into: &violations)
                }
            }
        case .union(let name):
            guard case .union(let union)? = snapshot.types[name] else { return }
            switch union.branches {
            case .tagged(let key, let variants):
                guard value.members != nil else { return fail("typeMismatch") }
                guard let tagValue = value[key] else {
                    return violations.append(Violation(pointer: pointer, kind: "keyNotFound", path: DiffContext.render(path, key)))
                }
                guard let tag = tagValue.string else {
                    return violations.append(Violation(pointer: pointer, kind: tagValue == .null ? "valueNotFound" : "typeMismatch", path: DiffContext.render(path, key)))
                }
                // A tag this build does not know is the union's `.unknown`: not a failure.
                if let variant = variants.first(where: { $0.tag == tag }), case .structure(let nested)? = snapshot.types[variant.type] {
                    checkMembers(nested, value, path: path, into: &violations)
                }
            case .byJSONType(let cases):
                let kind = Self.kind(of: value)
                guard let match = cases.first(where: { Self.kinds(of: $0.type).contains(kind) }) else { return fail("typeMismatch") }
                checkValue(value, match.type, pointer: pointer, path: path, into: &violations)
            }
        case .custom, .raw:
            break
        }
    }

    /// The JSON kind of a value, as a union by JSON type tells its branches apart.
    static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "boolean"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        case .number(let text): text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) ? "number" : "integer"
        }
    }

    /// The JSON kinds a branch of a union by JSON type takes.
    static func kinds(of type: FieldType) -> Set<String> {
        switch type {
        case .string, .openEnum, .timestamp: ["string"]
        case .integer: ["integer"]
        case .number: ["integer", "number"]
        case .boolean: ["boolean"]
        case .array: ["array"]
        default: ["object"]
        }
    }

    /// Whether `value` satisfies a validation keyword (a value of the member's JSON type).
    static func satisfies(_ value: JSONValue, _ check: Check) -> Bool {
        func decimal(_ text: String) -> Decimal? { Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) }
        func number(_ v: JSONValue) -> Decimal? { if case .number(let text) = v { decimal(text) } else { nil } }
        switch check {
        case .minLength(let n): return (value.string?.unicodeScalars.count ?? n) >= n
        case .maxLength(let n): return (value.string?.unicodeScalars.count ?? 0) <= n
        case .pattern(let pattern):
            guard let s = value.string else { return true }
            do {
                let expression = try NSRegularExpression(pattern: pattern)
                return expression.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) != nil
            } catch {
                return false
            }
        case .minimum(let bound, let exclusive):
            guard let v = number(value), let b = decimal(bound) else { return false }
            return exclusive ? v > b : v >= b
        case .maximum(let bound, let exclusive):
            guard let v = number(value), let b = decimal(bound) else { return false }
            return exclusive ? v < b : v <= b
        case .multipleOf(let divisor):
            guard let v = number(value), let d = decimal(divisor), d != 0 else { return false }
            var quotient = v / d
            var whole = Decimal()
            NSDecimalRound(&whole, &quotient, 0, .down)
            return whole == quotient
        case .minProperties(let n): return (value.members?.count ?? n) >= n
        case .maxProperties(let n): return (value.members?.count ?? 0) <= n
        case .minItems(let n): return (value.elements?.count ?? n) >= n
        case .maxItems(let n): return (value.elements?.count ?? 0) <= n
        case .uniqueItems:
            let elements = value.elements ?? []
            return !elements.indices.contains { i in elements[..<i].contains(elements[i]) }
        case .oneOf(let values):
            return values.contains { candidate in
                if let a = number(candidate), let b = number(value) { return a == b }
                return candidate == value
            }
        case .format:
            // Formats are the built decoder's (SwitchyardJSON's `StringFormat`), which this module does
            // not link: `schema check --records` does not count records by their format (its help lists
            // what it checks).
            return true
        }
    }

    /// Why an integer member rejects `value` (nil when it accepts it): not a number is `typeMismatch`; a
    /// fraction, an exponent, overflow or a value outside `range` is `dataCorrupted` (rule 5).
    static func integerViolation(_ value: JSONValue, range: ClosedRange<Int64>) -> String? {
        guard case .number(let text) = value else { return "typeMismatch" }
        guard let n = Int64(text), range.contains(n) else { return "dataCorrupted" }
        return nil
    }

    /// RFC 3339: `2025-03-14T09:26:53Z`, with optional fractional seconds, `Z` or a `±hh:mm` offset.
    static func isDateTime(_ s: String) -> Bool {
        let b = Array(s.utf8)
        func digits(_ range: Range<Int>) -> Bool { range.upperBound <= b.count && range.allSatisfy { b[$0] >= 0x30 && b[$0] <= 0x39 } }
        func at(_ i: Int, _ c: Character) -> Bool { i < b.count && b[i] == c.asciiValue! }
        guard digits(0..<4), at(4, "-"), digits(5..<7), at(7, "-"), digits(8..<10), at(10, "T") || at(10, "t"),
            digits(11..<13), at(13, ":"), digits(14..<16), at(16, ":"), digits(17..<19)
        else { return false }
        var i = 19
        if at(i, ".") {
            i += 1
            let start = i
            while digits(i..<(i + 1)) { i += 1 }
            guard i > start else { return false }
        }
        if at(i, "Z") || at(i, "z") { return i + 1 == b.count }
        guard at(i, "+") || at(i, "-"), digits((i + 1)..<(i + 3)), at(i + 3, ":"), digits((i + 4)..<(i + 6)) else { return false }
        return i + 6 == b.count
    }
}

// MARK: - Evidence

/// Counts, over captured records, how many each change affects: `schema check --records`.
public struct SchemaEvidence: Sendable {
    public let changes: [SchemaChange]
    let rules: RecordRules
    let old: SchemaSnapshot
    /// Records read, by catalog (tombstones and records of no compared catalog excluded).
    public private(set) var records: [String: Int] = [:]
    /// Records that are not JSON objects.
    public private(set) var unreadable = 0
    /// Records no compared catalog claims.
    public private(set) var unassigned = 0
    /// Records that fail under the new schemas, by catalog.
    public private(set) var failing: [String: Int] = [:]
    /// Affected records, by change index.
    public private(set) var affected: [Int]
    /// The first decoding-error kind seen per change.
    public private(set) var kinds: [Int: String] = [:]

    public init(changes: [SchemaChange], old: SchemaSnapshot, new: SchemaSnapshot) {
        self.changes = changes
        self.rules = RecordRules(snapshot: new)
        self.old = old
        self.affected = Array(repeating: 0, count: changes.count)
    }

    /// The catalog a record belongs to: `name` (a topic or `--catalog`) when it names one; else the
    /// only catalog; else the catalog whose old or new events carry the record's tag.
    func catalog(for value: JSONValue, named name: String?) -> CatalogModel? {
        let catalogs = rules.snapshot.catalogs
        if let name, let catalog = catalogs.first(where: { $0.name == name }) { return catalog }
        if catalogs.count == 1 { return catalogs[0] }
        for catalog in catalogs {
            let oldEvents = old.catalog(catalog.name)?.events ?? []
            if let tag = value[catalog.tagKey]?.string, (catalog.events + oldEvents).contains(where: { $0.tag == tag }) { return catalog }
        }
        return nil
    }

    /// Counts one record value; `catalog` names its catalog (from the record's topic or `--catalog`) if known.
    public mutating func add(_ bytes: [UInt8], catalog name: String? = nil) {
        guard let value = try? JSONParser.parse(bytes), value.members != nil else {
            unreadable += 1
            return
        }
        guard let catalog = catalog(for: value, named: name) else {
            unassigned += 1
            return
        }
        records[catalog.name, default: 0] += 1
        let outcome = rules.check(value, catalog: catalog)
        let tag = value[catalog.tagKey]?.string
        var violations: [RecordRules.Violation] = []
        switch outcome {
        case .failed(_, let v):
            violations = v
            failing[catalog.name, default: 0] += 1
        case .unknownType:
            failing[catalog.name, default: 0] += 1
        default: break
        }
        for (index, change) in changes.enumerated() where change.catalog == catalog.name {
            let hit: Bool
            switch change.kind {
            case .eventRemoved, .tagRenamed:
                hit = tag != nil && tag == change.oldTag
            case .eventAdded:
                hit = tag != nil && tag == change.event
            case .policyChanged:
                if case .unknownType = outcome { hit = true } else { hit = false }
            default:
                if let v = violations.first(where: { $0.pointer == change.pointer }) {
                    hit = true
                    if kinds[index] == nil { kinds[index] = v.kind }
                } else {
                    hit = false
                }
            }
            if hit { affected[index] += 1 }
        }
    }

    /// `12,408 of 50,000 records lack `warehouseId`, which is now required`.
    public func summary(_ index: Int) -> String {
        let change = changes[index]
        let n = Self.grouped(affected[index])
        let of = Self.grouped(records[change.catalog] ?? 0)
        let path = change.recordPath ?? ""
        switch change.kind {
        case .memberAddedRequired, .becameRequired:
            return "\(n) of \(of) records lack `\(path)`, which is now required"
        case .eventRemoved, .tagRenamed:
            return "\(n) of \(of) records are tagged '\(change.oldTag ?? "")'"
        case .eventAdded:
            return "\(n) of \(of) records already carry '\(change.event ?? "")'"
        case .policyChanged:
            return "\(n) of \(of) records carry an event type the catalog does not list"
        default:
            if change.recordPath == nil { return "\(n) of \(of) records: not measured for this change" }
            return "\(n) of \(of) records fail at `\(path)` under the new schema" + (kinds[index].map { " (\($0))" } ?? "")
        }
    }

    /// `12408` → `12,408`.
    static func grouped(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return out
    }
}
