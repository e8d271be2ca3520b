// swift-tools-version:6.1
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
        .library(name: "SwitchyardMetrics", targets: ["SwitchyardMetrics"]),
        .library(name: "SwitchyardHTTP", targets: ["SwitchyardHTTP"]),
        .library(name: "SwitchyardCLI", targets: ["SwitchyardCLI"]),
        .executable(name: "switchyard-codegen", targets: ["switchyard-codegen"]),
        .plugin(name: "SwitchyardCodegen", targets: ["SwitchyardCodegen"]),
        .plugin(name: "GenerateCatalogs", targets: ["GenerateCatalogs"]),
    ],
    targets: [
        // MARK: - C libraries from Debian packages
        .systemLibrary(
            name: "CRdKafka",
            pkgConfig: "rdkafka",
            providers: [.apt(["librdkafka-dev"])]
        ),
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),

        // MARK: - Layers, each depending only downward
        /// JSON reader with raw byte ranges, the Codable decoder/encoder, diagnostics.
        .target(name: "SwitchyardJSON", dependencies: ["CJSONScan"]),
        /// SSE2 byte scanning for the JSON fast path (header-only C, inlined into Swift).
        .target(name: "CJSONScan"),
        /// The shipped event catalogs (payments, feeds), generated from Schemas/ and checked in
        /// (`swift package --allow-writing-to-package-directory generate-catalogs --target SwitchyardCatalog`).
        .target(name: "SwitchyardCatalog", dependencies: ["SwitchyardJSON"], exclude: ["switchyard-codegen.json"]),

        // MARK: - Code generation from JSON Schema
        /// Schema reader and Swift emitter (no dependencies: the plugins build it for the host).
        .target(name: "SwitchyardCodegenCore"),
        .executableTarget(name: "switchyard-codegen", dependencies: ["SwitchyardCodegenCore"]),
        /// Build-tool plugin: generates a target's catalogs from its `switchyard-codegen.json` on every build.
        .plugin(name: "SwitchyardCodegen", capability: .buildTool(), dependencies: ["switchyard-codegen"]),
        /// Command plugin: writes the same files into the package, for checked-in generated code.
        .plugin(
            name: "GenerateCatalogs",
            capability: .command(
                intent: .custom(verb: "generate-catalogs", description: "Generate Swift catalogs from JSON Schemas into the target's Generated/ folder"),
                permissions: [.writeToPackageDirectory(reason: "writes the generated catalog sources into the target")]
            ),
            dependencies: ["switchyard-codegen"]
        ),
        /// The Kafka client on librdkafka (consumer, producer, embedded mock broker); every C call is in RDKafka/.
        .target(name: "SwitchyardKafka", dependencies: ["CRdKafka"]),
        /// The pipeline: decoding a record under a topic policy, replay.
        .target(name: "Switchyard", dependencies: ["SwitchyardJSON", "SwitchyardCatalog", "SwitchyardKafka", "SwitchyardMetrics", "SwitchyardHTTP", "CZlib"]),
        /// Subcommands; the executable only calls into it.
        .target(name: "SwitchyardCLI", dependencies: ["Switchyard", "SwitchyardKafka", "SwitchyardHTTP", "SwitchyardCatalog", "SwitchyardCodegenCore"]),
        .executableTarget(name: "switchyard", dependencies: ["SwitchyardCLI", "SwitchyardCatalog"]),
        /// An example of the library API: handlers per event type on the worker's runtime.
        .executableTarget(name: "payments-ledger", dependencies: ["Switchyard", "SwitchyardCatalog"], path: "Examples/PaymentsLedger"),
        /// Benchmarks (run with -c release by `make bench`). Its `commerce` catalog (Schemas/commerce: unions,
        /// maps, nullable members, exact numbers) is generated on every build by the SwitchyardCodegen plugin.
        .executableTarget(
            name: "switchyard-bench", dependencies: ["Switchyard", "CSimdjsonBench", "SwitchyardCatalog"],
            exclude: ["Schemas", "switchyard-codegen.json"], plugins: [.plugin(name: "SwitchyardCodegen")]),
        /// The worker with a handler that sleeps per record (the worker benchmark's slow-handler rows) or publishes
        /// one event per record (the handler-publish benchmark).
        .executableTarget(name: "switchyard-bench-worker", dependencies: ["Switchyard", "SwitchyardCatalog", "SwitchyardKafka"]),
        /// The worker with a handler a record's `chaos.handler` header makes slow, stuck or failing: the chaos soak's
        /// workers (scripts/chaos.py).
        .executableTarget(name: "switchyard-chaos-worker", dependencies: ["Switchyard", "SwitchyardCLI", "SwitchyardCatalog"]),
        /// The worker benchmark's librdkafka floor: a C consumer that only polls and reads each record.
        .executableTarget(name: "switchyard-bench-floor", linkerSettings: [.linkedLibrary("rdkafka")]),
        /// Writes N seeded corpus records (NDJSON or kcat -J envelopes), for scripts/replay-memory.sh.
        .executableTarget(name: "switchyard-corpus", dependencies: ["Switchyard", "SwitchyardCatalog"]),
        /// simdjson's DOM parser behind a C function: the benchmark's parse-only floor (not in any product).
        .target(
            name: "CSimdjsonBench",
            linkerSettings: [.linkedLibrary("simdjson")]
        ),
        /// Fuzz invariants, the Foundation differential and the adversarial-input generator.
        .target(name: "SwitchyardFuzz", dependencies: ["Switchyard", "SwitchyardCatalog"]),
        /// libFuzzer targets: `make fuzz` builds them with -sanitize=fuzzer; a normal build replays files.
        .executableTarget(name: "fuzz-decode", dependencies: ["SwitchyardFuzz"]),
        .executableTarget(name: "fuzz-differential", dependencies: ["SwitchyardFuzz"]),
        /// Writes the adversarial inputs for scripts/adversarial.sh.
        .executableTarget(name: "switchyard-adversarial", dependencies: ["SwitchyardFuzz"]),
        /// Bounded waits and unique names for the test targets (not a product).
        .target(name: "SwitchyardTestSupport", dependencies: ["SwitchyardKafka"]),
        /// Counters, gauges and histograms with capped wire labels, rendered as Prometheus text.
        .target(name: "SwitchyardMetrics"),
        /// A tiny GET-only HTTP server on libmicrohttpd for /metrics, /healthz, /readyz, /status.
        .target(name: "SwitchyardHTTP", dependencies: ["CMicroHTTPD"]),

        // MARK: - Tests
        .testTarget(
            name: "SwitchyardJSONTests",
            dependencies: ["SwitchyardJSON"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "SwitchyardCatalogTests",
            dependencies: ["SwitchyardCatalog", "Switchyard", "SwitchyardFuzz", "SwitchyardTestSupport"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "CLITests", dependencies: ["Switchyard", "SwitchyardTestSupport", "SwitchyardCatalog"], exclude: ["Fixtures"]),
        /// Integration tests over TCP against the embedded broker (and kcat against `switchyard broker`).
        .testTarget(name: "SwitchyardKafkaTests", dependencies: ["SwitchyardKafka", "SwitchyardTestSupport"]),
        /// The worker end to end on the embedded broker: policies, dead letters, halts, faults.
        .testTarget(name: "IntegrationTests", dependencies: ["Switchyard", "SwitchyardTestSupport", "SwitchyardCatalog", "SwitchyardHTTP"]),
        .testTarget(name: "SwitchyardMetricsTests", dependencies: ["SwitchyardMetrics"]),
        /// The worker's pure parts without a broker: the record decision table.
        .testTarget(name: "SwitchyardTests", dependencies: ["Switchyard", "SwitchyardCatalog", "SwitchyardKafka"]),
        /// The generator: one test per keyword and per error, determinism, the checked-in catalogs up to date.
        .testTarget(name: "CodegenTests", dependencies: ["SwitchyardCodegenCore"]),
        /// Fuzz invariants on the seed corpus, adversarial inputs, label caps and redaction.
        .testTarget(name: "HardeningTests", dependencies: ["SwitchyardFuzz", "SwitchyardTestSupport", "SwitchyardCatalog"]),
        .testTarget(name: "SwitchyardHTTPTests", dependencies: ["SwitchyardHTTP", "SwitchyardMetrics", "SwitchyardTestSupport"]),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
