#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One record read from a dump.
package struct DumpRecord: Sendable {
    /// 0-based position in the input (across files).
    package var index: Int
    /// 1-based line number in its file, for error messages.
    package var line: Int
    /// The topic, when the dump says (kcat envelopes).
    package var topic: String?
    package var partition: Int32?
    package var offset: Int64?
    /// The record timestamp in ms since the epoch, when the dump says (kcat `ts`).
    package var timestampMilliseconds: Int64?
    package var key: [UInt8]?
    /// Header names and values, in order; a value may be null.
    package var headers: [(name: String, value: [UInt8]?)]
    /// The record value; nil is a tombstone.
    package var value: [UInt8]?

    /// A record from any source (a dump line, a live topic: `line` 0).
    package init(
        index: Int, line: Int, topic: String? = nil, partition: Int32? = nil, offset: Int64? = nil,
        timestampMilliseconds: Int64? = nil, key: [UInt8]? = nil, headers: [(name: String, value: [UInt8]?)] = [], value: [UInt8]?
    ) {
        self.index = index
        self.line = line
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.timestampMilliseconds = timestampMilliseconds
        self.key = key
        self.headers = headers
        self.value = value
    }
}

/// Something in a dump that was not read, but did not stop the reading: the last line cut short.
package struct DumpWarning: Sendable, CustomStringConvertible {
    package var file: String
    package var line: Int
    package var reason: String

    package var description: String { "\(file):\(line): \(reason)" }
}

/// Why a dump could not be read (exit 65).
package struct DumpError: Error, Sendable, CustomStringConvertible {
    package var file: String
    package var line: Int
    package var reason: String

    package var description: String { line > 0 ? "\(file):\(line): \(reason)" : "\(file): \(reason)" }
}

/// The two dump formats `replay` reads.
package enum DumpFormat: String, Sendable, CaseIterable {
    /// One record value per line.
    case ndjson
    /// `kcat -C -J` envelopes, one per line.
    case kcat
    /// Decided from the first line: an object with `payload` and `offset` is a kcat envelope.
    case auto
}

/// Reads lines from a file descriptor in constant memory (one buffer, grown only for a long line).
/// gzip input (magic bytes `1f 8b`) is inflated on the fly.
package final class LineReader {
    private let fd: Int32
    private let ownsDescriptor: Bool
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var eof = false
    /// Whether the first bytes were looked at for the gzip magic.
    private var sniffed = false
    /// Set when the input is gzip: `buffer` then holds inflated bytes.
    private var gzip: GzipInflater?
    private var compressed: [UInt8] = []
    private var compressedEOF = false
    /// Longest line accepted. Default: 64 MiB.
    package let maxLineBytes: Int
    /// The number of lines returned so far.
    package private(set) var lineNumber = 0
    /// Whether the line last returned ended the input without a newline (the last line of a file written to
    /// the end, or one cut short).
    package private(set) var lastLineUnterminated = false

    /// Opens `path` ("-" is standard input).
    package init(path: String, maxLineBytes: Int = 64 << 20) throws(DumpError) {
        if path == "-" {
            fd = 0
            ownsDescriptor = false
        } else {
            fd = open(path, O_RDONLY)
            guard fd >= 0 else { throw DumpError(file: path, line: 0, reason: String(cString: strerror(errno))) }
            ownsDescriptor = true
            var info = stat()
            if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
                close(fd)
                throw DumpError(file: path, line: 0, reason: "is a directory")
            }
        }
        self.maxLineBytes = maxLineBytes
        buffer = [UInt8](repeating: 0, count: 1 << 20)
    }

    deinit {
        if ownsDescriptor { close(fd) }
    }

    /// Calls `body` with the next line (without its newline, and without a trailing `\r`);
    /// returns false at the end of input.
    package func nextLine(_ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws -> Bool {
        while true {
            if sniffed, let newline = buffer[start..<end].firstIndex(of: UInt8(ascii: "\n")) {
                var lineEnd = newline
                if lineEnd > start && buffer[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
                lineNumber += 1
                lastLineUnterminated = false
                let lineStart = start
                start = newline + 1
                try buffer.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[lineStart..<lineEnd])) }
                return true
            }
            if eof {
                guard start < end else { return false }
                lineNumber += 1
                lastLineUnterminated = true
                let (lineStart, lineEnd) = (start, end)
                start = end
                try buffer.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[lineStart..<lineEnd])) }
                return true
            }
            try fill()
        }
    }

    private func fill() throws {
        if start > 0 {
            // Move the partial line to the front.
            buffer.withUnsafeMutableBufferPointer { b in
                _ = memmove(b.baseAddress!, b.baseAddress! + start, end - start)
            }
            end -= start
            start = 0
        }
        if end == buffer.count {
            guard buffer.count < maxLineBytes else {
                throw DumpError(file: "", line: lineNumber + 1, reason: "line longer than \(maxLineBytes) bytes")
            }
            buffer.append(contentsOf: repeatElement(0, count: min(buffer.count, maxLineBytes - buffer.count)))
        }
        if let gzip {
            try inflate(gzip)
            return
        }
        let n = buffer.withUnsafeMutableBufferPointer { b in read(fd, b.baseAddress! + end, b.count - end) }
        if n < 0 {
            if errno == EINTR { return }
            throw DumpError(file: "", line: lineNumber + 1, reason: String(cString: strerror(errno)))
        }
        if n == 0 { eof = true } else { end += n }
        if !sniffed && (end >= 2 || eof) {
            sniffed = true
            // gzip is recognised by its magic bytes, from files and pipes alike.
            let isGzip = buffer.withUnsafeBufferPointer { GzipInflater.isGzip(UnsafeBufferPointer(rebasing: $0[0..<end])) }
            if isGzip {
                do {
                    gzip = try GzipInflater()
                } catch {
                    throw DumpError(file: "", line: 0, reason: error.description)
                }
                buffer.withUnsafeBufferPointer { gzip!.feed(UnsafeBufferPointer(rebasing: $0[0..<end])) }
                end = 0
                compressedEOF = eof
                eof = false
                compressed = [UInt8](repeating: 0, count: 1 << 16)
            }
        }
    }

    /// Inflates at least one byte into `buffer`, reading compressed input as needed; sets `eof` at the end.
    private func inflate(_ gzip: GzipInflater) throws {
        while true {
            let produced: Int
            do {
                produced = try buffer.withUnsafeMutableBytes { b in
                    try gzip.inflate(into: UnsafeMutableRawBufferPointer(rebasing: b[end...]))
                }
            } catch {
                throw DumpError(file: "", line: lineNumber + 1, reason: "\(error)")
            }
            if produced > 0 {
                end += produced
                return
            }
            if compressedEOF {
                guard gzip.atMemberEnd else {
                    throw DumpError(file: "", line: lineNumber + 1, reason: "truncated gzip data (the stream ends early)")
                }
                eof = true
                return
            }
            let n = compressed.withUnsafeMutableBufferPointer { b in read(fd, b.baseAddress!, b.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw DumpError(file: "", line: lineNumber + 1, reason: String(cString: strerror(errno)))
            }
            if n == 0 {
                compressedEOF = true
            } else {
                compressed.withUnsafeBufferPointer { gzip.feed(UnsafeBufferPointer(rebasing: $0[0..<n])) }
            }
        }
    }
}

/// A kcat `-J` envelope line.
struct KcatEnvelope: Decodable {
    var topic: String?
    var partition: Int32?
    var offset: Int64?
    var ts: Int64?
    var headers: [String?]?
    var key: String?
    var payload: String?

    enum CodingKeys: String, CodingKey { case topic, partition, offset, ts, headers, key, payload }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard c.contains(.payload) else {
            throw DecodingError.keyNotFound(CodingKeys.payload, .init(codingPath: [], debugDescription: "not a kcat -J envelope (no payload)"))
        }
        topic = try c.decodeIfPresent(String.self, forKey: .topic)
        partition = try c.decodeIfPresent(Int32.self, forKey: .partition)
        offset = try c.decodeIfPresent(Int64.self, forKey: .offset)
        ts = try c.decodeIfPresent(Int64.self, forKey: .ts)
        headers = try c.decodeIfPresent([String?].self, forKey: .headers)
        key = try c.decodeIfPresent(String.self, forKey: .key)
        payload = try c.decodeIfPresent(String.self, forKey: .payload)
    }

    /// Whether a line looks like an envelope: an object with `payload` and `offset` members.
    static func looksLikeEnvelope(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        let tape: JSONTape
        do {
            tape = try JSONReader().parse(Array(line))
        } catch {
            // Not JSON at all: then it is not an envelope; as NDJSON it becomes a failed record.
            return false
        }
        guard tape.count > 0, tape[0].kind == .object else { return false }
        var found = Set<String>()
        for key in tape.members(of: 0).map(\.key) {
            let node = tape[key]
            found.insert(String(decoding: UnsafeBufferPointer(rebasing: line[Int(node.start)..<Int(node.end)]), as: UTF8.self))
        }
        return found.contains("payload") && found.contains("offset")
    }
}

/// Reassembles JSON values written over several lines: a pretty-printed dump (`jq .` of kcat's output, one
/// envelope or record after another) or a JSON array of them, whose elements are the values. Holds one value
/// at a time.
struct ValueAssembler {
    /// Whether the input is one top-level array whose elements are the values.
    let array: Bool
    private var opened = false
    private var closed = false
    private var buffer: [UInt8] = []
    private var depth = 0
    private var inString = false
    private var escaped = false
    /// A scalar (or text that is not JSON) being read at the top level.
    private var inScalar = false
    /// The line the value being read started on.
    private var startLine = 0

    init(array: Bool) {
        self.array = array
    }

    /// Whether a first line starts values written over several lines: `{` alone (a pretty-printed object), or
    /// `[` alone or followed by an object (an array of envelopes or records).
    static func startsMultiLineInput(_ line: UnsafeBufferPointer<UInt8>) -> (multiLine: Bool, array: Bool) {
        let trimmed = line.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
        if Array(trimmed) == [UInt8(ascii: "{")] { return (true, false) }
        guard trimmed.first == UInt8(ascii: "[") else { return (false, false) }
        let rest = trimmed.dropFirst().drop { $0 == 0x20 || $0 == 0x09 }
        return (rest.isEmpty || rest.first == UInt8(ascii: "{"), true)
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    /// Feeds one line; returns the values it completed, with the line each started on.
    mutating func feed(_ line: UnsafeBufferPointer<UInt8>, number: Int) -> [(bytes: [UInt8], line: Int)] {
        var done: [(bytes: [UInt8], line: Int)] = []
        func finish() {
            if !buffer.isEmpty { done.append((buffer, startLine)) }
            buffer = []
            inScalar = false
        }
        for c in line {
            if depth > 0 {
                buffer.append(c)
                if inString {
                    if escaped { escaped = false } else if c == UInt8(ascii: "\\") { escaped = true } else if c == UInt8(ascii: "\"") { inString = false }
                } else if c == UInt8(ascii: "\"") {
                    inString = true
                } else if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                    depth += 1
                } else if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") {
                    depth -= 1
                    if depth == 0 { finish() }
                }
                continue
            }
            if inScalar {
                if Self.isSpace(c) || (array && (c == UInt8(ascii: ",") || c == UInt8(ascii: "]"))) {
                    finish()
                    if c == UInt8(ascii: "]") { closed = true }
                } else {
                    buffer.append(c)
                }
                continue
            }
            if Self.isSpace(c) { continue }
            if array && !opened {
                if c == UInt8(ascii: "[") {
                    opened = true
                    continue
                }
            } else if array && (c == UInt8(ascii: ",") || (c == UInt8(ascii: "]") && !closed)) {
                if c == UInt8(ascii: "]") { closed = true }
                continue
            }
            startLine = number
            buffer.append(c)
            if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                depth = 1
            } else if c == UInt8(ascii: "\"") {
                // A string at the top level: read to its closing quote as a one-level value.
                depth = 1
                inString = true
            } else {
                inScalar = true
            }
        }
        if depth > 0 {
            buffer.append(0x0A)
        } else if inScalar {
            finish()
        }
        return done
    }

    /// At the end of the input: the value cut short, if any.
    mutating func end() -> (bytes: [UInt8], line: Int)? {
        defer { buffer = [] }
        // Drop the newline added after the last line read.
        while let last = buffer.last, Self.isSpace(last) { buffer.removeLast() }
        return buffer.isEmpty ? nil : (buffer, startLine)
    }
}

/// Streams records from dump files in order, in constant memory.
package struct DumpReader {
    package let paths: [String]
    package let format: DumpFormat
    private var resolved: DumpFormat?
    private var nextIndex = 0
    private var fileIndex = 0
    private var reader: LineReader?
    /// Whether the current file's first line was seen (it says whether values span several lines).
    private var sawFirstLine = false
    /// For a file of pretty-printed values or a JSON array.
    private var assembler: ValueAssembler?
    /// Values assembled and not yet returned, with their first line.
    private var assembled: [(bytes: [UInt8], line: Int)] = []
    private let decoder = SwitchyardJSONDecoder()
    private let workspace = DecodingWorkspace()
    /// What was skipped so far: a last line that ends without a newline and is not complete JSON (a capture
    /// stopped mid-write) is not a record, and no reason to give up the records before it.
    package private(set) var warnings: [DumpWarning] = []

    /// Reads `paths` in order; "-" (or no path) is standard input.
    package init(paths: [String], format: DumpFormat) {
        self.paths = paths.isEmpty ? ["-"] : paths
        self.format = format
        self.resolved = format == .auto ? nil : format
    }

    /// The file the last record returned by ``next()`` came from (`-` for standard input).
    package var currentPath: String { paths[min(fileIndex, paths.count - 1)] }

    /// The next record, or nil at the end of the last file.
    package mutating func next() throws(DumpError) -> DumpRecord? {
        while fileIndex < paths.count {
            let path = paths[fileIndex]
            if reader == nil {
                reader = try LineReader(path: path)
                sawFirstLine = false
                assembler = nil
            }
            var record: DumpRecord?
            do {
                if !assembled.isEmpty {
                    let value = assembled.removeFirst()
                    record = try value.bytes.withUnsafeBufferPointer { try parseLine($0, path: path, lineNumber: value.line) }
                    if let record { return record }
                    continue
                }
                let more = try reader!.nextLine { line in
                    if !sawFirstLine && !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
                        sawFirstLine = true
                        let start = ValueAssembler.startsMultiLineInput(line)
                        if start.multiLine { assembler = ValueAssembler(array: start.array) }
                    }
                    if assembler != nil {
                        assembled += assembler!.feed(line, number: reader!.lineNumber)
                    } else if reader!.lastLineUnterminated, !Self.isCompleteJSON(line) {
                        warnings.append(
                            DumpWarning(
                                file: path, line: reader!.lineNumber,
                                reason: "the last line ends without a newline and is not complete JSON (\(line.count) bytes; a dump cut short?): not replayed"))
                    } else {
                        record = try parseLine(line, path: path, lineNumber: reader!.lineNumber)
                    }
                }
                if !more {
                    if let last = assembler?.end() {
                        assembled.append(last)
                        assembler = nil
                        continue
                    }
                    reader = nil
                    fileIndex += 1
                    continue
                }
            } catch let error as DumpError {
                throw DumpError(file: path, line: error.line, reason: error.reason)
            } catch {
                throw DumpError(file: path, line: reader?.lineNumber ?? 0, reason: "\(error)")
            }
            if let record { return record }
        }
        return nil
    }

    /// Whether `line` is one whole JSON value.
    static func isCompleteJSON(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        do {
            _ = try JSONReader().parse(Array(line))
            return true
        } catch {
            return false
        }
    }

    private mutating func parseLine(_ line: UnsafeBufferPointer<UInt8>, path: String, lineNumber: Int) throws -> DumpRecord? {
        if resolved == nil {
            // Blank lines before the first record do not decide the format.
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return nil }
            resolved = KcatEnvelope.looksLikeEnvelope(line) ? .kcat : .ndjson
        }
        defer { nextIndex += 1 }
        if resolved == .ndjson {
            return DumpRecord(index: nextIndex, line: lineNumber, headers: [], value: Array(line))
        }
        let envelope: KcatEnvelope
        do {
            envelope = try decoder.decode(KcatEnvelope.self, from: UnsafeRawBufferPointer(line), workspace: workspace).value
        } catch let error as DecodingError {
            throw DumpError(file: path, line: lineNumber, reason: "not a kcat -J envelope: \(DecodeFailure(error, type: nil))")
        }
        var headers: [(name: String, value: [UInt8]?)] = []
        if let flat = envelope.headers {
            guard flat.count % 2 == 0 else {
                throw DumpError(file: path, line: lineNumber, reason: "kcat headers must be [name, value, …] pairs")
            }
            for i in stride(from: 0, to: flat.count, by: 2) {
                guard let name = flat[i] else { throw DumpError(file: path, line: lineNumber, reason: "kcat header name is null") }
                headers.append((name, flat[i + 1].map { Array($0.utf8) }))
            }
        }
        return DumpRecord(
            index: nextIndex, line: lineNumber, topic: envelope.topic, partition: envelope.partition, offset: envelope.offset,
            timestampMilliseconds: envelope.ts, key: envelope.key.map { Array($0.utf8) }, headers: headers, value: envelope.payload.map { Array($0.utf8) })
    }
}
