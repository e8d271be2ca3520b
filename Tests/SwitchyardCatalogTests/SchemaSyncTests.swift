import Foundation
import Testing

@testable import Switchyard
import SwitchyardCatalog

/// Keeps the Swift catalog and `Schemas/` in step: one schema per event type and no other, the
/// same property names, and the same required fields.
@Suite struct SchemaSyncTests {
    static let schemas = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Schemas")

    static func schema(_ catalog: String, _ type: String) throws -> [String: Any] {
        let data = try Data(contentsOf: schemas.appendingPathComponent("\(catalog)/\(type).json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static let catalogs: [(name: String, types: [String])] = [
        (PaymentEvent.name, PaymentEvent.eventTypes.map(\.type)),
        (FeedEvent.name, FeedEvent.eventTypes.map(\.type)),
    ]

    @Test func everyCaseHasASchemaAndViceVersa() throws {
        for catalog in Self.catalogs {
            let files = try FileManager.default.contentsOfDirectory(atPath: Self.schemas.appendingPathComponent(catalog.name).path)
            #expect(Set(files) == Set(catalog.types.map { "\($0).json" }), "\(catalog.name)")
            let topic = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.schemas.appendingPathComponent("\(catalog.name).json"))) as? [String: Any]
            let refs = (topic?["oneOf"] as? [[String: Any]] ?? []).compactMap { $0["$ref"] as? String }
            for type in catalog.types {
                #expect(refs.contains { $0.hasSuffix("\(type).json") }, "\(catalog.name).json oneOf lacks \(type)")
            }
        }
    }

    /// Property names: the v2 fixture's canonical encoding has exactly the schema's properties plus
    /// the envelope's (v2 fixtures have every field and no unknown ones).
    @Test func schemaPropertiesMatchTheCanonicalEncoding() throws {
        for catalog in Self.catalogs {
            for type in catalog.types {
                let schema = try Self.schema(catalog.name, type)
                let properties = Set((schema["properties"] as? [String: Any] ?? [:]).keys).union(["id", "occurredAt", "schemaVersion"])
                let fixture = FixtureTests.fixtures.appendingPathComponent("\(type.replacingOccurrences(of: ".", with: "-"))-v2.json")
                var codec = TopicCodec(catalog: CatalogRegistry(Catalog.shipped)[catalog.name]!, policy: .strict)
                let event = try #require(codec.decode([UInt8](try Data(contentsOf: fixture))).event)
                let encoded = try JSONSerialization.jsonObject(with: Data(TopicCodec.canonicalBytes(of: event))) as? [String: Any]
                #expect(Set(encoded?.keys ?? [:].keys) == properties, "\(type)")
            }
        }
    }

    /// Required fields: removing a schema-required field fails with keyNotFound at that key; removing
    /// any other property still decodes (it is optional or has a default).
    @Test func requiredFieldsAgree() throws {
        for catalog in Self.catalogs {
            for type in catalog.types {
                let schema = try Self.schema(catalog.name, type)
                let required = Set(schema["required"] as? [String] ?? [])
                let fixture = FixtureTests.fixtures.appendingPathComponent("\(type.replacingOccurrences(of: ".", with: "-"))-v2.json")
                let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: fixture)) as? [String: Any])
                for key in object.keys where key != "type" {
                    var reduced = object
                    reduced.removeValue(forKey: key)
                    var codec = TopicCodec(catalog: CatalogRegistry(Catalog.shipped)[catalog.name]!, policy: .strict)
                    let outcome = codec.decode([UInt8](try JSONSerialization.data(withJSONObject: reduced))).outcome
                    if required.contains(key) {
                        #expect(outcome == .failed(DecodeFailure(kind: .keyNotFound, path: key, type: type, message: "Missing required key '\(key)'.")), "\(type) without \(key)")
                    } else {
                        #expect(outcome == .decoded(type: type), "\(type) without \(key)")
                    }
                }
            }
        }
    }
}
