import Switchyard
import SwitchyardCatalog

/// A broken invariant: what a fuzz target crashes on, and what a test reports.
package struct InvariantViolation: Error, Sendable, CustomStringConvertible {
    /// Which check, and under which catalog/policy.
    package var check: String
    /// What was seen (no more of the input than its size).
    package var detail: String

    package var description: String { "\(check): \(detail)" }
}

/// The decode/encode invariants of PRODUCT.md, checked on one input under both catalogs and both
/// policies. Used by the `fuzz-decode` libFuzzer target and by the seed-corpus tests.
///
/// For every input:
/// - decoding never crashes; the outcome under the strict policy is the lenient one with `.unknown`
///   turned into `unknownType`;
/// - a failure has a renderable path (root `""`, or a path that does not start with `.`), a
///   non-empty message, and the message holds no run of ``leakWindow`` bytes of the input;
/// - invalid JSON (the reader rejects it) is `dataCorrupted` at the root (or at a duplicate key's
///   path, when the duplicate comes before the syntax error: the first problem is reported);
/// - a decoded record re-encodes canonically: `encode(decode(x))` keeps every input member,
///   decodes again as the same type, and encoding that again is byte-identical;
/// - an unknown record is passed through byte-exact;
/// - the fast path decides as the general path does, or leaves the input to it (``FastPathAgreement``).
package struct DecodeInvariants {
    /// A message may not contain this many consecutive bytes of the input.
    package static let leakWindow = 16

    var codecs: [(name: String, strict: TopicCodec, lenient: TopicCodec)]

    package init(maxBytes: Int = 64 << 20) {
        let options = JSONReader.Options(maxBytes: maxBytes, rejectDuplicateKeys: true)
        codecs = ShippedCatalog.allCases.map { catalog in
            (catalog.rawValue,
             TopicCodec(catalog: catalog.catalog, policy: .strict, readerOptions: options),
             TopicCodec(catalog: catalog.catalog, policy: .lenient, readerOptions: options))
        }
    }

    /// Checks every invariant on `input`.
    ///
    /// - Returns: the first violation, or nil.
    package mutating func check(_ input: UnsafeRawBufferPointer) -> InvariantViolation? {
        let bytes = [UInt8](input)
        // Whether the JSON itself is valid (duplicates allowed: those are a decoding rule).
        let validJSON: Bool
        do {
            _ = try JSONReader(options: .init(maxBytes: Int(UInt32.max - 1))).parse(bytes)
            validJSON = true
        } catch {
            validJSON = false
        }
        // The fast path decides like the general path, and accepts no JSON the reader rejects.
        for check in [FastPathAgreement.check(PaymentEvent.self, bytes), FastPathAgreement.check(FeedEvent.self, bytes)] {
            if let v = check.violation { return v }
        }
        if input.count <= Int(UInt32.max - 1), JSONCursor.isValid(input) {
            do {
                _ = try JSONReader(options: .init(maxBytes: Int(UInt32.max - 1), rejectDuplicateKeys: true)).parse(bytes)
            } catch {
                return InvariantViolation(check: "cursor: accepted JSON the reader rejects", detail: "\(error.reason)")
            }
        }
        for i in codecs.indices {
            let name = codecs[i].name
            let lenient = codecs[i].lenient.decode(input)
            let strict = codecs[i].strict.decode(input)
            if let v = Self.checkPolicies(name, lenient: lenient.outcome, strict: strict.outcome) { return v }
            switch lenient.outcome {
            case .failed(let failure):
                if let v = Self.checkFailure(name, failure, input: bytes) { return v }
                // Invalid JSON is dataCorrupted at the root — unless a duplicate key came first: the
                // reader stops at the first problem, and a duplicate is reported at its path.
                if !validJSON && !(failure.kind == .dataCorrupted && (failure.path.isEmpty || failure.message == "Duplicate key in object.")) {
                    return InvariantViolation(check: "\(name): invalid JSON classified", detail: "\(failure.kind) at '\(failure.path)'")
                }
            case .decoded(let type):
                if !validJSON { return InvariantViolation(check: "\(name): invalid JSON decoded", detail: type) }
                guard let event = lenient.event else { return InvariantViolation(check: "\(name): decoded without event", detail: type) }
                if let v = checkRoundTrip(i, name, event: event, input: bytes) { return v }
            case .unknown(let type):
                if !validJSON { return InvariantViolation(check: "\(name): invalid JSON unknown", detail: type) }
                guard let event = lenient.event else { return InvariantViolation(check: "\(name): unknown without event", detail: type) }
                do {
                    let out = try TopicCodec.canonicalBytes(of: event)
                    if out != bytes {
                        return InvariantViolation(check: "\(name): unknown passthrough", detail: "\(bytes.count) bytes in, \(out.count) out")
                    }
                } catch {
                    return InvariantViolation(check: "\(name): unknown encode threw", detail: "\(error)")
                }
            case .tombstone:
                return InvariantViolation(check: "\(name): tombstone for a value", detail: "")
            }
        }
        return nil
    }

    /// Strict is lenient with `.unknown` turned into `unknownType` (same tag).
    static func checkPolicies(_ name: String, lenient: RecordOutcome, strict: RecordOutcome) -> InvariantViolation? {
        switch (lenient, strict) {
        case (.unknown(let a), .failed(let f)) where f.kind == .unknownType && f.type == a && f.path.isEmpty:
            return nil
        case (.unknown, _):
            return InvariantViolation(check: "\(name): strict policy on an unknown tag", detail: "\(strict)")
        default:
            return lenient == strict ? nil : InvariantViolation(check: "\(name): policies disagree", detail: "lenient \(lenient), strict \(strict)")
        }
    }

    /// A failure's path renders, its message is present and carries no input bytes.
    static func checkFailure(_ name: String, _ failure: DecodeFailure, input: [UInt8]) -> InvariantViolation? {
        if failure.kind == .unknownType { return InvariantViolation(check: "\(name): unknownType on a lenient topic", detail: failure.path) }
        if failure.path.hasPrefix(".") || failure.path.hasSuffix(".") {
            return InvariantViolation(check: "\(name): path not renderable", detail: "\(failure.path.utf8.count) bytes")
        }
        if failure.message.isEmpty { return InvariantViolation(check: "\(name): empty message", detail: failure.kind.rawValue) }
        _ = failure.description
        if let at = leak(of: input, in: Array(failure.message.utf8)) {
            return InvariantViolation(check: "\(name): message contains input bytes", detail: "\(failure.kind) at byte \(at) of the message")
        }
        return nil
    }

    /// Where `message` contains ``leakWindow`` consecutive bytes of `input`, if anywhere.
    package static func leak(of input: [UInt8], in message: [UInt8]) -> Int? {
        let w = leakWindow
        guard input.count >= w, message.count >= w else { return nil }
        // Hash every window of the input, then look up the message's windows (Rabin–Karp).
        var windows = Set<UInt64>()
        windows.reserveCapacity(input.count)
        func hashes(_ bytes: [UInt8], _ body: (Int, UInt64) -> Void) {
            let base: UInt64 = 1_099_511_628_211
            var power: UInt64 = 1
            for _ in 0..<(w - 1) { power = power &* base }
            var h: UInt64 = 0
            for i in 0..<bytes.count {
                if i >= w { h = h &- UInt64(bytes[i - w]) &* power }
                h = h &* base &+ UInt64(bytes[i])
                if i >= w - 1 { body(i - w + 1, h) }
            }
        }
        hashes(input) { _, h in windows.insert(h) }
        var found: Int?
        hashes(message) { at, h in
            guard found == nil, windows.contains(h) else { return }
            let window = message[at..<(at + w)]
            if input.withUnsafeBufferPointer({ contains($0, Array(window)) }) { found = at }
        }
        return found
    }

    static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if haystack[i..<(i + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }

    /// encode(decode(x)) keeps x, decodes again as the same type, and is a fixed point.
    mutating func checkRoundTrip(_ i: Int, _ name: String, event: any EventCatalog, input: [UInt8]) -> InvariantViolation? {
        let first: [UInt8]
        do {
            first = try TopicCodec.canonicalBytes(of: event)
        } catch {
            return InvariantViolation(check: "\(name): canonical encoding threw", detail: "\(error)")
        }
        if let path = RoundTripCheck.firstLoss(input: input, output: first) {
            return InvariantViolation(check: "\(name): encode(decode(x)) loses input", detail: "at '\(path)'")
        }
        let again = codecs[i].lenient.decode(first)
        guard case .decoded(let type) = again.outcome, type == event.type, let event2 = again.event else {
            return InvariantViolation(check: "\(name): encode(decode(x)) does not decode", detail: "\(again.outcome)")
        }
        do {
            let second = try TopicCodec.canonicalBytes(of: event2)
            if second != first {
                return InvariantViolation(check: "\(name): second encoding differs", detail: "\(first.count) vs \(second.count) bytes")
            }
        } catch {
            return InvariantViolation(check: "\(name): second encoding threw", detail: "\(error)")
        }
        return nil
    }
}
