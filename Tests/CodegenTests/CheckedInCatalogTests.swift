import Foundation
import Testing

@testable import SwitchyardCodegenCore

/// The shipped catalogs in `Sources/SwitchyardCatalog/Generated/` are exactly what the generator makes
/// from `Schemas/` today: a schema change without regeneration fails here.
@Suite struct CheckedInCatalogTests {
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func generatedCatalogsAreUpToDate() throws {
        let target = Self.package.appendingPathComponent("Sources/SwitchyardCatalog")
        let config = try CodegenConfiguration.parse([UInt8](Data(contentsOf: target.appendingPathComponent(CodegenConfiguration.fileName))))
        let files = try Generator(configuration: config) { path in
            FileManager.default.contents(atPath: target.appendingPathComponent(path).path).map { [UInt8]($0) }
        }.generate()
        #expect(files.map(\.name) == config.outputFileNames)
        for (name, contents) in files {
            let checkedIn = try String(contentsOf: target.appendingPathComponent("Generated/\(name)"), encoding: .utf8)
            #expect(checkedIn == contents, "Generated/\(name) is stale: run `swift package --allow-writing-to-package-directory generate-catalogs --target SwitchyardCatalog`")
        }
    }
}
