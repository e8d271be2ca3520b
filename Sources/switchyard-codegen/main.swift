// switchyard-codegen: Swift catalogs from JSON Schemas. The SwitchyardCodegen plugins run it; it also
// runs by hand:
//
//   switchyard-codegen --config Sources/Orders/switchyard-codegen.json --output-directory Sources/Orders/Generated
//   switchyard-codegen --config … --output-directory … --check     (exit 1 when the files are stale)
import Foundation
import SwitchyardCodegenCore

let usage = """
    USAGE: switchyard-codegen --config FILE --output-directory DIR [--check]

    Generates one Swift file per catalog named in FILE (switchyard-codegen.json; schema paths are
    relative to its directory), plus \(CodegenConfiguration.sharedFileName) with several catalogs.

    OPTIONS:
      --config FILE             the configuration (switchyard-codegen.json)
      --output-directory DIR    where the Swift files go (created if missing)
      --check                   write nothing; exit 1 and name the files that differ
      -h, --help                this help

    EXIT CODES: 0 done (or up to date), 1 stale files (--check), 64 usage, 65 a schema or the
    configuration is invalid (the error names the file, the JSON pointer and the keyword)
    """

func fail(_ message: String, _ code: Int32) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(code)
}

var config: String?
var output: String?
var check = false
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--config": config = arguments.popFirst()
    case "--output-directory": output = arguments.popFirst()
    case "--check": check = true
    case "-h", "--help":
        print(usage)
        exit(0)
    default: fail("error: unknown argument '\(argument)'\nsee 'switchyard-codegen --help'", 64)
    }
}
guard let config, let output else { fail("error: --config and --output-directory are required\nsee 'switchyard-codegen --help'", 64) }

/// An error as a compiler writes it, its file named relative to where the configuration was given.
func located(_ error: CodegenError) -> String {
    let directory = config.contains("/") ? String(config[..<config.lastIndex(of: "/")!]) : ""
    return "\(SchemaReader.join(directory, error.file)):\(error.pointer): error: \(error.message)"
}

let configURL = URL(fileURLWithPath: config)
let root = configURL.deletingLastPathComponent()
do {
    guard let bytes = FileManager.default.contents(atPath: configURL.path) else { fail("error: cannot read \(config)", 65) }
    let configuration = try CodegenConfiguration.parse([UInt8](bytes), file: configURL.lastPathComponent)
    let generator = Generator(configuration: configuration) { path in
        FileManager.default.contents(atPath: root.appendingPathComponent(path).path).map { [UInt8]($0) }
    }
    let files = try generator.generate()
    let directory = URL(fileURLWithPath: output)
    var stale: [String] = []
    if !check { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
    for (name, contents) in files {
        let url = directory.appendingPathComponent(name)
        let data = Data(contents.utf8)
        // Unchanged files are not rewritten, so that a build does not recompile them.
        if FileManager.default.contents(atPath: url.path) == data { continue }
        stale.append(url.path)
        if !check { try data.write(to: url) }
    }
    if check && !stale.isEmpty {
        fail("stale generated files (run the generator again):\n" + stale.map { "  " + $0 }.joined(separator: "\n"), 1)
    }
} catch let error as CodegenError {
    fail(located(error), 65)
} catch let errors as CodegenErrors {
    fail(errors.errors.map(located).joined(separator: "\n") + "\n\(errors.errors.count) error\(errors.errors.count == 1 ? "" : "s")", 65)
} catch {
    fail("error: \(error)", 65)
}
