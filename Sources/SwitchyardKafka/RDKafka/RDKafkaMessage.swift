import CRdKafka
import Foundation
import Synchronization

/// The messages one batch call took (`rd_kafka_consume_batch_queue`), kept instead of copied: key and value
/// are read in librdkafka's fetch buffer, headers are parsed only when asked for, and every message is
/// destroyed with the last record that refers to one of them. One object per batch, not per record: an
/// allocation, a free and the reference counting of one object per record were a tenth of the poll thread.
///
/// Copying a record cost an allocation and a copy of its bytes, and `rd_kafka_message_headers` parses every
/// header into librdkafka's own list (more allocations) even when nobody reads them: together about half of
/// what librdkafka itself spends per record. The price is memory: a kept message keeps its whole fetch
/// response alive (up to `max.partition.fetch.bytes` per partition), and a record keeps its batch's other
/// messages, so whoever keeps records beyond a batch copies them first (``KafkaRecord/detached()``).
///
/// Retains its client, so the `rd_kafka_t` is destroyed only after every message it returned (librdkafka
/// requires that order). `@unchecked Sendable`: the slots are written only by the poll thread before any
/// record refers to them; key, value and metadata are immutable; librdkafka parses a message's headers on
/// first use, so that happens under `headersLock`.
final class RDKafkaMessages: @unchecked Sendable {
    /// What the batch call fills; a slot is nil once its message was destroyed early (an error, or a copy).
    let slots: UnsafeMutablePointer<UnsafeMutablePointer<rd_kafka_message_t>?>
    let capacity: Int
    private let client: RDKafkaClient
    fileprivate let headersLock = Mutex(())

    init(capacity: Int, client: RDKafkaClient) {
        self.capacity = capacity
        self.client = client
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: nil, count: capacity)
    }

    deinit {
        for index in 0..<capacity {
            if let message = slots[index] { rd_kafka_message_destroy(message) }
        }
        slots.deallocate()
    }

    /// Destroys the message at `index` now (its record, if any, was copied).
    func destroy(at index: Int) {
        guard let message = slots[index] else { return }
        rd_kafka_message_destroy(message)
        slots[index] = nil
    }
}

/// One message of an ``RDKafkaMessages``: a record's bytes, read in place while the record lives.
@usableFromInline struct RDKafkaMessage: @unchecked Sendable {
    private let owner: RDKafkaMessages
    @usableFromInline let message: UnsafeMutablePointer<rd_kafka_message_t>

    /// `message` is one of `owner`'s slots.
    init(_ owner: RDKafkaMessages, _ message: UnsafeMutablePointer<rd_kafka_message_t>) {
        self.owner = owner
        self.message = message
    }

    var valueCount: Int? { message.pointee.payload == nil ? nil : message.pointee.len }

    // Inlinable (with the record's and the bytes' own) so that the record loop reads a value without a
    // reference count on the message's owner.
    @inlinable func withUnsafeKey<R>(_ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        let m = message.pointee
        return try body(m.key.map { UnsafeRawBufferPointer(start: $0, count: m.key_len) })
    }

    @inlinable func withUnsafeValue<R>(_ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        let m = message.pointee
        return try body(m.payload.map { UnsafeRawBufferPointer(start: $0, count: m.len) })
    }

    /// Every header as (name bytes, value), in wire order; librdkafka parses them on first use.
    var rawHeaders: [([UInt8], [UInt8]?)] {
        owner.headersLock.withLock { _ in
            var headers: [([UInt8], [UInt8]?)] = []
            RDKafkaClient.forEachHeader(of: message) { name, value in
                headers.append((Array(name), value.map(Array.init)))
            }
            return headers
        }
    }
}

extension RDKafkaClient {
    /// Calls `body` with each header of `message` in wire order (name bytes, value bytes or nil for a null
    /// value); the pointers are valid only inside `body`.
    static func forEachHeader(
        of message: UnsafeMutablePointer<rd_kafka_message_t>,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer?) -> Void
    ) {
        var hdrs: OpaquePointer?
        guard rd_kafka_message_headers(message, &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR, let hdrs else { return }
        var name: UnsafePointer<CChar>?
        var value: UnsafeRawPointer?
        var size = 0
        var index = 0
        while rd_kafka_header_get_all(hdrs, index, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR {
            body(
                UnsafeRawBufferPointer(start: name, count: name.map { strlen($0) } ?? 0),
                value.map { UnsafeRawBufferPointer(start: $0, count: size) })
            index += 1
        }
    }
}
