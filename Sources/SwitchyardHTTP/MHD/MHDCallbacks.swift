import CMicroHTTPD
import Glibc
import Synchronization

/// What libmicrohttpd's callbacks reach through their `void *` closure: the routes and the log sink.
final class MHDContext: Sendable {
    let routes: HTTPRoutes
    let logHandler: (@Sendable (String) -> Void)?
    /// Log lines from `MHD_start_daemon`, kept to explain a failed start; `nil` once the daemon runs.
    private let startup = Mutex<[String]?>([])

    init(routes: HTTPRoutes, logHandler: (@Sendable (String) -> Void)?) {
        self.routes = routes
        self.logHandler = logHandler
    }

    func log(_ line: String) {
        startup.withLock { lines in lines?.append(line) }
        logHandler?(line)
    }

    func startupMessages() -> [String] {
        startup.withLock { $0 ?? [] }
    }

    func finishStartup() {
        startup.withLock { $0 = nil }
    }
}

/// MHD_LogCallback: formats libmicrohttpd's printf-style message and hands it to the context.
let mhdLog: MHD_LogCallback = {
    context, format, arguments in
    guard let context, let format else { return }
    var buffer = [CChar](repeating: 0, count: 512)
    guard let arguments else { return }
    let written = vsnprintf(&buffer, buffer.count, format, arguments)
    guard written >= 0 else { return }
    var line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    while line.last == "\n" { line.removeLast() }
    Unmanaged<MHDContext>.fromOpaque(context).takeUnretainedValue().log(line)
}

/// MHD_AccessHandlerCallback: called once the request line and headers are in (`*requestState` is nil), then
/// once the request is complete. A method other than GET and HEAD, or a request that announces a body, is
/// refused on the first call, so a body is never read (and the connection is closed after the answer). Any
/// other request is answered on the second call: libmicrohttpd keeps a connection alive only for a response
/// queued once the request is complete, and a new TCP connection per scrape cost more than rendering `/metrics`.
let mhdAccessHandler: MHD_AccessHandlerCallback = {
    context, connection, url, methodName, _, _, _, requestState in
    guard let context, let connection, let url, let methodName, let requestState else { return .NO }
    let method = String(cString: methodName)
    if requestState.pointee == nil {
        if let refusal = refusal(connection: connection, method: method) {
            return queue(refusal, on: connection)
        }
        // Any non-nil marker; libmicrohttpd only hands it back. Nothing is allocated, so nothing is freed.
        requestState.pointee = UnsafeMutableRawPointer(connection)
        return .YES
    }
    let routes = Unmanaged<MHDContext>.fromOpaque(context).takeUnretainedValue().routes
    let response = respond(connection: connection, method: method, path: String(cString: url), routes: routes)
    return queue(response, on: connection)
}

/// The answer to a request refused from its request line and headers alone (a method other than GET and HEAD,
/// or a body), or nil.
private func refusal(connection: OpaquePointer, method: String) -> HTTPResponse? {
    guard method == "GET" || method == "HEAD" else {
        var response = HTTPResponse.text("method not allowed: only GET and HEAD\n", status: .methodNotAllowed)
        response.headers.append(("Allow", "GET, HEAD"))
        return response
    }
    if hasBody(connection) {
        return .text("request bodies are not accepted\n", status: .contentTooLarge)
    }
    return nil
}

private func respond(connection: OpaquePointer, method: String, path: String, routes: HTTPRoutes) -> HTTPResponse {
    guard let handler = routes.handler(for: path) else {
        return .text("not found\n", status: .notFound)
    }
    let request = HTTPRequest(
        method: method, path: path,
        query: values(of: connection, kind: .GET_ARGUMENT_KIND, lowercasingKeys: false),
        headers: values(of: connection, kind: .HEADER_KIND, lowercasingKeys: true))
    return handler(request)
}

private func hasBody(_ connection: OpaquePointer) -> Bool {
    if MHD_lookup_connection_value(connection, .HEADER_KIND, "Transfer-Encoding") != nil { return true }
    guard let length = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length") else { return false }
    return String(cString: length).trimmingWhitespace != "0"
}

private func values(of connection: OpaquePointer, kind: MHD_ValueKind, lowercasingKeys: Bool) -> [String: String] {
    var collected = Collected(lowercasingKeys: lowercasingKeys)
    _ = withUnsafeMutablePointer(to: &collected) { pointer in
        MHD_get_connection_values(connection, kind, collectValue, pointer)
    }
    return collected.values
}

private struct Collected {
    var lowercasingKeys: Bool
    var values: [String: String] = [:]
}

/// MHD_KeyValueIterator: adds one header or query parameter to a `Collected`.
private let collectValue: MHD_KeyValueIterator = { context, _, key, value in
    guard let context, let key else { return .YES }
    let collected = context.assumingMemoryBound(to: Collected.self)
    let name = String(cString: key)
    collected.pointee.values[collected.pointee.lowercasingKeys ? name.lowercased() : name] =
        value.map { String(cString: $0) } ?? ""
    return .YES
}

private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    let created = response.body.withUnsafeBytes { bytes in
        // MUST_COPY: MHD keeps its own copy, so the Swift array can go when this returns.
        MHD_create_response_from_buffer(
            bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
    }
    guard let created else { return .NO }
    defer { MHD_destroy_response(created) }
    for (name, value) in response.headers {
        guard MHD_add_response_header(created, name, value) == .YES else { return .NO }
    }
    return MHD_queue_response(connection, UInt32(clamping: response.status.code), created)
}

extension String {
    fileprivate var trimmingWhitespace: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return self[first...last]
    }
}
