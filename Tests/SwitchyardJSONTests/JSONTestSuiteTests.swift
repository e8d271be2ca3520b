import Foundation
import Testing

@testable import SwitchyardJSON

/// The standard JSON parser conformance suite (../shared/testdata/JSONTestSuite/test_parsing):
/// every `y_` case must parse, every `n_` case must be rejected, no `i_` case may crash.
@Suite struct JSONTestSuiteTests {
    static let folder: URL = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        if let override = ProcessInfo.processInfo.environment["JSON_TEST_SUITE"] { return URL(fileURLWithPath: override) }
        return root.deletingLastPathComponent().appendingPathComponent("shared/testdata/JSONTestSuite/test_parsing")
    }()

    static func cases(prefix: String) throws -> [URL] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted().map { folder.appendingPathComponent($0) }
    }

    func parse(_ url: URL) throws -> Result<JSONTape, JSONSyntaxError> {
        let bytes = [UInt8](try Data(contentsOf: url))
        do {
            return .success(try JSONReader().parse(bytes))
        } catch {
            return .failure(error)
        }
    }

    @Test func acceptsEveryYCase() throws {
        let cases = try Self.cases(prefix: "y_")
        #expect(cases.count == 95, "JSONTestSuite has 95 y_ cases")
        var accepted = 0
        for url in cases {
            switch try parse(url) {
            case .success: accepted += 1
            case .failure(let error): Issue.record("\(url.lastPathComponent) rejected: \(error)")
            }
        }
        #expect(accepted == 95)
    }

    @Test func rejectsEveryNCase() throws {
        let cases = try Self.cases(prefix: "n_")
        #expect(cases.count == 188, "JSONTestSuite has 188 n_ cases")
        var rejected = 0
        for url in cases {
            switch try parse(url) {
            case .success: Issue.record("\(url.lastPathComponent) accepted")
            case .failure(let error):
                rejected += 1
                let size = try Data(contentsOf: url).count
                #expect(error.offset >= 0 && error.offset <= size, "\(url.lastPathComponent): offset \(error.offset) outside input")
            }
        }
        #expect(rejected == 188)
    }

    @Test func survivesEveryICase() throws {
        let cases = try Self.cases(prefix: "i_")
        #expect(cases.count > 0)
        for url in cases {
            // Implementation-defined: either outcome is fine, a crash is not. Rejections carry a reason.
            if case .failure(let error) = try parse(url) {
                #expect(!error.description.isEmpty)
            }
        }
    }

    @Test func duplicateKeysParseUnlessRejected() throws {
        for url in try Self.cases(prefix: "y_object_duplicated_key") {
            let bytes = [UInt8](try Data(contentsOf: url))
            #expect(throws: Never.self) { try JSONReader().parse(bytes) }
            #expect(throws: JSONSyntaxError.self) { try JSONReader(options: .init(rejectDuplicateKeys: true)).parse(bytes) }
        }
    }
}
