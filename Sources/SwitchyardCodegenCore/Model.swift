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
    /// The payload type: a generated struct, or a hand-written one (`x-swift-type`).
    public var swiftType: String
    /// Whether the payload is written by hand (then it must conform to `Event` and `FastCodable`).
    public var isHandWritten: Bool
}

/// The Swift type of a member.
public indirect enum FieldType: Sendable, Equatable {
    /// A string; `identifier` when it must not be empty (`minLength: 1`).
    case string(identifier: Bool)
    /// An integer of the given Swift type (`Int`, `Int64`, `Int32`) and schema range.
    case integer(swiftType: String, minimum: String?, maximum: String?)
    case number
    case boolean
    /// `format: date-time`.
    case timestamp
    /// A generated struct.
    case object(String)
    /// A generated open enum.
    case openEnum(String)
    case array(FieldType)
    /// A hand-written type (`x-swift-type`): Codable, Sendable, Hashable and FastCodable.
    case custom(String)

    /// The Swift type as a member declares it.
    public var swiftType: String {
        switch self {
        case .string: "String"
        case .integer(let t, _, _): t
        case .number: "Double"
        case .boolean: "Bool"
        case .timestamp: "Timestamp"
        case .object(let t), .openEnum(let t), .custom(let t): t
        case .array(let e): "[\(e.swiftType)]"
        }
    }
}

/// Whether a member must be present, has a default, or is optional (no default).
public enum Presence: Sendable, Equatable {
    case required
    /// Absent or `null` decodes as this value (Swift source), written out on re-encode.
    case defaulted(String)
    /// Absent stays absent, `null` stays `null`.
    case optional
}

/// One member of a struct.
public struct Member: Sendable {
    /// The JSON name.
    public var jsonName: String
    /// The Swift name.
    public var swiftName: String
    public var type: FieldType
    public var presence: Presence
    public var doc: String?
    public var location: SchemaLocation

    /// Whether the member is stored as an `InlineString` (a string member; not an array element).
    var isInlineString: Bool {
        if case .string = type { return true }
        return false
    }
}

/// A generated struct: an event, a `$defs` object, or an inline object.
public struct StructModel: Sendable {
    public var swiftName: String
    public var doc: String?
    public var location: SchemaLocation
    /// The tag, for an event.
    public var tag: String?
    /// The catalog's tag key and enum, for an event.
    public var catalogSwiftName: String?
    /// The members after the envelope (for an event) in declaration order.
    public var members: [Member]
    public var isEvent: Bool { tag != nil }
}

/// A generated open enum.
public struct OpenEnumModel: Sendable {
    public var swiftName: String
    public var doc: String?
    public var location: SchemaLocation
    /// The known values, in schema order.
    public var values: [String]
}

/// A generated type.
public enum TypeModel: Sendable {
    case structure(StructModel)
    case openEnum(OpenEnumModel)

    public var swiftName: String {
        switch self {
        case .structure(let s): s.swiftName
        case .openEnum(let e): e.swiftName
        }
    }

    public var location: SchemaLocation {
        switch self {
        case .structure(let s): s.location
        case .openEnum(let e): e.location
        }
    }
}
