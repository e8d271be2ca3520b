/// A JSON object built in code, with string keys in insertion order: for the reports and status
/// documents the tools print (never `[String: Any]`, whose order is not deterministic).
public struct JSONObject: Encodable, Sendable {
    private var keys: [String] = []
    private var values: [[UInt8]] = []

    public init() {}

    /// Sets `key` to `value` (replacing an earlier value, keeping its position).
    public mutating func set<T: Encodable>(_ key: String, _ value: T) {
        let bytes: [UInt8]
        do {
            bytes = try CanonicalJSONEncoder().encode(value)
        } catch {
            // Only non-finite floats fail to encode; show them as null rather than lose the key.
            bytes = Array("null".utf8)
        }
        put(key, bytes)
    }

    /// Sets `key` to a string: quoted directly, without an encoder (log lines and status documents are
    /// mostly strings).
    public mutating func set(_ key: String, _ value: String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.utf8.count + 2)
        JSONString.appendQuoted(value, to: &bytes)
        put(key, bytes)
    }

    private mutating func put(_ key: String, _ bytes: [UInt8]) {
        if let i = keys.firstIndex(of: key) {
            values[i] = bytes
        } else {
            keys.append(key)
            values.append(bytes)
        }
    }

    /// Sets `key` to `value`, or leaves it out when `value` is nil.
    public mutating func setIfPresent<T: Encodable>(_ key: String, _ value: T?) {
        if let value { set(key, value) }
    }

    /// The compact JSON text.
    public var bytes: [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (i, key) in keys.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONString.appendQuoted(key, to: &out)
            out.append(UInt8(ascii: ":"))
            out.append(contentsOf: values[i])
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The compact JSON text as a String.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    public func encode(to encoder: any Encoder) throws {
        try RawJSON(bytes: bytes).encode(to: encoder)
    }
}
