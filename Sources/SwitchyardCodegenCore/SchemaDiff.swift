/// Schema evolution: two readings of a set of catalogs (the last release's and the change's) compared
/// catalog by catalog, event by event and member by member, each change classified and judged in both
/// directions under the catalog's policy (PRODUCT.md "Decoding rules" and "Per-topic policy").
///
/// - **backward**: records written under the old schemas, read by a build generated from the new ones
///   (what is already in the topic, replays, dead-letter redrives);
/// - **forward**: records written under the new schemas, read by builds generated from the old ones
///   (consumers not yet deployed).
///
/// ``SchemaDiff/compare(old:new:)`` is a pure function of the two models; reading files is the caller's.

// MARK: - Snapshots

/// The catalogs of one side of a comparison and every type they use, as ``SchemaReader`` reads them.
public struct SchemaSnapshot: Sendable {
    public var catalogs: [CatalogModel]
    /// Every generated type, by its qualified Swift name (`PaymentEvent.Money`).
    public var types: [String: TypeModel]
    /// The pointer of each event's `oneOf` entry, by catalog name and tag (`payments.json#/oneOf/1`).
    public var entryPointers: [String: [String: String]]

    public init(catalogs: [CatalogModel], types: [String: TypeModel], entryPointers: [String: [String: String]] = [:]) {
        self.catalogs = catalogs
        self.types = types
        self.entryPointers = entryPointers
    }

    /// Reads the catalogs `entries` name, with one reader (types shared between catalogs are read once).
    public static func read(_ entries: [CodegenConfiguration.CatalogEntry], readFile: @escaping SchemaReader.FileReader) throws -> SchemaSnapshot {
        var reader = SchemaReader(readFile: readFile)
        var catalogs: [CatalogModel] = []
        var pointers: [String: [String: String]] = [:]
        for entry in entries {
            reader.validatesFormats = entry.validatesFormats
            let catalog = try reader.readCatalog(name: entry.name, schemaFile: entry.schema, swiftName: entry.swiftName, policy: entry.policy)
            catalogs.append(catalog)
            // The reader has parsed the file already; this only recovers each entry's index in `oneOf`.
            let schema = try reader.document(entry.schema, referencedFrom: nil)
            for (index, branch) in (schema["oneOf"]?.elements ?? []).enumerated() {
                if let tag = branch["properties"]?[catalog.tagKey]?["const"]?.string {
                    pointers[catalog.name, default: [:]][tag] = catalog.location.appending("oneOf", String(index)).description
                }
            }
        }
        try reader.finish()
        return SchemaSnapshot(catalogs: catalogs.map { reader.qualified($0) }, types: reader.typesByName, entryPointers: pointers)
    }

    /// The policy a catalog schema declares: lenient when its `oneOf` lists the unknown-events branch
    /// (an entry that is only a `$ref`, see ``SchemaReader``), else strict.
    public static func declaredPolicy(ofCatalogSchema schema: JSONValue) -> CatalogPolicy {
        let branches = schema["oneOf"]?.elements ?? []
        let hasUnknownBranch = branches.contains { branch in
            branch["properties"] == nil && branch["$ref"]?.string != nil && branch.members?.count == 1
        }
        return hasUnknownBranch ? .lenient : .strict
    }

    /// Whether a JSON document is a catalog schema (an object whose `oneOf` lists events).
    public static func isCatalogSchema(_ schema: JSONValue) -> Bool {
        schema["oneOf"]?.elements?.isEmpty == false
    }

    public func catalog(_ name: String) -> CatalogModel? { catalogs.first { $0.name == name } }

    /// The generated struct of an event, nil for a hand-written one.
    public func eventStruct(_ entry: EventEntry) -> StructModel? {
        guard !entry.isHandWritten, case .structure(let s)? = types[entry.swiftType] else { return nil }
        return s
    }
}

// MARK: - Changes

/// Whether a change is safe in one direction, and why, citing the PRODUCT.md rule it applies.
public struct Verdict: Sendable, Equatable {
    public var isBreaking: Bool
    /// `rule 4`, `strict policy`, …
    public var rule: String
    /// What happens to the records, without record values.
    public var reason: String

    public static func compatible(_ rule: String, _ reason: String) -> Verdict { Verdict(isBreaking: false, rule: rule, reason: reason) }
    public static func breaking(_ rule: String, _ reason: String) -> Verdict { Verdict(isBreaking: true, rule: rule, reason: reason) }

    /// `breaking (rule 4)`.
    public var label: String { "\(isBreaking ? "breaking" : "compatible") (\(rule))" }
}

/// One difference between the old and the new schemas.
public struct SchemaChange: Sendable, Equatable {
    /// What kind of change it is.
    public enum Kind: String, Sendable, CaseIterable {
        case catalogAdded = "catalog added"
        case catalogRemoved = "catalog removed"
        case policyChanged = "policy changed"
        case tagKeyChanged = "tag key changed"
        case eventAdded = "event type added"
        case eventRemoved = "event type removed"
        case tagRenamed = "tag renamed"
        case refChanged = "$ref target changed"
        case memberAddedRequired = "member added without a default"
        case memberAddedDefaulted = "member added with a default"
        case memberAddedOptional = "optional member added"
        case memberRemoved = "member removed"
        case requiredToOptional = "required → optional"
        case requiredToDefaulted = "required → defaulted"
        case becameRequired = "became required"
        case defaultAdded = "default added"
        case defaultRemoved = "default removed"
        case defaultChanged = "default changed"
        case typeChanged = "type changed"
        case typeWidened = "type widened"
        case typeNarrowed = "type narrowed"
        case rangeWidened = "range widened"
        case rangeNarrowed = "range narrowed"
        case rangeChanged = "range changed"
        case integerFormatChanged = "integer format changed"
        case identityRuleAdded = "minLength 1 added"
        case identityRuleRemoved = "minLength 1 removed"
        case tuplePositionAdded = "tuple position added"
        case tuplePositionRemoved = "tuple position removed"
        case tupleExtraItemsRefused = "tuple's extra items refused"
        case tupleExtraItemsKept = "tuple's extra items kept"
        case formatCheckAdded = "format check added"
        case formatCheckRemoved = "format check removed"
        case formatCheckChanged = "format check changed"
        case enumValueAdded = "enum value added"
        case enumValueRemoved = "enum value removed"
    }

    /// The schema location: `file#/pointer`, in the new schemas (in the old ones for a removal).
    public var pointer: String
    public var kind: Kind
    /// What exactly changed: `Int64 → Double`, `'returned'`, `1 → 2`.
    public var detail: String
    public var catalog: String
    /// The event (its tag) where the change was first met; nil for catalog-level changes.
    public var event: String?
    /// The member's path in a record (PRODUCT.md rule 6 with `[*]` for array elements), if a member changed.
    public var recordPath: String?
    /// For a removed or renamed event: the tag old records carry.
    public var oldTag: String?
    /// Old records read by the new build.
    public var backward: Verdict
    /// New records read by old builds.
    public var forward: Verdict

    /// Compatible in both directions.
    public var isCompatible: Bool { !backward.isBreaking && !forward.isBreaking }

    /// Which side deploys first, for a change that is safe in one order only; for a change safe in
    /// neither, says so; nil for a compatible one.
    public var deployOrder: String? {
        switch (backward.isBreaking, forward.isBreaking) {
        case (false, false): nil
        case (false, true): "consumers before producers: \(forward.reason)"
        case (true, false): "producers before consumers, and only once no old record remains to be read (retention, replays, redrives)"
        case (true, true): "none is safe: old and new records each fail on the other build; add a new member or event type instead"
        }
    }

    /// `payments/payment.captured.json#/properties/warehouseId: member added without a default: backward breaking (rule 4), forward compatible (rule 2)`.
    public var line: String {
        "\(pointer): \(kind.rawValue)\(detail.isEmpty ? "" : " \(detail)"): backward \(backward.label), forward \(forward.label)"
    }
}

// MARK: - Comparison

/// Compares two ``SchemaSnapshot``s.
public enum SchemaDiff {
    /// Every change from `old` to `new`, catalogs in `new`'s order (removed ones last), events in
    /// catalog order, members in declaration order. A type shared by several events is compared once,
    /// where it is first met.
    public static func compare(old: SchemaSnapshot, new: SchemaSnapshot) -> [SchemaChange] {
        var differ = Differ(old: old, new: new)
        for catalog in new.catalogs {
            if let before = old.catalog(catalog.name) {
                differ.compareCatalog(before, catalog)
            } else {
                differ.add(
                    catalog.location.description, .catalogAdded, "'\(catalog.name)' (\(catalog.policy.rawValue))", catalog: catalog.name,
                    backward: .compatible("rule 1", "no old record is on its topics"),
                    forward: .compatible("rule 1", "old builds do not consume its topics"))
            }
        }
        for catalog in old.catalogs where new.catalog(catalog.name) == nil {
            differ.add(
                catalog.location.description, .catalogRemoved, "'\(catalog.name)'", catalog: catalog.name,
                backward: .breaking("configuration", "a build without catalog '\(catalog.name)' cannot read its topics (a config naming it is refused, exit 78)"),
                forward: .compatible("rule 1", "old builds still know it"))
        }
        return differ.changes
    }
}

/// Where in a record and in which catalog a comparison is.
struct DiffContext {
    var catalog: CatalogModel
    var event: String
    /// The record path of the struct being compared (`amount`), empty at the event's root.
    var path: String

    func path(_ member: String) -> String { Self.render(path, member) }

    /// `amount` + `value` → `amount.value`; a key that is not identifier-like is `["a.b"]` (rule 6).
    static func render(_ path: String, _ member: String) -> String {
        let identifierLike = member.first.map { $0.isLetter || $0 == "_" } == true && member.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
        if !identifierLike { return path + "[\"\(member)\"]" }
        return path.isEmpty ? member : "\(path).\(member)"
    }

    /// How a failure ends under this catalog's policy.
    var outcome: String {
        catalog.policy == .strict ? "halts the partition (strict `\(catalog.name)`)" : "is dead-lettered (lenient `\(catalog.name)`)"
    }
}

struct Differ {
    let old: SchemaSnapshot
    let new: SchemaSnapshot
    var changes: [SchemaChange] = []
    /// Pairs of type locations already compared.
    var visited: Set<String> = []

    init(old: SchemaSnapshot, new: SchemaSnapshot) {
        self.old = old
        self.new = new
    }

    mutating func add(
        _ pointer: String, _ kind: SchemaChange.Kind, _ detail: String = "", catalog: String, event: String? = nil, path: String? = nil,
        oldTag: String? = nil, backward: Verdict, forward: Verdict
    ) {
        changes.append(
            SchemaChange(
                pointer: pointer, kind: kind, detail: detail, catalog: catalog, event: event, recordPath: path, oldTag: oldTag,
                backward: backward, forward: forward))
    }

    // MARK: Catalogs and events

    mutating func compareCatalog(_ o: CatalogModel, _ n: CatalogModel) {
        let name = n.name
        if o.policy != n.policy {
            if n.policy == .strict {
                add(
                    n.location.description, .policyChanged, "lenient → strict", catalog: name,
                    backward: .breaking("strict policy", "an old record with an event type the catalog does not list, once handed on as .unknown, now fails unknownType and halts its partition"),
                    forward: .compatible("lenient policy", "old builds keep passing unknown event types on"))
            } else {
                add(
                    n.location.description, .policyChanged, "strict → lenient", catalog: name,
                    backward: .compatible("lenient policy", "unknown event types are handed on as .unknown instead of halting"),
                    forward: .compatible("strict policy", "old builds still halt on unknown event types, as before"))
            }
        }
        if o.tagKey != n.tagKey {
            add(
                n.location.description, .tagKeyChanged, "'\(o.tagKey)' → '\(n.tagKey)'", catalog: name,
                backward: .breaking("rule 5", "old records carry '\(o.tagKey)': the new build finds no '\(n.tagKey)' (keyNotFound)"),
                forward: .breaking("rule 5", "new records carry '\(n.tagKey)': old builds find no '\(o.tagKey)' (keyNotFound)"))
        }
        let oldTags = Set(o.events.map(\.tag))
        let newTags = Set(n.events.map(\.tag))
        // A tag is renamed when a removed and an added event are the same schema.
        var renamedFrom: [String: EventEntry] = [:]
        for removed in o.events where !newTags.contains(removed.tag) {
            guard let oldStruct = old.eventStruct(removed) else { continue }
            if let added = n.events.first(where: { !oldTags.contains($0.tag) && renamedFrom[$0.tag] == nil && new.eventStruct($0)?.location == oldStruct.location }) {
                renamedFrom[added.tag] = removed
            }
        }
        let renamedTags = Set(renamedFrom.values.map(\.tag))
        for entry in n.events {
            let pointer = new.entryPointers[name]?[entry.tag] ?? n.location.description
            if let before = o.events.first(where: { $0.tag == entry.tag }) {
                compareEvent(before, entry, catalog: n, pointer: pointer)
            } else if let before = renamedFrom[entry.tag] {
                let unknown = n.policy == .strict
                    ? "fail unknownType and halt the partition (strict `\(name)`)"
                    : "become .unknown: the handler of '\(entry.tag)' never sees them (rule 1, lenient `\(name)`)"
                add(
                    pointer, .tagRenamed, "'\(before.tag)' → '\(entry.tag)'", catalog: name, event: entry.tag, oldTag: before.tag,
                    backward: .breaking(n.policy == .strict ? "strict policy" : "rule 1", "old records tagged '\(before.tag)' \(unknown)"),
                    forward: .breaking(n.policy == .strict ? "strict policy" : "rule 1", "new records tagged '\(entry.tag)' " + (o.policy == .strict ? "fail unknownType on old builds and halt the partition" : "are .unknown to old builds")))
                compareEvent(before, entry, catalog: n, pointer: pointer)
            } else if n.policy == .strict && o.policy == .strict {
                add(
                    pointer, .eventAdded, "'\(entry.tag)'", catalog: name, event: entry.tag,
                    backward: .compatible("rule 1", "no old record carries '\(entry.tag)'"),
                    forward: .breaking("strict policy", "a new event type on strict `\(name)` halts every partition that receives it before the consumers know it (unknownType)"))
            } else {
                add(
                    pointer, .eventAdded, "'\(entry.tag)'", catalog: name, event: entry.tag,
                    backward: .compatible("rule 1", "no old record carries '\(entry.tag)' as a known event"),
                    forward: .compatible("rule 1", "old builds hand '\(entry.tag)' on as .unknown and republish it untouched (lenient `\(name)`)"))
            }
        }
        for entry in o.events where !newTags.contains(entry.tag) && !renamedTags.contains(entry.tag) {
            let pointer = old.entryPointers[name]?[entry.tag] ?? o.location.description
            if n.policy == .strict {
                add(
                    pointer, .eventRemoved, "'\(entry.tag)'", catalog: name, event: entry.tag, oldTag: entry.tag,
                    backward: .breaking("strict policy", "old records tagged '\(entry.tag)' fail unknownType and halt the partition (strict `\(name)`)"),
                    forward: .compatible("rule 1", "old builds still know '\(entry.tag)'; new producers no longer write it"))
            } else {
                add(
                    pointer, .eventRemoved, "'\(entry.tag)'", catalog: name, event: entry.tag, oldTag: entry.tag,
                    backward: .compatible("rule 1", "old records tagged '\(entry.tag)' are handed on as .unknown and republished untouched (lenient `\(name)`)"),
                    forward: .compatible("rule 1", "old builds still know '\(entry.tag)'; new producers no longer write it"))
            }
        }
    }

    mutating func compareEvent(_ o: EventEntry, _ n: EventEntry, catalog: CatalogModel, pointer: String) {
        let context = DiffContext(catalog: catalog, event: n.tag, path: "")
        switch (old.eventStruct(o), new.eventStruct(n)) {
        case (let before?, let after?):
            if before.location != after.location {
                add(
                    pointer + "/$ref", .refChanged, "\(before.location) → \(after.location)", catalog: catalog.name, event: n.tag,
                    backward: .compatible("rule 2", "the wire carries members, not schema names: the members are compared below"),
                    forward: .compatible("rule 2", "the wire carries members, not schema names: the members are compared below"))
            }
            compareStruct(before, after, context)
        default:
            guard o.swiftType != n.swiftType || o.isHandWritten != n.isHandWritten else { return }
            add(
                pointer, .refChanged, "\(o.swiftType) → \(n.swiftType) (hand-written)", catalog: catalog.name, event: n.tag,
                backward: .breaking("rule 5", "a hand-written event type is not compared: review it, then acknowledge it with --allow"),
                forward: .breaking("rule 5", "a hand-written event type is not compared: review it, then acknowledge it with --allow"))
        }
    }

    // MARK: Structs and members

    mutating func compareStruct(_ o: StructModel, _ n: StructModel, _ context: DiffContext) {
        guard visited.insert("\(o.location) \(n.location)").inserted else { return }
        let catalog = context.catalog.name
        if let before = o.tuple, let after = n.tuple { return compareTuple(o, before, n, after, context) }
        for member in n.members {
            let path = context.path(member.jsonName)
            let pointer = member.location.description
            guard let before = o.members.first(where: { $0.jsonName == member.jsonName }) else {
                switch member.presence {
                case .required, .requiredNullable:
                    add(
                        pointer, .memberAddedRequired, "'\(member.jsonName)'", catalog: catalog, event: context.event, path: path,
                        backward: .breaking("rule 4", "old records lack `\(path)`: keyNotFound at `\(path)`, which \(context.outcome); a required member is never defaulted"),
                        forward: .compatible("rule 2", "old builds keep `\(path)` as an unknown field"))
                case .defaulted(let value):
                    add(
                        pointer, .memberAddedDefaulted, "'\(member.jsonName)' = \(value)", catalog: catalog, event: context.event, path: path,
                        backward: .compatible("rule 4", "old records without `\(path)` decode with the default \(value)"),
                        forward: .compatible("rule 2", "old builds keep `\(path)` as an unknown field"))
                case .optional:
                    add(
                        pointer, .memberAddedOptional, "'\(member.jsonName)'", catalog: catalog, event: context.event, path: path,
                        backward: .compatible("rule 4", "old records without `\(path)` decode it as absent (nil)"),
                        forward: .compatible("rule 2", "old builds keep `\(path)` as an unknown field"))
                }
                continue
            }
            comparePresence(before, member, path: path, pointer: pointer, context)
            compareType(before.type, member.type, path: path, pointer: pointer, context)
            compareFormatCheck(before, member, path: path, pointer: pointer, context)
        }
        for member in o.members where !n.members.contains(where: { $0.jsonName == member.jsonName }) {
            let path = context.path(member.jsonName)
            let backward = Verdict.compatible("rule 2", "old records' `\(path)` is kept as an unknown field and written back")
            if member.presence == .required {
                add(
                    member.location.description, .memberRemoved, "'\(member.jsonName)' (was required)", catalog: catalog, event: context.event, path: path,
                    backward: backward,
                    forward: .breaking("rule 4", "new records lack `\(path)`: old builds fail keyNotFound at `\(path)`, which \(context.outcome)"))
            } else {
                add(
                    member.location.description, .memberRemoved, "'\(member.jsonName)'", catalog: catalog, event: context.event, path: path,
                    backward: backward,
                    forward: .compatible("rule 4", "old builds read the absent `\(path)` as " + (member.presence == .optional ? "nil" : "its default")))
            }
        }
    }

    /// Two tuples (`prefixItems`): positions by index, then what each does with items after them.
    mutating func compareTuple(_ o: StructModel, _ oldShape: TupleShape, _ n: StructModel, _ newShape: TupleShape, _ context: DiffContext) {
        let catalog = context.catalog.name
        let whole = context.path.isEmpty ? "the tuple" : context.path
        let corrupted = "dataCorrupted at `\(whole)`, which \(context.outcome)"
        for (index, position) in n.members.enumerated() {
            let path = "\(context.path)[\(index)]"
            let pointer = position.location.description
            guard index < o.members.count else {
                add(
                    pointer, .tuplePositionAdded, "\(index)", catalog: catalog, event: context.event, path: path,
                    backward: .breaking("rule 4", "old records' arrays lack `\(path)`: valueNotFound at `\(path)`, which \(context.outcome)"),
                    forward: oldShape == .keepsExtraItems
                        ? .compatible("rule 2", "old builds keep `\(path)` as an extra item")
                        : .breaking("rule 5", "new records' arrays have more items than old builds allow (items: false): \(corrupted)"))
                continue
            }
            compareType(o.members[index].type, position.type, path: path, pointer: pointer, context)
        }
        for (index, position) in o.members.enumerated() where index >= n.members.count {
            let path = "\(context.path)[\(index)]"
            add(
                position.location.description, .tuplePositionRemoved, "\(index)", catalog: catalog, event: context.event, path: path,
                backward: newShape == .keepsExtraItems
                    ? .compatible("rule 2", "old records' `\(path)` is kept as an extra item and written back")
                    : .breaking("rule 5", "old records' arrays have more items than the new build allows (items: false): \(corrupted)"),
                forward: .breaking("rule 4", "new records' arrays lack `\(path)`: valueNotFound at `\(path)` on old builds, which \(context.outcome)"))
        }
        guard oldShape != newShape else { return }
        let pointer = n.location.description
        if newShape == .refusesExtraItems {
            add(
                pointer, .tupleExtraItemsRefused, "items: false", catalog: catalog, event: context.event, path: context.path,
                backward: .breaking("rule 5", "an old record with items after the positions of `\(whole)` fails \(corrupted)"),
                forward: .compatible("rule 5", "new records have no items after the positions"))
        } else {
            add(
                pointer, .tupleExtraItemsKept, "items", catalog: catalog, event: context.event, path: context.path,
                backward: .compatible("rule 5", "old records have no items after the positions"),
                forward: .breaking("rule 5", "a new record with items after the positions of `\(whole)` fails on old builds (items: false): \(corrupted)"))
        }
    }

    mutating func comparePresence(_ o: Member, _ n: Member, path: String, pointer: String, _ context: DiffContext) {
        let catalog = context.catalog.name
        let lacking = Verdict.breaking("rule 4", "records without `\(path)` fail keyNotFound at `\(path)` on old builds, which \(context.outcome)")
        // Whether a required member may be null is the member's type, not its presence.
        func presence(_ p: Presence) -> Presence { p == .requiredNullable ? .required : p }
        switch (presence(o.presence), presence(n.presence)) {
        case (.required, .required), (.optional, .optional):
            return
        case (.requiredNullable, _), (_, .requiredNullable):
            return
        case (.defaulted(let a), .defaulted(let b)):
            guard Self.wireValue(a) != Self.wireValue(b) else { return }
            add(
                pointer, .defaultChanged, "\(a) → \(b)", catalog: catalog, event: context.event, path: path,
                backward: .breaking("rule 4", "old records without `\(path)` silently decode as \(b) instead of \(a)"),
                forward: .breaking("rule 4", "new records without `\(path)` decode as \(a) on old builds, not \(b)"))
        case (.required, .optional):
            add(
                pointer, .requiredToOptional, "'\(n.jsonName)'", catalog: catalog, event: context.event, path: path,
                backward: .compatible("rule 4", "old records always carry `\(path)`"), forward: lacking)
        case (.required, .defaulted(let value)):
            add(
                pointer, .requiredToDefaulted, "'\(n.jsonName)' = \(value)", catalog: catalog, event: context.event, path: path,
                backward: .compatible("rule 4", "old records always carry `\(path)`"), forward: lacking)
        case (.optional, .required), (.defaulted, .required):
            add(
                pointer, .becameRequired, "'\(n.jsonName)'", catalog: catalog, event: context.event, path: path,
                backward: .breaking("rule 4", "old records without `\(path)` fail keyNotFound at `\(path)`, which \(context.outcome); a required member is never defaulted"),
                forward: .compatible("rule 4", "new records always carry `\(path)`"))
        case (.optional, .defaulted(let value)):
            add(
                pointer, .defaultAdded, "\(value)", catalog: catalog, event: context.event, path: path,
                backward: .compatible("rule 4", "old records without `\(path)` (or with null) decode as \(value) instead of nil"),
                forward: .compatible("rule 4", "new records carry `\(path)` or old builds read it as nil"))
        case (.defaulted(let value), .optional):
            add(
                pointer, .defaultRemoved, "\(value)", catalog: catalog, event: context.event, path: path,
                backward: .compatible("rule 4", "old records without `\(path)` decode as nil instead of \(value)"),
                forward: .compatible("rule 4", "new records without `\(path)` decode as \(value) on old builds"))
        }
    }

    /// A `format` is a check in a catalog with `validateFormats` (``Check/format(_:)``), else an annotation
    /// that no record fails: a check added or changed may fail old records, one removed lets new records
    /// through that old builds fail, whether the schema or the catalog's `validateFormats` changed.
    mutating func compareFormatCheck(_ o: Member, _ n: Member, path: String, pointer: String, _ context: DiffContext) {
        func checked(_ m: Member) -> String? {
            for check in m.checks { if case .format(let name) = check { return name } }
            return nil
        }
        let (a, b) = (checked(o), checked(n))
        guard a != b else { return }
        let corrupted = "dataCorrupted at `\(path)`, which \(context.outcome)"
        func change(_ kind: SchemaChange.Kind, _ detail: String, backward: Verdict, forward: Verdict) {
            add(pointer, kind, detail, catalog: context.catalog.name, event: context.event, path: path, backward: backward, forward: forward)
        }
        switch (a, b) {
        case (nil, let added?):
            change(
                .formatCheckAdded, "'\(added)'",
                backward: .breaking("rule 5", "an old record whose `\(path)` is not a valid \(added) fails \(corrupted)"),
                forward: .compatible("rule 5", "every new `\(path)` is a valid \(added), a string to old builds"))
        case (let removed?, nil):
            change(
                .formatCheckRemoved, "'\(removed)'",
                backward: .compatible("rule 5", "every old `\(path)` is a valid \(removed), a string to the new build"),
                forward: .breaking("rule 5", "a new record whose `\(path)` is not a valid \(removed) fails on old builds: \(corrupted)"))
        case (let before?, let after?):
            change(
                .formatCheckChanged, "'\(before)' → '\(after)'",
                backward: .breaking("rule 5", "an old record whose `\(path)` is not a valid \(after) fails \(corrupted)"),
                forward: .breaking("rule 5", "a new record whose `\(path)` is not a valid \(before) fails on old builds: \(corrupted)"))
        case (nil, nil):
            return
        }
    }

    /// A default's value on the wire, from its Swift source: `Status(rawValue: "open")` and `"open"` are
    /// the same default, and so are `1` and `1.0`.
    static func wireValue(_ literal: String) -> String {
        var text = Substring(literal)
        if let open = text.firstIndex(of: "("), text.hasSuffix(")"), text[open...].hasPrefix("(rawValue: ") {
            text = text[text.index(open, offsetBy: "(rawValue: ".count)..<text.index(before: text.endIndex)]
        }
        if text.hasSuffix(".0"), Int64(text.dropLast(2)) != nil { text = text.dropLast(2) }
        return String(text)
    }

    /// The values an integer member accepts: its Swift type's range narrowed by `minimum`/`maximum`.
    static func range(_ swiftType: String, _ minimum: String?, _ maximum: String?) -> ClosedRange<Int64> {
        let bounds: ClosedRange<Int64> = swiftType == "Int32" ? Int64(Int32.min)...Int64(Int32.max) : Int64.min...Int64.max
        let low = minimum.flatMap { Int64($0) } ?? bounds.lowerBound
        let high = maximum.flatMap { Int64($0) } ?? bounds.upperBound
        return max(low, bounds.lowerBound)...min(high, bounds.upperBound)
    }

    /// Whether a type names a generated type (whose contents an equal name does not prove equal).
    static func namesTypes(_ type: FieldType) -> Bool {
        switch type {
        case .object, .openEnum: true
        case .array(let element): namesTypes(element)
        default: false
        }
    }

    static func describe(_ type: FieldType) -> String {
        switch type {
        case .string(identifier: true): "String (minLength 1)"
        case .integer(let t, let min, let max):
            min == nil && max == nil ? t : "\(t) \(min ?? "…")…\(max ?? "…")"
        case .openEnum(let name): "open enum \(name)"
        case .object(let name): name
        default: type.swiftType
        }
    }

    mutating func compareType(_ o: FieldType, _ n: FieldType, path: String, pointer: String, _ context: DiffContext) {
        guard o != n || Self.namesTypes(o) else { return }
        let catalog = context.catalog.name
        let detail = "\(Self.describe(o)) → \(Self.describe(n))"
        func change(_ kind: SchemaChange.Kind, _ detail: String = detail, backward: Verdict, forward: Verdict) {
            add(pointer, kind, detail, catalog: catalog, event: context.event, path: path, backward: backward, forward: forward)
        }
        let corrupted = "dataCorrupted at `\(path)`, which \(context.outcome)"
        switch (o, n) {
        case (.string(let a), .string(let b)):
            if b && !a {
                change(
                    .identityRuleAdded, "'\(path)'",
                    backward: .breaking("rule 5", "an old record with an empty `\(path)` fails \(corrupted)"),
                    forward: .compatible("rule 5", "new records' `\(path)` is never empty"))
            } else {
                change(
                    .identityRuleRemoved, "'\(path)'",
                    backward: .compatible("rule 5", "old records' `\(path)` is never empty"),
                    forward: .breaking("rule 5", "a new record with an empty `\(path)` fails on old builds: \(corrupted)"))
            }
        case (.integer(let ta, let mina, let maxa), .integer(let tb, let minb, let maxb)):
            let a = Self.range(ta, mina, maxa)
            let b = Self.range(tb, minb, maxb)
            let backward: Verdict =
                b.lowerBound <= a.lowerBound && a.upperBound <= b.upperBound
                ? .compatible("rule 5", "every old value of `\(path)` is in the new range")
                : .breaking("rule 5", "an old record whose `\(path)` is outside \(b.lowerBound)…\(b.upperBound) fails \(corrupted)")
            let forward: Verdict =
                a.lowerBound <= b.lowerBound && b.upperBound <= a.upperBound
                ? .compatible("rule 5", "every new value of `\(path)` is in the old range")
                : .breaking("rule 5", "a new record whose `\(path)` is outside \(a.lowerBound)…\(a.upperBound) fails on old builds: \(corrupted)")
            let kind: SchemaChange.Kind =
                a == b ? .integerFormatChanged
                : backward.isBreaking && forward.isBreaking ? .rangeChanged
                : backward.isBreaking ? .rangeNarrowed : .rangeWidened
            change(
                kind,
                backward: a == b ? .compatible("rule 5", "the same values decode; only the Swift type changes (\(ta) → \(tb))") : backward,
                forward: a == b ? .compatible("rule 5", "the same values decode") : forward)
        case (.integer, .number):
            change(
                .typeWidened,
                backward: .compatible("rule 5", "every old integer `\(path)` is a number"),
                forward: .breaking("rule 5", "a new record with a fraction in `\(path)` fails on old builds: \(corrupted) (a fraction into an integer)"))
        case (.number, .integer):
            change(
                .typeNarrowed,
                backward: .breaking("rule 5", "an old record with a fraction or an out-of-range `\(path)` fails \(corrupted)"),
                forward: .compatible("rule 5", "every new integer `\(path)` is a number"))
        case (.object(let a), .object(let b)):
            guard case .structure(let before)? = old.types[a], case .structure(let after)? = new.types[b] else { return }
            if (before.tuple == nil) != (after.tuple == nil) {
                let kinds = (before.tuple == nil ? "an object" : "an array", after.tuple == nil ? "an object" : "an array")
                change(
                    .typeChanged, "\(kinds.0) → \(kinds.1)",
                    backward: .breaking("rule 5", "an old `\(path)` is \(kinds.0), not \(kinds.1): typeMismatch at `\(path)`, which \(context.outcome)"),
                    forward: .breaking("rule 5", "a new `\(path)` is \(kinds.1), not \(kinds.0), to old builds: typeMismatch at `\(path)`, which \(context.outcome)"))
                return
            }
            if before.location != after.location {
                change(
                    .refChanged, "\(before.location) → \(after.location)",
                    backward: .compatible("rule 2", "the wire carries members, not schema names: the members are compared below"),
                    forward: .compatible("rule 2", "the wire carries members, not schema names: the members are compared below"))
            }
            compareStruct(before, after, DiffContext(catalog: context.catalog, event: context.event, path: path))
        case (.openEnum(let a), .openEnum(let b)):
            guard case .openEnum(let before)? = old.types[a], case .openEnum(let after)? = new.types[b] else { return }
            if before.location != after.location {
                change(
                    .refChanged, "\(before.location) → \(after.location)",
                    backward: .compatible("rule 3", "any string decodes into an open enum: the values are compared below"),
                    forward: .compatible("rule 3", "any string decodes into an open enum: the values are compared below"))
            }
            guard visited.insert("\(before.location) \(after.location)").inserted else { return }
            for value in after.values where !before.values.contains(value) {
                add(
                    after.location.description, .enumValueAdded, "'\(value)'", catalog: catalog, event: context.event, path: path,
                    backward: .compatible("rule 3", "old records never carry '\(value)'"),
                    forward: .compatible("rule 3", "old builds decode '\(value)' as an unrecognised value of the open enum, kept and re-encoded verbatim"))
            }
            for value in before.values where !after.values.contains(value) {
                add(
                    after.location.description, .enumValueRemoved, "'\(value)'", catalog: catalog, event: context.event, path: path,
                    backward: .compatible("rule 3", "old records' '\(value)' decodes as an unrecognised value, kept and re-encoded verbatim"),
                    forward: .compatible("rule 3", "old builds still know '\(value)'"))
            }
        case (.string(let identifier), .openEnum):
            change(
                .typeChanged,
                backward: .compatible("rule 3", "any string decodes into an open enum, kept verbatim"),
                forward: identifier
                    ? .breaking("rule 5", "a new record with an empty `\(path)` fails on old builds: \(corrupted)")
                    : .compatible("rule 3", "old builds read the value as a string"))
        case (.openEnum, .string(let identifier)):
            change(
                .typeChanged,
                backward: identifier
                    ? .breaking("rule 5", "an old record with an empty `\(path)` fails \(corrupted)")
                    : .compatible("rule 3", "every open-enum value is a string"),
                forward: .compatible("rule 3", "old builds decode any string into the open enum"))
        case (.string, .timestamp):
            change(
                .typeNarrowed,
                backward: .breaking("rule 5", "an old record whose `\(path)` is not an RFC 3339 date-time fails \(corrupted)"),
                forward: .compatible("rule 5", "every new date-time is a string"))
        case (.timestamp, .string(let identifier)):
            change(
                .typeWidened,
                backward: identifier
                    ? .compatible("rule 5", "every old date-time is a non-empty string")
                    : .compatible("rule 5", "every old date-time is a string"),
                forward: .breaking("rule 5", "a new record whose `\(path)` is not an RFC 3339 date-time fails on old builds: \(corrupted)"))
        case (.array(let a), .array(let b)):
            compareType(a, b, path: path + "[*]", pointer: pointer + "/items", context)
        default:
            change(
                .typeChanged,
                backward: .breaking("rule 5", "an old `\(path)` is not a \(Self.describe(n)): typeMismatch at `\(path)`, which \(context.outcome)"),
                forward: .breaking("rule 5", "a new `\(path)` is not a \(Self.describe(o)) to old builds: typeMismatch at `\(path)`, which \(context.outcome)"))
        }
    }
}

extension CodegenConfiguration.CatalogEntry {
    /// A catalog to read without a configuration file (`schema check` on a directory of schemas).
    public init(name: String, schema: String, swiftName: String? = nil, policy: CatalogPolicy, validatesFormats: Bool = false) {
        self.init(
            name: name, schema: schema, swiftName: swiftName ?? Naming.upperCamel(Naming.words(name)) + "Event", policy: policy,
            validatesFormats: validatesFormats)
    }
}
