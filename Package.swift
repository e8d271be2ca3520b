// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Switchyard",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "switchyard", targets: ["switchyard"]),
        .library(name: "Switchyard", targets: ["Switchyard"]),
        .library(name: "SwitchyardJSON", targets: ["SwitchyardJSON"]),
        .library(name: "SwitchyardCatalog", targets: ["SwitchyardCatalog"]),
        .library(name: "SwitchyardKafka", targets: ["SwitchyardKafka"]),
    ],
    targets: [
        // MARK: - C libraries from Debian packages
        .systemLibrary(
            name: "CRdKafka",
            pkgConfig: "rdkafka",
            providers: [.apt(["librdkafka-dev"])]
        ),

        // MARK: - Layers, each depending only downward
        /// JSON reader with raw byte ranges, the Codable decoder/encoder, diagnostics.
        .target(name: "SwitchyardJSON"),
        /// The shipped event catalogs (payments, feeds).
        .target(name: "SwitchyardCatalog", dependencies: ["SwitchyardJSON"]),
        /// The Kafka client on librdkafka (consumer, producer, embedded mock broker); every C call is in RDKafka/.
        .target(name: "SwitchyardKafka", dependencies: ["CRdKafka"]),
        /// The pipeline: decoding a record under a topic policy, replay.
        .target(name: "Switchyard", dependencies: ["SwitchyardJSON", "SwitchyardCatalog"]),
        /// Subcommands; the executable only calls into it.
        .target(name: "SwitchyardCLI", dependencies: ["Switchyard", "SwitchyardKafka"]),
        .executableTarget(name: "switchyard", dependencies: ["SwitchyardCLI"]),

        // MARK: - Tests
        .testTarget(
            name: "SwitchyardJSONTests",
            dependencies: ["SwitchyardJSON"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "SwitchyardCatalogTests",
            dependencies: ["SwitchyardCatalog", "Switchyard"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "CLITests", dependencies: ["Switchyard"]),
        /// Integration tests over TCP against the embedded broker (and kcat against `switchyard broker`).
        .testTarget(name: "SwitchyardKafkaTests", dependencies: ["SwitchyardKafka"]),
    ],
    swiftLanguageModes: [.v6]
)
