import Foundation
import Glibc
import SwitchyardHTTP
import SwitchyardMetrics
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("HTTP server", .timeLimit(.minutes(1)))
struct HTTPServerTests {
    static func routes(_ registry: MetricsRegistry = MetricsRegistry()) -> HTTPRoutes {
        var routes = HTTPRoutes()
        routes.get("/metrics") { _ in HTTPResponse.prometheus(registry.render()) }
        routes.get("/healthz") { _ in HTTPResponse.text("ok\n") }
        routes.get("/status") { request in
            let query: String = request.query["q"] ?? "-"
            let agent: String = request.header("User-Agent") ?? "-"
            let json: String = "{\"path\":\"\(request.path)\",\"q\":\"\(query)\",\"ua\":\"\(agent)\"}"
            return HTTPResponse.json(json)
        }
        return routes
    }

    @Test("GET /metrics with URLSession: 200, the Prometheus content type, the registry's text")
    func metricsWithURLSession() async throws {
        let registry = MetricsRegistry()
        try registry.counter("switchyard_records_total", help: "Records.", labels: ["topic"]).labels("payments")
            .increment(by: 7)
        let server = try HTTPServer.start(host: "127.0.0.1", port: 0, routes: Self.routes(registry))
        #expect(server.port > 0)
        #expect(server.authority == "127.0.0.1:\(server.port)")
        let (data, response) = try await URLSession.shared.data(
            from: URL(string: "http://\(server.authority)/metrics")!)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(http.value(forHTTPHeaderField: "Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        #expect(String(decoding: data, as: UTF8.self) == registry.render())
        #expect(String(decoding: data, as: UTF8.self).contains(#"switchyard_records_total{topic="payments"} 7"#))
    }

    @Test("handlers get the path, decoded query parameters and lowercased headers; JSON content type")
    func requestDetails() throws {
        let server = try HTTPServer.start(host: "127.0.0.1", port: 0, routes: Self.routes())
        let response = try request("/status?q=a%20b&flag", port: server.port, extraHeaders: "User-Agent: probe/1\r\n")
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.body == #"{"path":"/status","q":"a b","ua":"probe/1"}"#)
    }

    @Test("HEAD answers like GET without a body")
    func head() throws {
        let server = try HTTPServer.start(host: "127.0.0.1", port: 0, routes: Self.routes())
        let response = try request("/healthz", method: "HEAD", port: server.port)
        #expect(response.status == 200)
        #expect(response.headers["content-length"] == "3")
        #expect(response.body.isEmpty)
    }

    @Test("an unrouted path is 404")
    func notFound() throws {
        let server = try HTTPServer.start(host: "127.0.0.1", port: 0, routes: Self.routes())
        #expect(try request("/nope", port: server.port).status == 404)
        #expect(try request("/metrics/", port: server.port).status == 404)
    }

    @Test("POST, PUT and DELETE are 405 with Allow: GET, HEAD", arguments: ["POST", "PUT", "DELETE"])
    func methodNotAllowed(method: String) throws {
        let server = try HTTPServer.start(host: "127.0.0.1", port: 0, routes: Self.routes())
        let response = try request("/metrics", method: method, port: server.port, body: method == "DELETE" ? "" : "x=1")
        #expect(response.status == 405)
        #expect(response.headers["allow"] == "GET, HEAD")
    }

    @Test("keep-alive: several GETs on one connection are all answered on it, and it stays open")
    func keepAlive() throws {
        let server = try HTTPServer.start(host: "127.0.0.1", port: 0, routes: Self.routes())
        let connection = try RawConnection(port: server.port, receiveTimeout: .seconds(2))
        // Three requests in one write (pipelined), then one more after the answers: every answer comes back on
        // this connection, and the server does not close it (the read ends on the receive timeout).
        connection.send(String(repeating: "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", count: 3))
        var (bytes, closed) = connection.readToEnd()
        #expect(!closed, "the server closed a keep-alive connection")
        connection.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        let more = connection.readToEnd()
        bytes += more.bytes
        closed = more.closed
        #expect(!closed, "the server closed a keep-alive connection")
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.components(separatedBy: "HTTP/1.1 200 OK").count - 1 == 4, "\(text)")
        #expect(!text.lowercased().contains("connection: close"))
    }

    @Test("a GET with a body (Content-Length or chunked) is 413 and the body is never read")
    func bodyRejected() throws {
        let server = try HTTPServer.start(host: "127.0.0.1", port: 0, routes: Self.routes())
        #expect(try request("/metrics", port: server.port, body: "payload").status == 413)
        let chunked = try request(
            "/metrics", port: server.port, extraHeaders: "Transfer-Encoding: chunked\r\n", body: "")
        #expect(chunked.status == 413)
        // A declared 1 GiB body is refused from the headers alone.
        let huge = try request("/metrics", port: server.port, extraHeaders: "Content-Length: 1073741824\r\n")
        #expect(huge.status == 413)
    }

    @Test("a 64 KiB header is rejected (431/413 or closed) without harm; the server keeps serving")
    func oversizedHeader() throws {
        let server = try HTTPServer.start(host: "127.0.0.1", port: 0, routes: Self.routes())
        let connection = try RawConnection(port: server.port)
        let filler = String(repeating: "a", count: 64 * 1024)
        connection.send("GET /metrics HTTP/1.1\r\nHost: x\r\nX-Filler: \(filler)\r\n\r\n")
        let (bytes, closed) = connection.readToEnd()
        if let response = RawResponse(bytes) {
            #expect([413, 431].contains(response.status), "got \(response.status)")
        } else {
            #expect(closed, "neither an error response nor a closed connection")
        }
        #expect(try request("/healthz", port: server.port).status == 200)
    }

    @Test("many headers adding up past the memory limit are rejected too")
    func manyHeaders() throws {
        var configuration = HTTPServer.Configuration()
        configuration.connectionMemoryLimit = 8 * 1024
        let server = try HTTPServer.start(
            host: "127.0.0.1", port: 0, routes: Self.routes(), configuration: configuration)
        let headers = (0..<400).map { "X-H\($0): \(String(repeating: "v", count: 40))\r\n" }.joined()
        let connection = try RawConnection(port: server.port)
        connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\(headers)\r\n")
        let (bytes, closed) = connection.readToEnd()
        if let response = RawResponse(bytes) {
            #expect([413, 431].contains(response.status), "got \(response.status)")
        } else {
            #expect(closed)
        }
        #expect(try request("/healthz", port: server.port).status == 200)
    }

    @Test("a client that connects and sends nothing, or half a request, is dropped after the timeout")
    func slowClient() throws {
        var configuration = HTTPServer.Configuration()
        configuration.connectionTimeout = .seconds(1)
        let server = try HTTPServer.start(
            host: "127.0.0.1", port: 0, routes: Self.routes(), configuration: configuration)
        let clock = ContinuousClock()

        let silent = try RawConnection(port: server.port)
        let half = try RawConnection(port: server.port)
        half.send("GET /metrics HTTP/1.1\r\nHost: x\r\n")
        let start = clock.now
        let (silentBytes, silentClosed) = silent.readToEnd()
        let (halfBytes, halfClosed) = half.readToEnd()
        let elapsed = clock.now - start
        #expect(silentClosed && silentBytes.isEmpty, "\(silent.lastError ?? "")")
        #expect(halfClosed, "\(half.lastError ?? "")")
        if let response = RawResponse(halfBytes) { #expect(response.status >= 400) }
        #expect(elapsed < .seconds(5), "dropped after \(elapsed)")
        #expect(elapsed >= .milliseconds(500), "dropped after \(elapsed): too early for a 1 s timeout")
    }

    @Test("connections past the per-client limit are refused while the first ones stay open")
    func perClientLimit() throws {
        var configuration = HTTPServer.Configuration()
        configuration.perClientConnectionLimit = 2
        let server = try HTTPServer.start(
            host: "127.0.0.1", port: 0, routes: Self.routes(), configuration: configuration)
        let first = try RawConnection(port: server.port)
        let second = try RawConnection(port: server.port)
        let third = try RawConnection(port: server.port, receiveTimeout: .seconds(3))
        third.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let (bytes, closed) = third.readToEnd()
        #expect(closed && bytes.isEmpty)
        _ = (first, second)
    }

    @Test("binding a port in use fails with bindFailed, host:port and errno text")
    func bindConflict() throws {
        let first = try HTTPServer.start(host: "127.0.0.1", port: 0, routes: Self.routes())
        let error = #expect(throws: HTTPServerError.self) {
            _ = try HTTPServer.start(host: "127.0.0.1", port: first.port, routes: Self.routes())
        }
        #expect(error?.code == .bindFailed)
        #expect(error?.errno == EADDRINUSE)
        #expect(error?.description.contains("127.0.0.1:\(first.port)") == true, "\(String(describing: error))")
        #expect(error?.description.contains("Address already in use") == true, "\(String(describing: error))")
        print("bind conflict: \(error.map { "\($0)" } ?? "-")")
        // The first server is unaffected.
        #expect(try request("/healthz", port: first.port).status == 200)
    }

    @Test("libmicrohttpd's diagnostics reach the log handler and the bind error")
    func logHandler() throws {
        let first = try HTTPServer.start(host: "127.0.0.1", port: 0, routes: Self.routes())
        let lines = Mutex<[String]>([])
        var configuration = HTTPServer.Configuration()
        configuration.logHandler = { line in lines.withLock { $0.append(line) } }
        let error = #expect(throws: HTTPServerError.self) {
            _ = try HTTPServer.start(
                host: "127.0.0.1", port: first.port, routes: Self.routes(), configuration: configuration)
        }
        let logged = lines.withLock { $0 }
        #expect(!logged.isEmpty)
        #expect(logged.allSatisfy { !$0.hasSuffix("\n") })
        if let line = logged.first {
            #expect(error?.reason.contains(line) == true, "\(String(describing: error)) lacks \(line)")
        }
    }

    @Test("an address not on this machine fails with bindFailed (EADDRNOTAVAIL)")
    func foreignAddress() {
        let error = #expect(throws: HTTPServerError.self) {
            _ = try HTTPServer.start(host: "192.0.2.1", port: 0, routes: Self.routes())
        }
        #expect(error?.code == .bindFailed)
        #expect(error?.errno == EADDRNOTAVAIL)
    }

    @Test("host names, bad ports and bad limits are rejected before anything is bound")
    func invalidArguments() {
        #expect { _ = try HTTPServer.start(host: "localhost", port: 0, routes: Self.routes()) } throws: {
            ($0 as? HTTPServerError)?.code == .invalidAddress
        }
        #expect { _ = try HTTPServer.start(host: "127.0.0.1", port: 70_000, routes: Self.routes()) } throws: {
            ($0 as? HTTPServerError)?.code == .invalidConfiguration
        }
        var configuration = HTTPServer.Configuration()
        configuration.connectionTimeout = .zero
        #expect {
            _ = try HTTPServer.start(host: "127.0.0.1", port: 0, routes: Self.routes(), configuration: configuration)
        } throws: { ($0 as? HTTPServerError)?.code == .invalidConfiguration }
    }

    @Test("stop closes the listener and is idempotent")
    func stop() throws {
        let server = try HTTPServer.start(host: "127.0.0.1", port: 0, routes: Self.routes())
        let port = server.port
        #expect(try request("/healthz", port: port).status == 200)
        #expect(server.isRunning)
        server.stop()
        server.stop()
        #expect(!server.isRunning)
        #expect(throws: RawConnection.Failure.self) { _ = try RawConnection(port: port) }
    }

    @Test("IPv6 loopback works when the machine has it")
    func ipv6() throws {
        let result = Result { () throws(HTTPServerError) -> HTTPServer in
            try HTTPServer.start(host: "::1", port: 0, routes: Self.routes())
        }
        if case .failure(let error) = result, error.code == .bindFailed {
            return  // no IPv6 on this machine
        }
        let server = try result.get()
        #expect(server.authority == "[::1]:\(server.port)")
        #expect(server.port > 0)
    }

    @Test("concurrent clients all get answers")
    func concurrentClients() async throws {
        let server = try HTTPServer.start(host: "127.0.0.1", port: 0, routes: Self.routes())
        let port = server.port
        let statuses: [Int] = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<32 {
                group.addTask { () throws -> Int in try request("/healthz", port: port).status }
            }
            var all: [Int] = []
            for try await status in group { all.append(status) }
            return all
        }
        #expect(statuses.count == 32)
        #expect(statuses.allSatisfy { $0 == 200 })
    }
}
