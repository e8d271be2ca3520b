/// The kind of one JSON value on a ``JSONTape``.
public enum JSONKind: UInt8, Sendable {
    case object, array, string, number, `true`, `false`, null

    /// A name for diagnostics ("an object", "a string", …).
    public var article: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .true, .false: "a boolean"
        case .null: "null"
        }
    }
}

/// One value on the tape: its kind, its byte range in the input, and where its subtree ends.
///
/// Containers are followed by their children in order; an object's children alternate key, value.
/// `next` is the index just past the subtree, so a reader can skip a value in O(1).
public struct JSONNode: Sendable {
    /// First byte of the value. For strings, the first byte after the opening quote.
    public var start: UInt32
    /// One past the last byte. For strings, the closing quote's offset.
    public var end: UInt32
    /// The tape index just past this value's subtree.
    public var next: UInt32
    /// Children of an array, members of an object; 0 for scalars.
    public var count: UInt32
    /// The value's kind.
    public var kind: JSONKind
    /// ``JSONNode/escaped`` for strings with backslash escapes; ``JSONNode/integer`` for numbers
    /// without fraction or exponent; ``JSONNode/negative`` for numbers with a minus sign.
    public var flags: UInt8

    public static let escaped: UInt8 = 1
    public static let integer: UInt8 = 2
    public static let negative: UInt8 = 4

    @inline(__always) public var isEscaped: Bool { flags & Self.escaped != 0 }
    @inline(__always) public var isInteger: Bool { flags & Self.integer != 0 }
}

/// The parsed structure of one JSON text: a flat array of ``JSONNode``s in document order.
///
/// The tape does not own the bytes it describes; it is reused across records to avoid allocation.
public struct JSONTape: Sendable {
    /// Node memory, shared by copies of a tape until one of them is parsed into again.
    var storage: NodeStorage
    /// The number of nodes.
    public internal(set) var count: Int = 0

    public init() {
        storage = NodeStorage(capacity: 256)
    }

    /// The nodes, root first (a copy: the reader and decoder work on the storage in place).
    public var nodes: ContiguousArray<JSONNode> {
        withNodes { ContiguousArray($0) }
    }

    /// Runs `body` with the nodes in place.
    @inline(__always) func withNodes<R>(_ body: (UnsafeBufferPointer<JSONNode>) throws -> R) rethrows -> R {
        try withExtendedLifetime(storage) { try body(UnsafeBufferPointer(start: storage.pointer, count: count)) }
    }

    /// The node at `index`.
    @inline(__always) public subscript(index: Int) -> JSONNode {
        precondition(index >= 0 && index < count, "tape index out of range")
        return withExtendedLifetime(storage) { storage.pointer[index] }
    }

    /// The index of the first child of the container at `index` (meaningful if `count > 0`).
    @inline(__always) public func firstChild(of index: Int) -> Int { index + 1 }

    /// The index of the value after `index` inside the same container.
    @inline(__always) public func sibling(of index: Int) -> Int { Int(self[index].next) }

    /// The tape indices of an object's members as (key, value) pairs.
    public func members(of object: Int) -> [(key: Int, value: Int)] {
        var result: [(key: Int, value: Int)] = []
        let node = self[object]
        result.reserveCapacity(Int(node.count))
        var k = object + 1
        for _ in 0..<node.count {
            let v = k + 1
            result.append((k, v))
            k = Int(self[v].next)
        }
        return result
    }

    /// The tape indices of an array's elements.
    public func elements(of array: Int) -> [Int] {
        var result: [Int] = []
        var e = array + 1
        for _ in 0..<self[array].count {
            result.append(e)
            e = Int(self[e].next)
        }
        return result
    }

    /// The path from the root to the node at `target`: object keys (as tape indices of key nodes) and
    /// array positions. Used for diagnostics only, so the walk is not on the hot path.
    public func pathComponents(to target: Int) -> [PathStep] {
        withNodes { Self.path(nodes: $0, to: target) }
    }

    /// The path to `target`, over a buffer of nodes. Works on a partial tape too (the reader
    /// stopped inside open containers, whose `next` is still 0): an open container extends to the end.
    static func path(nodes: UnsafeBufferPointer<JSONNode>, to target: Int) -> [PathStep] {
        func after(_ index: Int) -> Int {
            let next = Int(nodes[index].next)
            return next == 0 ? nodes.count : next
        }
        var steps: [PathStep] = []
        var current = 0
        while current != target && target < nodes.count {
            let node = nodes[current]
            guard node.kind == .object || node.kind == .array, target > current, target < after(current) else { break }
            var child = current + 1
            var found = false
            for position in 0..<Int(node.count) where child < nodes.count {
                if node.kind == .object {
                    let value = child + 1
                    if target == child {
                        // The target is a key: its path is the member's path.
                        steps.append(.key(child))
                        return steps
                    }
                    guard value < nodes.count else { break }
                    if target >= value && target < after(value) {
                        steps.append(.key(child))
                        current = value
                        found = true
                        break
                    }
                    child = after(value)
                } else {
                    if target >= child && target < after(child) {
                        steps.append(.index(position))
                        current = child
                        found = true
                        break
                    }
                    child = after(child)
                }
            }
            if !found { break }
        }
        return steps
    }

    /// One step of a path on the tape.
    public enum PathStep: Sendable, Equatable {
        /// An object member, by the tape index of its key node.
        case key(Int)
        /// An array element, by position.
        case index(Int)
    }
}

/// The memory behind a ``JSONTape``: a growable buffer of trivial nodes written through a pointer
/// (no per-node uniqueness or capacity bookkeeping of an array).
///
/// `@unchecked Sendable`: it is only written by ``JSONReader`` through a tape that holds the only
/// reference (the reader copies it first otherwise), so a shared storage is never mutated.
final class NodeStorage: @unchecked Sendable {
    private(set) var pointer: UnsafeMutablePointer<JSONNode>
    private(set) var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        pointer = .allocate(capacity: self.capacity)
    }

    deinit { pointer.deallocate() }

    /// Grows to at least `minimum` nodes, keeping the first `count`.
    func grow(minimum: Int, keeping count: Int) {
        let newCapacity = max(minimum, capacity * 2)
        let newPointer = UnsafeMutablePointer<JSONNode>.allocate(capacity: newCapacity)
        newPointer.moveInitialize(from: pointer, count: count)
        pointer.deallocate()
        pointer = newPointer
        capacity = newCapacity
    }
}
