import Testing

@testable import SwitchyardCodegenCore

/// Two versions of an `orders` catalog in memory, for `SchemaDiff`: each event is its own file
/// `events/<tag>.json` over the envelope in `common.json`, whose `$defs` can be extended.
struct Catalog {
    var events: [(tag: String, properties: String, required: [String])]
    var policy: CatalogPolicy = .strict
    /// Extra `$defs` in common.json (JSON members text).
    var defs = ""
    /// Overrides the `$ref` of an entry (tag → file).
    var refs: [String: String] = [:]
    /// The catalog's `validateFormats`.
    var validatesFormats = false

    static func placed(_ properties: String, required: [String] = [], policy: CatalogPolicy = .strict, defs: String = "") -> Catalog {
        Catalog(events: [("order.placed", properties, required)], policy: policy, defs: defs)
    }

    var files: [String: String] {
        var entries = events.map { e in
            #"{"properties": {"type": {"const": "\#(e.tag)"}}, "$ref": "\#(refs[e.tag] ?? "events/\(e.tag).json")"}"#
        }
        var defsText = ""
        if policy == .lenient {
            entries.append(##"{"$ref": "#/$defs/UnknownEvent"}"##)
            let tags = events.map { "\"\($0.tag)\"" }.joined(separator: ", ")
            defsText = #", "$defs": {"UnknownEvent": {"type": "object", "required": ["type"], "properties": {"type": {"type": "string", "not": {"enum": [\#(tags)]}}}}}"#
        }
        var files: [String: String] = [
            "orders.json": #"{"oneOf": [\#(entries.joined(separator: ", "))]\#(defsText)}"#,
            "common.json": #"""
                {"$defs": {
                  "Envelope": {"type": "object", "required": ["type", "id", "occurredAt"], "properties": {
                    "type": {"type": "string"},
                    "id": {"type": "string", "minLength": 1},
                    "occurredAt": {"type": "string", "format": "date-time"},
                    "schemaVersion": {"type": "integer", "minimum": 1, "default": 1}}},
                  "Money": {"type": "object", "required": ["value", "currency"], "properties": {
                    "value": {"type": "integer", "format": "int64"}, "currency": {"type": "string"}}}\#(defs.isEmpty ? "" : ", " + defs)
                }}
                """#,
        ]
        for e in events {
            let required = (["type", "id", "occurredAt"] + e.required).map { "\"\($0)\"" }.joined(separator: ", ")
            files["events/\(e.tag).json"] =
                #"{"$ref": "../common.json#/$defs/Envelope", "type": "object", "required": [\#(required)], "properties": {"type": {"const": "\#(e.tag)"}\#(e.properties.isEmpty ? "" : ", " + e.properties)}}"#
        }
        return files
    }

    func snapshot() throws -> SchemaSnapshot {
        let files = self.files
        return try SchemaSnapshot.read([.init(name: "orders", schema: "orders.json", policy: policy, validatesFormats: validatesFormats)]) { files[$0].map { Array($0.utf8) } }
    }
}

func diff(_ old: Catalog, _ new: Catalog) throws -> [SchemaChange] {
    SchemaDiff.compare(old: try old.snapshot(), new: try new.snapshot())
}

/// The one change between two schemas.
func only(_ old: Catalog, _ new: Catalog) throws -> SchemaChange {
    let changes = try diff(old, new)
    #expect(changes.count == 1, "\(changes.map(\.line))")
    return try #require(changes.first)
}

let placedPointer = "events/order.placed.json#/properties"

@Suite struct SchemaDiffMemberTests {
    @Test func aFieldAddedWithoutADefaultBreaksOldRecordsWithKeyNotFound() throws {
        let change = try only(.placed(""), .placed(#""warehouseId": {"type": "string"}"#, required: ["warehouseId"]))
        #expect(change.kind == .memberAddedRequired)
        #expect(change.pointer == "\(placedPointer)/warehouseId")
        #expect(change.recordPath == "warehouseId")
        #expect(change.backward == .breaking("rule 4", "old records lack `warehouseId`: keyNotFound at `warehouseId`, which halts the partition (strict `orders`); a required member is never defaulted"))
        #expect(change.forward == .compatible("rule 2", "old builds keep `warehouseId` as an unknown field"))
        #expect(change.line == "\(placedPointer)/warehouseId: member added without a default 'warehouseId': backward breaking (rule 4), forward compatible (rule 2)")
        #expect(change.deployOrder?.hasPrefix("producers before consumers, and only once no old record remains to be read") == true)
    }

    @Test func onALenientCatalogTheFailureIsDeadLettered() throws {
        let change = try only(.placed("", policy: .lenient), .placed(#""warehouseId": {"type": "string"}"#, required: ["warehouseId"], policy: .lenient))
        #expect(change.backward.reason.contains("which is dead-lettered (lenient `orders`)"))
    }

    @Test func theSameFieldWithADefaultIsCompatible() throws {
        let change = try only(.placed(""), .placed(#""warehouseId": {"type": "string", "default": "main"}"#))
        #expect(change.kind == .memberAddedDefaulted)
        #expect(change.detail == #"'warehouseId' = "main""#)
        #expect(change.backward == .compatible("rule 4", #"old records without `warehouseId` decode with the default "main""#))
        #expect(change.forward == .compatible("rule 2", "old builds keep `warehouseId` as an unknown field"))
        #expect(change.isCompatible && change.deployOrder == nil)
    }

    @Test func anOptionalFieldAddedIsCompatible() throws {
        let change = try only(.placed(""), .placed(#""note": {"type": "string"}"#))
        #expect(change.kind == .memberAddedOptional)
        #expect(change.isCompatible)
    }

    @Test func anIdentityGivenADefaultIsRefused() throws {
        var new = Catalog.placed("")
        var files = new.files
        files["common.json"] = files["common.json"]!.replacing(#""id": {"type": "string", "minLength": 1}"#, with: #""id": {"type": "string", "minLength": 1, "default": "x"}"#)
        let error = #expect(throws: CodegenErrors.self) {
            _ = try SchemaSnapshot.read([.init(name: "orders", schema: "orders.json", policy: .strict)]) { files[$0].map { Array($0.utf8) } }
        }
        #expect(error?.errors.map(\.description) == ["common.json:#/$defs/Envelope/properties/id: the identity 'id' is never defaulted (PRODUCT.md): remove its 'default'"])
        // Nor is any required member.
        new = .placed(#""orderId": {"type": "string", "minLength": 1, "default": "x"}"#, required: ["orderId"])
        #expect(throws: CodegenErrors.self) { _ = try new.snapshot() }
    }

    @Test func aRequiredMemberRemovedBreaksOldBuilds() throws {
        let change = try only(.placed(#""sku": {"type": "string"}"#, required: ["sku"]), .placed(""))
        #expect(change.kind == .memberRemoved)
        #expect(change.detail == "'sku' (was required)")
        #expect(change.backward == .compatible("rule 2", "old records' `sku` is kept as an unknown field and written back"))
        #expect(change.forward == .breaking("rule 4", "new records lack `sku`: old builds fail keyNotFound at `sku`, which halts the partition (strict `orders`)"))
        #expect(change.deployOrder == "consumers before producers: new records lack `sku`: old builds fail keyNotFound at `sku`, which halts the partition (strict `orders`)")
    }

    @Test func anOptionalMemberRemovedIsCompatible() throws {
        let change = try only(.placed(#""note": {"type": "string"}"#), .placed(""))
        #expect(change.kind == .memberRemoved && change.isCompatible)
        #expect(change.forward.reason == "old builds read the absent `note` as nil")
    }

    @Test func requiredToOptionalIsConsumersFirst() throws {
        let change = try only(.placed(#""sku": {"type": "string"}"#, required: ["sku"]), .placed(#""sku": {"type": "string"}"#))
        #expect(change.kind == .requiredToOptional)
        #expect(!change.backward.isBreaking && change.forward.isBreaking)
        #expect(change.forward.rule == "rule 4")
        #expect(change.deployOrder?.hasPrefix("consumers before producers: records without `sku` fail keyNotFound") == true)
    }

    @Test func requiredToDefaultedIsConsumersFirst() throws {
        let change = try only(.placed(#""qty": {"type": "integer"}"#, required: ["qty"]), .placed(#""qty": {"type": "integer", "default": 1}"#))
        #expect(change.kind == .requiredToDefaulted)
        #expect(change.detail == "'qty' = 1")
        #expect(!change.backward.isBreaking && change.forward.isBreaking)
    }

    @Test(arguments: [#""sku": {"type": "string"}"#, #""sku": {"type": "string", "default": ""}"#])
    func becomingRequiredBreaksOldRecords(old: String) throws {
        let change = try only(.placed(old), .placed(#""sku": {"type": "string"}"#, required: ["sku"]))
        #expect(change.kind == .becameRequired)
        #expect(change.backward.isBreaking && !change.forward.isBreaking)
        #expect(change.backward.reason.hasPrefix("old records without `sku` fail keyNotFound at `sku`"))
        #expect(change.deployOrder?.hasPrefix("producers before consumers") == true)
    }

    @Test func defaultAddedRemovedChanged() throws {
        let optional = Catalog.placed(#""qty": {"type": "integer"}"#)
        let one = Catalog.placed(#""qty": {"type": "integer", "default": 1}"#)
        let two = Catalog.placed(#""qty": {"type": "integer", "default": 2}"#)
        let added = try only(optional, one)
        #expect(added.kind == .defaultAdded && added.isCompatible && added.detail == "1")
        let removed = try only(one, optional)
        #expect(removed.kind == .defaultRemoved && removed.isCompatible)
        let changed = try only(one, two)
        #expect(changed.kind == .defaultChanged && changed.detail == "1 → 2")
        #expect(changed.backward == .breaking("rule 4", "old records without `qty` silently decode as 2 instead of 1"))
        #expect(changed.forward.isBreaking)
        #expect(changed.deployOrder?.hasPrefix("none is safe") == true)
    }
}

@Suite struct SchemaDiffTypeTests {
    func change(_ old: String, _ new: String) throws -> SchemaChange {
        try only(.placed(#""n": \#(old)"#, required: ["n"]), .placed(#""n": \#(new)"#, required: ["n"]))
    }

    @Test func integerToNumberWidensAndNumberToIntegerNarrows() throws {
        let widened = try change(#"{"type": "integer"}"#, #"{"type": "number"}"#)
        #expect(widened.kind == .typeWidened && widened.detail == "Int → ExactNumber")
        #expect(!widened.backward.isBreaking && widened.forward.isBreaking)
        #expect(widened.deployOrder?.hasPrefix("consumers before producers: a new record with a fraction in `n` fails on old builds: dataCorrupted at `n`") == true)
        let narrowed = try change(#"{"type": "number"}"#, #"{"type": "integer"}"#)
        #expect(narrowed.kind == .typeNarrowed && narrowed.detail == "ExactNumber → Int")
        #expect(narrowed.backward == .breaking("rule 5", "an old record with a fraction or an out-of-range `n` fails dataCorrupted at `n`, which halts the partition (strict `orders`)"))
        #expect(!narrowed.forward.isBreaking)
    }

    @Test func rangesNarrowedWidenedChanged() throws {
        let narrowed = try change(#"{"type": "integer", "minimum": 0}"#, #"{"type": "integer", "minimum": 1}"#)
        #expect(narrowed.kind == .rangeNarrowed && narrowed.detail == "Int 0…… → Int 1……")
        #expect(narrowed.backward.isBreaking && !narrowed.forward.isBreaking)
        #expect(narrowed.backward.reason.hasPrefix("an old record whose `n` is outside 1…9223372036854775807 fails dataCorrupted at `n`"))
        let widened = try change(#"{"type": "integer", "maximum": 12}"#, #"{"type": "integer"}"#)
        #expect(widened.kind == .rangeWidened && !widened.backward.isBreaking && widened.forward.isBreaking)
        let shifted = try change(#"{"type": "integer", "minimum": 0, "maximum": 10}"#, #"{"type": "integer", "minimum": 5, "maximum": 20}"#)
        #expect(shifted.kind == .rangeChanged && shifted.backward.isBreaking && shifted.forward.isBreaking)
        let int32To64 = try change(#"{"type": "integer", "format": "int32"}"#, #"{"type": "integer", "format": "int64"}"#)
        #expect(int32To64.kind == .rangeWidened && int32To64.detail == "Int32 → Int64")
        let sameRange = try change(#"{"type": "integer"}"#, #"{"type": "integer", "format": "int64"}"#)
        #expect(sameRange.kind == .integerFormatChanged && sameRange.isCompatible)
    }

    @Test func minLengthAddedAndRemoved() throws {
        let added = try change(#"{"type": "string"}"#, #"{"type": "string", "minLength": 1}"#)
        #expect(added.kind == .identityRuleAdded)
        #expect(added.backward == .breaking("rule 5", "an old record with an empty `n` fails dataCorrupted at `n`, which halts the partition (strict `orders`)"))
        #expect(!added.forward.isBreaking)
        let removed = try change(#"{"type": "string", "minLength": 1}"#, #"{"type": "string"}"#)
        #expect(removed.kind == .identityRuleRemoved && !removed.backward.isBreaking && removed.forward.isBreaking)
        #expect(removed.deployOrder?.hasPrefix("consumers before producers") == true)
    }

    @Test func stringAndDateTime() throws {
        let narrowed = try change(#"{"type": "string"}"#, #"{"type": "string", "format": "date-time"}"#)
        #expect(narrowed.kind == .typeNarrowed && narrowed.backward.isBreaking && !narrowed.forward.isBreaking)
        let widened = try change(#"{"type": "string", "format": "date-time"}"#, #"{"type": "string"}"#)
        #expect(widened.kind == .typeWidened && !widened.backward.isBreaking && widened.forward.isBreaking)
    }

    @Test func aFormatIsACheckOnlyInACatalogThatValidatesFormats() throws {
        func changes(_ old: String, _ new: String, validating: (Bool, Bool) = (true, true)) throws -> [SchemaChange] {
            var before = Catalog.placed(#""n": \#(old)"#, required: ["n"])
            var after = Catalog.placed(#""n": \#(new)"#, required: ["n"])
            before.validatesFormats = validating.0
            after.validatesFormats = validating.1
            return try diff(before, after)
        }
        func one(_ old: String, _ new: String, validating: (Bool, Bool) = (true, true)) throws -> SchemaChange {
            let found = try changes(old, new, validating: validating)
            #expect(found.count == 1, "\(found.map(\.line))")
            return try #require(found.first)
        }
        // Annotations: adding, changing or removing one changes no record's outcome.
        #expect(try changes(#"{"type": "string"}"#, #"{"type": "string", "format": "uuid"}"#, validating: (false, false)).isEmpty)
        #expect(try changes(#"{"type": "string", "format": "uuid"}"#, #"{"type": "string", "format": "email"}"#, validating: (false, false)).isEmpty)
        // A format the catalog does not know stays an annotation in a validating one.
        #expect(try changes(#"{"type": "string"}"#, #"{"type": "string", "format": "x-team"}"#).isEmpty)
        // Added to an existing member: old records may not be in the format.
        let added = try one(#"{"type": "string"}"#, #"{"type": "string", "format": "uuid"}"#)
        #expect(added.kind == .formatCheckAdded && added.detail == "'uuid'" && added.pointer == "\(placedPointer)/n")
        #expect(added.backward == .breaking("rule 5", "an old record whose `n` is not a valid uuid fails dataCorrupted at `n`, which halts the partition (strict `orders`)"))
        #expect(!added.forward.isBreaking)
        // Removed: old records pass; new ones may fail on old builds, so consumers deploy first.
        let removed = try one(#"{"type": "string", "format": "uuid"}"#, #"{"type": "string"}"#)
        #expect(removed.kind == .formatCheckRemoved && !removed.backward.isBreaking && removed.forward.isBreaking)
        #expect(removed.deployOrder?.hasPrefix("consumers before producers: a new record whose `n` is not a valid uuid fails on old builds") == true)
        // Changed: each side may fail the other's records.
        let changed = try one(#"{"type": "string", "format": "uuid"}"#, #"{"type": "string", "format": "email"}"#)
        #expect(changed.kind == .formatCheckChanged && changed.detail == "'uuid' → 'email'" && changed.backward.isBreaking && changed.forward.isBreaking)
        // The catalog turning validation on or off is the same change for every formatted member.
        let turnedOn = try one(#"{"type": "string", "format": "uuid"}"#, #"{"type": "string", "format": "uuid"}"#, validating: (false, true))
        #expect(turnedOn.kind == .formatCheckAdded && turnedOn.backward.isBreaking)
        let turnedOff = try one(#"{"type": "string", "format": "uuid"}"#, #"{"type": "string", "format": "uuid"}"#, validating: (true, false))
        #expect(turnedOff.kind == .formatCheckRemoved && !turnedOff.backward.isBreaking && turnedOff.forward.isBreaking)
    }

    @Test func aTypeChangeThatMakesAValidValueFailBreaksBothWays() throws {
        let change = try change(#"{"type": "string"}"#, #"{"type": "integer"}"#)
        #expect(change.kind == .typeChanged && change.detail == "String → Int")
        #expect(change.backward == .breaking("rule 5", "an old `n` is not a Int: typeMismatch at `n`, which halts the partition (strict `orders`)"))
        #expect(change.forward.isBreaking)
        #expect(change.deployOrder == "none is safe: old and new records each fail on the other build; add a new member or event type instead")
        let enumToBool = try self.change(#"{"enum": ["a", "b"]}"#, #"{"type": "boolean"}"#)
        #expect(enumToBool.kind == .typeChanged && enumToBool.backward.isBreaking && enumToBool.forward.isBreaking)
    }

    @Test func tuplesAreComparedByPosition() throws {
        func tuple(_ positions: String, items: String = "") -> String {
            #"{"type": "array", "prefixItems": [\#(positions)], "minItems": \#(positions.components(separatedBy: "type").count - 1)\#(items)}"#
        }
        let two = #"{"type": "integer"}, {"type": "string"}"#
        // A position's type is compared at its index.
        let retyped = try change(tuple(two), tuple(#"{"type": "integer"}, {"type": "boolean"}"#))
        #expect(retyped.kind == .typeChanged && retyped.recordPath == "n[1]" && retyped.pointer == "\(placedPointer)/n/prefixItems/1")
        // A position added: old arrays lack it; old builds keep it as an extra item, unless they refuse extra items.
        let added = try change(tuple(two), tuple(two + #", {"type": "boolean"}"#))
        #expect(added.kind == .tuplePositionAdded && added.recordPath == "n[2]" && added.backward.isBreaking && !added.forward.isBreaking)
        let addedClosed = try change(tuple(two, items: #", "items": false"#), tuple(two + #", {"type": "boolean"}"#, items: #", "items": false"#))
        #expect(addedClosed.kind == .tuplePositionAdded && addedClosed.backward.isBreaking && addedClosed.forward.isBreaking)
        // A position removed: kept as an extra item by the new build; old builds need it.
        let removed = try change(tuple(two), tuple(#"{"type": "integer"}"#))
        #expect(removed.kind == .tuplePositionRemoved && !removed.backward.isBreaking && removed.forward.isBreaking)
        // Extra items refused, then kept again.
        let refused = try change(tuple(two), tuple(two, items: #", "items": false"#))
        #expect(refused.kind == .tupleExtraItemsRefused && refused.backward.isBreaking && !refused.forward.isBreaking)
        let kept = try change(tuple(two, items: #", "items": false"#), tuple(two))
        #expect(kept.kind == .tupleExtraItemsKept && !kept.backward.isBreaking && kept.forward.isBreaking)
        // An object that becomes a tuple: every record of either fails on the other build.
        let reshaped = try change(#"{"type": "object", "properties": {"a": {"type": "integer"}}}"#, tuple(two))
        #expect(reshaped.kind == .typeChanged && reshaped.detail == "an object → an array" && reshaped.backward.isBreaking && reshaped.forward.isBreaking)
    }

    @Test func arrayItemsAreComparedAtTheirPointer() throws {
        let change = try change(#"{"type": "array", "items": {"type": "integer"}}"#, #"{"type": "array", "items": {"type": "string"}}"#)
        #expect(change.pointer == "\(placedPointer)/n/items")
        #expect(change.recordPath == "n[*]")
        #expect(change.kind == .typeChanged)
    }
}

@Suite struct SchemaDiffEnumTests {
    let old = Catalog.placed(#""status": {"anyOf": [{"enum": ["open", "paid"]}, {"type": "string"}], "default": "open"}"#)

    @Test func aNewValueOnAnOpenEnumIsCompatible() throws {
        let change = try only(old, .placed(#""status": {"anyOf": [{"enum": ["open", "paid", "refunded"]}, {"type": "string"}], "default": "open"}"#))
        #expect(change.kind == .enumValueAdded && change.detail == "'refunded'")
        #expect(change.pointer == "\(placedPointer)/status")
        #expect(change.backward == .compatible("rule 3", "old records never carry 'refunded'"))
        #expect(change.forward == .compatible("rule 3", "old builds decode 'refunded' as an unrecognised value of the open enum, kept and re-encoded verbatim"))
        #expect(change.deployOrder == nil)
    }

    @Test func aValueRemovedFromAnOpenEnumIsCompatible() throws {
        let change = try only(old, .placed(#""status": {"anyOf": [{"enum": ["open"]}, {"type": "string"}], "default": "open"}"#))
        #expect(change.kind == .enumValueRemoved && change.isCompatible)
    }

    @Test func stringToOpenEnumAndBackIsCompatible() throws {
        let string = Catalog.placed(#""status": {"type": "string", "default": "open"}"#)
        let toEnum = try only(string, old)
        #expect(toEnum.kind == .typeChanged && toEnum.isCompatible)
        let toString = try only(old, string)
        #expect(toString.kind == .typeChanged && toString.isCompatible)
    }
}

@Suite struct SchemaDiffCatalogTests {
    let placed = (tag: "order.placed", properties: #""sku": {"type": "string"}"#, required: ["sku"])
    let shipped = (tag: "order.shipped", properties: "", required: [String]())

    @Test func aNewEventTypeOnAStrictCatalogIsConsumersFirst() throws {
        let change = try only(Catalog(events: [placed]), Catalog(events: [placed, shipped]))
        #expect(change.kind == .eventAdded && change.detail == "'order.shipped'")
        #expect(change.pointer == "orders.json#/oneOf/1")
        #expect(change.backward == .compatible("rule 1", "no old record carries 'order.shipped'"))
        #expect(change.forward == .breaking("strict policy", "a new event type on strict `orders` halts every partition that receives it before the consumers know it (unknownType)"))
        #expect(change.deployOrder == "consumers before producers: a new event type on strict `orders` halts every partition that receives it before the consumers know it (unknownType)")
    }

    @Test func aNewEventTypeOnALenientCatalogIsCompatible() throws {
        let change = try only(Catalog(events: [placed], policy: .lenient), Catalog(events: [placed, shipped], policy: .lenient))
        #expect(change.kind == .eventAdded && change.isCompatible)
        #expect(change.forward.reason == "old builds hand 'order.shipped' on as .unknown and republish it untouched (lenient `orders`)")
    }

    @Test func anEventTypeRemovedFromAStrictCatalogHaltsOnOldRecords() throws {
        let change = try only(Catalog(events: [placed, shipped]), Catalog(events: [placed]))
        #expect(change.kind == .eventRemoved && change.oldTag == "order.shipped")
        #expect(change.pointer == "orders.json#/oneOf/1")
        #expect(change.backward == .breaking("strict policy", "old records tagged 'order.shipped' fail unknownType and halt the partition (strict `orders`)"))
        #expect(!change.forward.isBreaking)
        #expect(change.deployOrder?.hasPrefix("producers before consumers") == true)
    }

    @Test func anEventTypeRemovedFromALenientCatalogIsCompatible() throws {
        let change = try only(Catalog(events: [placed, shipped], policy: .lenient), Catalog(events: [placed], policy: .lenient))
        #expect(change.kind == .eventRemoved && change.isCompatible)
    }

    @Test func aRenamedTagBreaksBothWays() throws {
        var new = Catalog(events: [placed, (tag: "order.dispatched", properties: "", required: [])])
        new.refs["order.dispatched"] = "events/order.shipped.json"
        var files = new.files
        files["events/order.shipped.json"] = Catalog(events: [placed, shipped]).files["events/order.shipped.json"]!.replacing("order.shipped", with: "order.dispatched")
        let newSnapshot = try SchemaSnapshot.read([.init(name: "orders", schema: "orders.json", policy: .strict)]) { files[$0].map { Array($0.utf8) } }
        let changes = SchemaDiff.compare(old: try Catalog(events: [placed, shipped]).snapshot(), new: newSnapshot)
        #expect(changes.count == 1, "\(changes.map(\.line))")
        let change = try #require(changes.first)
        #expect(change.kind == .tagRenamed && change.detail == "'order.shipped' → 'order.dispatched'")
        #expect(change.backward.isBreaking && change.forward.isBreaking)
        #expect(change.deployOrder?.hasPrefix("none is safe") == true)
    }

    @Test func aPolicyMadeStrictBreaksOldUnknownRecords() throws {
        let lenient = Catalog(events: [placed], policy: .lenient)
        let change = try only(lenient, Catalog(events: [placed]))
        #expect(change.kind == .policyChanged && change.detail == "lenient → strict")
        #expect(change.backward.isBreaking && !change.forward.isBreaking)
        let relaxed = try only(Catalog(events: [placed]), lenient)
        #expect(relaxed.isCompatible)
    }

    @Test func aRefTargetChangedComparesTheMembersBelowIt() throws {
        let money2 = #""Money2": {"type": "object", "required": ["value", "currency", "scale"], "properties": {"value": {"type": "integer", "format": "int64"}, "currency": {"type": "string"}, "scale": {"type": "integer"}}}"#
        let old = Catalog.placed(#""total": {"$ref": "../common.json#/$defs/Money"}"#, required: ["total"], defs: money2)
        let new = Catalog.placed(#""total": {"$ref": "../common.json#/$defs/Money2"}"#, required: ["total"], defs: money2)
        let changes = try diff(old, new)
        #expect(changes.map(\.kind) == [.refChanged, .memberAddedRequired])
        #expect(changes[0].pointer == "\(placedPointer)/total")
        #expect(changes[0].detail == "common.json#/$defs/Money → common.json#/$defs/Money2")
        #expect(changes[0].isCompatible)
        #expect(changes[1].pointer == "common.json#/$defs/Money2/properties/scale")
        #expect(changes[1].recordPath == "total.scale")
        #expect(changes[1].backward.reason.hasPrefix("old records lack `total.scale`: keyNotFound at `total.scale`"))
    }

    @Test func aSharedTypeIsComparedOnce() throws {
        let old = Catalog(events: [
            ("order.placed", #""total": {"$ref": "../common.json#/$defs/Money"}"#, ["total"]),
            ("order.shipped", #""total": {"$ref": "../common.json#/$defs/Money"}"#, ["total"]),
        ])
        var files = old.files
        files["common.json"] = files["common.json"]!.replacing(#""currency": {"type": "string"}"#, with: #""currency": {"type": "string"}, "rate": {"type": "number"}"#)
        let new = try SchemaSnapshot.read([.init(name: "orders", schema: "orders.json", policy: .strict)]) { files[$0].map { Array($0.utf8) } }
        let changes = SchemaDiff.compare(old: try old.snapshot(), new: new)
        #expect(changes.map(\.line) == ["common.json#/$defs/Money/properties/rate: optional member added 'rate': backward compatible (rule 4), forward compatible (rule 2)"])
    }

    @Test func identicalSchemasHaveNoChanges() throws {
        #expect(try diff(Catalog(events: [placed, shipped]), Catalog(events: [placed, shipped])).isEmpty)
    }

    @Test func declaredPolicyComesFromTheUnknownEventsBranch() throws {
        let lenient = try JSONParser.parse(Array(Catalog(events: [placed], policy: .lenient).files["orders.json"]!.utf8))
        let strict = try JSONParser.parse(Array(Catalog(events: [placed]).files["orders.json"]!.utf8))
        #expect(SchemaSnapshot.declaredPolicy(ofCatalogSchema: lenient) == .lenient)
        #expect(SchemaSnapshot.declaredPolicy(ofCatalogSchema: strict) == .strict)
        #expect(SchemaSnapshot.isCatalogSchema(strict))
    }
}

@Suite struct SchemaEvidenceTests {
    /// Checks a record of `snapshot`'s first catalog as `schema check --records` does: each violation as
    /// "kind path", another outcome as its description, nothing for a record that decodes.
    static func violations(_ snapshot: SchemaSnapshot) -> (String) -> [String] {
        let rules = RecordRules(snapshot: snapshot)
        return { record in
            switch rules.check(Array(record.utf8), catalog: snapshot.catalogs[0]) {
            case .decoded: []
            case .failed(_, let violations): violations.map { "\($0.kind) \($0.path)" }
            case let other: ["\(other)"]
            }
        }
    }

    @Test func countsTheRecordsEachChangeAffects() throws {
        let old = try Catalog.placed("").snapshot()
        let new = try Catalog.placed(#""warehouseId": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}"#, required: ["warehouseId"]).snapshot()
        let changes = SchemaDiff.compare(old: old, new: new)
        #expect(changes.map(\.kind) == [.memberAddedRequired, .memberAddedOptional])
        var evidence = SchemaEvidence(changes: changes, old: old, new: new)
        let envelope = #""type": "order.placed", "id": "o1", "occurredAt": "2025-03-14T09:26:53Z""#
        for record in [
            "{\(envelope)}", "{\(envelope)}", #"{\#(envelope), "warehouseId": "w1"}"#, #"{\#(envelope), "warehouseId": "w1", "qty": 0}"#,
            "not json", #"{"type": "order.cancelled", "id": "x", "occurredAt": "2025-03-14T09:26:53Z"}"#,
        ] {
            evidence.add(Array(record.utf8))
        }
        #expect(evidence.records == ["orders": 5])
        #expect(evidence.unreadable == 1)
        #expect(evidence.failing == ["orders": 4])
        #expect(evidence.summary(0) == "2 of 5 records lack `warehouseId`, which is now required")
        #expect(evidence.summary(1) == "1 of 5 records fail at `qty` under the new schema (dataCorrupted)")
    }

    @Test func rulesOnParsedRecords() throws {
        let snapshot = try Catalog.placed(
            #""sku": {"type": "string", "minLength": 1}, "at": {"type": "string", "format": "date-time"}, "tags": {"type": "array", "items": {"type": "integer"}}, "total": {"$ref": "../common.json#/$defs/Money"}"#,
            required: ["sku"]
        ).snapshot()
        let rules = RecordRules(snapshot: snapshot)
        let catalog = snapshot.catalogs[0]
        func outcome(_ members: String) -> RecordRules.Outcome {
            rules.check(Array(#"{"type": "order.placed", "id": "o1", "occurredAt": "2025-03-14T09:26:53.5+05:30"\#(members)}"#.utf8), catalog: catalog)
        }
        #expect(outcome(#", "sku": "a""#) == .decoded(tag: "order.placed"))
        let failed = outcome(#", "sku": "", "at": "yesterday", "tags": [1, 2.5], "total": {"value": "1", "currency": "EUR"}"#)
        guard case .failed(_, let violations) = failed else {
            Issue.record("expected a failure, got \(failed)")
            return
        }
        #expect(violations.map(\.kind) == ["dataCorrupted", "dataCorrupted", "dataCorrupted", "typeMismatch"])
        #expect(violations.map(\.path) == ["sku", "at", "tags[1]", "total.value"])
        #expect(violations[2].pointer == "\(placedPointer)/tags/items")
        #expect(outcome("") == .failed(tag: "order.placed", violations: [.init(pointer: "\(placedPointer)/sku", kind: "keyNotFound", path: "sku")]))
        #expect(rules.check(Array(#"{"type": "order.x"}"#.utf8), catalog: catalog) == .unknownType(tag: "order.x"))
        #expect(RecordRules.isDateTime("2025-03-14T09:26:53Z") && !RecordRules.isDateTime("2025-03-14 09:26:53Z"))
    }

    /// The rules of an event without the envelope: validation keywords, nullable members, maps and unions.
    @Test func rulesOfSchemasAsTeamsWriteThem() throws {
        var catalog = Catalog.placed("")
        catalog.refs["order.placed"] = "events/plain.json"
        var files = catalog.files
        files["events/plain.json"] = ##"""
            {"type": "object", "required": ["type", "code", "note", "pay"], "properties": {
              "type": {"const": "order.placed"},
              "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
              "note": {"type": ["string", "null"], "maxLength": 4},
              "price": {"type": "number", "minimum": 0, "multipleOf": 0.01},
              "labels": {"type": "object", "additionalProperties": {"type": "string"}},
              "pay": {"oneOf": [
                {"type": "object", "required": ["kind", "last4"], "properties": {"kind": {"const": "card"}, "last4": {"type": "string"}}},
                {"type": "object", "required": ["kind"], "properties": {"kind": {"const": "bank"}}}]}}}
            """##
        let snapshot = try SchemaSnapshot.read([.init(name: "orders", schema: "orders.json", policy: .strict)]) { files[$0].map { Array($0.utf8) } }
        let violations = Self.violations(snapshot)
        // No envelope is asked for; a nullable member may be null; an unknown discriminator is the union's unknown.
        #expect(violations(#"{"type": "order.placed", "code": "EUR", "note": null, "pay": {"kind": "crypto"}}"#) == [])
        #expect(violations(#"{"type": "order.placed", "code": "EUR", "note": "ok", "price": 1.25, "labels": {"a": "b"}, "pay": {"kind": "card", "last4": "1"}}"#) == [])
        #expect(
            violations(#"{"type": "order.placed", "code": "eur", "note": "too long", "price": 1.005, "labels": {"a": 1}, "pay": {"kind": "card"}}"#)
                == ["dataCorrupted code", "dataCorrupted note", "dataCorrupted price", "typeMismatch labels.a", "keyNotFound pay.last4"])
        #expect(violations(#"{"type": "order.placed", "code": "EUR", "pay": {}}"#) == ["keyNotFound note", "keyNotFound pay.kind"])
    }

    @Test func rulesOfTuples() throws {
        var catalog = Catalog.placed("")
        catalog.refs["order.placed"] = "events/plain.json"
        var files = catalog.files
        files["events/plain.json"] = #"""
            {"type": "object", "required": ["type"], "properties": {
              "type": {"const": "order.placed"},
              "point": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "minItems": 2, "items": false},
              "entry": {"type": "array", "prefixItems": [{"type": "boolean"}], "minItems": 1}}}
            """#
        let snapshot = try SchemaSnapshot.read([.init(name: "orders", schema: "orders.json", policy: .strict)]) { files[$0].map { Array($0.utf8) } }
        let violations = Self.violations(snapshot)
        // The decoder's outcomes (the conformance case prefix-items): positions by index, extra items kept or refused.
        #expect(violations(#"{"type": "order.placed", "point": [1, "a"], "entry": [true, 1, {}]}"#) == [])
        #expect(violations(#"{"type": "order.placed", "point": [1, 2]}"#) == ["typeMismatch point[1]"])
        #expect(violations(#"{"type": "order.placed", "point": [1]}"#) == ["valueNotFound point[1]"])
        #expect(violations(#"{"type": "order.placed", "point": [1, "a", 3]}"#) == ["dataCorrupted point"])
        #expect(violations(#"{"type": "order.placed", "point": {"x": 1}}"#) == ["typeMismatch point"])
    }
}
