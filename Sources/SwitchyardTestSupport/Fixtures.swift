import Foundation

/// The catalog fixtures (`Tests/SwitchyardCatalogTests/Fixtures`) and their manifest.
public enum Fixtures {
    /// The fixtures folder.
    public static let directory = packageRoot.appendingPathComponent("Tests/SwitchyardCatalogTests/Fixtures")

    /// One entry of `expectations.json`: what a fixture must decode to.
    public struct Expectation: Decodable, Sendable, CustomStringConvertible {
        public var file: String
        public var topic: String
        /// `decoded`, `unknown` or `failed`.
        public var outcome: String
        public var type: String?
        public var kind: String?
        public var path: String?
        public var description: String { file }
    }

    /// Every manifest entry, or those of one topic.
    public static func expectations(topic: String? = nil) throws -> [Expectation] {
        let all = try JSONDecoder().decode([Expectation].self, from: Data(contentsOf: directory.appendingPathComponent("expectations.json")))
        return topic.map { topic in all.filter { $0.topic == topic } } ?? all
    }

    /// A fixture's bytes (`golden/NAME` for a canonical encoding).
    public static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }
}
