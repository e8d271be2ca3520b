import Foundation
import Testing

import SwitchyardCatalog
@testable import SwitchyardJSON

/// Switchyard's decoder against Foundation's `JSONDecoder` on the same models and inputs: the failure
/// kind and path agree, except where PRODUCT.md says they differ (duplicate keys; numbers out of range).
@Suite struct DifferentialTests {
    enum Outcome: Equatable, CustomStringConvertible {
        case ok
        case failed(FailureKind, String)
        var description: String {
            switch self {
            case .ok: "ok"
            case .failed(let kind, let path): "\(kind.rawValue) at '\(path)'"
            }
        }
    }

    static func foundation<C: EventCatalog>(_ catalog: C.Type, _ json: String) -> Outcome {
        do {
            _ = try JSONDecoder().decode(C.self, from: Data(json.utf8))
            return .ok
        } catch let error as DecodingError {
            let failure = DecodeFailure(error, type: nil)
            return .failed(failure.kind, failure.path)
        } catch {
            return .failed(.dataCorrupted, "?")
        }
    }

    static func switchyard<C: EventCatalog>(_ catalog: C.Type, _ json: String) -> Outcome {
        var decoder = EventDecoder<C>()
        switch decoder.decode(Array(json.utf8)).outcome {
        case .decoded, .unknown: return .ok
        case .failed(let failure): return .failed(failure.kind, failure.path)
        }
    }

    static let payment = #"{"type":"payment.authorized","id":"evt_1","occurredAt":"2025-03-01T12:00:00Z","schemaVersion":2,"paymentId":"pay_1","amount":{"value":1999,"currency":"EUR"},"merchant":{"id":"m_1","name":"Café Zürich","country":"CH"},"method":"card","card":{"brand":"visa","last4":"4242","expMonth":12,"expYear":2030}}"#
    static let post = #"{"type":"post.created","id":"evt_2","occurredAt":"2025-03-01T12:00:00.250+01:00","postId":"p_1","authorId":"u_1","text":"hello","tags":["a","b","c"],"visibility":"public","mediaCount":2}"#

    /// Mutations of a valid record: (description, transformed JSON).
    static func mutations(of json: String) -> [(String, String)] {
        let object = try! JSONSerialization.jsonObject(with: Data(json.utf8)) as! [String: Any]
        var cases: [(String, String)] = [("original", json)]
        func render(_ o: Any) -> String {
            String(decoding: try! JSONSerialization.data(withJSONObject: o, options: [.sortedKeys, .fragmentsAllowed]), as: UTF8.self)
        }
        let replacements: [(String, Any)] = [
            ("null", NSNull()), ("string", "x"), ("number", 7), ("fraction", 1.5), ("bool", true),
            ("array", [1]), ("object", ["k": 1]), ("emptyString", ""),
        ]
        func visit(_ value: Any, path: [Any], root: Any) {
            for (name, replacement) in replacements {
                cases.append(("\(path) := \(name)", render(set(root, path, replacement))))
            }
            cases.append(("\(path) removed", render(set(root, path, nil))))
            if let dict = value as? [String: Any] {
                for (k, v) in dict { visit(v, path: path + [k], root: root) }
            } else if let array = value as? [Any] {
                for (i, v) in array.enumerated() { visit(v, path: path + [i], root: root) }
            }
        }
        for (k, v) in object { visit(v, path: [k], root: object) }
        cases.append(("root array", "[\(json)]"))
        cases.append(("root string", "\"x\""))
        cases.append(("root null", "null"))
        cases.append(("truncated", String(json.dropLast(3))))
        cases.append(("invalid", json.replacingOccurrences(of: ":", with: "=")))
        return cases
    }

    /// Sets (or removes, with nil) the value at `path` in a JSON object graph.
    static func set(_ root: Any, _ path: [Any], _ value: Any?) -> Any {
        guard let head = path.first else { return value ?? NSNull() }
        let rest = Array(path.dropFirst())
        if var dict = root as? [String: Any], let key = head as? String {
            if rest.isEmpty && value == nil { dict.removeValue(forKey: key) } else { dict[key] = set(dict[key]!, rest, value) }
            return dict
        }
        if var array = root as? [Any], let index = head as? Int {
            if rest.isEmpty && value == nil { array.remove(at: index) } else { array[index] = set(array[index], rest, value) }
            return array
        }
        return root
    }

    /// PRODUCT.md rule 5: a number that does not fit its field is reported at the field's path;
    /// Foundation reports those at the root.
    static func isDocumentedDifference(_ ours: Outcome, _ theirs: Outcome) -> Bool {
        if case .failed(.dataCorrupted, let path) = ours, path != "", theirs == .failed(.dataCorrupted, "") { return true }
        return false
    }

    func compare<C: EventCatalog>(_ catalog: C.Type, _ json: String) -> Int {
        var compared = 0
        for (name, input) in Self.mutations(of: json) {
            // An unrecognised tag is .unknown, which needs the raw bytes only Switchyard's decoder has.
            var decoder = EventDecoder<C>()
            if case .unknown = decoder.decode(Array(input.utf8)).outcome { continue }
            let ours = Self.switchyard(C.self, input)
            let theirs = Self.foundation(C.self, input)
            compared += 1
            if ours != theirs && !Self.isDocumentedDifference(ours, theirs) {
                Issue.record("\(C.name) \(name): switchyard \(ours), foundation \(theirs)\n\(input)")
            }
        }
        return compared
    }

    @Test func paymentsAgreeWithFoundation() {
        #expect(compare(PaymentEvent.self, Self.payment) > 100)
    }

    @Test func feedsAgreeWithFoundation() {
        #expect(compare(FeedEvent.self, Self.post) > 60)
    }

    @Test func documentedDifferences() {
        // Out of range: Foundation says root, we say the field.
        let overflow = Self.payment.replacingOccurrences(of: "1999", with: "99999999999999999999")
        #expect(Self.switchyard(PaymentEvent.self, overflow) == .failed(.dataCorrupted, "amount.value"))
        #expect(Self.foundation(PaymentEvent.self, overflow) == .failed(.dataCorrupted, ""))
        let fraction = Self.payment.replacingOccurrences(of: "\"expMonth\":12", with: "\"expMonth\":12.5")
        #expect(Self.switchyard(PaymentEvent.self, fraction) == .failed(.dataCorrupted, "card.expMonth"))
        // Integral numbers written with a fraction or exponent are accepted by both.
        let exponent = Self.payment.replacingOccurrences(of: "1999", with: "1.999e3")
        #expect(Self.switchyard(PaymentEvent.self, exponent) == .ok)
        #expect(Self.foundation(PaymentEvent.self, exponent) == .ok)
        // Duplicate keys: Foundation takes one of them; we refuse the record.
        let duplicate = Self.payment.replacingOccurrences(of: "\"currency\":\"EUR\"", with: "\"currency\":\"EUR\",\"currency\":\"USD\"")
        #expect(Self.switchyard(PaymentEvent.self, duplicate) == .failed(.dataCorrupted, "amount.currency"))
        #expect(Self.foundation(PaymentEvent.self, duplicate) == .ok)
    }
}
