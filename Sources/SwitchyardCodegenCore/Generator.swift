/// The generator's entry point: a configuration (`switchyard-codegen.json`) in, Swift files out.

/// `switchyard-codegen.json`: the catalogs of one target.
///
/// ```json
/// {"catalogs": [{"name": "shipments", "schema": "Schemas/shipments.json", "swiftName": "ShipmentEvent", "policy": "strict"}]}
/// ```
/// `schema` is relative to the target's directory. `swiftName` defaults to the name in UpperCamelCase
/// plus `Event` (`shipments` → `ShipmentsEvent`); `policy` (`strict` or `lenient`) defaults to strict;
/// `validateFormats` (default false) checks the `format`s Switchyard knows instead of keeping them as
/// annotations.
public struct CodegenConfiguration: Sendable, Equatable {
    public struct CatalogEntry: Sendable, Equatable {
        public var name: String
        public var schema: String
        public var swiftName: String
        public var policy: CatalogPolicy
        /// Whether the `format`s Switchyard knows are checked (`dataCorrupted` at the member).
        public var validatesFormats = false
    }

    public var catalogs: [CatalogEntry]

    /// The file name the generator looks for at a target's root.
    public static let fileName = "switchyard-codegen.json"
    /// The file that holds types used by more than one catalog (only when there are several catalogs).
    public static let sharedFileName = "SwitchyardDefinitions.swift"

    /// Parses the configuration; `file` names it in errors.
    public static func parse(_ bytes: [UInt8], file: String = fileName) throws -> CodegenConfiguration {
        let root = SchemaLocation(file: file, pointer: "#")
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw root.error(error.description)
        }
        guard let members = value.members else { throw root.error("the configuration must be a JSON object") }
        for (key, _) in members where key != "catalogs" {
            throw root.appending(key).error("unknown key '\(key)' (the configuration has 'catalogs')")
        }
        guard let list = value["catalogs"]?.elements, !list.isEmpty else {
            throw root.appending("catalogs").error("'catalogs' must be a non-empty array")
        }
        var entries: [CatalogEntry] = []
        for (index, item) in list.enumerated() {
            let at = root.appending("catalogs", String(index))
            guard let fields = item.members else { throw at.error("a catalog entry must be an object") }
            let known = ["name", "schema", "swiftName", "policy", "validateFormats"]
            for (key, _) in fields where !known.contains(key) {
                throw at.appending(key).error("unknown key '\(key)' (known: \(known.joined(separator: ", ")))")
            }
            guard let name = item["name"]?.string, !name.isEmpty else { throw at.error("'name' must be a non-empty string") }
            guard let schema = item["schema"]?.string, !schema.isEmpty else { throw at.error("'schema' must be a path to the catalog schema") }
            let swiftName = item["swiftName"]?.string ?? Naming.upperCamel(Naming.words(name)) + "Event"
            guard Naming.isIdentifier(swiftName), !Naming.keywords.contains(swiftName) else {
                throw at.appending("swiftName").error("'\(swiftName)' is not a usable Swift type name")
            }
            let policy: CatalogPolicy
            switch item["policy"] {
            case nil: policy = .strict
            case .string(let p)?:
                guard let parsed = CatalogPolicy(rawValue: p) else { throw at.appending("policy").error("'policy' must be \"strict\" or \"lenient\", not \"\(p)\"") }
                policy = parsed
            case let other?: throw at.appending("policy").error("'policy' must be a string, not \(other.kindName)")
            }
            let validatesFormats: Bool
            switch item["validateFormats"] {
            case nil: validatesFormats = false
            case .bool(let b)?: validatesFormats = b
            case let other?: throw at.appending("validateFormats").error("'validateFormats' must be true or false, not \(other.kindName)")
            }
            if entries.contains(where: { $0.name == name }) { throw at.appending("name").error("the catalog '\(name)' is listed twice") }
            entries.append(CatalogEntry(name: name, schema: schema, swiftName: swiftName, policy: policy, validatesFormats: validatesFormats))
        }
        return CodegenConfiguration(catalogs: entries)
    }

    /// The files the generator writes for this configuration, known before any schema is read (a
    /// build-tool plugin declares them to SwiftPM).
    public var outputFileNames: [String] {
        catalogs.map { "\($0.swiftName).swift" } + (catalogs.count > 1 ? [Self.sharedFileName] : [])
    }
}

/// Generates Swift sources from a configuration.
public struct Generator {
    /// The generator's version, written into each file's header.
    public static let version = "1.0.0"

    public var configuration: CodegenConfiguration
    public var readFile: SchemaReader.FileReader

    public init(configuration: CodegenConfiguration, readFile: @escaping SchemaReader.FileReader) {
        self.configuration = configuration
        self.readFile = readFile
    }

    /// Every output file's name and contents, in ``CodegenConfiguration/outputFileNames`` order.
    ///
    /// - Throws: ``CodegenErrors`` with every error of every catalog.
    public func generate() throws -> [(name: String, contents: String)] {
        var reader = SchemaReader(readFile: readFile)
        var read: [CatalogModel] = []
        for entry in configuration.catalogs {
            reader.validatesFormats = entry.validatesFormats
            read.append(try reader.readCatalog(name: entry.name, schemaFile: entry.schema, swiftName: entry.swiftName, policy: entry.policy))
        }
        try reader.finish()
        let catalogs = read.map { reader.qualified($0) }
        let several = catalogs.count > 1
        var emitter = SwiftEmitter()
        var nested: [String: [String]] = [:]
        var topLevel: [String: [String]] = [:]
        for key in reader.typeOrder {
            guard let name = reader.qualifiedNames[key], let type = reader.types[key] else { continue }
            emitter.types[name] = type
            if let parent = reader.enclosing[key], let parentName = reader.qualifiedNames[parent] {
                nested[parentName, default: []].append(name)
            } else {
                topLevel[String(name[..<name.lastIndex(of: ".")!]), default: []].append(name)
            }
        }
        emitter.nested = nested
        // Every type of a namespace with what it declares, in the order met.
        func all(_ names: [String]) -> [String] { names.flatMap { [$0] + all(nested[$0] ?? []) } }
        var files: [(String, String)] = []
        for catalog in catalogs {
            let source = Self.file(
                header: "from \(catalog.location.file) (catalog \"\(catalog.name)\", \(catalog.policy.rawValue))",
                namespace: catalog.swiftName, declareNamespace: false, top: topLevel[catalog.swiftName] ?? [], all: all(topLevel[catalog.swiftName] ?? []),
                catalog: catalog, emitter: emitter)
            files.append(("\(catalog.swiftName).swift", source))
        }
        if several {
            let shared = topLevel[SchemaReader.sharedNamespace] ?? []
            let sources = configuration.catalogs.map(\.schema).joined(separator: ", ")
            files.append((CodegenConfiguration.sharedFileName, Self.file(
                header: "from \(sources) (types used by more than one catalog)", namespace: SchemaReader.sharedNamespace, declareNamespace: true,
                top: shared, all: all(shared), catalog: nil, emitter: emitter)))
        }
        return files
    }

    static func file(header: String, namespace: String, declareNamespace: Bool, top: [String], all: [String], catalog: CatalogModel?, emitter: SwiftEmitter) -> String {
        var w = emitter
        w.line("// DO NOT EDIT.")
        w.line("// swift-format-ignore-file")
        w.line("//")
        w.line("// Generated by switchyard-codegen \(version) \(header).")
        w.line("// Change the schemas and generate again (the SwitchyardCodegen plugin, or `swift package generate-catalogs`).")
        w.line()
        if emitter.declaresFormatAccessors(all) { w.line("import Foundation") }
        w.line("import SwitchyardJSON")
        if declareNamespace {
            w.line()
            w.line("/// The types that more than one catalog uses.")
            w.line("public enum \(namespace) {}")
        }
        if !top.isEmpty {
            w.line()
            w.block("extension \(namespace)") { w in
                for (index, name) in top.enumerated() {
                    if index > 0 { w.line() }
                    w.declare(name)
                }
            }
        }
        if let catalog {
            w.line()
            w.declareCatalog(catalog)
        }
        if !all.isEmpty || catalog != nil {
            w.line()
            w.line("// MARK: - Code below here is support for the Switchyard runtime")
        }
        for name in all {
            w.line()
            w.support(name)
        }
        if let catalog {
            w.line()
            w.supportCatalog(catalog)
        }
        return w.out
    }
}
