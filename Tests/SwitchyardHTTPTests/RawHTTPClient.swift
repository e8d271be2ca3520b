import Foundation
import Glibc

/// A blocking TCP client for tests that need control a real HTTP client does not give: huge headers,
/// silence, half-sent requests.
final class RawConnection {
    let descriptor: Int32
    /// Why the last `readToEnd` stopped, if not because the peer closed.
    private(set) var lastError: String?

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Connects to `127.0.0.1:port` (or another numeric IPv4 host), with a receive timeout.
    init(host: String = "127.0.0.1", port: Int, receiveTimeout: Duration = .seconds(10)) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        self.descriptor = descriptor
        var timeout = timeval(tv_sec: Int(receiveTimeout.components.seconds), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let message = String(cString: strerror(errno))
            close(descriptor)
            throw Failure(description: "connect to \(host):\(port): \(message)")
        }
    }

    deinit {
        close(descriptor)
    }

    /// Sends all of `bytes`; returns false if the peer closed or reset the connection meanwhile.
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    /// Reads until the peer closes the connection (or resets it, or the receive timeout passes).
    func readToEnd() -> (bytes: [UInt8], closed: Bool) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count > 0 {
                received += buffer[0..<count]
            } else if count == 0 {
                return (received, true)
            } else {
                // ECONNRESET counts as closed; EAGAIN is the receive timeout; EINTR is retried.
                let error = errno
                if error == EINTR { continue }
                if error != ECONNRESET { lastError = "recv: \(String(cString: strerror(error))) (errno \(error))" }
                return (received, error == ECONNRESET)
            }
        }
    }
}

/// A parsed HTTP/1.x response.
struct RawResponse {
    var status: Int
    var headers: [String: String]
    var body: String

    init?(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { return nil }
        let head = text[..<split.lowerBound].components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
        self.status = status
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        self.headers = headers
        self.body = String(text[split.upperBound...])
    }
}

/// Sends one request with `Connection: close` and returns the parsed response.
func request(
    _ target: String, method: String = "GET", port: Int, extraHeaders: String = "", body: String = ""
) throws -> RawResponse {
    let connection = try RawConnection(port: port)
    let length = body.isEmpty ? "" : "Content-Length: \(body.utf8.count)\r\n"
    connection.send(
        "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\(extraHeaders)\(length)\r\n\(body)")
    let (bytes, _) = connection.readToEnd()
    guard let response = RawResponse(bytes) else {
        throw RawConnection.Failure(description: "unparseable response: \(String(decoding: bytes, as: UTF8.self))")
    }
    return response
}
