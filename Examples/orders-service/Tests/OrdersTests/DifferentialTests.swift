import Foundation
import Orders
import Switchyard
import Testing

/// The generated `orders` catalog against Foundation's `JSONDecoder` on the hand-written models
/// (HandWrittenModels.swift): for every fixture record, and every record one mutation away from a
/// decodable fixture (each key dropped, each value null, each value of the wrong JSON type, at every
/// depth), both decode, or both fail with the same kind at the same path. When both decode, they read
/// the same values (defaults applied to absent and null members alike).
@Suite struct DifferentialTests {
    enum Outcome: Equatable, CustomStringConvertible {
        case decoded(String)
        case failed(FailureKind, String)

        var description: String {
            switch self {
            case .decoded(let facts): "decoded \(facts)"
            case .failed(let kind, let path): "\(kind.rawValue) at '\(path)'"
            }
        }
    }

    /// Switchyard: the generated catalog through the worker's codec, strict as the catalog says.
    static func switchyard(_ json: [UInt8]) -> Outcome {
        var codec = TopicCodec(catalog: Catalog(OrderEvent.self), policy: .strict)
        let record = codec.decode(json)
        switch record.outcome {
        case .decoded:
            guard let event = record.event as? OrderEvent else { return .failed(.dataCorrupted, "<not an OrderEvent>") }
            return .decoded(facts(event))
        case .failed(let failure): return .failed(failure.kind, failure.path)
        case .unknown(let type): return .decoded("unknown \(type)")
        case .tombstone: return .failed(.dataCorrupted, "<tombstone>")
        }
    }

    /// Foundation: `JSONDecoder` on the hand-written models; an unknown tag is the strict topic's `unknownType`.
    static func foundation(_ json: [UInt8]) -> Outcome {
        do {
            let event = try JSONDecoder().decode(HandOrderEvent.self, from: Data(json))
            if case .unknown = event { return .failed(.unknownType, "") }
            return .decoded(facts(event))
        } catch let error as DecodingError {
            let failure = DecodeFailure(error, type: nil)
            return .failed(failure.kind, failure.path)
        } catch {
            return .failed(.dataCorrupted, "<\(error)>")
        }
    }

    // MARK: - The values both sides read, in one comparable line

    static func facts(_ event: OrderEvent) -> String {
        func money(_ m: OrderEvent.Money) -> String { "\(m.value) \(m.currency)" }
        func envelope(_ e: Envelope) -> String { "id=\(e.id) at=\(e.occurredAt.epochSeconds) v=\(e.schemaVersion)" }
        switch event {
        case .placed(let e):
            let items = e.items.map { "\($0.sku)×\($0.quantity)@\(money($0.unitPrice))" }.joined(separator: ",")
            let address = e.shippingAddress.map { "\($0.line1)|\($0.line2 ?? "-")|\($0.city)|\($0.postalCode ?? "-")|\($0.country)" } ?? "none"
            return "placed \(envelope(e.envelope)) order=\(e.orderId) customer=\(e.customerId) items=[\(items)] total=\(money(e.total)) channel=\(e.channel.rawValue) ship=\(address) gift=\(e.giftWrap) by=\(e.deliverBy.map { "\($0.epochSeconds)" } ?? "none") points=\(e.loyaltyPoints)"
        case .shipped(let e):
            let parcels = e.parcels.map { "\($0.trackingNumber):\($0.skus.joined(separator: "+")):\($0.weightGrams.map(String.init) ?? "-")" }.joined(separator: ",")
            return "shipped \(envelope(e.envelope)) order=\(e.orderId) carrier=\(e.carrier) parcels=[\(parcels)] eta=\(e.estimatedDelivery.map { "\($0.epochSeconds)" } ?? "none")"
        case .cancelled(let e):
            return "cancelled \(envelope(e.envelope)) order=\(e.orderId) reason=\(e.reason.rawValue) note=\(e.note ?? "none") refund=\(e.refund.map(money) ?? "none") restock=\(e.restock)"
        case .unknown(let type, _):
            return "unknown \(type)"
        }
    }

    static func facts(_ event: HandOrderEvent) -> String {
        func money(_ m: HandMoney) -> String { "\(m.value) \(m.currency)" }
        func seconds(_ d: Date) -> Int64 { Int64(d.timeIntervalSince1970.rounded(.down)) }
        func envelope(_ e: HandEnvelope) -> String { "id=\(e.id) at=\(seconds(e.occurredAt)) v=\(e.schemaVersion)" }
        switch event {
        case .placed(let e):
            let items = e.items.map { "\($0.sku)×\($0.quantity)@\(money($0.unitPrice))" }.joined(separator: ",")
            let address = e.shippingAddress.map { "\($0.line1)|\($0.line2 ?? "-")|\($0.city)|\($0.postalCode ?? "-")|\($0.country)" } ?? "none"
            return "placed \(envelope(e.envelope)) order=\(e.orderId) customer=\(e.customerId) items=[\(items)] total=\(money(e.total)) channel=\(e.channel) ship=\(address) gift=\(e.giftWrap) by=\(e.deliverBy.map { "\(seconds($0))" } ?? "none") points=\(e.loyaltyPoints)"
        case .shipped(let e):
            let parcels = e.parcels.map { "\($0.trackingNumber):\($0.skus.joined(separator: "+")):\($0.weightGrams.map(String.init) ?? "-")" }.joined(separator: ",")
            return "shipped \(envelope(e.envelope)) order=\(e.orderId) carrier=\(e.carrier) parcels=[\(parcels)] eta=\(e.estimatedDelivery.map { "\(seconds($0))" } ?? "none")"
        case .cancelled(let e):
            return "cancelled \(envelope(e.envelope)) order=\(e.orderId) reason=\(e.reason) note=\(e.note ?? "none") refund=\(e.refund.map(money) ?? "none") restock=\(e.restock)"
        case .unknown(let type):
            return "unknown \(type)"
        }
    }

    // MARK: - Tests

    @Test func fixturesAgree() throws {
        for (index, line) in try fixtureLines().enumerated() {
            let bytes = Array(line.utf8)
            let ours = Self.switchyard(bytes)
            #expect(ours == Self.foundation(bytes), "line \(index + 1): Switchyard \(ours), Foundation \(Self.foundation(bytes))")
        }
    }

    @Test func mutationsAgree() throws {
        var compared = 0
        var kinds: [FailureKind: Int] = [:]
        for (index, line) in try fixtureLines().enumerated() {
            guard case .decoded = Self.switchyard(Array(line.utf8)) else { continue }
            for mutation in Mutation.all(of: line) {
                let ours = Self.switchyard(mutation.bytes)
                let theirs = Self.foundation(mutation.bytes)
                #expect(ours == theirs, "line \(index + 1), \(mutation.name): Switchyard \(ours), Foundation \(theirs)\n\(String(decoding: mutation.bytes, as: UTF8.self))")
                compared += 1
                if case .failed(let kind, _) = ours { kinds[kind, default: 0] += 1 }
            }
        }
        // Every failure kind was exercised (not a vacuous pass); `type := ""` is an unknown tag.
        #expect(compared > 300, "compared \(compared)")
        #expect(Set(kinds.keys) == [.keyNotFound, .valueNotFound, .typeMismatch, .dataCorrupted, .unknownType], "\(kinds)")
    }

    /// A worker topic with no handler and no republish decides records without making the event
    /// (`validateFast`, the generated models' `validate`): on every fixture and every mutation it gives the
    /// verdict decoding gives (type, known or not, unknown members), or leaves the record to the general
    /// path exactly when decoding does. Arrays of objects, nested optionals and defaults are all here.
    @Test func validatingWithoutValuesDecidesAsDecoding() throws {
        let options = JSONReader.Options(rejectDuplicateKeys: true)
        var compared = 0
        var decided = 0
        for line in try fixtureLines() {
            for bytes in [Array(line.utf8)] + Mutation.all(of: line).map(\.bytes) {
                let full = bytes.withUnsafeBytes { OrderEvent.decodeFast($0, options: options) }
                let bare = bytes.withUnsafeBytes { OrderEvent.validateFast($0, options: options) }
                let expected = full.map { FastVerdict(type: $0.value.type, isKnown: $0.knownType != nil, unknownFieldCount: $0.unknownFieldCount) }
                #expect(bare == expected, "decoding: \(expected.map { "\($0)" } ?? "left to the general path"), validating: \(bare.map { "\($0)" } ?? "left to the general path")\n\(String(decoding: bytes, as: UTF8.self))")
                compared += 1
                if full != nil { decided += 1 }
            }
        }
        #expect(compared > 300 && decided > 100, "compared \(compared), decided \(decided)")
    }

    /// The built binary, as a release engineer runs it: `orders-switchyard replay --catalog orders
    /// --records` over the fixtures and all their mutations (one NDJSON line each) reports, per line,
    /// the kind and path Foundation reports on the hand-written models.
    @Test func replayBinaryAgreesWithFoundation() async throws {
        var inputs: [[UInt8]] = []
        for line in try fixtureLines() {
            inputs.append(Array(line.utf8))
            if case .decoded = Self.switchyard(Array(line.utf8)) { inputs += Mutation.all(of: line).map(\.bytes) }
        }
        let ndjson = inputs.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n") + "\n"
        let result = try await ordersSwitchyard(["replay", "--catalog", "orders", "--records"], stdin: Data(ndjson.utf8), timeout: 120)
        #expect(result.exitCode == 1, "\(result.stderr)")
        let lines = result.stdoutLines
        try #require(lines.count == inputs.count, "\(lines.count) lines for \(inputs.count) records; \(result.stderr)")
        for (input, line) in zip(inputs, lines) {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let replayed: String = record["outcome"] as? String == "failed" ? "\(record["kind"] ?? "?") at '\(record["path"] ?? "?")'" : "\(record["outcome"] ?? "?")"
            let expected: String
            switch Self.foundation(input) {
            case .decoded: expected = "decoded"
            case .failed(let kind, let path): expected = "\(kind.rawValue) at '\(path)'"
            }
            #expect(replayed == expected, "\(String(decoding: input, as: UTF8.self))")
        }
    }
}

/// One change to a fixture record: a key dropped, a value made null, or a value of the wrong JSON type.
struct Mutation {
    var name: String
    var bytes: [UInt8]
    /// Where the change is (`items[0].unitPrice.value`).
    var path: String
    var isNull: Bool

    /// Every single-step mutation of `json`, at every depth (and an edge value of the right type) (the `type` tag's value stays a known tag
    /// or becomes another JSON type; an unknown tag is covered by the fixtures).
    static func all(of json: String) -> [Mutation] {
        let root = try! JSONSerialization.jsonObject(with: Data(json.utf8))
        var result: [Mutation] = []
        func encode(_ o: Any) -> [UInt8] {
            Array(try! JSONSerialization.data(withJSONObject: o, options: [.sortedKeys, .fragmentsAllowed]))
        }
        func visit(_ value: Any, _ path: [Any], inObject: Bool) {
            let rendered = Self.render(path: path)
            if inObject { result.append(Mutation(name: "\(rendered) dropped", bytes: encode(set(root, path, nil)), path: rendered, isNull: false)) }
            if !(value is NSNull) {
                result.append(Mutation(name: "\(rendered) := null", bytes: encode(set(root, path, NSNull())), path: rendered, isNull: true))
            }
            result.append(Mutation(name: "\(rendered) := wrong type", bytes: encode(set(root, path, wrongType(for: value))), path: rendered, isNull: false))
            if let edge = edgeValue(for: value) {
                result.append(Mutation(name: "\(rendered) := \(edge)", bytes: encode(set(root, path, edge)), path: rendered, isNull: false))
            }
            if let object = value as? [String: Any] {
                for (k, v) in object.sorted(by: { $0.key < $1.key }) { visit(v, path + [k], inObject: true) }
            } else if let array = value as? [Any] {
                for (i, v) in array.enumerated() { visit(v, path + [i], inObject: false) }
            }
        }
        for (k, v) in (root as! [String: Any]).sorted(by: { $0.key < $1.key }) { visit(v, [k], inObject: true) }
        return result
    }

    /// A value of another JSON type than `value`: string → number, number or bool → string,
    /// object → array, array → object, null → bool.
    static func wrongType(for value: Any) -> Any {
        switch value {
        case is NSNull: return true
        case is String: return 7
        case is NSNumber, is Bool: return "7"
        case is [String: Any]: return [1]
        case is [Any]: return ["k": 1]
        default: return NSNull()
        }
    }

    /// A value of the right JSON type that a schema keyword may refuse: an empty string (`minLength: 1`,
    /// `format: date-time`), a negative integer (`minimum`).
    static func edgeValue(for value: Any) -> Any? {
        switch value {
        case let s as String: return s.isEmpty ? nil : ""
        case is NSNumber, is Bool: return -1  // on a boolean, one more wrong type
        default: return nil
        }
    }

    static func render(path: [Any]) -> String {
        var s = ""
        for component in path {
            if let i = component as? Int { s += "[\(i)]" } else { s += (s.isEmpty ? "" : ".") + "\(component)" }
        }
        return s
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
            array[index] = set(array[index], rest, value)
            return array
        }
        return root
    }
}
