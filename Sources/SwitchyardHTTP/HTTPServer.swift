import Synchronization

/// A tiny GET-only HTTP/1.1 server on libmicrohttpd, for `/metrics`, `/healthz`, `/readyz` and `/status`.
///
/// It listens on exactly the configured address, answers from its own internal thread (the Swift
/// concurrency pool never blocks on it), and defends itself: a cap on connections in total and per client
/// address, a timeout that drops idle or slow clients, a per-connection memory limit that rejects oversized
/// requests (huge headers get 431 or 413, or the connection is closed), and no request bodies (413).
/// Methods other than `GET` and `HEAD` get 405; unrouted paths get 404.
///
/// ```swift
/// let server = try HTTPServer.start(host: "0.0.0.0", port: 9464, routes: [
///     "/metrics": { _ in .prometheus(registry.render()) },
///     "/healthz": { _ in .text("ok\n") },
/// ])
/// print(server.port)
/// server.stop()
/// ```
///
/// - Important: `stop()` (and releasing the last reference) waits for in-flight handlers to return. Never
///   call `stop()` from inside a handler.
public final class HTTPServer: Sendable {
    /// Limits and timeouts. Every field has a safe default for a metrics endpoint.
    public struct Configuration: Sendable {
        /// Most connections open at once; more are refused. Default: 64.
        public var connectionLimit: Int = 64
        /// Most connections open at once from one client address. Default: 16.
        public var perClientConnectionLimit: Int = 16
        /// A connection idle this long (a slow client, a half-sent request, an idle keep-alive) is closed.
        /// Whole seconds, at least 1; a fraction rounds up. Default: 10 seconds.
        public var connectionTimeout: Duration = .seconds(10)
        /// Memory per connection for the request line, headers and buffers; a request that does not fit is
        /// rejected. At least 4 KiB. Default: 32 KiB.
        public var connectionMemoryLimit: Int = 32 * 1024
        /// Receives libmicrohttpd's diagnostics (a failed bind, a rejected or dropped connection), one line
        /// at a time, on the server's thread. Default: `nil` (dropped).
        public var logHandler: (@Sendable (String) -> Void)?

        /// The defaults.
        public init() {}
    }

    /// The host the server listens on, as given.
    public let host: String
    /// The port the server is bound to: the configured one, or the one the kernel chose for port 0.
    public let port: Int
    /// The configuration it started with.
    public let configuration: Configuration

    private let daemon: Mutex<MHDDaemon?>

    private init(host: String, port: Int, configuration: Configuration, daemon: MHDDaemon) {
        self.host = host
        self.port = port
        self.configuration = configuration
        self.daemon = Mutex(daemon)
    }

    /// Binds `host:port` and starts serving `routes`.
    ///
    /// - Parameters:
    ///   - host: a numeric IPv4 (`127.0.0.1`, `0.0.0.0`) or IPv6 (`::1`, `::`) address; names are not
    ///     resolved, so the server binds exactly what the configuration says.
    ///   - port: 1…65535, or 0 for a port the kernel picks (read it back from `port`).
    ///   - routes: the `GET` paths and their handlers.
    ///   - configuration: limits and timeouts.
    /// - Throws: `HTTPServerError` — `.invalidAddress`, `.invalidConfiguration`, `.bindFailed` (with `errno`,
    ///   e.g. the port is in use) or `.startFailed`.
    public static func start(
        host: String, port: Int, routes: HTTPRoutes, configuration: Configuration = Configuration()
    ) throws(HTTPServerError) -> HTTPServer {
        let daemon = try MHDDaemon.make(host: host, port: port, routes: routes, configuration: configuration)
        return HTTPServer(host: host, port: daemon.boundPort, configuration: configuration, daemon: daemon)
    }

    /// `host:port` as a URL authority (`127.0.0.1:9464`, `[::1]:9464`).
    public var authority: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Stops listening, closes every connection and waits for in-flight handlers. Idempotent.
    public func stop() {
        let stopped = daemon.withLock { $0.take() }
        // Dropping the last reference runs MHD_stop_daemon in MHDDaemon.deinit, here and outside the lock:
        // it joins the server thread, which may be running a handler.
        _ = consume stopped
    }

    /// Whether `stop()` has not been called yet.
    public var isRunning: Bool {
        daemon.withLock { $0 != nil }
    }

    deinit {
        stop()
    }
}
