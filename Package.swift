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
        .library(name: "SwitchyardMetrics", targets: ["SwitchyardMetrics"]),
        .library(name: "SwitchyardHTTP", targets: ["SwitchyardHTTP"]),
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
        /// The shipped event catalogs (payments, feeds).
        .target(name: "SwitchyardCatalog", dependencies: ["SwitchyardJSON"]),
        /// The Kafka client on librdkafka (consumer, producer, embedded mock broker); every C call is in RDKafka/.
        .target(name: "SwitchyardKafka", dependencies: ["CRdKafka"]),
        /// The pipeline: decoding a record under a topic policy, replay.
        .target(name: "Switchyard", dependencies: ["SwitchyardJSON", "SwitchyardCatalog", "SwitchyardKafka", "SwitchyardMetrics", "SwitchyardHTTP", "CZlib"]),
        /// Subcommands; the executable only calls into it.
        .target(name: "SwitchyardCLI", dependencies: ["Switchyard", "SwitchyardKafka", "SwitchyardHTTP"]),
        .executableTarget(name: "switchyard", dependencies: ["SwitchyardCLI"]),
        /// An example of the library API: handlers per event type on the worker's runtime.
        .executableTarget(name: "payments-ledger", dependencies: ["Switchyard"], path: "Examples/PaymentsLedger"),
        /// Benchmarks (run with -c release by `make bench`).
        .executableTarget(name: "switchyard-bench", dependencies: ["Switchyard", "CSimdjsonBench"]),
        /// Writes N seeded corpus records (NDJSON or kcat -J envelopes), for scripts/replay-memory.sh.
        .executableTarget(name: "switchyard-corpus", dependencies: ["Switchyard"]),
        /// simdjson's DOM parser behind a C function: the benchmark's parse-only floor (not in any product).
        .target(
            name: "CSimdjsonBench",
            linkerSettings: [.linkedLibrary("simdjson")]
        ),
        /// Fuzz invariants, the Foundation differential and the adversarial-input generator (issue 8).
        .target(name: "SwitchyardFuzz", dependencies: ["Switchyard"]),
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
        .testTarget(name: "CLITests", dependencies: ["Switchyard", "SwitchyardTestSupport"]),
        /// Integration tests over TCP against the embedded broker (and kcat against `switchyard broker`).
        .testTarget(name: "SwitchyardKafkaTests", dependencies: ["SwitchyardKafka", "SwitchyardTestSupport"]),
        /// The worker end to end on the embedded broker: policies, dead letters, halts, faults.
        .testTarget(name: "IntegrationTests", dependencies: ["Switchyard", "SwitchyardTestSupport"]),
        .testTarget(name: "SwitchyardMetricsTests", dependencies: ["SwitchyardMetrics"]),
        /// Fuzz invariants on the seed corpus, adversarial inputs, label caps and redaction (issue 8).
        .testTarget(name: "HardeningTests", dependencies: ["SwitchyardFuzz", "SwitchyardTestSupport"]),
        .testTarget(name: "SwitchyardHTTPTests", dependencies: ["SwitchyardHTTP", "SwitchyardMetrics", "SwitchyardTestSupport"]),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
