import Foundation
import SwitchyardJSON

/// Checks one generated catalog against its records file: each line is `EXPECTATION<TAB>RECORD`, where the
/// expectation is `decoded`, `unknown`, or `failed KIND PATH` (PATH left out for the root).
///
/// For every record: the general decoder gives the expected outcome; the fast path, when it decides, decides
/// the same (value, type, unknown-field count, bytes written); a decoded or unknown record re-encodes
/// without losing a key or value of the input, and encoding its re-encoding again is byte-identical.
enum Checker {
    struct Finding: CustomStringConvertible {
        var line: Int
        var message: String
        var description: String { "line \(line): \(message)" }
    }

    static func check<C: EventCatalog & Hashable>(_ catalog: C.Type, records: URL) throws -> (records: Int, fast: Int, findings: [Finding]) {
        let text = try String(contentsOf: records, encoding: .utf8)
        var findings: [Finding] = []
        var count = 0
        var fastCount = 0
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let tab = line.firstIndex(of: "\t") else {
                findings.append(Finding(line: number, message: "no tab between the expectation and the record"))
                continue
            }
            count += 1
            let expectation = line[..<tab].split(separator: " ").map(String.init)
            let input = Array(line[line.index(after: tab)...].utf8)
            func finding(_ message: String) { findings.append(Finding(line: number, message: message)) }

            var general = EventDecoder<C>(usesFastPath: false)
            let slow = general.decode(input)
            let actual: [String]
            switch slow.outcome {
            case .decoded: actual = ["decoded"]
            case .unknown: actual = C.defaultPolicy == .strict ? ["failed", "unknownType"] : ["unknown"]
            case .failed(let failure): actual = ["failed", failure.kind.rawValue] + (failure.path.isEmpty ? [] : [failure.path])
            }
            if actual != expectation {
                var detail = ""
                if case .failed(let failure) = slow.outcome { detail = " (\(failure.message))" }
                finding("expected \(expectation.joined(separator: " ")), decoded as \(actual.joined(separator: " "))\(detail)")
            }

            // The fast path decides the same, or leaves the record to the general path.
            let fast = input.withUnsafeBytes { C.decodeFast($0, options: JSONReader.Options(rejectDuplicateKeys: true)) }
            let bare = input.withUnsafeBytes { C.validateFast($0, options: JSONReader.Options(rejectDuplicateKeys: true)) }
            let verdict = fast.map { FastVerdict(type: $0.value.type, isKnown: $0.knownType != nil, unknownFieldCount: $0.unknownFieldCount) }
            if bare != verdict { finding("the fast path decided otherwise without values: \(String(describing: verdict)) vs \(String(describing: bare))") }
            if let fast {
                fastCount += 1
                switch slow.outcome {
                case .failed(let failure): finding("the fast path accepted a record the general path rejects (\(failure.kind) at '\(failure.path)')")
                case .decoded(let value), .unknown(let value, _):
                    if fast.value != value { finding("the fast path decoded another value") }
                    if fast.unknownFieldCount != slow.unknownFields { finding("the fast path kept \(fast.unknownFieldCount) unknown fields, the general path \(slow.unknownFields)") }
                    var writer = CanonicalWriter()
                    if value.writeCanonical(to: &writer) {
                        let written = writer.bytes
                        let encoded = try CanonicalJSONEncoder().encode(value)
                        if written != encoded {
                            finding("the fast writer and the encoder disagree: \(String(decoding: written, as: UTF8.self)) vs \(String(decoding: encoded, as: UTF8.self))")
                        }
                    }
                }
            }

            // Nothing of the input is lost on re-encoding; re-encoding is stable.
            switch slow.outcome {
            case .decoded(let value), .unknown(let value, _):
                let once = try CanonicalJSONEncoder().encode(value)
                if let loss = RoundTripCheck.firstLoss(input: input, output: once), !isNull(at: loss, in: input) {
                    finding("re-encoding lost \(loss): \(String(decoding: once, as: UTF8.self))")
                }
                var again = EventDecoder<C>(usesFastPath: false)
                switch again.decode(once).outcome {
                case .decoded(let second), .unknown(let second, _):
                    let twice = try CanonicalJSONEncoder().encode(second)
                    if twice != once { finding("encoding is not stable: \(String(decoding: once, as: UTF8.self)) then \(String(decoding: twice, as: UTF8.self))") }
                case .failed(let failure):
                    finding("the re-encoding does not decode: \(failure): \(String(decoding: once, as: UTF8.self))")
                }
            case .failed:
                break
            }
        }
        return (count, fastCount, findings)
    }
}

extension Checker {
    /// The general decoder's outcome for one record, as one JSON line: `{"outcome": "decoded"|"unknown"|"failed",
    /// "kind": …, "path": …}` (what scripts/schema_differential.py compares with a reference validator).
    static func outcome<C: EventCatalog>(_ catalog: C.Type, _ input: [UInt8]) -> String {
        var decoder = EventDecoder<C>(usesFastPath: false)
        let result = decoder.decode(input)
        var fields: [String: String]
        switch result.outcome {
        case .decoded: fields = ["outcome": "decoded"]
        case .unknown: fields = C.defaultPolicy == .strict ? ["outcome": "failed", "kind": "unknownType", "path": ""] : ["outcome": "unknown"]
        case .failed(let failure): fields = ["outcome": "failed", "kind": failure.kind.rawValue, "path": failure.path]
        }
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}

/// Whether the input has `null` at `path` (`a.b[2]`): a defaulted member's `null` is written as its default.
func isNull(at path: String, in input: [UInt8]) -> Bool {
    guard var value = try? JSONSerialization.jsonObject(with: Data(input), options: [.fragmentsAllowed]) else { return false }
    for part in path.split(separator: ".") {
        var name = Substring(part)
        var indices: [Int] = []
        while let open = name.lastIndex(of: "["), name.hasSuffix("]"), let index = Int(name[name.index(after: open)..<name.index(before: name.endIndex)]) {
            indices.insert(index, at: 0)
            name = name[..<open]
        }
        if !name.isEmpty {
            guard let object = value as? [String: Any], let next = object[String(name)] else { return false }
            value = next
        }
        for index in indices {
            guard let array = value as? [Any], array.indices.contains(index) else { return false }
            value = array[index]
        }
    }
    return value is NSNull
}

@main struct ConformanceChecker {
    static func main() throws {
        if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--outcomes" {
            // One record per line on stdin, one outcome per line on stdout.
            let name = CommandLine.arguments[2]
            guard let decode = conformanceOutcomes().first(where: { $0.0 == name })?.1 else {
                FileHandle.standardError.write(Data("conformance-checker: no catalog '\(name)'\n".utf8))
                exit(64)
            }
            while let line = readLine(strippingNewline: true) { print(decode(Array(line.utf8))) }
            return
        }
        let directory = URL(fileURLWithPath: CommandLine.arguments[1])
        var failed = 0
        var passed = 0
        for (name, check) in conformanceCatalogs() {
            let records = directory.appendingPathComponent("\(name).records")
            guard FileManager.default.fileExists(atPath: records.path) else {
                print("conformance: \(name): generated and compiled (no records)")
                passed += 1
                continue
            }
            let (count, fast, findings) = try check(records)
            if findings.isEmpty {
                print("conformance: \(name): \(count) records as expected (\(fast) on the fast path)")
                passed += 1
            } else {
                failed += 1
                for finding in findings { print("conformance: \(name).records:\(finding)") }
            }
        }
        // A case's checks of its generated API (`cases/NAME.swift`), on its records.
        for (name, check) in conformanceSwiftChecks() {
            let records = directory.appendingPathComponent("\(name).records")
            let text = try String(contentsOf: records, encoding: .utf8)
            let inputs = text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
                line.firstIndex(of: "\t").map { Array(line[line.index(after: $0)...].utf8) }
            }
            let failures = check(inputs)
            if failures.isEmpty {
                print("conformance: \(name).swift: its checks pass on \(inputs.count) records")
                passed += 1
            } else {
                failed += 1
                for failure in failures { print("conformance: \(name).swift: \(failure)") }
            }
        }
        print("conformance: \(passed) passed, \(failed) failed")
        if failed > 0 { exit(1) }
    }
}
