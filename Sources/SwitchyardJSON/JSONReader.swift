import CJSONScan

/// Why a JSON text was rejected, and where.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in a form that never quotes input bytes.
    public enum Reason: Sendable, Equatable {
        case empty
        case unexpectedCharacter
        case unexpectedEnd
        case trailingContent
        case invalidNumber
        case invalidEscape
        case invalidUnicodeEscape
        case loneSurrogate
        case controlCharacterInString
        case invalidUTF8
        case byteOrderMark
        case tooDeep(limit: Int)
        case tooLarge(limit: Int)
        /// A key that appears twice in one object (only with ``JSONReader/Options/rejectDuplicateKeys``).
        /// `object` is the tape index of the object, `key` the tape index of the second occurrence.
        case duplicateKey(object: Int, key: Int)
    }

    /// The reason.
    public var reason: Reason
    /// The byte offset in the input where the problem was found.
    public var offset: Int

    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// A message without record values.
    public var description: String {
        let what: String
        switch reason {
        case .empty: what = "empty input"
        case .unexpectedCharacter: what = "unexpected character"
        case .unexpectedEnd: what = "unexpected end of input"
        case .trailingContent: what = "content after the JSON value"
        case .invalidNumber: what = "malformed number"
        case .invalidEscape: what = "invalid escape sequence in string"
        case .invalidUnicodeEscape: what = "invalid \\u escape in string"
        case .loneSurrogate: what = "unpaired UTF-16 surrogate escape in string"
        case .controlCharacterInString: what = "unescaped control character in string"
        case .invalidUTF8: what = "invalid UTF-8"
        case .byteOrderMark: what = "byte order mark before JSON text"
        case .tooDeep(let limit): what = "nesting deeper than \(limit)"
        case .tooLarge(let limit): what = "record larger than \(limit) bytes"
        case .duplicateKey: what = "duplicate key in object"
        }
        return "Invalid JSON: \(what) at byte offset \(offset)."
    }
}

/// A strict RFC 8259 reader that records every value's byte range on a ``JSONTape``.
///
/// It validates UTF-8 (no overlong forms, no encoded surrogates), escapes (including surrogate pairs),
/// number grammar and nesting depth, without converting any value: values are read later, lazily,
/// from their byte ranges.
public struct JSONReader: Sendable {
    /// Reader limits and rules.
    public struct Options: Sendable {
        /// Deepest nesting of arrays and objects accepted. Default: 512.
        public var maxDepth: Int = 512
        /// Largest input accepted, in bytes. Default: 64 MiB (offsets are 32-bit).
        public var maxBytes: Int = 64 << 20
        /// Reject objects with the same key twice (compared after unescaping). Default: false, as
        /// RFC 8259 only says names SHOULD be unique; event decoding turns it on.
        public var rejectDuplicateKeys: Bool = false

        public init(maxDepth: Int = 512, maxBytes: Int = 64 << 20, rejectDuplicateKeys: Bool = false) {
            self.maxDepth = maxDepth
            self.maxBytes = min(maxBytes, Int(UInt32.max - 1))
            self.rejectDuplicateKeys = rejectDuplicateKeys
        }
    }

    /// The options in force.
    public var options: Options

    public init(options: Options = Options()) {
        self.options = options
    }

    /// Parses `bytes` onto `tape` (cleared first). On error the tape holds the nodes read so far.
    public func parse(_ bytes: UnsafeRawBufferPointer, into tape: inout JSONTape) throws(JSONSyntaxError) {
        tape.count = 0
        guard bytes.count <= options.maxBytes else { throw JSONSyntaxError(.tooLarge(limit: options.maxBytes), at: 0) }
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > 0 else {
            throw JSONSyntaxError(.empty, at: 0)
        }
        if !isKnownUniquelyReferenced(&tape.storage) { tape.storage = NodeStorage(capacity: tape.storage.capacity) }
        let storage = tape.storage
        let depthLimit = options.maxDepth
        var written = 0
        defer { tape.count = written }
        // Open containers: a stack of tape indices, on the stack (no allocation per record).
        try withUnsafeTemporaryAllocation(of: UInt32.self, capacity: min(depthLimit, 512) + 1) { stack throws(JSONSyntaxError) in
            var parser = Parser(base: base, count: bytes.count, options: options, storage: storage, stack: stack)
            defer { written = parser.n }
            try parser.run()
        }
    }

    /// Parses `bytes` and returns a new tape.
    public func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONTape {
        var tape = JSONTape()
        do {
            try bytes.withUnsafeBytes { buffer in
                do { try parse(buffer, into: &tape) } catch { throw error }
            }
        } catch let error as JSONSyntaxError {
            throw error
        } catch {
            fatalError("unreachable: parse throws only JSONSyntaxError")
        }
        return tape
    }
}

// MARK: - The parser

private struct Parser {
    let base: UnsafePointer<UInt8>
    let count: Int
    let options: Options
    var i = 0
    /// The nodes, written in place; `n` of them so far.
    let storage: NodeStorage
    var nodes: UnsafeMutablePointer<JSONNode>
    var capacity: Int
    var n = 0
    /// Open containers: tape index of each; `depth` of them. Grows to the heap past 512 levels.
    var stack: UnsafeMutablePointer<UInt32>
    var stackCapacity: Int
    var depth = 0
    var heapStack: [UInt32] = []

    typealias Options = JSONReader.Options

    init(base: UnsafePointer<UInt8>, count: Int, options: Options, storage: NodeStorage, stack: UnsafeMutableBufferPointer<UInt32>) {
        self.base = base
        self.count = count
        self.options = options
        self.storage = storage
        nodes = storage.pointer
        capacity = storage.capacity
        self.stack = stack.baseAddress!
        stackCapacity = stack.count
    }

    @inline(__always) mutating func append(_ node: JSONNode) {
        if n == capacity { grow() }
        nodes[n] = node
        n += 1
    }

    mutating func grow() {
        storage.grow(minimum: max(capacity * 2, count / 4 + 16), keeping: n)
        nodes = storage.pointer
        capacity = storage.capacity
    }

    @inline(__always) var top: Int? { depth == 0 ? nil : Int(depth <= stackCapacity ? stack[depth - 1] : heapStack[depth - 1 - stackCapacity]) }

    @inline(__always) mutating func push(_ index: Int) {
        if depth < stackCapacity { stack[depth] = UInt32(index) } else { heapStack.append(UInt32(index)) }
        depth += 1
    }

    @inline(__always) mutating func pop() -> Int {
        depth -= 1
        return depth < stackCapacity ? Int(stack[depth]) : Int(heapStack.removeLast())
    }

    @inline(__always) func byte(_ at: Int) -> UInt8 { base[at] }

    @inline(__always) mutating func skipWhitespace() {
        while i < count {
            let c = base[i]
            // space, \t, \n, \r
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { i += 1 } else { return }
        }
    }

    @inline(__always) func fail(_ reason: JSONSyntaxError.Reason, at offset: Int? = nil) -> JSONSyntaxError {
        JSONSyntaxError(reason, at: offset ?? i)
    }

    mutating func run() throws(JSONSyntaxError) {
        if count >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF {
            throw fail(.byteOrderMark, at: 0)
        }
        skipWhitespace()
        guard i < count else { throw fail(count == 0 ? .empty : .unexpectedEnd) }

        // The loop alternates "expect a value" and "after a value" without recursion.
        valueLoop: while true {
            // MARK: expect a value
            guard i < count else { throw fail(.unexpectedEnd) }
            let c = base[i]
            switch c {
            case UInt8(ascii: "{"):
                try open(.object)
                skipWhitespace()
                guard i < count else { throw fail(.unexpectedEnd) }
                if base[i] == UInt8(ascii: "}") {
                    close()
                } else {
                    try member()
                    continue valueLoop
                }
            case UInt8(ascii: "["):
                try open(.array)
                skipWhitespace()
                guard i < count else { throw fail(.unexpectedEnd) }
                if base[i] == UInt8(ascii: "]") {
                    close()
                } else {
                    continue valueLoop
                }
            case UInt8(ascii: "\""):
                try string()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                try number()
            case UInt8(ascii: "t"):
                try literal("true", .true)
            case UInt8(ascii: "f"):
                try literal("false", .false)
            case UInt8(ascii: "n"):
                try literal("null", .null)
            default:
                throw fail(.unexpectedCharacter)
            }

            // MARK: after a value
            while true {
                guard let top = self.top else {
                    skipWhitespace()
                    guard i == count else { throw fail(.trailingContent) }
                    return
                }
                skipWhitespace()
                guard i < count else { throw fail(.unexpectedEnd) }
                let d = base[i]
                if nodes[top].kind == .object {
                    if d == UInt8(ascii: ",") {
                        i += 1
                        skipWhitespace()
                        try member()
                        continue valueLoop
                    } else if d == UInt8(ascii: "}") {
                        if options.rejectDuplicateKeys { try checkDuplicates(object: top) }
                        close()
                    } else {
                        throw fail(.unexpectedCharacter)
                    }
                } else {
                    if d == UInt8(ascii: ",") {
                        i += 1
                        skipWhitespace()
                        nodes[top].count += 1
                        continue valueLoop
                    } else if d == UInt8(ascii: "]") {
                        close()
                    } else {
                        throw fail(.unexpectedCharacter)
                    }
                }
            }
        }
    }

    /// Opens a container at `i` (which holds `{` or `[`).
    @inline(__always) mutating func open(_ kind: JSONKind) throws(JSONSyntaxError) {
        guard depth < options.maxDepth else { throw fail(.tooDeep(limit: options.maxDepth)) }
        push(n)
        // Arrays count their first element here; later ones at each comma.
        append(JSONNode(start: UInt32(i), end: 0, next: 0, count: kind == .array ? 1 : 0, kind: kind, flags: 0))
        i += 1
    }

    /// Closes the innermost container at `i` (which holds `}` or `]`).
    @inline(__always) mutating func close() {
        let top = pop()
        i += 1
        nodes[top].end = UInt32(i)
        nodes[top].next = UInt32(n)
        // An empty array was counted as one element on open.
        if nodes[top].kind == .array && n == top + 1 { nodes[top].count = 0 }
    }

    /// Reads `"key" :` at `i` and counts the member.
    @inline(__always) mutating func member() throws(JSONSyntaxError) {
        guard i < count else { throw fail(.unexpectedEnd) }
        guard base[i] == UInt8(ascii: "\"") else { throw fail(.unexpectedCharacter) }
        nodes[top!].count += 1
        try string()
        skipWhitespace()
        guard i < count else { throw fail(.unexpectedEnd) }
        guard base[i] == UInt8(ascii: ":") else { throw fail(.unexpectedCharacter) }
        i += 1
        skipWhitespace()
    }

    @inline(__always) mutating func literal(_ text: StaticString, _ kind: JSONKind) throws(JSONSyntaxError) {
        let length = text.utf8CodeUnitCount
        let p = text.utf8Start
        guard i + length <= count else {
            // Report the first mismatching byte, or the end.
            var j = 0
            while i + j < count && base[i + j] == p[j] { j += 1 }
            throw fail(i + j == count ? .unexpectedEnd : .unexpectedCharacter, at: i + j)
        }
        for j in 1..<length where base[i + j] != p[j] { throw fail(.unexpectedCharacter, at: i + j) }
        append(JSONNode(start: UInt32(i), end: UInt32(i + length), next: UInt32(self.n + 1), count: 0, kind: kind, flags: 0))
        i += length
    }

    mutating func number() throws(JSONSyntaxError) {
        let start = i
        var flags = JSONNode.integer
        if base[i] == UInt8(ascii: "-") {
            flags |= JSONNode.negative
            i += 1
        }
        guard i < count else { throw fail(.unexpectedEnd) }
        let first = base[i]
        if first == UInt8(ascii: "0") {
            i += 1
        } else if first >= UInt8(ascii: "1") && first <= UInt8(ascii: "9") {
            i += 1
            while i < count && base[i] &- UInt8(ascii: "0") < 10 { i += 1 }
        } else {
            throw fail(.invalidNumber)
        }
        if i < count && base[i] == UInt8(ascii: ".") {
            flags &= ~JSONNode.integer
            i += 1
            let digits = i
            while i < count && base[i] &- UInt8(ascii: "0") < 10 { i += 1 }
            guard i > digits else { throw fail(i == count ? .unexpectedEnd : .invalidNumber) }
        }
        if i < count && (base[i] | 0x20) == UInt8(ascii: "e") {
            flags &= ~JSONNode.integer
            i += 1
            if i < count && (base[i] == UInt8(ascii: "+") || base[i] == UInt8(ascii: "-")) { i += 1 }
            let digits = i
            while i < count && base[i] &- UInt8(ascii: "0") < 10 { i += 1 }
            guard i > digits else { throw fail(i == count ? .unexpectedEnd : .invalidNumber) }
        }
        // A number must end at a delimiter; "01" or "1x" are malformed numbers.
        if i < count {
            let d = base[i]
            if (d &- UInt8(ascii: "0") < 10) || d == UInt8(ascii: ".") || (d | 0x20) == UInt8(ascii: "e")
                || d == UInt8(ascii: "+") || d == UInt8(ascii: "-")
            {
                throw fail(.invalidNumber)
            }
        }
        append(JSONNode(start: UInt32(start), end: UInt32(i), next: UInt32(n + 1), count: 0, kind: .number, flags: flags))
    }

    mutating func string() throws(JSONSyntaxError) {
        i += 1  // opening quote
        let start = i
        var flags: UInt8 = 0
        while true {
            // Straight to the first byte that needs a look (sixteen bytes per step).
            i += sy_json_plain_prefix(base + i, count - i)
            guard i < count else { throw fail(.unexpectedEnd) }
            let c = base[i]
            if c == UInt8(ascii: "\"") { break }
            if c == UInt8(ascii: "\\") {
                flags = JSONNode.escaped
                try escape()
            } else if c < 0x20 {
                throw fail(.controlCharacterInString)
            } else {
                try utf8Sequence()
            }
        }
        append(JSONNode(start: UInt32(start), end: UInt32(i), next: UInt32(n + 1), count: 0, kind: .string, flags: flags))
        i += 1  // closing quote
    }

    /// Validates one escape sequence at `i` (which holds the backslash).
    @inline(__always) mutating func escape() throws(JSONSyntaxError) {
        switch JSONValidation.escape(base, count: count, at: i) {
        case .valid(let length): i += length
        case .invalid(let reason, let offset): throw fail(reason, at: offset)
        }
    }

    /// Validates one multi-byte UTF-8 sequence at `i`.
    @inline(__always) mutating func utf8Sequence() throws(JSONSyntaxError) {
        let length = JSONValidation.utf8SequenceLength(base, count: count, at: i)
        guard length > 0 else { throw fail(.invalidUTF8) }
        i += length
    }

    // MARK: - Duplicate keys

    /// Throws if two members of the object at `object` have the same key after unescaping.
    func checkDuplicates(object: Int) throws(JSONSyntaxError) {
        let memberCount = Int(nodes[object].count)
        guard memberCount > 1 else { return }
        if memberCount <= 16 {
            // Records are small objects: compare a fingerprint of each key (length and first and last
            // eight bytes), pairwise, in registers; only equal fingerprints compare bytes.
            let duplicate: Int? = withUnsafeTemporaryAllocation(of: (key: Int, print: UInt64).self, capacity: memberCount) { keys in
                var k = object + 1
                var escaped = false
                for m in 0..<memberCount {
                    keys[m] = (k, fingerprint(nodes[k]))
                    escaped = escaped || nodes[k].isEscaped
                    k = Int(nodes[k + 1].next)
                }
                for a in 1..<memberCount {
                    for b in 0..<a where escaped || keys[a].print == keys[b].print {
                        if keysEqual(keys[a].key, keys[b].key) { return keys[a].key }
                    }
                }
                return nil
            }
            if let duplicate {
                throw JSONSyntaxError(.duplicateKey(object: object, key: duplicate), at: Int(nodes[duplicate].start) - 1)
            }
            return
        }
        var keys: [Int] = []
        keys.reserveCapacity(memberCount)
        var k = object + 1
        for _ in 0..<memberCount {
            keys.append(k)
            k = Int(nodes[k + 1].next)
        }
        // Large objects: sort by a hash of the unescaped key, then compare neighbours with equal hashes.
        var hashed = keys.map { (hash: keyHash($0), key: $0) }
        hashed.sort { $0.hash != $1.hash ? $0.hash < $1.hash : $0.key < $1.key }
        var a = 0
        while a < hashed.count {
            var b = a + 1
            while b < hashed.count && hashed[b].hash == hashed[a].hash {
                for x in a..<b where keysEqual(hashed[x].key, hashed[b].key) {
                    let second = max(hashed[x].key, hashed[b].key)
                    throw JSONSyntaxError(.duplicateKey(object: object, key: second), at: Int(nodes[second].start) - 1)
                }
                b += 1
            }
            a = b
        }
    }

    /// Equal raw keys have equal fingerprints. Every byte read lies before the object's closing brace.
    @inline(__always) func fingerprint(_ node: JSONNode) -> UInt64 {
        let start = Int(node.start)
        let length = Int(node.end) - start
        let mix = UInt64(truncatingIfNeeded: length) &* 0x9E37_79B9_7F4A_7C15
        if length >= 8 {
            let first = UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self)
            let last = UnsafeRawPointer(base + start + length - 8).loadUnaligned(as: UInt64.self)
            return first ^ (last &* 0xFF51_AFD7_ED55_8CCD) ^ mix
        }
        var value: UInt64 = 0
        for j in 0..<length { value |= UInt64(base[start + j]) << (UInt64(j) &* 8) }
        return value ^ mix
    }

    func keyBytes(_ key: Int) -> [UInt8] {
        let node = nodes[key]
        let raw = UnsafeBufferPointer(start: base + Int(node.start), count: Int(node.end - node.start))
        return node.isEscaped ? JSONString.unescape(raw) : Array(raw)
    }

    func keysEqual(_ a: Int, _ b: Int) -> Bool {
        let na = nodes[a]
        let nb = nodes[b]
        if !na.isEscaped && !nb.isEscaped {
            let length = Int(na.end - na.start)
            guard length == Int(nb.end - nb.start) else { return false }
            return memcmp(base + Int(na.start), base + Int(nb.start), length) == 0
        }
        return keyBytes(a) == keyBytes(b)
    }

    func keyHash(_ key: Int) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in keyBytes(key) {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return hash
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
