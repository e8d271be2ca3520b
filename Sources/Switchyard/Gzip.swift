import CZlib

/// Streaming gzip decompression (zlib `inflate`, gzip and zlib headers auto-detected), in constant memory:
/// compressed bytes go in with ``feed(_:)``, decompressed bytes come out into the caller's buffer.
///
/// Concatenated gzip members (`cat a.gz b.gz`, `pigz`) are read as one stream.
final class GzipInflater {
    /// Why the compressed stream cannot be read.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    // A pointer, not a stored struct: zlib keeps a back-pointer to the z_stream in its state, so it must not move.
    private let stream: UnsafeMutablePointer<z_stream>
    private var input: [UInt8] = []
    private var inputStart = 0
    /// True once a member ended and no more input followed it (yet).
    private(set) var atMemberEnd = false

    /// The bytes the first read must start with to be gzip.
    static func isGzip(_ prefix: UnsafeBufferPointer<UInt8>) -> Bool {
        prefix.count >= 2 && prefix[0] == 0x1F && prefix[1] == 0x8B
    }

    init() throws(Failure) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // 15 + 32: the largest window, and detect a gzip or zlib header.
        let status = switchyard_inflateInit2(stream, 15 + 32)
        guard status == Z_OK else {
            stream.deallocate()
            throw Failure(description: "zlib inflateInit2 failed (\(status))")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    /// Whether compressed input is waiting to be inflated.
    var hasInput: Bool { inputStart < input.count }

    /// Adds compressed bytes.
    func feed(_ bytes: UnsafeBufferPointer<UInt8>) {
        if inputStart == input.count {
            input.removeAll(keepingCapacity: true)
            inputStart = 0
        }
        input.append(contentsOf: bytes)
    }

    /// A failure found after some bytes were produced: reported by the next call, so the lines inflated
    /// before the damage are read first and the error names the first line that could not be.
    private var pendingFailure: Failure?

    /// Inflates buffered input into `output`; returns how many bytes were written (0 when more input is needed).
    func inflate(into output: UnsafeMutableRawBufferPointer) throws(Failure) -> Int {
        if let pendingFailure { throw pendingFailure }
        var produced = 0
        while hasInput && produced < output.count {
            if atMemberEnd {
                // Another member follows the one that ended.
                guard inflateReset(stream) == Z_OK else { throw Failure(description: "zlib inflateReset failed") }
                atMemberEnd = false
            }
            let status: Int32 = input.withUnsafeMutableBufferPointer { inBuffer in
                stream.pointee.next_in = inBuffer.baseAddress! + inputStart
                stream.pointee.avail_in = UInt32(clamping: inBuffer.count - inputStart)
                stream.pointee.next_out = (output.baseAddress! + produced).assumingMemoryBound(to: UInt8.self)
                stream.pointee.avail_out = UInt32(clamping: output.count - produced)
                let before = (inBuffer.count - inputStart, output.count - produced)
                let status = CZlib.inflate(stream, Z_NO_FLUSH)
                inputStart += before.0 - Int(stream.pointee.avail_in)
                produced += before.1 - Int(stream.pointee.avail_out)
                return status
            }
            switch status {
            case Z_OK:
                continue
            case Z_STREAM_END:
                atMemberEnd = true
            case Z_BUF_ERROR:
                return produced  // needs more input or more room: both are the caller's next step
            default:
                let message = stream.pointee.msg.map { String(cString: $0) } ?? "error \(status)"
                let failure = Failure(description: "corrupt gzip data (\(message))")
                guard produced > 0 else { throw failure }
                pendingFailure = failure
                return produced
            }
        }
        return produced
    }
}
