import CRdKafka
import Foundation
import Synchronization

/// A message as `rd_kafka_consumer_poll` returned it, kept instead of copied: key and value are read in
/// librdkafka's fetch buffer, headers are parsed only when asked for, and the message is destroyed with the
/// last reference.
///
/// Copying a record cost an allocation and a copy of its bytes, and `rd_kafka_message_headers` parses every
/// header into librdkafka's own list (more allocations) even when nobody reads them: together about half of
/// what librdkafka itself spends per record. The price is memory: a kept message keeps its whole fetch
/// response alive (up to `max.partition.fetch.bytes` per partition), so whoever keeps records beyond a batch
/// copies them first (``KafkaRecord/detached()``).
///
/// Retains its client, so the `rd_kafka_t` is destroyed only after every message it returned (librdkafka
/// requires that order). `@unchecked Sendable`: key, value and metadata are immutable; the one lazily parsed
/// part, the headers, is parsed under `headersLock`.
final class RDKafkaMessage: @unchecked Sendable {
    private let message: UnsafeMutablePointer<rd_kafka_message_t>
    private let client: RDKafkaClient
    private let headersLock = Mutex<[([UInt8], [UInt8]?)]?>(nil)

    /// Takes ownership of `message` (destroyed in `deinit`).
    init(_ message: UnsafeMutablePointer<rd_kafka_message_t>, client: RDKafkaClient) {
        self.message = message
        self.client = client
    }

    deinit {
        rd_kafka_message_destroy(message)
    }

    var valueCount: Int? { message.pointee.payload == nil ? nil : message.pointee.len }

    func withUnsafeKey<R>(_ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        let m = message.pointee
        return try body(m.key.map { UnsafeRawBufferPointer(start: $0, count: m.key_len) })
    }

    func withUnsafeValue<R>(_ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        let m = message.pointee
        return try body(m.payload.map { UnsafeRawBufferPointer(start: $0, count: m.len) })
    }

    /// Every header as (name bytes, value), in wire order; parsed on first use.
    var rawHeaders: [([UInt8], [UInt8]?)] {
        headersLock.withLock { cached in
            if let cached { return cached }
            var headers: [([UInt8], [UInt8]?)] = []
            RDKafkaClient.forEachHeader(of: message) { name, value in
                headers.append((Array(name), value.map(Array.init)))
            }
            cached = headers
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
