import Foundation
import Switchyard
import SwitchyardCatalog

/// Switchyard's decoder against Foundation's `JSONDecoder` on the same models and input, for the
/// `fuzz-differential` libFuzzer target and the seed-corpus tests.
///
/// What must agree (PRODUCT.md, decoding rule 5):
///
/// 1. Whether the record is JSON at all: Switchyard's reader against `JSONSerialization` (which, like
///    Switchyard, reads the whole text; `JSONDecoder` only checks what it decodes, so an invalid
///    escape inside an unknown field goes unnoticed by it).
/// 2. For JSON both read: the outcome — success with the same type (and the same canonical
///    encoding when the record has no unknown fields), or a failure of the same kind at the same path.
///
/// Where the contract says they differ, or Foundation cannot take part, the input is skipped with a
/// named reason, and ``skipped`` counts them:
///
/// - `unknown`: an unrecognised tag is `.unknown` with raw bytes, which only Switchyard's decoder has;
/// - `duplicateKey`: Switchyard refuses duplicate keys anywhere, Foundation takes one of them;
/// - `number`: a number that does not fit its field is `dataCorrupted` at the field for Switchyard,
///   at the root (sometimes as "not valid JSON") for Foundation;
/// - `lenientFoundation.<reason>`: Switchyard rejects the text for a reason RFC 8259 backs (a byte
///   order mark, invalid UTF-8, an unpaired surrogate escape, nesting deeper than 512, UTF-16/32
///   text, a trailing comma) and Foundation reads it anyway;
/// - `strictFoundation.numberBeyondDouble`: a number beyond Double's range (`1e400`) is valid JSON
///   that Switchyard keeps exactly and JSONSerialization refuses.
package struct DifferentialCheck {
    /// Inputs skipped, by reason.
    package private(set) var skipped: [String: Int] = [:]
    /// Inputs compared (per catalog).
    package private(set) var compared = 0

    package init() {}

    enum Outcome: Equatable, CustomStringConvertible {
        case ok(type: String, canonical: [UInt8]?)
        case failed(FailureKind, String)

        var description: String {
            switch self {
            case .ok(let type, let canonical): "ok \(type) (\(canonical?.count ?? 0) canonical bytes)"
            case .failed(let kind, let path): "\(kind.rawValue) at '\(path)'"
            }
        }
    }

    /// Compares both decoders on `input` under both catalogs.
    ///
    /// - Returns: the first disagreement the contract does not allow, or nil.
    package mutating func check(_ input: [UInt8]) -> InvariantViolation? {
        if let v = check(PaymentEvent.self, input) { return v }
        return check(FeedEvent.self, input)
    }

    mutating func skip(_ reason: String) -> InvariantViolation? {
        skipped[reason, default: 0] += 1
        return nil
    }

    mutating func check<C: EventCatalog>(_ catalog: C.Type, _ input: [UInt8]) -> InvariantViolation? {
        var decoder = EventDecoder<C>()
        let (outcome, unknownFields) = decoder.decode(input)
        let ours: Outcome
        switch outcome {
        case .unknown: return skip("unknown")
        case .decoded(let event): ours = .ok(type: event.type, canonical: unknownFields == 0 ? try? TopicCodec.canonicalBytes(of: event) : nil)
        case .failed(let failure): ours = .failed(failure.kind, failure.path)
        }
        let syntax: JSONSyntaxError?
        do {
            _ = try JSONReader().parse(input)
            syntax = nil
        } catch {
            syntax = error
        }
        // Validity: Foundation's JSONDecoder checks only what it decodes (an invalid escape in an
        // unknown field goes unnoticed), so the oracle for "is this JSON" is JSONSerialization, which
        // reads the whole text, as Switchyard does.
        let foundationValid = (try? JSONSerialization.jsonObject(with: Data(input), options: [.fragmentsAllowed])) != nil
        if let syntax {
            if !foundationValid { compared += 1; return nil }  // both reject the text
            switch syntax.reason {
            case .byteOrderMark, .invalidUTF8, .loneSurrogate, .tooDeep, .tooLarge:
                return skip("lenientFoundation.\(syntax.reason)")
            default:
                if input.prefix(4).contains(0) { return skip("lenientFoundation.utf16or32") }
                if Self.isTrailingComma(input, at: syntax.offset) { return skip("lenientFoundation.trailingComma") }
                return InvariantViolation(
                    check: "\(C.name): Switchyard rejects JSON that JSONSerialization reads", detail: syntax.description)
            }
        }
        if !foundationValid {
            if Self.hasNumberBeyondDouble(input) { return skip("strictFoundation.numberBeyondDouble") }
            return InvariantViolation(check: "\(C.name): JSONSerialization rejects JSON that Switchyard reads", detail: "Switchyard: \(ours)")
        }
        let theirs = Self.foundation(C.self, input, canonical: unknownFields == 0)
        if case .failed(.dataCorrupted, _) = ours, Self.hasDuplicateKey(input) { return skip("duplicateKey") }
        // Foundation reports a number that does not fit (or that it cannot read) at the root, some as
        // "not valid JSON"; Switchyard at the field.
        if case .failed(.dataCorrupted, _) = ours, Self.isNumberFailure(C.self, input) { return skip("number") }
        if ours == theirs.outcome { compared += 1; return nil }
        // Canonical bytes are compared only when both decoded; a nil on either side means "not compared".
        if case .ok(let a, let ca) = ours, case .ok(let b, let cb) = theirs.outcome, a == b, ca == nil || cb == nil || ca == cb {
            compared += 1
            return nil
        }
        if case .failed(.dataCorrupted, let path) = ours, path != "", theirs.outcome == .failed(.dataCorrupted, "") {
            return skip("number")
        }
        return InvariantViolation(check: "\(C.name): kind/path differ", detail: "Switchyard \(ours), Foundation \(theirs.outcome)")
    }

    struct FoundationResult {
        var outcome: Outcome
        var isInvalidJSON: Bool
    }

    static func foundation<C: EventCatalog>(_ catalog: C.Type, _ input: [UInt8], canonical: Bool) -> FoundationResult {
        do {
            let event = try JSONDecoder().decode(C.self, from: Data(input))
            return FoundationResult(outcome: .ok(type: event.type, canonical: canonical ? try? TopicCodec.canonicalBytes(of: event) : nil), isInvalidJSON: false)
        } catch let error as DecodingError {
            let failure = DecodeFailure(error, type: nil)
            var invalid = false
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty, context.debugDescription.contains("not valid JSON") {
                invalid = true
            }
            return FoundationResult(outcome: .failed(failure.kind, failure.path), isInvalidJSON: invalid)
        } catch {
            return FoundationResult(outcome: .failed(.dataCorrupted, ""), isInvalidJSON: true)
        }
    }

    /// Whether the syntax error at `offset` is a `]` or `}` right after a `,` (JSONSerialization
    /// accepts `[1,]` and `{"a":1,}`; RFC 8259 does not).
    static func isTrailingComma(_ input: [UInt8], at offset: Int) -> Bool {
        guard offset < input.count, input[offset] == UInt8(ascii: "]") || input[offset] == UInt8(ascii: "}") else { return false }
        var i = offset - 1
        while i >= 0, [0x20, 0x09, 0x0A, 0x0D].contains(input[i]) { i -= 1 }
        return i >= 0 && input[i] == UInt8(ascii: ",")
    }

    /// Whether the JSON holds a number beyond Double's range (1e400): valid RFC 8259, kept exactly
    /// by Switchyard, refused by JSONSerialization.
    static func hasNumberBeyondDouble(_ input: [UInt8]) -> Bool {
        guard let tape = try? JSONReader().parse(input) else { return false }
        for i in 0..<tape.count where tape[i].kind == .number {
            let text = String(decoding: input[Int(tape[i].start)..<Int(tape[i].end)], as: UTF8.self)
            if let value = Double(text), !value.isFinite { return true }
            if Double(text) == nil { return true }
        }
        return false
    }

    static func hasDuplicateKey(_ input: [UInt8]) -> Bool {
        do {
            _ = try JSONReader(options: .init(rejectDuplicateKeys: true)).parse(input)
            return false
        } catch {
            if case .duplicateKey = error.reason { return true }
            return false
        }
    }

    /// Whether Switchyard's failure is about a number that does not fit its field.
    static func isNumberFailure<C: EventCatalog>(_ catalog: C.Type, _ input: [UInt8]) -> Bool {
        var decoder = EventDecoder<C>()
        guard case .failed(let failure) = decoder.decode(input).outcome else { return false }
        return failure.message.hasPrefix("Number ")
    }
}

extension DifferentialCheck.FoundationResult: CustomStringConvertible {
    var description: String { outcome.description }
}
