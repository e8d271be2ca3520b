import Testing

@testable import SwitchyardCodegenCore

/// A catalog in memory: `catalog.json` lists the events; `common.json` has the envelope.
struct SchemaSet {
    var files: [String: String]
    var policy = "strict"
    /// The catalog's `validateFormats`.
    var validateFormats = false

    static let common = #"""
        {"$defs": {
          "Envelope": {"type": "object", "required": ["type", "id", "occurredAt"], "properties": {
            "type": {"type": "string"},
            "id": {"type": "string", "minLength": 1},
            "occurredAt": {"type": "string", "format": "date-time"},
            "schemaVersion": {"type": "integer", "minimum": 1, "default": 1}}},
          "Money": {"type": "object", "required": ["value", "currency"], "properties": {
            "value": {"type": "integer", "format": "int64"}, "currency": {"type": "string"}}}
        }}
        """#

    /// One event `order.placed` whose own properties are `properties` (JSON text) and required list `required`.
    static func event(_ properties: String, required: [String] = [], extra: String = "") -> SchemaSet {
        let requiredList = (["type", "id", "occurredAt"] + required).map { "\"\($0)\"" }.joined(separator: ", ")
        return SchemaSet(files: [
            "catalog.json": #"{"oneOf": [{"properties": {"type": {"const": "order.placed"}}, "$ref": "events/placed.json"}]}"#,
            "common.json": common,
            "events/placed.json": #"{"$ref": "../common.json#/$defs/Envelope", "type": "object", "required": [\#(requiredList)], "properties": {"type": {"const": "order.placed"}\#(properties.isEmpty ? "" : ", " + properties)}\#(extra)}"#,
        ])
    }

    func generate() throws -> String {
        let config = try CodegenConfiguration.parse(Array(#"{"catalogs": [{"name": "orders", "schema": "catalog.json", "swiftName": "OrderEvent", "policy": "\#(policy)", "validateFormats": \#(validateFormats)}]}"#.utf8))
        let sources = files
        let generated = try Generator(configuration: config) { path in sources[path].map { Array($0.utf8) } }.generate()
        return generated[0].contents
    }

    /// The first generation error, or a test failure when there is none.
    func error() -> CodegenError? { errors().first }

    /// Every generation error of one run, or a test failure when there is none.
    func errors() -> [CodegenError] {
        do {
            _ = try generate()
            Issue.record("expected a generation error")
            return []
        } catch let error as CodegenError {
            return [error]
        } catch let errors as CodegenErrors {
            return errors.errors
        } catch {
            Issue.record("unexpected error \(error)")
            return []
        }
    }
}

@Suite struct GeneratorKeywordTests {
    @Test func propertiesAndRequiredGiveMembersInDeclarationOrder() throws {
        let source = try SchemaSet.event(#""b": {"type": "string"}, "a": {"type": "string"}"#, required: ["b", "a"]).generate()
        let b = try #require(source.range(of: "@InlineString public var b: String"))
        let a = try #require(source.range(of: "@InlineString public var a: String"))
        #expect(b.lowerBound < a.lowerBound)
        #expect(source.contains("enum CodingKeys: String, EnvelopeCodingKey, CaseIterable { case id, occurredAt, schemaVersion, b, a }"))
        #expect(source.contains("public init(envelope: Envelope, b: String, a: String)"))
        // The fast readers take the members in this order first, each at its table index.
        #expect(source.contains(
            "guard cursor.take(3, Self.fields, &members) else { break inOrder }\n            try memberValue(.b, &cursor)\n"
                + "            guard cursor.take(4, Self.fields, &members) else { break inOrder }\n            try memberValue(.a, &cursor)\n"))
    }

    /// The generated code names members `self.x`: a member named like one of its locals is still the member.
    @Test func membersAreNamedThroughSelf() throws {
        let source = try SchemaSet.event(#""memberValue": {"type": "string"}, "cursor": {"type": "integer"}"#, required: ["memberValue", "cursor"]).generate()
        #expect(source.contains("case .memberValue: self._memberValue = try cursor.inlineString()"))
        #expect(source.contains("case .cursor: self.cursor = try cursor.int()"))
        #expect(source.contains("self.cursor = try container.decode(Int.self, forKey: .cursor)"))
        #expect(source.contains("writer.int(self.cursor)"))
    }

    @Test func integerFormatsAndRange() throws {
        let source = try SchemaSet.event(
            #""n": {"type": "integer"}, "big": {"type": "integer", "format": "int64"}, "small": {"type": "integer", "format": "int32"}, "month": {"type": "integer", "minimum": 1, "maximum": 12}"#,
            required: ["n", "big", "small", "month"]
        ).generate()
        #expect(source.contains("public var n: Int\n"))
        #expect(source.contains("public var big: Int64\n"))
        #expect(source.contains("public var small: Int32\n"))
        #expect(source.contains("self.month = try container.decode(Int.self, forKey: .month, minimum: 1, maximum: 12)"))
        #expect(source.contains("case .month: self.month = try cursor.int(minimum: 1, maximum: 12)"))
        #expect(source.contains("case .small: self.small = try cursor.integer(Int32.self)"))
    }

    @Test func numberAndBoolean() throws {
        let source = try SchemaSet.event(#""price": {"type": "number"}, "gift": {"type": "boolean", "default": false}"#, required: ["price"]).generate()
        // A number keeps its exact decimal text.
        #expect(source.contains("public var price: ExactNumber\n"))
        #expect(source.contains("self.gift = try container.decodeIfPresent(Bool.self, forKey: .gift) ?? false"))
        #expect(source.contains("case .gift: self.gift = try cursor.null() ? false : try cursor.bool()"))
        #expect(source.contains("writer.value(self.price)"))
    }

    @Test func defaultsApplyWhenAbsentOrNullAndAreWrittenOut() throws {
        let source = try SchemaSet.event(#""installments": {"type": "integer", "minimum": 1, "default": 1}"#).generate()
        #expect(source.contains("self.installments = try container.decodeIfPresent(Int.self, forKey: .installments, minimum: 1) ?? 1"))
        #expect(source.contains("case .installments: self.installments = try cursor.null() ? 1 : try cursor.int(minimum: 1)"))
        #expect(source.contains("case .installments: if try !cursor.null() { _ = try cursor.int(minimum: 1) }"))
        #expect(source.contains("installments: Int = 1"))
        #expect(source.contains("try container.encode(self.installments, forKey: .installments)"))
        #expect(source.contains("optional: [.schemaVersion, .installments]"))
    }

    @Test func optionalMembersKeepNullApartFromAbsent() throws {
        let source = try SchemaSet.event(#""note": {"type": "string"}, "total": {"$ref": "../common.json#/$defs/Money"}"#).generate()
        #expect(source.contains("@OptionalInlineString public var note: String?"))
        #expect(source.contains("@Nullable public var total: OrderEvent.Money?"))
        #expect(source.contains("self._total = try container.decodeNullable(OrderEvent.Money.self, forKey: .total)"))
        #expect(source.contains("try container.encode(nullable: self._total, forKey: .total)"))
        #expect(source.contains("case .total: self._total = try cursor.null() ? .null : Nullable(try OrderEvent.Money.read(from: &cursor))"))
        #expect(source.contains("case .total: if try !cursor.null() { try OrderEvent.Money.validate(&cursor) }"))
        #expect(source.contains("case .note: if try !cursor.null() { try cursor.skipString() }"))
        #expect(source.contains("} else if self._total.isNull {"))
    }

    @Test func prefixItemsAreATupleStructOfPositions() throws {
        let source = try SchemaSet.event(
            #""pair": {"type": "array", "prefixItems": [{"type": "string", "title": "name"}, {"type": "integer"}], "minItems": 2, "items": false}, "entry": {"type": "array", "prefixItems": [{"type": "boolean"}], "minItems": 1}"#,
            required: ["pair"]).generate()
        // Positions named by their title, else by their index; a struct member like any other.
        #expect(source.contains("public var pair: OrderEvent.OrderPlaced.Pair\n"))
        #expect(source.contains("public struct Pair: Codable, Sendable, Hashable {"))
        #expect(source.contains("public var name: String\n"))
        #expect(source.contains("public var _1: Int\n"))
        // Codable path: an unkeyed container, in order; `items: false` refuses more items.
        #expect(source.contains("var container = try decoder.unkeyedContainer()\n"))
        #expect(source.contains("self.name = try container.decode(String.self)\n"))
        #expect(source.contains("throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: \"More than 2 items (items: false).\"))"))
        // Fast path and canonical writer: the same positions.
        #expect(source.contains("guard try cursor.nextElement(&elements) else { throw FastPathBail() }\n"))
        #expect(source.contains("self._1 = try cursor.int()\n"))
        #expect(source.contains("guard try !cursor.nextElement(&elements) else { throw FastPathBail() }"))
        #expect(source.contains("writer.beginArray()\n"))
        // Without `items`, the items after the positions are kept verbatim.
        #expect(source.contains("public var extraItems: [RawJSON]\n"))
        #expect(source.contains("while !container.isAtEnd { extraItems.append(try container.decode(RawJSON.self)) }"))
        #expect(source.contains("for item in self.extraItems { try container.encode(item) }"))
    }

    @Test func tuplesTheGeneratedStructCannotHoldAreRefused() {
        let errors = SchemaSet.event(
            #""a": {"type": "array", "prefixItems": [{"type": "number"}]}, "b": {"type": "array", "prefixItems": [{"type": "number"}], "minItems": 1, "items": {"type": "string"}}, "c": {"type": "array", "prefixItems": [{"type": "string", "minLength": 2}], "minItems": 1}, "d": {"type": "array", "contains": {"type": "string"}}, "e": {"oneOf": [{"type": "string"}, {"type": "array", "prefixItems": [{"type": "integer"}], "minItems": 1}]}"#
        ).errors()
        #expect(errors.map(\.description) == [
            "events/placed.json:#/properties/a: a tuple's positions must all be present: give it \"minItems\": 1 (a shorter array is valid JSON Schema, and a struct has every member)",
            "events/placed.json:#/properties/b/items: unsupported: a schema for the items after 'prefixItems'; use \"items\": false, or leave 'items' out to keep them as written",
            "events/placed.json:#/properties/c/prefixItems/0: unsupported validation keywords on tuple positions; validate the whole array (minItems, maxItems, uniqueItems) or wrap the item in an object",
            "events/placed.json:#/properties/d: unsupported keyword 'contains': a check on some items is not generated; use 'items' with one schema",
            "events/placed.json:#/properties/e/oneOf/1: unsupported: a tuple (prefixItems) as a branch of a union by JSON type; make the union's array branch an array of one item type, or the tuple a member of an object branch",
        ])
    }

    @Test func arraysOfScalarsAndObjects() throws {
        let source = try SchemaSet.event(
            #""tags": {"type": "array", "items": {"type": "string"}, "default": []}, "items": {"type": "array", "items": {"type": "object", "required": ["sku"], "properties": {"sku": {"type": "string"}}}}"#,
            required: ["items"]
        ).generate()
        #expect(source.contains("public var tags: [String]\n"))
        // An inline item type is nested in the event, named after its member (no plural guessed away).
        #expect(source.contains("public var items: [OrderEvent.OrderPlaced.ItemsElement]\n"))
        #expect(source.contains("        public struct ItemsElement: Codable, Sendable, Hashable"))
        #expect(source.contains("case .items: self.items = try cursor.array { (cursor: inout JSONCursor) throws(FastPathBail) in try OrderEvent.OrderPlaced.ItemsElement.read(from: &cursor) }"))
        #expect(source.contains("writer.array(self.items) { writer, element in writer.value(element) }"))
        // Validating (no handler, no republish) makes no array and no element.
        #expect(source.contains("case .items: try cursor.skipArray { (cursor: inout JSONCursor) throws(FastPathBail) in try OrderEvent.OrderPlaced.ItemsElement.validate(&cursor) }"))
        #expect(source.contains("case .tags: if try !cursor.null() { try cursor.skipStrings() }"))
    }

    @Test func refToDefinitionIsOneTypePerDefinition() throws {
        let source = try SchemaSet.event(
            #""total": {"$ref": "../common.json#/$defs/Money"}, "tax": {"$ref": "../common.json#/$defs/Money", "description": "Tax."}"#,
            required: ["total", "tax"]
        ).generate()
        #expect(source.components(separatedBy: "public struct Money:").count == 2)
        #expect(source.contains("/// Tax.\n        public var tax: OrderEvent.Money"))
        #expect(source.contains("- Remark: Generated from `common.json#/$defs/Money`."))
    }

    @Test func enumAndOpenEnumIdiomKeepTheRawValue() throws {
        let source = try SchemaSet.event(
            #""channel": {"enum": ["web", "in_store"], "default": "web"}, "reason": {"anyOf": [{"enum": ["a-b"]}, {"type": "string"}]}"#,
            required: ["reason"]
        ).generate()
        #expect(source.contains("public struct Channel: OpenEnum"))
        #expect(source.contains("case inStore = \"in_store\""))
        #expect(source.contains("public struct Reason: OpenEnum"))
        #expect(source.contains("case aB = \"a-b\""))
        #expect(source.contains("static let channelDefault = OrderEvent.OrderPlaced.Channel(rawValue: \"web\")"))
        #expect(source.contains("case .reason: self.reason = OrderEvent.OrderPlaced.Reason(raw: try cursor.inlineString())"))
        // Documented as the schema wrote it.
        #expect(source.contains("Default: \"web\"."))
    }

    @Test func dateTimeIsATimestamp() throws {
        let source = try SchemaSet.event(#""shippedAt": {"type": "string", "format": "date-time"}"#).generate()
        #expect(source.contains("@Nullable public var shippedAt: Timestamp?"))
        #expect(source.contains("Nullable(try cursor.timestamp())"))
    }

    @Test func minLengthOneIsANonEmptyIdentifier() throws {
        let source = try SchemaSet.event(#""orderId": {"type": "string", "minLength": 1}"#, required: ["orderId"]).generate()
        #expect(source.contains("self.orderId = try container.decodeIdentifier(forKey: .orderId)"))
        #expect(source.contains("case .orderId: self._orderId = try cursor.inlineIdentifier()"))
    }

    @Test func descriptionBecomesDocComments() throws {
        let source = try SchemaSet.event(#""a": {"type": "string", "description": "The A."}"#, extra: #", "description": "An order was placed.""#).generate()
        #expect(source.contains("/// An order was placed."))
        #expect(source.contains("        /// The A.\n        @OptionalInlineString public var a: String?"))
    }

    @Test func swiftNameRenamesMembersAndTypes() throws {
        let source = try SchemaSet.event(
            #""order-total": {"$ref": "../common.json#/$defs/Money", "x-swift-name": "total"}, "addr": {"type": "object", "x-swift-name": "Address", "properties": {"zip": {"type": "string"}}}"#,
            required: ["order-total"]
        ).generate()
        #expect(source.contains("public var total: OrderEvent.Money"))
        #expect(source.contains("case total = \"order-total\""))
        #expect(source.contains("public struct Address: Codable"))
    }

    @Test func swiftTypeUsesAHandWrittenType() throws {
        let source = try SchemaSet.event(#""geo": {"x-swift-type": "GeoPoint"}"#, required: ["geo"]).generate()
        #expect(source.contains("public var geo: GeoPoint\n"))
        #expect(source.contains("try geo.read(&cursor)") || source.contains("geo = try GeoPoint.read(from: &cursor)"))
    }

    @Test func handWrittenEventInAGeneratedCatalog() throws {
        var set = SchemaSet.event("")
        set.files["catalog.json"] = #"{"oneOf": [{"properties": {"type": {"const": "order.placed"}}, "$ref": "events/placed.json"}, {"properties": {"type": {"const": "order.audited"}}, "x-swift-type": "OrderAudited"}]}"#
        let source = try set.generate()
        #expect(source.contains("case audited(OrderAudited)"))
        #expect(source.contains("EventType(OrderAudited.self, OrderEvent.audited),"))
    }

    @Test func catalogEnumListsEachEventOnceWithUnknown() throws {
        let source = try SchemaSet.event("").generate()
        #expect(source.contains("public indirect enum OrderEvent: EventCatalog, Hashable {\n    case placed(OrderEvent.OrderPlaced)\n    case unknown(type: String, raw: RawJSON)\n}"))
        // Generated types are nested in the catalog's enum: a team's own types never collide with them.
        #expect(source.contains("extension OrderEvent {\n"))
        #expect(source.contains("public static let defaultPolicy = TopicPolicy.strict"))
        #expect(source.contains("RecordDecoder(EventDecoder<OrderEvent>(readerOptions: readerOptions))"))
    }

    @Test func lenientCatalogMayListAnUnknownEventsBranch() throws {
        var set = SchemaSet.event("")
        set.policy = "lenient"
        set.files["catalog.json"] = ##"{"oneOf": [{"properties": {"type": {"const": "order.placed"}}, "$ref": "events/placed.json"}, {"$ref": "#/$defs/U"}], "$defs": {"U": {"type": "object", "properties": {"type": {"type": "string", "not": {"enum": ["order.placed"]}}}}}}"##
        #expect(try set.generate().contains("TopicPolicy.lenient"))
        set.policy = "strict"
        #expect(set.error()?.message.contains("policy is strict") == true)
    }

    @Test func outputIsDeterministicAndNamesItsSource() throws {
        let set = SchemaSet.event(#""items": {"type": "array", "items": {"type": "object", "properties": {"sku": {"type": "string"}}}}, "channel": {"enum": ["web"]}"#)
        let first = try set.generate()
        for _ in 0..<5 { #expect(try set.generate() == first) }
        #expect(first.hasPrefix("// DO NOT EDIT.\n// swift-format-ignore-file\n//\n// Generated by switchyard-codegen \(Generator.version) from catalog.json"))
        #expect(first.contains("// MARK: - Code below here is support for the Switchyard runtime"))
    }

    @Test func configurationDefaultsAndOutputNames() throws {
        let config = try CodegenConfiguration.parse(Array(#"{"catalogs": [{"name": "shipments", "schema": "s.json"}, {"name": "returns", "schema": "r.json", "swiftName": "ReturnEvent", "policy": "lenient"}]}"#.utf8))
        #expect(config.catalogs[0].swiftName == "ShipmentsEvent")
        #expect(config.catalogs[0].policy == .strict)
        #expect(config.outputFileNames == ["ShipmentsEvent.swift", "ReturnEvent.swift", "SwitchyardDefinitions.swift"])
    }
}

@Suite struct GeneratorErrorTests {
    @Test func unsupportedKeywordNamesFilePointerAndKeyword() {
        let error = SchemaSet.event(#""items": {"type": "array", "items": {"type": "object", "properties": {}, "if": {}}}"#).error()
        #expect(error?.description == "events/placed.json:#/properties/items/items: unsupported keyword 'if'")
    }

    @Test func refThatDoesNotResolve() {
        #expect(SchemaSet.event(#""a": {"$ref": "../missing.json"}"#).error()?.message == "$ref target 'missing.json' does not exist")
        let error = SchemaSet.event(#""a": {"$ref": "../common.json#/$defs/Nope"}"#).error()
        #expect(error?.pointer == "#/properties/a/$ref")
        #expect(error?.message.contains("does not resolve") == true)
    }

    @Test func duplicateTags() {
        var set = SchemaSet.event("")
        set.files["catalog.json"] = #"{"oneOf": [{"properties": {"type": {"const": "order.placed"}}, "$ref": "events/placed.json"}, {"properties": {"type": {"const": "order.placed"}}, "$ref": "events/placed.json"}]}"#
        let error = set.error()
        #expect(error?.pointer == "#/oneOf/1/properties/type/const")
        #expect(error?.message.hasPrefix("duplicate tag 'order.placed'") == true)
    }

    @Test func tagWithoutConst() {
        var set = SchemaSet.event("")
        set.files["catalog.json"] = #"{"oneOf": [{"properties": {"type": {"type": "string"}}, "$ref": "events/placed.json"}]}"#
        #expect(set.error()?.message.hasPrefix("the tag has no 'const'") == true)
    }

    @Test func swiftKeywordNamesAreEscaped() throws {
        let source = try SchemaSet.event(#""class": {"type": "string"}, "self": {"type": "integer"}"#).generate()
        #expect(source.contains("@OptionalInlineString public var `class`: String?"))
        #expect(source.contains("case .`class`: self._class = try cursor.null() ? .null : OptionalInlineString(try cursor.inlineString())"))
        // `self` cannot be a member, even escaped.
        #expect(source.contains("@Nullable public var self_: Int?"))
        #expect(source.contains("case self_ = \"self\""))
        #expect(try SchemaSet.event(#""class": {"type": "string", "x-swift-name": "category"}"#).generate().contains("case category = \"class\""))
    }

    @Test func closedObjectsAreAccepted() throws {
        // Unknown members still never fail a record (PRODUCT.md rule 2): they are kept as for any object.
        let source = try SchemaSet.event("", extra: #", "additionalProperties": false"#).generate()
        #expect(source.contains("public var unknownFields = UnknownFields()"))
    }

    @Test func identityIsNeverDefaulted() {
        var set = SchemaSet.event("")
        set.files["common.json"] = SchemaSet.common.replacing(#""id": {"type": "string", "minLength": 1}"#, with: #""id": {"type": "string", "minLength": 1, "default": "x"}"#)
        #expect(set.error()?.description == "common.json:#/$defs/Envelope/properties/id: the identity 'id' is never defaulted (PRODUCT.md): remove its 'default'")
    }

    @Test func requiredMemberWithDefault() {
        #expect(SchemaSet.event(#""n": {"type": "integer", "default": 1}"#, required: ["n"]).error()?.message.contains("cannot have a 'default'") == true)
    }

    @Test func eventWithoutEnvelope() throws {
        var set = SchemaSet.event("")
        set.files["events/placed.json"] = #"{"type": "object", "properties": {"type": {"const": "order.placed"}, "orderId": {"type": "string"}}}"#
        let source = try set.generate()
        #expect(source.contains("public struct OrderPlaced: Event, Hashable {"))
        #expect(!source.contains("envelope"))
    }

    @Test func nullableTypeListsFormatsAndLengths() throws {
        let source = try SchemaSet.event(#""a": {"type": ["string", "null"]}, "b": {"type": "string", "format": "email"}, "c": {"type": "string", "maxLength": 3}"#, required: ["a"]).generate()
        // Required and nullable: present, maybe null.
        #expect(source.contains("self._a = try container.decodeRequiredNullableString(forKey: .a)"))
        // A format is an annotation, kept in the documentation.
        #expect(source.contains("/// Format: email (kept as written)."))
        #expect(source.contains("if let value = value.value?.string { try container.require(SchemaRule.length(value) <= 3, forKey: .c, \"maxLength\") }"))
    }

    @Test func formatsFoundationHasATypeForGetTypedAccessors() throws {
        let set = SchemaSet.event(
            #""orderId": {"type": "string", "format": "uuid"}, "hook": {"type": "string", "format": "uri"}, "source": {"type": ["string", "null"], "format": "uri-reference"}, "shipOn": {"type": "string", "format": "date"}, "class": {"type": "string", "format": "uuid"}, "mail": {"type": "string", "format": "email"}"#,
            required: ["orderId", "source"])
        let source = try set.generate()
        #expect(source.contains("import Foundation\nimport SwitchyardJSON\n"))
        // The text stays the stored member; the accessor reads it.
        #expect(source.contains("@InlineString public var orderId: String\n"))
        #expect(source.contains("public var orderIdUUID: Foundation.UUID? { StringFormat.parseUUID(self.orderId) }"))
        #expect(source.contains("/// `orderId` as a `UUID`; nil when it is not a valid uuid.\n"))
        #expect(source.contains("/// `shipOn` as a `Date` (the day's start in UTC); nil when it is absent, null or not a\n"))
        // Optional and nullable members give nil when absent or null too.
        #expect(source.contains("public var hookURL: Foundation.URL? { self.hook.flatMap(StringFormat.parseURL) }"))
        #expect(source.contains("public var sourceURL: Foundation.URL? { self.source.flatMap(StringFormat.parseURLReference) }"))
        #expect(source.contains("public var shipOnDate: Foundation.Date? { self.shipOn.flatMap(StringFormat.parseDate) }"))
        #expect(source.contains("public var classUUID: Foundation.UUID? { self.`class`.flatMap(StringFormat.parseUUID) }"))
        // A format without a Foundation type has none.
        #expect(source.contains("@OptionalInlineString public var mail: String?") && !source.contains("public var mailEmail"))
        // A catalog without such formats imports only the runtime.
        #expect(!(try SchemaSet.event(#""mail": {"type": "string", "format": "email"}"#).generate()).contains("import Foundation"))
    }

    @Test func anAccessorNamedLikeAnotherMemberIsAnError() {
        let errors = SchemaSet.event(#""order": {"type": "string", "format": "uuid"}, "orderUUID": {"type": "string"}"#).errors()
        #expect(errors.map(\.description) == [
            "events/placed.json:#/properties/order: the 'uuid' accessor of 'order' is named 'orderUUID', which 'orderUUID' (events/placed.json#/properties/orderUUID) also takes; set 'x-swift-name' on one"
        ])
    }

    @Test func formatsAreCheckedWhenTheCatalogAsks() throws {
        var set = SchemaSet.event(#""a": {"type": "string", "format": "uuid"}, "b": {"type": "string", "format": "x-team"}, "c": {"type": "string", "format": "ipv4", "maxLength": 15}"#, required: ["a"])
        // By default a format is an annotation: no check.
        #expect(!(try set.generate()).contains("format: ."))
        set.validateFormats = true
        let source = try set.generate()
        #expect(source.contains("/// Format: uuid (checked, kept as written)."))
        #expect(source.contains("try container.require(SchemaRule.isValid(value, format: .uuid), forKey: .a, \"format\")"))
        #expect(source.contains("guard SchemaRule.isValid(value, format: .uuid) else { throw FastPathBail() }"))
        #expect(source.contains("SchemaRule.length(value) <= 15 && SchemaRule.isValid(value, format: .ipv4)"))
        // A format Switchyard does not know stays an annotation.
        #expect(source.contains("/// Format: x-team (kept as written)."))
        #expect(!source.contains("format: .x"))
    }

    @Test func aTypeSharedByCatalogsThatDifferOnValidateFormatsIsAnErrorNamingBoth() throws {
        let files = [
            "a.json": #"{"oneOf": [{"properties": {"type": {"const": "a.made"}}, "$ref": "common.json#/$defs/Made"}]}"#,
            "b.json": #"{"oneOf": [{"properties": {"type": {"const": "b.made"}}, "$ref": "b-made.json"}]}"#,
            "b-made.json": #"{"type": "object", "properties": {"type": {"const": "b.made"}, "thing": {"$ref": "common.json#/$defs/Thing"}}}"#,
            "common.json": ##"{"$defs": {"Made": {"type": "object", "properties": {"type": {"const": "a.made"}, "thing": {"$ref": "#/$defs/Thing"}}}, "Thing": {"type": "object", "properties": {"owner": {"$ref": "#/$defs/Owner"}}}, "Owner": {"type": "object", "properties": {"id": {"type": "string", "format": "uuid"}}}}}"##,
        ]
        func generate(_ a: Bool, _ b: Bool) throws -> [(name: String, contents: String)] {
            let config = try CodegenConfiguration.parse(Array(#"{"catalogs": [{"name": "alpha", "schema": "a.json", "validateFormats": \#(a)}, {"name": "beta", "schema": "b.json", "validateFormats": \#(b)}]}"#.utf8))
            return try Generator(configuration: config) { files[$0].map { Array($0.utf8) } }.generate()
        }
        // Agreeing catalogs share the type, checked or not.
        #expect(try generate(true, true).contains { $0.contents.contains("format: .uuid") })
        #expect(try !generate(false, false).contains { $0.contents.contains("format: .uuid") })
        // Differing ones: Owner (reached by both through Thing) cannot be both; the error names both catalogs.
        for (a, b) in [(true, false), (false, true)] {
            do {
                _ = try generate(a, b)
                Issue.record("expected an error for validateFormats \(a) and \(b)")
            } catch let errors as CodegenErrors {
                #expect(errors.errors.map(\.description) == [
                    "common.json:#/$defs/Owner/properties/id: the type 'Owner' is shared by catalog '\(a ? "alpha" : "beta")', which validates formats, and catalog '\(a ? "beta" : "alpha")', which does not: its format 'uuid' cannot be both checked and not; give both catalogs the same 'validateFormats', or each its own copy of the schema"
                ])
            }
        }
        // A shared type without a format either would check is no conflict.
        var plain = files
        plain["common.json"] = plain["common.json"]!.replacing(#""format": "uuid""#, with: #""format": "x-team""#)
        let config = try CodegenConfiguration.parse(Array(#"{"catalogs": [{"name": "alpha", "schema": "a.json", "validateFormats": true}, {"name": "beta", "schema": "b.json"}]}"#.utf8))
        _ = try Generator(configuration: config) { plain[$0].map { Array($0.utf8) } }.generate()
    }

    @Test func typeNamesNeverHideOthers() throws {
        // An inline type named like the event it is declared in is renamed: it would hide the event's name.
        let source = try SchemaSet.event(#""total": {"type": "object", "x-swift-name": "OrderPlaced", "properties": {"a": {"type": "string"}}}, "text": {"type": "object", "x-swift-name": "String", "properties": {"b": {"type": "string"}}}"#).generate()
        #expect(source.contains("public struct OrderPlacedSchema: Codable, Sendable, Hashable"))
        #expect(source.contains("public struct StringSchema: Codable, Sendable, Hashable"))
    }

    /// Type names come from where a type is defined, never from which entry of `oneOf` reached it first.
    @Test func typeNamesDoNotDependOnTheOrderOfEntries() throws {
        func declared(_ order: [Int]) throws -> [String] {
            var set = SchemaSet.event(#""total": {"$ref": "../common.json#/$defs/Money"}, "line": {"type": "object", "properties": {"n": {"type": "integer"}}}"#)
            set.files["events/shipped.json"] = #"{"type": "object", "properties": {"type": {"const": "order.shipped"}, "fee": {"$ref": "../common.json#/$defs/Money"}, "line": {"type": "object", "properties": {"m": {"type": "string"}}}}}"#
            let entries = [
                #"{"properties": {"type": {"const": "order.placed"}}, "$ref": "events/placed.json"}"#,
                #"{"properties": {"type": {"const": "order.shipped"}}, "$ref": "events/shipped.json"}"#,
            ]
            set.files["catalog.json"] = #"{"oneOf": ["# + order.map { entries[$0] }.joined(separator: ", ") + "]}"
            return try set.generate().split(separator: "\n").filter { $0.hasPrefix("extension OrderEvent.") }.map(String.init).sorted()
        }
        let forward = try declared([0, 1])
        #expect(forward.contains("extension OrderEvent.Money {"))
        #expect(forward.contains("extension OrderEvent.OrderPlaced.Line {"))
        #expect(forward.contains("extension OrderEvent.OrderShipped.Line {"))
        #expect(try declared([1, 0]) == forward)
    }

    @Test func everyErrorOfARunIsReported() {
        let errors = SchemaSet.event(##""a": {"type": "string", "frobnicate": 1}, "b": {"type": "integer", "format": "int32", "default": 3000000000}, "c": {"$ref": "#/$defs/Nope"}"##).errors()
        #expect(errors.map(\.description) == [
            "events/placed.json:#/properties/a: unsupported keyword 'frobnicate'",
            "events/placed.json:#/properties/b/default: the default 3000000000 does not fit Int32",
            "events/placed.json:#/properties/c/$ref: $ref '#/$defs/Nope' does not resolve: no '$defs'",
        ])
    }

    @Test func invalidJSONNamesTheFileAndOffset() {
        var set = SchemaSet.event("")
        set.files["events/placed.json"] = "{\"a\": }"
        let error = set.error()
        #expect(error?.file == "events/placed.json")
        #expect(error?.message.hasPrefix("invalid JSON at byte 6") == true)
    }

    @Test func configurationErrors() throws {
        #expect(throws: CodegenError.self) { try CodegenConfiguration.parse(Array(#"{"catalogs": [{"name": "x", "schema": "s.json", "polcy": "strict"}]}"#.utf8)) }
        #expect(throws: CodegenError.self) { try CodegenConfiguration.parse(Array(#"{"catalogs": [{"name": "x", "schema": "s.json", "policy": "loose"}]}"#.utf8)) }
        #expect(throws: CodegenError.self) { try CodegenConfiguration.parse(Array(#"{"catalogs": [{"name": "x", "schema": "s.json", "validateFormats": "yes"}]}"#.utf8)) }
        #expect(try CodegenConfiguration.parse(Array(#"{"catalogs": [{"name": "x", "schema": "s.json", "validateFormats": true}]}"#.utf8)).catalogs[0].validatesFormats)
    }
}
