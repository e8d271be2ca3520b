import Foundation

/// A topic and one of its partitions.
public struct KafkaTopicPartition: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The topic name.
    public var topic: String
    /// The partition number, from 0.
    public var partition: Int32

    public init(topic: String, partition: Int32) {
        self.topic = topic
        self.partition = partition
    }

    public static func < (lhs: KafkaTopicPartition, rhs: KafkaTopicPartition) -> Bool {
        (lhs.topic, lhs.partition) < (rhs.topic, rhs.partition)
    }

    public var description: String { "\(topic)/\(partition)" }
}

/// One record header. Names may repeat; order is kept; a value may be null.
public struct KafkaHeader: Hashable, Sendable {
    /// The header name.
    public var name: String
    /// The header value; `nil` is a null value (distinct from empty).
    public var value: [UInt8]?

    public init(name: String, value: [UInt8]?) {
        self.name = name
        self.value = value
    }

    /// A header with a UTF-8 string value.
    public init(name: String, string: String) {
        self.init(name: name, value: Array(string.utf8))
    }
}

/// A record read by the consumer.
///
/// Key, value and headers are kept once (``KafkaRecordBytes``): copied into one immutable allocation on the poll
/// thread, or, from a consumer made with ``KafkaConsumerConfiguration/keepsMessages``, librdkafka's message
/// itself. Copying a record retains one object, and the hot path reads the value in place
/// (``withUnsafeValue(_:)``). ``key``, ``value`` and ``headers`` return copies; setting one makes a new
/// allocation for this record only. Keep ``detached()`` when a record from such a consumer outlives its batch.
public struct KafkaRecord: Hashable, Sendable, CustomStringConvertible {
    /// Where the record came from.
    public var topic: String
    /// Where the record came from.
    public var partition: Int32
    /// The record's offset in its partition.
    public var offset: Int64
    /// The record timestamp in milliseconds since the Unix epoch, `nil` when the broker sent none.
    public var timestampMilliseconds: Int64?
    /// Key, value and headers.
    public private(set) var bytes: KafkaRecordBytes

    public init(
        topic: String,
        partition: Int32,
        offset: Int64,
        key: [UInt8]?,
        value: [UInt8]?,
        headers: [KafkaHeader] = [],
        timestampMilliseconds: Int64? = nil
    ) {
        let bytes = key.withOptionalBytes { key in
            value.withOptionalBytes { value in
                KafkaRecordBytes(key: key, value: value, headers: headers.map { (Array($0.name.utf8), $0.value) })
            }
        }
        self.init(topic: topic, partition: partition, offset: offset, bytes: bytes, timestampMilliseconds: timestampMilliseconds)
    }

    /// A record whose key, value and headers are already in one allocation.
    public init(topic: String, partition: Int32, offset: Int64, bytes: KafkaRecordBytes, timestampMilliseconds: Int64?) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.bytes = bytes
        self.timestampMilliseconds = timestampMilliseconds
    }

    /// The key bytes, `nil` when the record has no key (a copy; ``withUnsafeKey(_:)`` reads in place).
    public var key: [UInt8]? {
        get { bytes.withUnsafeKey { $0.map(Array.init) } }
        set { bytes = bytes.withUnsafeValue { value in newValue.withOptionalBytes { KafkaRecordBytes(key: $0, value: value, headers: bytes.rawHeaders) } } }
    }

    /// The value bytes, `nil` for a tombstone (a copy; ``withUnsafeValue(_:)`` reads in place).
    public var value: [UInt8]? {
        get { bytes.withUnsafeValue { $0.map(Array.init) } }
        set { bytes = bytes.withUnsafeKey { key in newValue.withOptionalBytes { KafkaRecordBytes(key: key, value: $0, headers: bytes.rawHeaders) } } }
    }

    /// The headers, in wire order, duplicates kept (a copy).
    public var headers: [KafkaHeader] {
        get { bytes.headers }
        set {
            bytes = bytes.withUnsafeKey { key in
                bytes.withUnsafeValue { value in
                    KafkaRecordBytes(key: key, value: value, headers: newValue.map { (Array($0.name.utf8), $0.value) })
                }
            }
        }
    }

    /// Calls `body` with the value bytes in place (`nil` for a tombstone); they are valid only inside `body`.
    @inlinable public func withUnsafeValue<R>(_ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        try bytes.withUnsafeValue(body)
    }

    /// Calls `body` with the key bytes in place (`nil` without a key); they are valid only inside `body`.
    @inlinable public func withUnsafeKey<R>(_ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        try bytes.withUnsafeKey(body)
    }

    /// The value's size in bytes, `nil` for a tombstone.
    public var valueCount: Int? { bytes.valueCount }

    /// This record with bytes of its own (``KafkaRecordBytes/detached()``), not librdkafka's message, whose
    /// fetch response stays in memory while any record of it is kept.
    public func detached() -> KafkaRecord {
        var record = self
        record.bytes = bytes.detached()
        return record
    }

    /// The topic and partition.
    public var topicPartition: KafkaTopicPartition { KafkaTopicPartition(topic: topic, partition: partition) }

    /// The record timestamp as a `Date`.
    public var timestamp: Date? {
        timestampMilliseconds.map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    /// Whether this is a tombstone (null value).
    public var isTombstone: Bool { bytes.valueCount == nil }

    /// Position only: record contents may hold personal data and never go to logs.
    public var description: String { "KafkaRecord(\(topic)/\(partition)@\(offset))" }
}

/// A record's key, value and headers in one immutable allocation (the object and its bytes together): key,
/// value, then per header its name length (4 bytes), name, value length (4 bytes, -1 for a null value) and value.
@usableFromInline final class KafkaRecordStorage: ManagedBuffer<KafkaRecordStorage.Layout, UInt8> {

    /// Where things are in the bytes; -1 for an absent key or a null value (a tombstone).
    @usableFromInline struct Layout {
        let keyCount: Int32
        let headerCount: Int32
        let valueCount: Int
        let size: Int
        var headersStart: Int { max(Int(keyCount), 0) + max(valueCount, 0) }
    }

    /// Copies key, value and headers (name bytes and value) into one allocation.
    static func make<Headers: Collection>(
        key: UnsafeRawBufferPointer?, value: UnsafeRawBufferPointer?, headers: Headers
    ) -> KafkaRecordStorage where Headers.Element == ([UInt8], [UInt8]?) {
        var size = 0
        for (name, value) in headers { size += 8 + name.count + (value?.count ?? 0) }
        let bytes = begin(key: key, value: value, headerCount: headers.count, headerBytes: size)
        var cursor = bytes.header.headersStart
        for (name, value) in headers {
            cursor = name.withUnsafeBytes { name in
                value.withOptionalBytes { bytes.appendHeader(at: cursor, name: name, value: $0) }
            }
        }
        return bytes
    }

    /// An allocation holding key and value, with room for `headerBytes` bytes of headers, which are then
    /// written with ``appendHeader(at:name:value:)`` (8 bytes plus name and value each) before it is shared.
    static func begin(key: UnsafeRawBufferPointer?, value: UnsafeRawBufferPointer?, headerCount: Int, headerBytes: Int) -> KafkaRecordStorage {
        let layout = Layout(
            keyCount: key.map { Int32($0.count) } ?? -1, headerCount: Int32(headerCount), valueCount: value?.count ?? -1,
            size: (key?.count ?? 0) + (value?.count ?? 0) + headerBytes)
        let bytes = unsafeDowncast(create(minimumCapacity: layout.size) { _ in layout }, to: KafkaRecordStorage.self)
        bytes.withUnsafeMutablePointerToElements { base in
            var cursor = 0
            if let key, key.count > 0 { UnsafeMutableRawPointer(base).copyMemory(from: key.baseAddress!, byteCount: key.count); cursor += key.count }
            if let value, value.count > 0 { UnsafeMutableRawPointer(base + cursor).copyMemory(from: value.baseAddress!, byteCount: value.count) }
        }
        return bytes
    }

    /// Writes one header at byte `cursor` (while the allocation is being made); returns the next cursor.
    /// A nil `value` is a null header value.
    func appendHeader(at cursor: Int, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer?) -> Int {
        withUnsafeMutablePointerToElements { base in
            let raw = UnsafeMutableRawPointer(base)
            var cursor = cursor
            raw.storeBytes(of: UInt32(name.count), toByteOffset: cursor, as: UInt32.self)
            cursor += 4
            if name.count > 0 { (raw + cursor).copyMemory(from: name.baseAddress!, byteCount: name.count) }
            cursor += name.count
            raw.storeBytes(of: value.map { Int32($0.count) } ?? -1, toByteOffset: cursor, as: Int32.self)
            cursor += 4
            if let value, value.count > 0 { (raw + cursor).copyMemory(from: value.baseAddress!, byteCount: value.count) }
            return cursor + (value?.count ?? 0)
        }
    }

    var valueCount: Int? { header.valueCount < 0 ? nil : header.valueCount }

    /// All the bytes, valid inside `body`.
    private func withAll<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let size = header.size
        return try withUnsafeMutablePointerToElements { try body(UnsafeRawBufferPointer(start: $0, count: size)) }
    }

    @usableFromInline func withUnsafeKey<R>(_ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        let count = Int(header.keyCount)
        guard count >= 0 else { return try body(nil) }
        return try withAll { try body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }

    @usableFromInline func withUnsafeValue<R>(_ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        let layout = header
        guard layout.valueCount >= 0 else { return try body(nil) }
        let start = max(Int(layout.keyCount), 0)
        return try withAll { try body(UnsafeRawBufferPointer(rebasing: $0[start..<(start + layout.valueCount)])) }
    }

    /// Every header as (name bytes, value), in order.
    var rawHeaders: [([UInt8], [UInt8]?)] {
        let layout = header
        return withAll { all in
            var result: [([UInt8], [UInt8]?)] = []
            result.reserveCapacity(Int(layout.headerCount))
            var cursor = layout.headersStart
            for _ in 0..<layout.headerCount {
                let nameCount = Int(all.loadUnaligned(fromByteOffset: cursor, as: UInt32.self))
                cursor += 4
                let name = Array(all[cursor..<(cursor + nameCount)])
                cursor += nameCount
                let valueCount = Int(all.loadUnaligned(fromByteOffset: cursor, as: Int32.self))
                cursor += 4
                if valueCount < 0 {
                    result.append((name, nil))
                } else {
                    result.append((name, Array(all[cursor..<(cursor + valueCount)])))
                    cursor += valueCount
                }
            }
            return result
        }
    }

    func isEqual(to rhs: KafkaRecordStorage) -> Bool {
        let lhs = self
        if lhs === rhs { return true }
        let (l, r) = (lhs.header, rhs.header)
        guard l.keyCount == r.keyCount, l.valueCount == r.valueCount, l.headerCount == r.headerCount, l.size == r.size else { return false }
        return lhs.withAll { a in rhs.withAll { b in a.elementsEqual(b) } }
    }
}

/// A record's key, value and headers, made once and shared by every copy of the record: either one immutable
/// allocation holding copies of them, or librdkafka's message itself (a consumer made with
/// ``KafkaConsumerConfiguration/keepsMessages``), read in place.
public struct KafkaRecordBytes: Hashable, @unchecked Sendable {
    // @unchecked: both storages are immutable once made (an allocation's bytes are written before it is
    // shared; a message parses its headers under a lock).
    @usableFromInline enum Storage {
        case copied(KafkaRecordStorage)
        case message(RDKafkaMessage)
    }

    @usableFromInline let storage: Storage

    init(_ storage: KafkaRecordStorage) {
        self.storage = .copied(storage)
    }

    init(_ message: RDKafkaMessage) {
        self.storage = .message(message)
    }

    /// Copies key, value and headers (name bytes and value) into one allocation.
    public init<Headers: Collection>(
        key: UnsafeRawBufferPointer?, value: UnsafeRawBufferPointer?, headers: Headers
    ) where Headers.Element == ([UInt8], [UInt8]?) {
        storage = .copied(KafkaRecordStorage.make(key: key, value: value, headers: headers))
    }

    /// Whether these bytes are librdkafka's message (which keeps its fetch response in memory), not a copy.
    public var isMessage: Bool {
        if case .message = storage { return true }
        return false
    }

    /// The same bytes in an allocation of their own: what to keep when a record outlives its batch, so that
    /// librdkafka's fetch response can be freed. Copied bytes are returned as they are.
    public func detached() -> KafkaRecordBytes {
        guard case .message = storage else { return self }
        return withUnsafeKey { key in withUnsafeValue { value in KafkaRecordBytes(key: key, value: value, headers: rawHeaders) } }
    }

    /// The value's size in bytes, `nil` for a tombstone.
    public var valueCount: Int? {
        switch storage {
        case .copied(let bytes): bytes.valueCount
        case .message(let message): message.valueCount
        }
    }

    /// The headers, decoded (names as UTF-8, invalid bytes repaired).
    public var headers: [KafkaHeader] {
        rawHeaders.map { KafkaHeader(name: String(decoding: $0.0, as: UTF8.self), value: $0.1) }
    }

    /// Every header as (name bytes, value), in order.
    public var rawHeaders: [([UInt8], [UInt8]?)] {
        switch storage {
        case .copied(let bytes): bytes.rawHeaders
        case .message(let message): message.rawHeaders
        }
    }

    /// Calls `body` with the key bytes in place (`nil` without a key).
    @inlinable public func withUnsafeKey<R>(_ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        switch storage {
        case .copied(let bytes): try bytes.withUnsafeKey(body)
        case .message(let message): try message.withUnsafeKey(body)
        }
    }

    /// Calls `body` with the value bytes in place (`nil` for a tombstone).
    @inlinable public func withUnsafeValue<R>(_ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        switch storage {
        case .copied(let bytes): try bytes.withUnsafeValue(body)
        case .message(let message): try message.withUnsafeValue(body)
        }
    }

    /// Equal when key, value and headers are (wherever they are kept).
    public static func == (lhs: KafkaRecordBytes, rhs: KafkaRecordBytes) -> Bool {
        if case .copied(let l) = lhs.storage, case .copied(let r) = rhs.storage { return l.isEqual(to: r) }
        let sameKey = lhs.withUnsafeKey { l in rhs.withUnsafeKey { r in l.map(Array.init) == r.map(Array.init) } }
        let sameValue = lhs.withUnsafeValue { l in rhs.withUnsafeValue { r in l.map(Array.init) == r.map(Array.init) } }
        return sameKey && sameValue && lhs.rawHeaders.elementsEqual(rhs.rawHeaders) { $0.0 == $1.0 && $0.1 == $1.1 }
    }

    public func hash(into hasher: inout Hasher) {
        withUnsafeKey { hasher.combine($0?.count ?? -1) }
        withUnsafeValue { value in
            hasher.combine(value?.count ?? -1)
            if let value { hasher.combine(bytes: value) }
        }
    }
}

extension Optional where Wrapped == [UInt8] {
    /// Calls `body` with the array's bytes, or nil.
    func withOptionalBytes<R>(_ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        guard let self else { return try body(nil) }
        return try self.withUnsafeBytes { try body($0) }
    }
}

/// A record to produce.
public struct KafkaProducerRecord: Sendable, CustomStringConvertible {
    /// The target topic.
    public var topic: String
    /// The target partition; `nil` lets the partitioner choose (by key hash; random without a key).
    public var partition: Int32?
    /// The key bytes, `nil` for no key.
    public var key: [UInt8]?
    /// The value bytes, `nil` for a tombstone.
    public var value: [UInt8]?
    /// The headers, in order, duplicates and null values allowed.
    public var headers: [KafkaHeader]
    /// The record timestamp in milliseconds since the Unix epoch; `nil` for "now".
    public var timestampMilliseconds: Int64?

    public init(
        topic: String,
        partition: Int32? = nil,
        key: [UInt8]? = nil,
        value: [UInt8]?,
        headers: [KafkaHeader] = [],
        timestampMilliseconds: Int64? = nil
    ) {
        self.topic = topic
        self.partition = partition
        self.key = key
        self.value = value
        self.headers = headers
        self.timestampMilliseconds = timestampMilliseconds
    }

    public var description: String { "KafkaProducerRecord(\(topic)[\(partition.map(String.init) ?? "any")])" }
}

/// The broker's acknowledgement of a produced record.
public struct KafkaDeliveryReport: Hashable, Sendable {
    /// Where the record was written.
    public var topic: String
    /// Where the record was written.
    public var partition: Int32
    /// The record's offset, or -1 when the broker did not return one (acks=0).
    public var offset: Int64
}

/// A change of the consumer's partition assignment, or an error reported while consuming.
public enum KafkaConsumerEvent: Sendable {
    /// These partitions were added to the assignment.
    case assigned([KafkaTopicPartition])
    /// These partitions were removed from the assignment; their stored offsets were committed first
    /// (unless `lost` — another member may already own them).
    case revoked([KafkaTopicPartition], lost: Bool)
    /// A non-fatal error (a transport error, an unknown topic); librdkafka retries on its own.
    case error(KafkaError)
}

/// Metadata of the cluster: its brokers and topics.
public struct KafkaClusterMetadata: Sendable {
    /// One broker.
    public struct Broker: Sendable, Hashable {
        public var id: Int32
        public var host: String
        public var port: Int32
    }

    /// One topic.
    public struct Topic: Sendable, Hashable {
        public var name: String
        public var partitionCount: Int
        /// The topic-level error name, if the broker returned one (e.g. `UNKNOWN_TOPIC_OR_PART`).
        public var errorName: String?
    }

    public var brokers: [Broker]
    public var topics: [Topic]
}

func writeToStandardError(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
}
