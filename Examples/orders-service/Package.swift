// swift-tools-version:6.1
// A team's own Switchyard service: its `orders` events generated from its JSON Schemas, its handlers,
// and the whole `switchyard` command line built over its catalog. Copy this directory, change the
// path below to a version requirement on Switchyard, and replace the schemas with yours.
import PackageDescription

let package = Package(
    name: "orders-service",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "orders-switchyard", targets: ["orders-switchyard"]),
        .library(name: "Orders", targets: ["Orders"]),
    ],
    dependencies: [
        .package(name: "Switchyard", path: "../.."),
    ],
    targets: [
        /// The `orders` and `reservations` catalogs, generated on every build from `switchyard-codegen.json`
        /// and `Schemas/`, and the handlers written against them.
        .target(
            name: "Orders",
            dependencies: [
                .product(name: "Switchyard", package: "Switchyard"),
                .product(name: "SwitchyardJSON", package: "Switchyard"),
            ],
            exclude: ["switchyard-codegen.json", "Schemas"],
            plugins: [.plugin(name: "SwitchyardCodegen", package: "Switchyard")]
        ),
        /// `switchyard` (consume, replay, dlq, release, demo, broker, version) over the service's catalogs,
        /// running its handlers, with its own `stock` subcommand.
        .executableTarget(
            name: "orders-switchyard",
            dependencies: [
                "Orders", .product(name: "SwitchyardCLI", package: "Switchyard"),
                .product(name: "SwitchyardHTTP", package: "Switchyard"),
            ]
        ),
        .testTarget(
            name: "OrdersTests",
            dependencies: [
                "Orders",
                .product(name: "Switchyard", package: "Switchyard"),
                .product(name: "SwitchyardJSON", package: "Switchyard"),
                .product(name: "SwitchyardHTTP", package: "Switchyard"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
