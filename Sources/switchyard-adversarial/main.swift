import Foundation
import SwitchyardFuzz

// Writes the adversarial inputs for scripts/adversarial.sh: one file per input
// (`NAME.ndjson`, the record on one line) and `manifest.tsv` (fields separated by U+001F: name, catalog, bytes, maxRecordBytes,
// expected outcome, kind, path, summary).
// Usage: switchyard-adversarial DIR [SCALE]
let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: switchyard-adversarial DIR [SCALE]\n".utf8))
    exit(64)
}
let directory = URL(fileURLWithPath: arguments[1])
let scale = arguments.count > 2 ? Double(arguments[2]) ?? 1 : 1
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
var manifest = ""
for input in AdversarialInputs.all(scale: scale) {
    try Data(input.bytes + [0x0A]).write(to: directory.appendingPathComponent("\(input.name).ndjson"))
    let fields = [
        input.name, input.catalog.rawValue, String(input.bytes.count), input.maxRecordBytes.map(String.init) ?? "",
        input.outcome, input.kind?.rawValue ?? "", input.path ?? "", input.summary,
    ]
    manifest += fields.joined(separator: "\u{1F}") + "\n"
}
try Data(manifest.utf8).write(to: directory.appendingPathComponent("manifest.tsv"))
