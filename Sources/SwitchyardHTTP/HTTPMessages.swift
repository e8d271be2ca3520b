/// A request the server routes to a handler: always `GET` (or `HEAD`) with no body.
public struct HTTPRequest: Sendable {
    /// `GET` or `HEAD` (handlers answer both the same way; the server drops the body for `HEAD`).
    public var method: String
    /// The path, percent-decoded, without the query string: `/metrics`.
    public var path: String
    /// Query parameters, percent-decoded; a parameter without `=` has the empty value; the last one of a
    /// repeated name wins.
    public var query: [String: String]
    /// Request headers, names lowercased; the last one of a repeated name wins.
    public var headers: [String: String]

    /// Creates a request (the server does; tests of handlers may too).
    public init(method: String = "GET", path: String, query: [String: String] = [:], headers: [String: String] = [:]) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
    }

    /// The value of a header, by case-insensitive name.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }
}

/// A response a handler returns: a status, headers and a body, sent with a `Content-Length`.
public struct HTTPResponse: Sendable {
    /// An HTTP status code.
    public struct Status: Hashable, Sendable, CustomStringConvertible {
        /// The numeric code, e.g. 200.
        public var code: Int

        /// A status with this code.
        public init(code: Int) {
            self.code = code
        }

        /// 200 OK
        public static let ok = Status(code: 200)
        /// 400 Bad Request
        public static let badRequest = Status(code: 400)
        /// 404 Not Found
        public static let notFound = Status(code: 404)
        /// 405 Method Not Allowed
        public static let methodNotAllowed = Status(code: 405)
        /// 413 Content Too Large
        public static let contentTooLarge = Status(code: 413)
        /// 500 Internal Server Error
        public static let internalServerError = Status(code: 500)
        /// 503 Service Unavailable (e.g. `/readyz` before partitions are assigned)
        public static let serviceUnavailable = Status(code: 503)

        public var description: String { String(code) }
    }

    /// The content type of the Prometheus text exposition format 0.0.4.
    public static let prometheusContentType = "text/plain; version=0.0.4; charset=utf-8"
    /// The content type of JSON bodies.
    public static let jsonContentType = "application/json"
    /// The content type of plain text bodies.
    public static let plainTextContentType = "text/plain; charset=utf-8"

    /// The status.
    public var status: Status
    /// Headers, in order; `Content-Length` is added by the server.
    public var headers: [(name: String, value: String)]
    /// The body bytes.
    public var body: [UInt8]

    /// A response with a `Content-Type` and a body of bytes.
    public init(status: Status = .ok, contentType: String, body: some Sequence<UInt8>) {
        self.status = status
        self.headers = [("Content-Type", contentType)]
        self.body = Array(body)
    }

    /// A response with a `Content-Type` and a UTF-8 body.
    public init(status: Status = .ok, contentType: String, body: String) {
        self.init(status: status, contentType: contentType, body: body.utf8)
    }

    /// A plain UTF-8 text response (`text/plain; charset=utf-8`).
    public static func text(_ text: String, status: Status = .ok) -> HTTPResponse {
        HTTPResponse(status: status, contentType: plainTextContentType, body: text)
    }

    /// A JSON response (`application/json`) from already encoded JSON text.
    public static func json(_ json: String, status: Status = .ok) -> HTTPResponse {
        HTTPResponse(status: status, contentType: jsonContentType, body: json)
    }

    /// A JSON response (`application/json`) from already encoded JSON bytes (e.g. `JSONEncoder` output).
    public static func json(bytes: some Sequence<UInt8>, status: Status = .ok) -> HTTPResponse {
        HTTPResponse(status: status, contentType: jsonContentType, body: bytes)
    }

    /// A Prometheus text exposition (`text/plain; version=0.0.4; charset=utf-8`), e.g. a registry's render.
    public static func prometheus(_ exposition: String) -> HTTPResponse {
        HTTPResponse(status: .ok, contentType: prometheusContentType, body: exposition)
    }
}

/// The route table: one handler per `GET` path.
///
/// ```swift
/// var routes = HTTPRoutes()
/// routes.get("/healthz") { _ in .text("ok\n") }
/// ```
public struct HTTPRoutes: Sendable, ExpressibleByDictionaryLiteral {
    /// A route handler. It runs on the server's own thread (not the Swift concurrency pool), one request at
    /// a time, so it should be quick and must not block on async work.
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    private(set) var handlers: [String: Handler] = [:]

    /// An empty table: every path answers 404.
    public init() {}

    /// A table from path to handler.
    public init(dictionaryLiteral elements: (String, Handler)...) {
        for (path, handler) in elements { handlers[path] = handler }
    }

    /// Routes `GET` (and `HEAD`) requests for exactly `path` (no query string, e.g. `/metrics`) to `handler`,
    /// replacing any handler already there.
    public mutating func get(_ path: String, _ handler: @escaping Handler) {
        handlers[path] = handler
    }

    /// The routed paths, sorted.
    public var paths: [String] { handlers.keys.sorted() }

    /// The handler for a path, if routed.
    public func handler(for path: String) -> Handler? { handlers[path] }
}
