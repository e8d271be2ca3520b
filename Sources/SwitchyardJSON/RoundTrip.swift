/// Checks PRODUCT.md's encoding rules on one record: the output keeps every input key and value,
/// and encoding is stable.
public enum RoundTripCheck {
    /// Where `output` loses something of `input`: nil when every member of `input` is in `output`
    /// with an equal value (objects: recursively, so `output` may add members; arrays: same
    /// length, equal elements; numbers: equal exact decimal values; strings: equal after unescaping).
    ///
    /// - Returns: the rendered path of the first loss, or nil.
    public static func firstLoss(input: [UInt8], output: [UInt8]) -> String? {
        let reader = JSONReader()
        let a: JSONTape
        let b: JSONTape
        do {
            a = try reader.parse(input)
            b = try reader.parse(output)
        } catch {
            return ""
        }
        return input.withUnsafeBytes { ib in
            output.withUnsafeBytes { ob in
                DecodingWorkspace.withState(bytes: ib, tape: a) { sa in
                    DecodingWorkspace.withState(bytes: ob, tape: b) { sb in
                        var path: [any CodingKey] = []
                        return covers(sa, 0, sb, 0, &path) ? nil : CodingPathRenderer.render(path)
                    }
                }
            }
        }
    }

    static func covers(_ sa: DecoderState, _ i: Int, _ sb: DecoderState, _ j: Int, _ path: inout [any CodingKey]) -> Bool {
        let na = sa.nodes[i]
        let nb = sb.nodes[j]
        switch (na.kind, nb.kind) {
        case (.object, .object):
            for k in JSONTape.memberKeys(nodes: sa.nodes, object: i) {
                let name = sa.string(at: k)
                path.append(JSONKey(stringValue: name))
                guard let v = sb.find(name, in: j), covers(sa, k + 1, sb, v, &path) else { return false }
                path.removeLast()
            }
            return true
        case (.array, .array):
            guard na.count == nb.count else { return false }
            var x = i + 1
            var y = j + 1
            for position in 0..<Int(na.count) {
                path.append(JSONKey.index(position))
                guard covers(sa, x, sb, y, &path) else { return false }
                path.removeLast()
                x = Int(sa.nodes[x].next)
                y = Int(sb.nodes[y].next)
            }
            return true
        case (.string, .string):
            return sa.string(at: i) == sb.string(at: j)
        case (.number, .number):
            return DecimalText(Array(sa.raw(na))) == DecimalText(Array(sb.raw(nb)))
        case (.true, .true), (.false, .false), (.null, .null):
            return true
        default:
            return false
        }
    }
}

/// The exact value of a JSON number, normalised: sign, significant digits, decimal exponent.
struct DecimalText: Equatable {
    var negative: Bool
    var digits: [UInt8]
    var exponent: Int

    init(_ text: [UInt8]) {
        var i = 0
        negative = text.first == UInt8(ascii: "-")
        if negative { i = 1 }
        var digits: [UInt8] = []
        var exponent = 0
        var afterPoint = false
        while i < text.count {
            let c = text[i]
            if c == UInt8(ascii: ".") {
                afterPoint = true
            } else if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
                var e = 0
                var sign = 1
                i += 1
                if text[i] == UInt8(ascii: "-") { sign = -1; i += 1 } else if text[i] == UInt8(ascii: "+") { i += 1 }
                while i < text.count {
                    e = min(e * 10 + Int(text[i] - UInt8(ascii: "0")), 1_000_000_000)
                    i += 1
                }
                exponent += sign * e
                break
            } else {
                digits.append(c)
                if afterPoint { exponent -= 1 }
            }
            i += 1
        }
        while digits.first == UInt8(ascii: "0") { digits.removeFirst() }
        while digits.last == UInt8(ascii: "0") {
            digits.removeLast()
            exponent += 1
        }
        if digits.isEmpty {
            negative = false
            exponent = 0
        }
        self.digits = digits
        self.exponent = exponent
    }
}
