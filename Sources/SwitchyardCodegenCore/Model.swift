/// What the generator makes of the schemas: catalogs of events, and the structs and open enums they
/// use, each with one description of its members that every generated path (Codable, fast path,
/// encoder) is written from.

/// A generation error, written like a compiler's: `Schemas/orders/order.placed.json:#/properties/items: …`.
public struct CodegenError: Error, CustomStringConvertible, Equatable {
    /// The schema file, as the configuration names it (relative to the target).
    public var file: String
    /// The JSON pointer in that file (`#/properties/items`); `#` for the root.
    public var pointer: String
    /// What is wrong.
    public var message: String

    public init(file: String, pointer: String, message: String) {
        self.file = file
        self.pointer = pointer
        self.message = message
    }

    public var description: String { "\(file):\(pointer): \(message)" }
}

/// Every generation error of one run, in the order they were found (a compiler reports them all).
public struct CodegenErrors: Error, CustomStringConvertible {
    public var errors: [CodegenError]

    public init(_ errors: [CodegenError]) {
        self.errors = errors
    }

    public var description: String { errors.map(\.description).joined(separator: "\n") }
}

/// Where a schema sits: its file (as named relative to the target) and a JSON pointer into it.
public struct SchemaLocation: Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var pointer: String

    public init(file: String, pointer: String) {
        self.file = file
        self.pointer = pointer
    }

    /// The location of a member of this schema: `#/properties/items`.
    public func appending(_ tokens: String...) -> SchemaLocation {
        var p = pointer
        for token in tokens {
            p += "/" + token.replacing("~", with: "~0").replacing("/", with: "~1")
        }
        return SchemaLocation(file: file, pointer: p)
    }

    public var description: String { "\(file)\(pointer)" }

    func error(_ message: String) -> CodegenError { CodegenError(file: file, pointer: pointer, message: message) }
}

/// The policy a catalog's topics get unless their configuration names one.
public enum CatalogPolicy: String, Sendable, Equatable {
    case strict, lenient
}

/// One catalog: the enum, its events, the policy.
public struct CatalogModel: Sendable {
    /// The name configs and `--catalog` use (`payments`).
    public var name: String
    /// The enum's Swift name (`PaymentEvent`).
    public var swiftName: String
    public var policy: CatalogPolicy
    /// The tag key (`type`).
    public var tagKey: String
    public var doc: String?
    public var location: SchemaLocation
    public var events: [EventEntry]
}

/// One case of a catalog enum.
public struct EventEntry: Sendable {
    /// The tag (`payment.captured`).
    public var tag: String
    /// The enum case (`captured`).
    public var caseName: String
    /// The payload type: a generated struct (qualified, `PaymentEvent.PaymentCaptured`), or a hand-written one
    /// (`x-swift-type`).
    public var swiftType: String
    /// Whether the payload is written by hand (then it must conform to `Event` and `FastCodable`).
    public var isHandWritten: Bool
}

/// The Swift type of a member.
public indirect enum FieldType: Sendable, Equatable {
    /// A string; `identifier` when it must not be empty (`minLength: 1`).
    case string(identifier: Bool)
    /// An integer of the given Swift type (`Int`, `Int64`, `Int32`, `UInt64`) and schema range.
    case integer(swiftType: String, minimum: String?, maximum: String?)
    /// A number, kept as its exact decimal text (`ExactNumber`).
    case number
    case boolean
    /// `format: date-time`.
    case timestamp
    /// A generated struct (its qualified name).
    case object(String)
    /// A generated open enum (its qualified name).
    case openEnum(String)
    /// A generated union enum (its qualified name): `oneOf`/`anyOf` of tagged objects or of JSON types.
    case union(String)
    case array(FieldType)
    /// An object used as a map (`additionalProperties` with a schema): `JSONMap<Value>`.
    case map(FieldType)
    /// Any JSON value, kept verbatim (`{}`, `true`, an object without `properties`): `RawJSON`.
    case raw
    /// A hand-written type (`x-swift-type`): Codable, Sendable, Hashable and FastCodable.
    case custom(String)

    /// The Swift type as a member declares it.
    public var swiftType: String {
        switch self {
        case .string: "String"
        case .integer(let t, _, _): t
        case .number: "ExactNumber"
        case .boolean: "Bool"
        case .timestamp: "Timestamp"
        case .object(let t), .openEnum(let t), .union(let t), .custom(let t): t
        case .array(let e): "[\(e.swiftType)]"
        case .map(let e): "JSONMap<\(e.swiftType)>"
        case .raw: "RawJSON"
        }
    }
}

/// Whether a member must be present, has a default, or is optional (no default).
public enum Presence: Sendable, Equatable {
    case required
    /// Must be present, and may be `null` (`required` with `type: [T, "null"]`): kept apart from absent.
    case requiredNullable
    /// Absent or `null` decodes as this value (Swift source), written out on re-encode.
    case defaulted(String)
    /// Absent stays absent, `null` stays `null`.
    case optional
}

/// A validation keyword on a member's value; a value that breaks it is `dataCorrupted` at the member.
public enum Check: Sendable, Equatable {
    case minLength(Int)
    case maxLength(Int)
    case pattern(String)
    /// `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` (JSON number text).
    case minimum(String, exclusive: Bool)
    case maximum(String, exclusive: Bool)
    case multipleOf(String)
    case minItems(Int)
    case maxItems(Int)
    case uniqueItems
    /// `minProperties`, `maxProperties` on a map.
    case minProperties(Int)
    case maxProperties(Int)
    /// `const` or `enum` (of non-strings): the value is one of these (JSON texts).
    case oneOf([JSONValue])
    /// `format`, checked (a catalog with `validateFormats`): one of ``SchemaReader/checkedFormats``.
    case format(String)
}

/// One member of a struct.
public struct Member: Sendable {
    /// The JSON name.
    public var jsonName: String
    /// The Swift name (escaped with backticks where it is a keyword).
    public var swiftName: String
    public var type: FieldType
    public var presence: Presence
    public var doc: String?
    public var location: SchemaLocation
    /// The validation keywords on the value.
    public var checks: [Check] = []
    /// The `format` annotation, as written (kept in the documentation; the value is not checked).
    public var format: String?
    /// The `default`, as compact JSON (for the documentation).
    public var defaultJSON: String?

    /// Whether the member is stored as an `InlineString` (a string member; not an array element).
    var isInlineString: Bool {
        if case .string = type { return true }
        return false
    }

    /// Whether the member is stored behind `Nullable`/`OptionalInlineString` (it may be absent or `null`).
    var isNullable: Bool { presence == .optional || presence == .requiredNullable }

    /// The typed accessor of a string member whose `format` Foundation has a type for: `idUUID` for
    /// `uuid`, `callbackURL` for `uri` and `uri-reference`, `birthDate` for `date` (the member's Swift name
    /// and the type's); nil for any other member.
    var formatAccessor: FormatAccessor? {
        guard case .string = type, let format, let kind = FormatAccessor.kinds[format] else { return nil }
        let base = swiftName.hasPrefix("`") ? String(swiftName.dropFirst().dropLast()) : swiftName
        return FormatAccessor(name: base + kind.suffix, swiftType: kind.swiftType, parser: kind.parser)
    }
}

/// A computed property giving a formatted string member's value as a Foundation type, read by
/// SwitchyardJSON's `StringFormat.parse…` (nil when the text is not in the format); the member keeps the text.
struct FormatAccessor: Equatable {
    var name: String
    /// `Foundation.UUID` (qualified: a generated type may be named `UUID`).
    var swiftType: String
    /// `StringFormat.parseUUID`.
    var parser: String

    static let kinds: [String: (suffix: String, swiftType: String, parser: String)] = [
        "uuid": ("UUID", "Foundation.UUID", "StringFormat.parseUUID"),
        "uri": ("URL", "Foundation.URL", "StringFormat.parseURL"),
        "uri-reference": ("URL", "Foundation.URL", "StringFormat.parseURLReference"),
        "date": ("Date", "Foundation.Date", "StringFormat.parseDate"),
    ]
}

/// A generated struct: an event, a `$defs` object, or an inline object.
public struct StructModel: Sendable {
    public var swiftName: String
    public var doc: String?
    public var location: SchemaLocation
    /// The tag, for an event (or a union's variant: its discriminator's value).
    public var tag: String?
    /// The tag's key (`type`; a union's discriminator), for an event or a variant.
    public var tagKey: String?
    /// Whether the tag is a catalog's (an event) rather than a union's discriminator.
    public var isEvent: Bool
    /// Whether the event carries the shipped catalogs' envelope (`id`, `occurredAt`, `schemaVersion`),
    /// read into the runtime's `Envelope`.
    public var hasEnvelope: Bool
    /// The members after the envelope (for an event) in declaration order; for a tuple, its positions.
    public var members: [Member]
    /// Set for a tuple (`prefixItems`): a JSON array whose positions are the members, in order.
    public var tuple: TupleShape? = nil
}

/// What a tuple (`prefixItems`) does with items after its positions.
public enum TupleShape: Sendable, Equatable {
    /// `items` absent or `true`: kept verbatim (`extraItems`) and written back after the positions.
    case keepsExtraItems
    /// `items: false`: an array with more items is `dataCorrupted` at the tuple.
    case refusesExtraItems
}

/// A generated open enum.
public struct OpenEnumModel: Sendable {
    public var swiftName: String
    public var doc: String?
    public var location: SchemaLocation
    /// The known values, in schema order.
    public var values: [String]
}

/// A generated union: one case per branch.
public struct UnionModel: Sendable {
    public enum Branches: Sendable {
        /// Objects selected by the string member `key` (a discriminator): tag → case name and variant struct.
        case tagged(key: String, variants: [(tag: String, caseName: String, type: String)])
        /// Values selected by their JSON type: each case holds one type.
        case byJSONType([(caseName: String, type: FieldType)])
    }

    public var swiftName: String
    public var doc: String?
    public var location: SchemaLocation
    public var branches: Branches
}

/// A generated type.
public enum TypeModel: Sendable {
    case structure(StructModel)
    case openEnum(OpenEnumModel)
    case union(UnionModel)

    public var swiftName: String {
        switch self {
        case .structure(let s): s.swiftName
        case .openEnum(let e): e.swiftName
        case .union(let u): u.swiftName
        }
    }

    public var location: SchemaLocation {
        switch self {
        case .structure(let s): s.location
        case .openEnum(let e): e.location
        case .union(let u): u.location
        }
    }
}
