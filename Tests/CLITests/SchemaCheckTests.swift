import Foundation
import Testing

/// `switchyard schema check` as CI runs it: the built binary on copies of the shipped schemas.
@Suite(.serialized) struct SchemaCheckTests {
    /// `old/` and `new/`: two copies of the shipped Schemas/ (without the baseline) in a temporary directory.
    struct Dirs {
        let root: URL
        var old: String { root.appendingPathComponent("old").path }
        var new: String { root.appendingPathComponent("new").path }

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-schema-\(UUID().uuidString)")
            let schemas = CLI.packageRoot.appendingPathComponent("Schemas")
            for side in ["old", "new"] {
                let target = root.appendingPathComponent(side)
                try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
                for name in try FileManager.default.contentsOfDirectory(atPath: schemas.path) where name != "baseline" {
                    try FileManager.default.copyItem(at: schemas.appendingPathComponent(name), to: target.appendingPathComponent(name))
                }
            }
        }

        /// Replaces `text` (which must occur) in `new/<file>`.
        func edit(_ file: String, _ text: String, with replacement: String) throws {
            let url = root.appendingPathComponent("new").appendingPathComponent(file)
            let contents = try String(contentsOf: url, encoding: .utf8)
            #expect(contents.contains(text), "\(file) has no \(text)")
            try contents.replacing(text, with: replacement).write(to: url, atomically: true, encoding: .utf8)
        }

        func write(_ file: String, _ contents: String) throws {
            try contents.write(to: root.appendingPathComponent(file), atomically: true, encoding: .utf8)
        }

        func remove() { try? FileManager.default.removeItem(at: root) }

        /// payment.captured gains `warehouseId`: `default` nil makes it required.
        func addWarehouseId(default value: String? = nil) throws {
            let schema = value.map { #""warehouseId": {"type": "string", "default": \#($0)},"# } ?? #""warehouseId": {"type": "string"},"#
            try edit("payments/payment.captured.json", #""paymentId": {"#, with: schema + #" "paymentId": {"#)
            if value == nil { try edit("payments/payment.captured.json", "\"merchant\"\n  ]", with: "\"merchant\", \"warehouseId\"\n  ]") }
        }
    }

    static let warehouseLine =
        "payments/payment.captured.json#/properties/warehouseId: member added without a default 'warehouseId': backward breaking (rule 4), forward compatible (rule 2)"

    @Test func theShippedSchemasAgainstTheBaselineAreCompatible() throws {
        let result = try CLI.run(["schema", "check", "Schemas/baseline", "Schemas"])
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdoutLines.first == "schema check: Schemas/baseline → Schemas (feeds lenient, payments strict)")
        #expect(result.stdoutLines.last == "schema check: no changes: compatible in both directions")
    }

    @Test func aFieldAddedWithoutADefaultBreaksOldRecords() throws {
        let dirs = try Dirs()
        defer { dirs.remove() }
        try dirs.addWarehouseId()
        let result = try CLI.run(["schema", "check", dirs.old, dirs.new])
        #expect(result.exitCode == 1)
        #expect(result.stdoutLines == [
            "schema check: \(dirs.old) → \(dirs.new) (feeds lenient, payments strict)",
            Self.warehouseLine,
            "  backward: old records lack `warehouseId`: keyNotFound at `warehouseId`, which halts the partition (strict `payments`); a required member is never defaulted",
            "  forward: old builds keep `warehouseId` as an unknown field",
            "  deploy order: producers before consumers, and only once no old record remains to be read (retention, replays, redrives)",
            "schema check: 1 change: 0 compatible, 1 breaking: not compatible (exit 1)",
        ])
    }

    @Test func theSameFieldWithADefaultIsCompatible() throws {
        let dirs = try Dirs()
        defer { dirs.remove() }
        try dirs.addWarehouseId(default: #""main""#)
        let result = try CLI.run(["schema", "check", dirs.old, dirs.new])
        #expect(result.exitCode == 0)
        #expect(result.stdoutLines.dropFirst().first
            == #"payments/payment.captured.json#/properties/warehouseId: member added with a default 'warehouseId' = "main": backward compatible (rule 4), forward compatible (rule 2)"#)
        #expect(result.stdoutLines.last == "schema check: 1 change: 1 compatible, 0 breaking: compatible in both directions")
    }

    @Test func anIdentityGivenADefaultIsRefused() throws {
        let dirs = try Dirs()
        defer { dirs.remove() }
        try dirs.edit("common.json", ##""id": { "$ref": "#/$defs/Id" }"##, with: ##""id": { "$ref": "#/$defs/Id", "default": "none" }"##)
        let result = try CLI.run(["schema", "check", dirs.old, dirs.new])
        #expect(result.exitCode == 65)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("new schemas (\(dirs.new)): common.json:#/$defs/Envelope/properties/id: the identity 'id' is never defaulted (PRODUCT.md): remove its 'default'"))
    }

    @Test func aNewEnumValueOnAnOpenEnumIsCompatible() throws {
        let dirs = try Dirs()
        defer { dirs.remove() }
        try dirs.edit("feeds/post.created.json", #""private""#, with: #""private", "unlisted""#)
        let result = try CLI.run(["schema", "check", dirs.old, dirs.new])
        #expect(result.exitCode == 0)
        #expect(result.stdoutLines.dropFirst().first
            == "feeds/post.created.json#/properties/visibility: enum value added 'unlisted': backward compatible (rule 3), forward compatible (rule 3)")
    }

    /// payments gains `payment.disputed` (a copy of payment.failed).
    func addDisputed(_ dirs: Dirs) throws {
        let failed = try String(contentsOfFile: dirs.new + "/payments/payment.failed.json", encoding: .utf8)
        try dirs.write("new/payments/payment.disputed.json", failed.replacing("payment.failed", with: "payment.disputed").replacing("PaymentFailureReason", with: "DisputeReason"))
        try dirs.edit(
            "payments.json", #""$ref": "./payments/payment.failed.json""#,
            with: #""$ref": "./payments/payment.failed.json"}, {"properties": {"type": {"const": "payment.disputed"}}, "$ref": "./payments/payment.disputed.json""#)
    }

    @Test func aNewEventTypeOnAStrictCatalogDeploysConsumersFirst() throws {
        let dirs = try Dirs()
        defer { dirs.remove() }
        try addDisputed(dirs)
        let result = try CLI.run(["schema", "check", dirs.old, dirs.new])
        #expect(result.exitCode == 1)
        #expect(result.stdoutLines.dropFirst().first
            == "payments.json#/oneOf/4: event type added 'payment.disputed': backward compatible (rule 1), forward breaking (strict policy)")
        #expect(result.stdoutLines.contains(
            "  deploy order: consumers before producers: a new event type on strict `payments` halts every partition that receives it before the consumers know it (unknownType)"))
    }

    @Test func allowAcknowledgesABreakingChangeWithItsReason() throws {
        let dirs = try Dirs()
        defer { dirs.remove() }
        try dirs.addWarehouseId()
        let pointer = "payments/payment.captured.json#/properties/warehouseId"
        let result = try CLI.run(["schema", "check", dirs.old, dirs.new, "--allow", pointer, "--reason", "retained records backfilled (OPS-112)"])
        #expect(result.exitCode == 0)
        #expect(result.stdoutLines.contains("  allowed: retained records backfilled (OPS-112)"))
        #expect(result.stdoutLines.last == "schema check: 1 change: 0 compatible, 1 breaking (1 allowed): compatible in both directions once acknowledged")
        let stale = try CLI.run(["schema", "check", dirs.old, dirs.new, "--allow", "nothing.json#/x", "--reason", "r"])
        #expect(stale.exitCode == 1)
        #expect(stale.stderr.contains("warning: --allow nothing.json#/x matches no change"))
        let noReason = try CLI.run(["schema", "check", dirs.old, dirs.new, "--allow", pointer])
        #expect(noReason.exitCode == 64)
        #expect(noReason.stderr.hasPrefix("error: each --allow POINTER needs its --reason TEXT"))
    }

    @Test func jsonForCI() throws {
        let dirs = try Dirs()
        defer { dirs.remove() }
        try dirs.addWarehouseId()
        let result = try CLI.run(["schema", "check", "--json", dirs.old + "/payments.json", dirs.new + "/payments.json"])
        #expect(result.exitCode == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["breaking"] as? Int == 1 && object["exitCode"] as? Int == 1)
        let change = try #require((object["changes"] as? [[String: Any]])?.first)
        #expect(change["pointer"] as? String == "payments/payment.captured.json#/properties/warehouseId")
        #expect(change["class"] as? String == "member added without a default")
        #expect((change["backward"] as? [String: Any])?["verdict"] as? String == "breaking")
        #expect((change["backward"] as? [String: Any])?["rule"] as? String == "rule 4")
        #expect((change["forward"] as? [String: Any])?["verdict"] as? String == "compatible")
    }

    @Test func recordsCountTheRecordsABreakingChangeAffects() throws {
        let dirs = try Dirs()
        defer { dirs.remove() }
        try dirs.addWarehouseId()
        let envelope = #""id": "p1", "occurredAt": "2025-03-14T09:26:53Z", "paymentId": "pay_1", "amount": {"value": 1, "currency": "EUR"}, "merchant": {"id": "m", "name": "M"}"#
        let lines = [
            #"{"type": "payment.captured", \#(envelope)}"#,
            #"{"type": "payment.captured", \#(envelope)}"#,
            #"{"type": "payment.captured", "warehouseId": "w1", \#(envelope)}"#,
            #"{"type": "payment.refunded", \#(envelope), "reason": "duplicate"}"#,
        ]
        try dirs.write("dump.ndjson", lines.joined(separator: "\n") + "\n")
        let result = try CLI.run(["schema", "check", dirs.old, dirs.new, "--records", dirs.root.path + "/dump.ndjson", "--catalog", "payments"])
        #expect(result.exitCode == 1)
        #expect(result.stdoutLines.contains("  records: 2 of 4 records lack `warehouseId`, which is now required"))
        #expect(result.stdoutLines.contains("records: 4 read for payments, 2 fail under the new schemas"))
    }

    @Test func againstAGitRevisionReadsOldFromGit() throws {
        let result = try CLI.run(["schema", "check", "--against", "HEAD", "Schemas"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.stdoutLines.first == "schema check: Schemas at HEAD → Schemas (feeds lenient, payments strict)")
        let bad = try CLI.run(["schema", "check", "--against", "no-such-revision-xyz", "Schemas"])
        #expect(bad.exitCode == 65)
    }

    @Test func usageAndUnreadableSchemas() throws {
        let missing = try CLI.run(["schema", "check", "Schemas"])
        #expect(missing.exitCode == 64)
        #expect(missing.stderr.hasPrefix("error: schema check needs OLD and NEW"))
        let action = try CLI.run(["schema", "diff", "a", "b"])
        #expect(action.exitCode == 64)
        let absent = try CLI.run(["schema", "check", "/nonexistent/old", "Schemas"])
        #expect(absent.exitCode == 65)
        #expect(absent.stderr.contains("/nonexistent/old: no such file or directory"))
        let help = try CLI.run(["schema", "--help"])
        #expect(help.exitCode == 0 && help.stdout.contains("backward  old records"))
    }
}
