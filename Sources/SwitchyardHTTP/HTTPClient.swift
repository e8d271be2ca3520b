import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A plain-HTTP `GET`, for reading a worker's `/status` (`switchyard release --status`).
///
/// Not URLSession on purpose: on Linux it is FoundationNetworking over libcurl, which drags libcurl and its
/// TLS, Kerberos and LDAP libraries into every binary that links it (the worker too, ~30 shared libraries
/// mapped at every start), and a `--static-swift-stdlib` build (the container image's) then needs libcurl's
/// development files to link and libcurl at run time. A worker's endpoints are plain HTTP/1.1.
public enum HTTPClient {
    /// What came back: the status code and the body.
    public struct Response: Sendable {
        public var status: Int
        public var body: [UInt8]
    }

    /// Why a request did not get a response.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// `GET url` with HTTP/1.1 and `Connection: close`; waits at most `timeout` in all.
    ///
    /// - Throws: ``Failure`` for a URL that is not `http://host[:port][/path]`, a host that does not resolve,
    ///   a refused or timed-out connection, or an answer that is not HTTP.
    public static func get(_ url: String, timeout: Duration = .seconds(10)) throws(Failure) -> Response {
        let target = try Target(url)
        let deadline = ContinuousClock.now + timeout
        let socket = try openConnection(target, deadline: deadline)
        defer { close(socket) }
        let request = "GET \(target.path) HTTP/1.1\r\nHost: \(target.hostHeader)\r\nAccept: application/json\r\n"
            + "User-Agent: switchyard\r\nConnection: close\r\n\r\n"
        try sendAll(Array(request.utf8), to: socket, deadline: deadline, url: url)
        let raw = try readAll(from: socket, deadline: deadline, url: url)
        return try parse(raw, url: url)
    }

    // MARK: - URL

    struct Target {
        var host: String
        var port: UInt16
        var path: String
        var hostHeader: String

        init(_ url: String) throws(Failure) {
            guard url.hasPrefix("http://") else {
                throw Failure(description: "\(url): only http:// URLs are read (a worker's endpoints are plain HTTP; "
                    + "reach a pod through kubectl port-forward)")
            }
            let rest = url.dropFirst("http://".count)
            let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            var path = String(rest.dropFirst(authority.count).prefix { $0 != "#" })
            if path.isEmpty || path.first == "?" { path = "/" + path }
            var host = Substring(authority)
            var port: UInt16 = 80
            if host.first == "[" {
                // [v6]:port
                guard let close = host.firstIndex(of: "]") else { throw Failure(description: "\(url): unclosed [ in the host") }
                let after = host[host.index(after: close)...]
                host = host[host.index(after: host.startIndex)..<close]
                if after.first == ":" {
                    guard let p = UInt16(after.dropFirst()) else { throw Failure(description: "\(url): the port is not a number") }
                    port = p
                } else if !after.isEmpty {
                    throw Failure(description: "\(url): unexpected \(after) after the host")
                }
            } else if let colon = host.lastIndex(of: ":") {
                guard let p = UInt16(host[host.index(after: colon)...]) else {
                    throw Failure(description: "\(url): the port is not a number")
                }
                port = p
                host = host[..<colon]
            }
            guard !host.isEmpty, !host.contains("@") else { throw Failure(description: "\(url): no host (or a user name, which is not sent)") }
            self.host = String(host)
            self.port = port
            self.path = path
            self.hostHeader = String(authority)
        }
    }

    // MARK: - Socket

    private static func openConnection(_ target: Target, deadline: ContinuousClock.Instant) throws(Failure) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(target.host, String(target.port), &hints, &list)
        guard resolved == 0, let list else {
            throw Failure(description: "cannot resolve \(target.host): \(String(cString: gai_strerror(resolved)))")
        }
        defer { freeaddrinfo(list) }
        var reason = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let info = entry {
            entry = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), info.pointee.ai_protocol)
            guard fd >= 0 else { reason = String(cString: strerror(errno)); continue }
            if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return fd }
            guard errno == EINPROGRESS, wait(fd, for: Int16(POLLOUT), until: deadline) else {
                reason = errno == EINPROGRESS ? "timed out" : String(cString: strerror(errno))
                close(fd)
                continue
            }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            if error == 0 { return fd }
            reason = String(cString: strerror(error))
            close(fd)
        }
        throw Failure(description: "cannot connect to \(target.hostHeader): \(reason)")
    }

    /// Waits until `fd` is ready for `events` or the deadline passes; false at the deadline.
    private static func wait(_ fd: Int32, for events: Int16, until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return false }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(clamping: max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)))
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { return true }  // the next call reports the error
        }
    }

    private static func sendAll(_ bytes: [UInt8], to fd: Int32, deadline: ContinuousClock.Instant, url: String) throws(Failure) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 { sent += n; continue }
            guard n < 0, errno == EAGAIN || errno == EINTR else {
                throw Failure(description: "\(url): sending the request failed: \(String(cString: strerror(errno)))")
            }
            guard wait(fd, for: Int16(POLLOUT), until: deadline) else { throw Failure(description: "\(url): timed out") }
        }
    }

    /// Everything until the server closes (the request asked it to); at most 16 MiB.
    private static func readAll(from fd: Int32, deadline: ContinuousClock.Instant, url: String) throws(Failure) -> [UInt8] {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return data }
            if n > 0 {
                data += buffer[..<n]
                guard data.count <= 16 << 20 else { throw Failure(description: "\(url): the answer is larger than 16 MiB") }
                continue
            }
            guard errno == EAGAIN || errno == EINTR else {
                throw Failure(description: "\(url): reading the answer failed: \(String(cString: strerror(errno)))")
            }
            guard wait(fd, for: Int16(POLLIN), until: deadline) else { throw Failure(description: "\(url): timed out") }
        }
    }

    // MARK: - Response

    /// Status line, headers, then the body: `Content-Length` bytes, chunks, or everything up to the close.
    static func parse(_ raw: [UInt8], url: String) throws(Failure) -> Response {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = raw.firstRange(of: separator) else {
            throw Failure(description: "\(url): the answer is not HTTP (no end of headers)")
        }
        let head = String(decoding: raw[..<end.lowerBound], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusLine = head.first?.split(separator: " ", maxSplits: 2) ?? []
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
            throw Failure(description: "\(url): the answer is not HTTP (\(head.first.map { String($0.prefix(40)) } ?? ""))")
        }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(raw[end.upperBound...])
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            body = try dechunk(body, url: url)
        } else if let length = headers["content-length"].flatMap({ Int($0) }) {
            guard body.count >= length else {
                throw Failure(description: "\(url): the answer ended after \(body.count) of \(length) bytes")
            }
            body = Array(body[..<length])
        }
        return Response(status: status, body: body)
    }

    private static func dechunk(_ bytes: [UInt8], url: String) throws(Failure) -> [UInt8] {
        var body: [UInt8] = []
        var cursor = 0
        let crlf: [UInt8] = [13, 10]
        while true {
            guard let lineEnd = bytes[cursor...].firstRange(of: crlf) else {
                throw Failure(description: "\(url): a chunked answer ended early")
            }
            let sizeText = String(decoding: bytes[cursor..<lineEnd.lowerBound], as: UTF8.self).prefix { $0 != ";" }
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                throw Failure(description: "\(url): a chunk size is not hexadecimal")
            }
            cursor = lineEnd.upperBound
            if size == 0 { return body }
            guard cursor + size <= bytes.count else { throw Failure(description: "\(url): a chunked answer ended early") }
            body += bytes[cursor..<(cursor + size)]
            cursor += size + 2
        }
    }
}
