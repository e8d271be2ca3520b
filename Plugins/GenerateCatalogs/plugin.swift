import Foundation
import PackagePlugin

/// Command plugin: `swift package --allow-writing-to-package-directory generate-catalogs [--target NAME]`
/// writes each target's generated catalogs into `<target>/Generated/`, for projects that check
/// generated code in (the same files the build-tool plugin makes).
@main struct GenerateCatalogs: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let names = extractor.extractOption(named: "target")
        let check = extractor.extractFlag(named: "check") > 0
        let tool = try context.tool(named: "switchyard-codegen").url
        let targets = try names.isEmpty ? context.package.targets : context.package.targets(named: names)
        var generated = 0
        for case let target as SourceModuleTarget in targets {
            let config = target.directoryURL.appendingPathComponent("switchyard-codegen.json")
            guard FileManager.default.fileExists(atPath: config.path) else {
                if !names.isEmpty { Diagnostics.error("target '\(target.name)' has no switchyard-codegen.json") }
                continue
            }
            let process = Process()
            process.executableURL = tool
            process.arguments = ["--config", config.path, "--output-directory", target.directoryURL.appendingPathComponent("Generated").path] + (check ? ["--check"] : [])
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                Diagnostics.error("switchyard-codegen failed for target '\(target.name)' (exit \(process.terminationStatus))")
                return
            }
            generated += 1
            print("\(check ? "checked" : "generated") \(target.name)/Generated")
        }
        if generated == 0 { Diagnostics.warning("no target with a switchyard-codegen.json") }
    }
}
