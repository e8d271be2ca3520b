import Switchyard

/// The fast path (`JSONCursor` → `FastCodable` → `CanonicalWriter`) against the general path
/// (`JSONReader` → `init(from:)` → `CanonicalJSONEncoder`) on one input.
///
/// The fast path may leave an input to the general path, but what it decides must be what the general
/// path decides: the same value, known type and unknown-field count, and the same bytes when encoded.
/// It must never accept an input the general path rejects. Used by `fuzz-decode` (through
/// ``DecodeInvariants``) and by `FastPathTests`.
package enum FastPathAgreement {
    /// Compares both paths on `input`.
    ///
    /// - Returns: whether the fast path decided the input, and the first disagreement, if any.
    package static func check<C: EventCatalog & Hashable>(_ catalog: C.Type, _ input: [UInt8]) -> (decided: Bool, violation: InvariantViolation?) {
        var general = EventDecoder<C>(usesFastPath: false)
        let slow = general.decode(input)
        let fast = input.withUnsafeBytes { C.decodeFast($0, options: JSONReader.Options(rejectDuplicateKeys: true)) }
        func violation(_ what: String, _ detail: String = "") -> (Bool, InvariantViolation?) {
            (fast != nil, InvariantViolation(check: "\(C.name): fast path \(what)", detail: detail))
        }
        // Validating without keeping the strings (a worker topic with no handler) decides exactly the same.
        let bare = input.withUnsafeBytes { C.validateFast($0, options: JSONReader.Options(rejectDuplicateKeys: true)) }
        let expected = fast.map { FastVerdict(type: $0.value.type, isKnown: $0.knownType != nil, unknownFieldCount: $0.unknownFieldCount) }
        if bare != expected {
            return violation("decided otherwise when validating without values", "with values: \(expected.map { "\($0)" } ?? "bailed"), without: \(bare.map { "\($0)" } ?? "bailed")")
        }
        guard let fast else { return (false, nil) }
        switch slow.outcome {
        case .failed(let failure):
            return violation("accepted a record the general path rejects", "\(failure.kind) at '\(failure.path)'")
        case .decoded(let value):
            if fast.value != value { return violation("decoded a different value") }
            if fast.knownType != general.lastKnownType { return violation("reported another type") }
            if fast.unknownFieldCount != slow.unknownFields {
                return violation("kept \(fast.unknownFieldCount) unknown fields, the general path \(slow.unknownFields)")
            }
            var writer = CanonicalWriter()
            guard value.writeCanonical(to: &writer) else { return violation("has no writer") }
            let written = writer.bytes
            do {
                let encoded = try CanonicalJSONEncoder().encode(value)
                if written != encoded { return violation("wrote other bytes", "\(written.count) bytes, the encoder \(encoded.count)") }
            } catch {
                return violation("wrote a value the encoder rejects", "\(error)")
            }
        case .unknown(let value, let type):
            if fast.knownType != nil || fast.value != value || fast.value.type != type { return violation("read an unknown type differently") }
        }
        return (true, nil)
    }
}
