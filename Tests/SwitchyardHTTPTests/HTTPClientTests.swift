import Foundation
import Glibc
@testable import SwitchyardHTTP
import SwitchyardTestSupport
import Testing

/// `HTTPClient.get` (what `switchyard release --status` reads a worker's /status with) against the real server,
/// a silent socket, and answers written by hand.
@Suite("HTTP client", .timeLimit(.minutes(1)))
struct HTTPClientTests {
    @Test("GET against the server: the status and body as served, the path and query sent as given, 404 for others")
    func againstTheServer() throws {
        let server = try HTTPServer.start(host: "127.0.0.1", port: 0, routes: HTTPServerTests.routes())
        let status = try HTTPClient.get("http://\(server.authority)/status?q=a%20b")
        #expect(status.status == 200)
        #expect(String(decoding: status.body, as: UTF8.self) == #"{"path":"/status","q":"a b","ua":"switchyard"}"#)
        let missing = try HTTPClient.get("http://\(server.authority)/nothing")
        #expect(missing.status == 404)
        // No path: "/".
        #expect(try HTTPClient.get("http://\(server.authority)").status == 404)
    }

    @Test("refused: https and other schemes, a URL without a host, a port that is not a number; a closed port")
    func refusals() throws {
        for url in ["https://127.0.0.1:1/status", "ftp://h/x", "http://", "http://h:port/status", "http://user@h/"] {
            #expect(throws: HTTPClient.Failure.self, "\(url)") { _ = try HTTPClient.get(url) }
        }
        let https = #expect(throws: HTTPClient.Failure.self) { _ = try HTTPClient.get("https://127.0.0.1/status") }
        #expect(https?.description.contains("only http://") == true)
        // A port nobody listens on (bound, never listening).
        let (fd, port) = boundLoopbackSocket()
        defer { close(fd) }
        let refused = #expect(throws: HTTPClient.Failure.self) { _ = try HTTPClient.get("http://127.0.0.1:\(port)/status") }
        #expect(refused?.description.contains("cannot connect to 127.0.0.1:\(port)") == true)
    }

    @Test("a server that accepts and never answers: timed out, within the timeout")
    func timeout() throws {
        let (fd, port) = boundLoopbackSocket()
        defer { close(fd) }
        listen(fd, 4)  // the kernel completes the handshake; nobody reads or writes
        let started = ContinuousClock.now
        let silent = #expect(throws: HTTPClient.Failure.self) {
            _ = try HTTPClient.get("http://127.0.0.1:\(port)/status", timeout: .milliseconds(300))
        }
        #expect(silent?.description.contains("timed out") == true)
        #expect(started.duration(to: .now) < .seconds(5))
    }

    @Test("answers: Content-Length, chunked, read to the close; not HTTP and cut short are errors")
    func parsing() throws {
        func parse(_ text: String) throws(HTTPClient.Failure) -> HTTPClient.Response {
            try HTTPClient.parse(Array(text.utf8), url: "http://test/")
        }
        let sized = try parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
        #expect(sized.status == 200 && sized.body == Array("hello".utf8))
        let chunked = try parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n7;x=y\r\n, world\r\n0\r\n\r\n")
        #expect(String(decoding: chunked.body, as: UTF8.self) == "hello, world")
        let toClose = try parse("HTTP/1.0 503 Service Unavailable\r\n\r\nstarting")
        #expect(toClose.status == 503 && toClose.body == Array("starting".utf8))
        #expect(throws: HTTPClient.Failure.self) { _ = try parse("SSH-2.0-OpenSSH\r\n\r\n") }
        #expect(throws: HTTPClient.Failure.self) { _ = try parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort") }
        #expect(throws: HTTPClient.Failure.self) { _ = try parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel") }
        #expect(throws: HTTPClient.Failure.self) { _ = try parse("HTTP/1.1 200 OK") }
    }
}
