import CMicroHTTPD
import Glibc

// Every libmicrohttpd call lives in this folder.

/// Owns a running `struct MHD_Daemon` and the context its callbacks use; `deinit` stops the daemon (closing
/// every connection and joining its thread), then releases the context.
///
/// `@unchecked Sendable`: its stored properties are immutable; the daemon pointer is used once more only by
/// `deinit` (`MHD_stop_daemon`), which runs exactly once, after the last reference is gone.
final class MHDDaemon: @unchecked Sendable {
    private let daemon: OpaquePointer
    private let context: Unmanaged<MHDContext>
    /// The bound port (the kernel's choice for port 0).
    let boundPort: Int

    private init(daemon: OpaquePointer, context: Unmanaged<MHDContext>, boundPort: Int) {
        self.daemon = daemon
        self.context = context
        self.boundPort = boundPort
    }

    deinit {
        MHD_stop_daemon(daemon)
        // No callback can run any more, so the context can go.
        context.release()
    }

    static func make(
        host: String, port: Int, routes: HTTPRoutes, configuration: HTTPServer.Configuration
    ) throws(HTTPServerError) -> MHDDaemon {
        let endpoint = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        guard (0...65535).contains(port) else {
            throw HTTPServerError.invalidConfiguration("port \(port) of \(endpoint) is not in 0...65535")
        }
        let limits = try Limits(configuration)
        let address = try SocketAddress(host: host, port: UInt16(port))

        // The context lives as long as the daemon: retained here, released in deinit (or below if start fails).
        let context = Unmanaged.passRetained(MHDContext(routes: routes, logHandler: configuration.logHandler))
        // One internal thread polls every connection (epoll on Linux) and runs the handlers: no Swift
        // concurrency thread ever blocks on the server. ITC lets MHD_stop_daemon wake that thread at once.
        var flags = MHD_USE_AUTO_INTERNAL_THREAD.rawValue | MHD_USE_ITC.rawValue | MHD_USE_ERROR_LOG.rawValue
        if address.isIPv6 { flags |= MHD_USE_IPv6.rawValue }

        var startErrno: Int32 = 0
        let started: OpaquePointer? = address.withSockAddr { sockaddr in
            let items: [MHD_OptionItem] = [
                // The logger goes first so that it sees the other options' errors. A two-argument option in
                // an array: the function in `value`, its closure in `ptr_value`.
                MHD_OptionItem(
                    option: .EXTERNAL_LOGGER, value: unsafeBitCast(mhdLog, to: Int.self),
                    ptr_value: context.toOpaque()),
                MHD_OptionItem(option: .SOCK_ADDR, value: 0, ptr_value: sockaddr),
                MHD_OptionItem(option: .CONNECTION_LIMIT, value: limits.connections, ptr_value: nil),
                MHD_OptionItem(option: .PER_IP_CONNECTION_LIMIT, value: limits.perClient, ptr_value: nil),
                MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: limits.timeoutSeconds, ptr_value: nil),
                MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: limits.memory, ptr_value: nil),
                MHD_OptionItem(option: .END, value: 0, ptr_value: nil),
            ]
            return items.withUnsafeBufferPointer { buffer in
                Glibc.errno = 0
                let daemon = switchyard_mhd_start_daemon(
                    flags, UInt16(port), mhdAccessHandler, context.toOpaque(), buffer.baseAddress)
                // Read at once. On a failed bind(), MHD only closes the socket and frees memory before returning
                // NULL, which leaves bind()'s errno in place (EADDRINUSE, EADDRNOTAVAIL, EACCES).
                startErrno = Glibc.errno
                return daemon
            }
        }
        guard let started else {
            let logged = context.takeUnretainedValue().startupMessages()
            context.release()
            throw startError(endpoint: endpoint, errno: startErrno, logged: logged)
        }
        context.takeUnretainedValue().finishStartup()
        let bound = Int(switchyard_mhd_bound_port(started))
        return MHDDaemon(daemon: started, context: context, boundPort: bound == 0 ? port : bound)
    }

    private static func startError(endpoint: String, errno: Int32, logged: [String]) -> HTTPServerError {
        let detail = logged.isEmpty ? "" : " [libmicrohttpd: \(logged.joined(separator: "; "))]"
        let bindLogged = logged.contains { $0.contains("bind") }
        if [EADDRINUSE, EADDRNOTAVAIL, EACCES].contains(errno) || (bindLogged && errno != 0) {
            return .bindFailed(endpoint: endpoint, errno: errno, message: String(cString: strerror(errno)) + detail)
        }
        let message = errno == 0 ? "libmicrohttpd could not start" : String(cString: strerror(errno))
        return .startFailed(endpoint: endpoint, errno: errno == 0 ? nil : errno, message: message + detail)
    }
}

/// The configuration's limits, checked and in the units libmicrohttpd takes.
private struct Limits {
    var connections: Int
    var perClient: Int
    var timeoutSeconds: Int
    var memory: Int

    init(_ configuration: HTTPServer.Configuration) throws(HTTPServerError) {
        guard configuration.connectionLimit >= 1, configuration.connectionLimit <= 65_536 else {
            throw HTTPServerError.invalidConfiguration("connectionLimit must be in 1...65536")
        }
        guard configuration.perClientConnectionLimit >= 1 else {
            throw HTTPServerError.invalidConfiguration("perClientConnectionLimit must be at least 1")
        }
        guard configuration.connectionMemoryLimit >= 4096 else {
            throw HTTPServerError.invalidConfiguration("connectionMemoryLimit must be at least 4096 bytes")
        }
        let (seconds, attoseconds) = configuration.connectionTimeout.components
        let rounded = seconds + (attoseconds > 0 ? 1 : 0)
        // 0 would mean "never time out" to libmicrohttpd: exactly what a slow-client defence must not do.
        guard rounded >= 1, rounded <= Int64(UInt32.max) else {
            throw HTTPServerError.invalidConfiguration("connectionTimeout must be at least 1 second")
        }
        connections = configuration.connectionLimit
        perClient = configuration.perClientConnectionLimit
        timeoutSeconds = Int(rounded)
        memory = configuration.connectionMemoryLimit
    }
}

/// A numeric IPv4 or IPv6 address and port, as the `struct sockaddr` .SOCK_ADDR binds.
private enum SocketAddress {
    case ipv4(sockaddr_in)
    case ipv6(sockaddr_in6)

    init(host: String, port: UInt16) throws(HTTPServerError) {
        var ipv4 = sockaddr_in()
        if inet_pton(AF_INET, host, &ipv4.sin_addr) == 1 {
            ipv4.sin_family = sa_family_t(AF_INET)
            ipv4.sin_port = port.bigEndian
            self = .ipv4(ipv4)
            return
        }
        var ipv6 = sockaddr_in6()
        if inet_pton(AF_INET6, host, &ipv6.sin6_addr) == 1 {
            ipv6.sin6_family = sa_family_t(AF_INET6)
            ipv6.sin6_port = port.bigEndian
            self = .ipv6(ipv6)
            return
        }
        throw HTTPServerError.invalidAddress(host: host)
    }

    var isIPv6: Bool {
        if case .ipv6 = self { return true }
        return false
    }

    func withSockAddr<Result>(_ body: (UnsafeMutableRawPointer) -> Result) -> Result {
        switch self {
        case .ipv4(var address):
            return withUnsafeMutableBytes(of: &address) { body($0.baseAddress!) }
        case .ipv6(var address):
            return withUnsafeMutableBytes(of: &address) { body($0.baseAddress!) }
        }
    }
}
