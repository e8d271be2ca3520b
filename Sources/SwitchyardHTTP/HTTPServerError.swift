/// An error from starting the HTTP server: a host that is not an address, a bad configuration, or a socket
/// that could not be bound (the port is taken, or the address is not local).
///
/// The worker maps `.bindFailed` and `.invalidAddress` to its exit codes; `description` names `host:port`
/// and the operating system's reason.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case invalidAddress, invalidConfiguration, bindFailed, startFailed
        }
        private let value: Value

        /// The host is not a numeric IPv4 or IPv6 address.
        public static let invalidAddress = Code(value: .invalidAddress)
        /// The port is out of range, or a limit or timeout is out of range.
        public static let invalidConfiguration = Code(value: .invalidConfiguration)
        /// The listening socket could not be bound: the port is in use (`EADDRINUSE`), the address is not
        /// on this machine (`EADDRNOTAVAIL`), or the port is privileged (`EACCES`).
        public static let bindFailed = Code(value: .bindFailed)
        /// libmicrohttpd could not start for another reason (threads, descriptors, memory).
        public static let startFailed = Code(value: .startFailed)

        public var description: String { value.rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// A human-readable explanation naming `host:port`.
    public var reason: String
    /// The `errno` the failure left, if there was one.
    public var errno: Int32?
    /// Where the error was raised.
    public var file: String
    /// Where the error was raised.
    public var line: UInt

    private init(code: Code, reason: String, errno: Int32?, file: String, line: UInt) {
        self.code = code
        self.reason = reason
        self.errno = errno
        self.file = file
        self.line = line
    }

    public var description: String { "HTTPServerError.\(code): \(reason)" }

    static func invalidAddress(host: String, file: String = #fileID, line: UInt = #line) -> HTTPServerError {
        HTTPServerError(
            code: .invalidAddress,
            reason: "\"\(host)\" is not a numeric IPv4 or IPv6 address (e.g. 127.0.0.1, 0.0.0.0, ::)",
            errno: nil, file: file, line: line)
    }

    static func invalidConfiguration(_ why: String, file: String = #fileID, line: UInt = #line) -> HTTPServerError {
        HTTPServerError(code: .invalidConfiguration, reason: why, errno: nil, file: file, line: line)
    }

    static func bindFailed(
        endpoint: String, errno: Int32, message: String, file: String = #fileID, line: UInt = #line
    ) -> HTTPServerError {
        HTTPServerError(
            code: .bindFailed, reason: "cannot listen on \(endpoint): \(message) (errno \(errno))", errno: errno,
            file: file, line: line)
    }

    static func startFailed(
        endpoint: String, errno: Int32?, message: String, file: String = #fileID, line: UInt = #line
    ) -> HTTPServerError {
        let suffix = errno.map { " (errno \($0))" } ?? ""
        return HTTPServerError(
            code: .startFailed, reason: "cannot start the HTTP server on \(endpoint): \(message)\(suffix)",
            errno: errno, file: file, line: line)
    }
}
