import Foundation
import Switchyard
import SwitchyardCodegenCore

/// `switchyard schema check`: a schema change is a migration; says which records break, in which
/// direction, and which side deploys first.
struct SchemaCommand: Command {
    static var checkSpec: CommandSpec {
        CommandSpec(
            ["schema", "check"], abstract: "Compare two versions of the catalog schemas: one line per change, its class and verdicts.",
            synopsis: [
                "schema check OLD NEW [--policy strict|lenient] [--json] [--allow POINTER --reason TEXT]… [--records DUMP…]",
                "schema check --against GIT_REV NEW [options]",
            ],
            discussion: """
                Compares two versions of a set of catalog schemas (two directories, or two catalog schema
                files) catalog by catalog, event by event and member by member, and prints one line per
                change: its JSON pointer (file#/pointer, in the new schemas; in the old ones for a removal),
                its class, and two verdicts, each citing the PRODUCT.md rule it applies:
                  backward  old records (in the topic, replays, redrives) read by a build of the new schemas
                  forward   new records read by builds of the old schemas (consumers not deployed yet)
                A change safe in one direction only says which side deploys first.

                The catalogs of a directory come from its switchyard-codegen.json if it has one; else every
                top-level .json whose root lists events in 'oneOf' is a catalog named after its file, lenient
                when its 'oneOf' has the unknown-events branch, strict otherwise (or --policy).
                """,
            options: [
                OptionSpec("--against", .text("REV"), help: "Read OLD from git: NEW's path at REV (a commit, tag or branch)."),
                OptionSpec("--policy", .choice(["strict", "lenient"]), help: "The policy of catalogs without a configuration."),
                OptionSpec("--json", help: "Print one JSON object: the changes, their verdicts, the summary."),
                OptionSpec("--allow", .text("POINTER"), repeatable: true, help: "Acknowledge the breaking change at POINTER (as printed), each with its --reason, which is printed. Acknowledged changes do not fail."),
                OptionSpec("--reason", .text("TEXT"), repeatable: true, help: "Why the --allow-ed change is acceptable."),
                OptionSpec("--records", .file("DUMP"), repeatable: true, help: "Replay captured records (kcat -J envelopes or NDJSON, gzip allowed; '-' is standard input) through the new schemas' decoder rules and count the records each change affects. Checked without compiling anything: the tag, the envelope, required members present and not null, JSON types, integers (no fraction, the type's range, minimum/maximum), non-empty identifiers (minLength 1), RFC 3339 date-times. Unknown fields and open-enum values never fail; hand-written (x-swift-type) members are not checked."),
                OptionSpec("--catalog", .named("NAME", .catalogs), help: "The catalog of every record in the dumps (default: the envelope's topic, else the only catalog, else the catalog that knows the record's tag)."),
                OptionSpec("--format", .choice(["auto", "ndjson", "kcat"]), help: "The dumps' format. Default: auto."),
            ],
            positionals: [PositionalSpec("SCHEMAS", repeatable: true, isFile: true, help: "OLD NEW: two schema directories or catalog files; with --against, NEW only.")],
            examples: [
                Example("switchyard schema check Schemas/baseline Schemas", "The change since the last release, as CI runs it."),
                Example("switchyard schema check --against HEAD Schemas", "Against the committed schemas."),
            ],
            exitCodes: [
                (.success, "compatible in both directions (or every other change acknowledged with --allow)"),
                (.findings, "a breaking change"), (.usage, "usage"),
                (.dataError, "a schema is unreadable or invalid (file:#/pointer: message), or a dump is unreadable"),
            ])
    }

    static var spec: CommandSpec {
        CommandSpec(
            ["schema"], abstract: "Check a schema change: which records break, in which direction, which side deploys first.",
            discussion: checkSpec.discussion,
            subcommands: [checkSpec],
            examples: [Example("switchyard schema check Schemas/baseline Schemas", "The change since the last release.")],
            exitCodes: checkSpec.exitCodes)
    }

    var old: String?
    var new: String
    var against: String?
    var policy: CatalogPolicy?
    var json: Bool
    var allowed: [(pointer: String, reason: String)]
    var dumps: [String]
    var catalogName: String?
    var format: DumpFormat

    init(_ arguments: ParsedArguments) throws {
        against = arguments.option("--against")
        policy = arguments.option("--policy").flatMap(CatalogPolicy.init(rawValue:))
        json = arguments.flag("--json")
        let pointers = arguments.options("--allow")
        let reasons = arguments.options("--reason")
        guard pointers.count == reasons.count else { throw CommandError.usage("each --allow POINTER needs its --reason TEXT") }
        for reason in reasons where reason.trimmingCharacters(in: .whitespaces).isEmpty {
            throw CommandError.usage("--reason must say why the change is acceptable")
        }
        allowed = Array(zip(pointers, reasons))
        dumps = arguments.options("--records")
        catalogName = arguments.option("--catalog")
        format = arguments.option("--format").flatMap(DumpFormat.init(rawValue:)) ?? .auto
        let positionals = arguments.positionals
        switch (positionals.count, against) {
        case (2, nil):
            old = positionals[0]
            new = positionals[1]
        case (1, _?):
            new = positionals[0]
        case (_, nil):
            throw CommandError.usage("schema check needs OLD and NEW (two schema directories or catalog files), or --against REV NEW")
        case (_, _?):
            throw CommandError.usage("with --against, give NEW only: OLD is NEW's path at the revision")
        }
    }

    func validate() throws {
        if dumps.isEmpty && (catalogName != nil || format != .auto) { throw CommandError.usage("--catalog and --format need --records") }
    }

    // MARK: - Running

    func run() async throws -> ExitCode {
        let newSource = SchemaSource.files(new)
        let oldSource = against.map { SchemaSource.git(revision: $0, path: new) } ?? .files(old!)
        let oldSnapshot = try read(oldSource, side: "old")
        let newSnapshot = try read(newSource, side: "new")
        let changes = SchemaDiff.compare(old: oldSnapshot, new: newSnapshot)
        var evidence: SchemaEvidence?
        if !dumps.isEmpty {
            var counter = SchemaEvidence(changes: changes, old: oldSnapshot, new: newSnapshot)
            var reader = DumpReader(paths: dumps, format: format)
            do {
                while let record = try reader.next() {
                    guard let value = record.value else { continue }  // a tombstone: not a record to decode
                    counter.add(value, catalog: catalogName ?? record.topic)
                }
            } catch {
                throw CommandError(.dataError, "\(error)")
            }
            evidence = counter
        }
        for (pointer, _) in allowed where !changes.contains(where: { $0.pointer == pointer }) {
            printError("warning: --allow \(pointer) matches no change")
        }
        let report = Report(
            old: oldSource.label, new: newSource.label, catalogs: newSnapshot.catalogs, changes: changes,
            allowed: Dictionary(allowed.map { ($0.pointer, $0.reason) }, uniquingKeysWith: { a, _ in a }), evidence: evidence)
        print(json ? report.json : report.text, terminator: "")
        return report.failing.isEmpty ? .success : .findings
    }

    func read(_ source: SchemaSource, side: String) throws -> SchemaSnapshot {
        do {
            return try SchemaSnapshot.read(try source.catalogEntries(policy: policy), readFile: source.readFile)
        } catch let error as CodegenError {
            throw CommandError(.dataError, "\(side) schemas (\(source.label)): \(error)")
        } catch let errors as CodegenErrors where errors.errors.count == 1 {
            throw CommandError(.dataError, "\(side) schemas (\(source.label)): \(errors.errors[0])")
        } catch let errors as CodegenErrors {
            throw CommandError(.dataError, "\(side) schemas (\(source.label)), \(errors.errors.count) errors:\n" + errors.errors.map { "  \($0)" }.joined(separator: "\n"))
        }
    }
}

// MARK: - Sources of schemas

/// Where one side's schemas are read from: the file system, or a git revision.
enum SchemaSource {
    /// A directory, or one catalog schema file.
    case files(String)
    /// `path` (a directory or a catalog file) as it is at `revision`.
    case git(revision: String, path: String)

    var label: String {
        switch self {
        case .files(let path): path
        case .git(let revision, let path): "\(path) at \(revision)"
        }
    }

    var path: String {
        switch self {
        case .files(let path), .git(_, let path): path
        }
    }

    /// Whether `path` is a directory (else a catalog file); throws when it does not exist.
    func isDirectory() throws -> Bool {
        switch self {
        case .files(let path):
            var directory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &directory) else {
                throw CommandError(.dataError, "\(path): no such file or directory")
            }
            return directory.boolValue
        case .git(let revision, _):
            let type = try Git.run(["cat-file", "-t", gitObject("")], what: "\(path) at \(revision)")
            return String(decoding: type, as: UTF8.self).hasPrefix("tree")
        }
    }

    /// The directory schema paths are relative to.
    func root() throws -> String {
        try isDirectory() ? path : (path as NSString).deletingLastPathComponent
    }

    /// `REV:./Schemas/payments.json` (or `REV:Schemas/…` from the repository's top for an absolute path).
    func gitObject(_ relative: String) throws -> String {
        guard case .git(let revision, let path) = self else { return relative }
        var full = relative.isEmpty ? path : SchemaReader.join(path, relative)
        if full.hasPrefix("/") {
            let top = String(decoding: try Git.run(["rev-parse", "--show-toplevel"], what: "the repository"), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            guard full.hasPrefix(top + "/") else { throw CommandError(.dataError, "\(path) is not in the git repository at \(top)") }
            full = String(full.dropFirst(top.count + 1))
            return "\(revision):\(full)"
        }
        return "\(revision):./\(full)"
    }

    /// Reads a file by its path relative to ``root()``; nil when it does not exist.
    var readFile: SchemaReader.FileReader {
        let source = self
        return { relative in
            switch source {
            case .files:
                let root = try source.root()
                return FileManager.default.contents(atPath: (root as NSString).appendingPathComponent(relative)).map { [UInt8]($0) }
            case .git(let revision, let path):
                let directory = try source.isDirectory() ? path : (path as NSString).deletingLastPathComponent
                let object = try SchemaSource.git(revision: revision, path: directory).gitObject(relative)
                return try? Git.run(["cat-file", "blob", object], what: object)
            }
        }
    }

    /// The names of the files directly in a directory.
    func list() throws -> [String] {
        switch self {
        case .files(let path):
            do {
                return try FileManager.default.contentsOfDirectory(atPath: path).sorted()
            } catch {
                throw CommandError(.dataError, "\(path): cannot list the directory: \(error.localizedDescription)")
            }
        case .git:
            let names = try Git.run(["ls-tree", "--full-tree", "--name-only", gitObject("")], what: label)
            return String(decoding: names, as: UTF8.self).split(separator: "\n").map(String.init).sorted()
        }
    }

    /// The catalogs to compare: the directory's switchyard-codegen.json, else its top-level catalog
    /// schemas (named after their files, policy from the unknown-events branch or `policy`), or the one
    /// catalog file.
    func catalogEntries(policy: CatalogPolicy?) throws -> [CodegenConfiguration.CatalogEntry] {
        let read = readFile
        func entry(_ file: String) throws -> CodegenConfiguration.CatalogEntry? {
            guard let bytes = try read(file) else { throw CommandError(.dataError, "\(label): cannot read \(file)") }
            guard let schema = try? JSONParser.parse(bytes), SchemaSnapshot.isCatalogSchema(schema) else { return nil }
            let name = String(file.dropLast(".json".count))
            return .init(name: name, schema: file, policy: policy ?? SchemaSnapshot.declaredPolicy(ofCatalogSchema: schema))
        }
        guard try isDirectory() else {
            let file = (path as NSString).lastPathComponent
            guard let catalog = try entry(file) else {
                throw CommandError(.dataError, "\(label): not a catalog schema (a catalog lists its events in 'oneOf')")
            }
            return [catalog]
        }
        let names = try list()
        if names.contains(CodegenConfiguration.fileName), let bytes = try read(CodegenConfiguration.fileName) {
            do {
                return try CodegenConfiguration.parse(bytes).catalogs
            } catch {
                throw CommandError(.dataError, "\(label): \(error)")
            }
        }
        let catalogs = try names.filter { $0.hasSuffix(".json") }.compactMap(entry)
        guard !catalogs.isEmpty else {
            throw CommandError(.dataError, "\(label): no catalog schema (a top-level .json whose 'oneOf' lists the events)")
        }
        return catalogs
    }
}

/// Runs git and returns its standard output.
enum Git {
    static func run(_ arguments: [String], what: String) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git"] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do {
            try process.run()
        } catch {
            throw CommandError(.dataError, "cannot run git: \(error.localizedDescription)")
        }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let message = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let reason = String(decoding: message, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw CommandError(.dataError, "\(what): git \(arguments.first ?? ""): \(reason)")
        }
        return [UInt8](data)
    }
}

// MARK: - Output

/// What `schema check` prints.
struct Report {
    var old: String
    var new: String
    var catalogs: [CatalogModel]
    var changes: [SchemaChange]
    /// Reasons by acknowledged pointer.
    var allowed: [String: String]
    var evidence: SchemaEvidence?

    func isAllowed(_ change: SchemaChange) -> Bool { allowed[change.pointer] != nil }

    /// Changes that are not compatible in both directions and not acknowledged.
    var failing: [SchemaChange] { changes.filter { !$0.isCompatible && !isAllowed($0) } }

    var summary: String {
        let breaking = changes.filter { !$0.isCompatible }
        let acknowledged = breaking.filter(isAllowed).count
        if changes.isEmpty { return "schema check: no changes: compatible in both directions" }
        var text = "schema check: \(changes.count) change\(changes.count == 1 ? "" : "s"): \(changes.count - breaking.count) compatible, \(breaking.count) breaking"
        if acknowledged > 0 { text += " (\(acknowledged) allowed)" }
        text += failing.isEmpty ? ": compatible in both directions" + (acknowledged > 0 ? " once acknowledged" : "") : ": not compatible (exit 1)"
        return text
    }

    var text: String {
        var out = "schema check: \(old) → \(new) (" + catalogs.map { "\($0.name) \($0.policy.rawValue)" }.joined(separator: ", ") + ")\n"
        for (index, change) in changes.enumerated() {
            out += change.line + "\n"
            out += "  backward: \(change.backward.reason)\n"
            out += "  forward: \(change.forward.reason)\n"
            if let order = change.deployOrder { out += "  deploy order: \(order)\n" }
            if let reason = allowed[change.pointer], !change.isCompatible { out += "  allowed: \(reason)\n" }
            if let evidence, !change.isCompatible {
                out += "  records: \(evidence.summary(index))\n"
            }
        }
        if let evidence {
            for catalog in catalogs where evidence.records[catalog.name] != nil {
                out += "records: \(evidence.records[catalog.name] ?? 0) read for \(catalog.name), \(evidence.failing[catalog.name] ?? 0) fail under the new schemas\n"
            }
            if evidence.unreadable > 0 { out += "records: \(evidence.unreadable) not a JSON object\n" }
            if evidence.unassigned > 0 { out += "records: \(evidence.unassigned) of no compared catalog (use --catalog)\n" }
        }
        return out + summary + "\n"
    }

    var json: String {
        func verdict(_ v: Verdict) -> [String: Any] {
            ["verdict": v.isBreaking ? "breaking" : "compatible", "rule": v.rule, "reason": v.reason]
        }
        var items: [[String: Any]] = []
        for (index, change) in changes.enumerated() {
            var item: [String: Any] = [
                "pointer": change.pointer, "class": change.kind.rawValue, "detail": change.detail, "catalog": change.catalog,
                "backward": verdict(change.backward), "forward": verdict(change.forward), "compatible": change.isCompatible,
            ]
            item["event"] = change.event
            item["path"] = change.recordPath
            item["deployOrder"] = change.deployOrder
            if !change.isCompatible { item["allowed"] = allowed[change.pointer] ?? NSNull() }
            if let evidence {
                item["records"] = ["affected": evidence.affected[index], "of": evidence.records[change.catalog] ?? 0, "summary": evidence.summary(index)]
            }
            items.append(item)
        }
        var object: [String: Any] = [
            "old": old, "new": new,
            "catalogs": catalogs.map { ["name": $0.name, "policy": $0.policy.rawValue] },
            "changes": items,
            "compatible": changes.filter(\.isCompatible).count,
            "breaking": changes.filter { !$0.isCompatible }.count,
            "allowed": changes.filter { !$0.isCompatible && isAllowed($0) }.count,
            "exitCode": failing.isEmpty ? 0 : 1,
        ]
        if let evidence {
            object["records"] = ["read": evidence.records, "failing": evidence.failing, "unreadable": evidence.unreadable, "unassigned": evidence.unassigned]
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
