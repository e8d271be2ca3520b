import Foundation
import PackagePlugin

/// Build-tool plugin: for a target with a `switchyard-codegen.json` at its root, runs
/// `switchyard-codegen` on every build that changed the configuration, a schema or the generator, and
/// compiles the generated catalogs into the target.
@main struct SwitchyardCodegen: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        return try CodegenCommand.make(
            targetDirectory: target.directoryURL, targetName: target.name,
            tool: try context.tool(named: "switchyard-codegen").url, outputDirectory: context.pluginWorkDirectoryURL)
    }
}

enum CodegenCommand {
    struct PluginError: Error, CustomStringConvertible {
        var description: String
    }

    static func make(targetDirectory: URL, targetName: String, tool: URL, outputDirectory: URL) throws -> [Command] {
        let config = targetDirectory.appendingPathComponent("switchyard-codegen.json")
        guard let data = FileManager.default.contents(atPath: config.path) else {
            throw PluginError(description: "\(config.path): missing; the SwitchyardCodegen plugin needs a switchyard-codegen.json at the root of target '\(targetName)'")
        }
        // SwiftPM must know the outputs before any schema is read: one file per catalog (named by its
        // swiftName), and the shared definitions when there are several. The generator applies the same rule.
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let catalogs = object["catalogs"] as? [[String: Any]], !catalogs.isEmpty
        else {
            throw PluginError(description: "\(config.path): 'catalogs' must be a non-empty array")
        }
        var outputs: [URL] = []
        var inputs: [URL] = [config, tool]
        for catalog in catalogs {
            let name = catalog["name"] as? String ?? ""
            let swiftName = catalog["swiftName"] as? String ?? defaultSwiftName(name)
            outputs.append(outputDirectory.appendingPathComponent("\(swiftName).swift"))
        }
        if catalogs.count > 1 { outputs.append(outputDirectory.appendingPathComponent("SwitchyardDefinitions.swift")) }
        // Every JSON file below the target is a possible schema: a change to any of them regenerates.
        if let files = FileManager.default.enumerator(at: targetDirectory, includingPropertiesForKeys: nil) {
            for case let file as URL in files where file.pathExtension == "json" && file != config { inputs.append(file) }
        }
        for catalog in catalogs {
            if let schema = catalog["schema"] as? String {
                let directory = targetDirectory.appendingPathComponent(schema).deletingLastPathComponent().standardized
                if !directory.path.hasPrefix(targetDirectory.standardized.path), let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) {
                    for case let file as URL in files where file.pathExtension == "json" { inputs.append(file) }
                }
            }
        }
        return [
            .buildCommand(
                displayName: "Generating Switchyard catalogs for \(targetName)",
                executable: tool,
                arguments: ["--config", config.path, "--output-directory", outputDirectory.path],
                inputFiles: inputs,
                outputFiles: outputs)
        ]
    }

    /// `shipments` → `ShipmentsEvent` (the generator's documented default).
    static func defaultSwiftName(_ name: String) -> String {
        name.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined() + "Event"
    }
}
