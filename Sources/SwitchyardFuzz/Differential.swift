import Foundation
import Switchyard

/// Switchyard's decoder against Foundation's `JSONDecoder` on the same models and input, for the
/// `fuzz-differential` libFuzzer target and the seed-corpus tests.
///
/// What must agree (PRODUCT.md, decoding rule 5): for an input both read as JSON, the outcome —
/// success with the same type and the same canonical encoding, or a failure of the same kind at the
/// same path. Where the contract says they differ, or Foundation cannot take part, the input is
/// skipped with a named reason, and ``skipped`` counts them:
///
/// - `unknown`: an unrecognised tag is `.unknown` with raw bytes, which only Switchyard's decoder has;
/// - `duplicateKey`: Switchyard refuses duplicate keys anywhere, Foundation takes one of them;
/// - `number`: a number that does not fit its field is `dataCorrupted` at the field for Switchyard,
///   at the root for Foundation (and Foundation reads some huge literals Switchyard keeps exact);
/// - `foundationValidatesLazily`: Switchyard reads the whole record before decoding (invalid JSON is
///   `dataCorrupted` at the root); Foundation checks numbers and some structure only when it decodes
///   them, so it may first report the kind of an earlier problem;
/// - `lenientFoundation.<reason>`: Switchyard rejects the JSON text for a reason RFC 8259 backs
///   (a byte order mark, invalid UTF-8, an unpaired surrogate escape, nesting deeper than 512,
///   UTF-16/32 text) and Foundation decodes it anyway.
///
/// Both rejecting invalid JSON is agreement; Switchyard decoding what Foundation calls invalid JSON,
/// or rejecting as invalid what Foundation decodes for any other reason, is a violation.
public struct DifferentialCheck {
    /// Inputs skipped, by reason.
    public private(set) var skipped: [String: Int] = [:]
    /// Inputs compared (per catalog).
    public private(set) var compared = 0

    public init() {}

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
    public mutating func check(_ input: [UInt8]) -> InvariantViolation? {
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
        let theirs = Self.foundation(C.self, input, canonical: unknownFields == 0)
        let foundationSaysInvalid = theirs.isInvalidJSON

        if let syntax {
            // Both reject the text: agreement (messages differ, kind and path do not).
            if foundationSaysInvalid { compared += 1; return nil }
            // Foundation validates numbers and some structure lazily, while decoding: it may report a
            // kind for the part it read before reaching the invalid text. Switchyard reads the whole
            // record first, so invalid JSON is always dataCorrupted at the root (checked by fuzz-decode).
            guard case .ok = theirs.outcome else { return skip("foundationValidatesLazily") }
            // Foundation decoded an event from text Switchyard calls invalid: only for reasons where
            // Switchyard follows RFC 8259 and Foundation is lenient.
            switch syntax.reason {
            case .byteOrderMark, .invalidUTF8, .loneSurrogate, .tooDeep:
                return skip("lenientFoundation.\(syntax.reason)")
            default:
                if input.prefix(4).contains(0) { return skip("lenientFoundation.utf16or32") }
                return InvariantViolation(
                    check: "\(C.name): Switchyard rejects JSON that Foundation decodes",
                    detail: "\(syntax.description); Foundation: \(theirs.outcome)")
            }
        }
        if case .failed(.dataCorrupted, _) = ours, Self.hasDuplicateKey(input) { return skip("duplicateKey") }
        // Foundation reports a number that does not fit (or that it cannot read) at the root, some as
        // "not valid JSON"; Switchyard at the field.
        if case .failed(.dataCorrupted, _) = ours, Self.isNumberFailure(C.self, input) { return skip("number") }
        if foundationSaysInvalid {
            return InvariantViolation(check: "\(C.name): Foundation rejects JSON that Switchyard reads", detail: "Switchyard: \(ours)")
        }
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
