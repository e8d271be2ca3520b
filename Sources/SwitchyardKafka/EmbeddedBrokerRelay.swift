import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Puts the embedded brokers at ports chosen in advance: librdkafka's mock cluster listens on ports it picks
/// itself, so each broker gets a listener on a chosen localhost port that relays every connection to it.
///
/// A client that bootstraps from a relay port would be sent on to the mock's own ports by the brokers' answers
/// (Metadata and FindCoordinator name each broker's host and port). The relay rewrites those answers: every
/// broker is advertised at its relay port, so the addresses a client learns are the ones it was given. Only
/// the port field changes (a fixed-size integer after the host), so frames keep their length; other requests
/// and answers pass through untouched.
///
/// Connections are relayed by two threads each (one per direction, blocking reads): it serves a development
/// broker's handful of clients, not a production load.
final class EmbeddedBrokerRelay: Sendable {
    /// The listening sockets, in broker order.
    private let listeners: [Int32]
    /// The relay's ports, in broker order (`host:port` for `bootstrap.servers`).
    let ports: [Int]
    /// The brokers' host as the mock advertises it.
    let host: String

    private init(listeners: [Int32], ports: [Int], host: String) {
        self.listeners = listeners
        self.ports = ports
        self.host = host
    }

    deinit {
        for fd in listeners {
            // shutdown wakes the accepting thread (close alone does not, on Linux).
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
        }
    }

    /// Listens on `firstPort`, `firstPort + 1`, … (one per broker of `brokers`, each `host:port` as the mock
    /// advertises it) on the brokers' host, and starts relaying.
    ///
    /// - Throws: ``KafkaError/Code/unavailable`` when a port is in use (or cannot be listened on), naming it.
    static func start(brokers: [(host: String, port: Int)], firstPort: Int) throws -> EmbeddedBrokerRelay {
        guard let host = brokers.first?.host else { throw KafkaError.configuration(reason: "no broker to relay to") }
        guard firstPort >= 1, firstPort + brokers.count - 1 <= 65_535 else {
            throw KafkaError.configuration(reason: "ports \(firstPort)…\(firstPort + brokers.count - 1) are not all between 1 and 65535")
        }
        var listeners: [Int32] = []
        for index in brokers.indices {
            let port = firstPort + index
            do {
                listeners.append(try listen(host: host, port: port))
            } catch {
                for fd in listeners { close(fd) }
                throw error
            }
        }
        let rewrites = Dictionary(uniqueKeysWithValues: brokers.indices.map { (brokers[$0].port, firstPort + $0) })
        let relay = EmbeddedBrokerRelay(listeners: listeners, ports: brokers.indices.map { firstPort + $0 }, host: host)
        for (index, fd) in listeners.enumerated() {
            let target = brokers[index]
            let thread = Thread { Self.accept(on: fd, target: target, rewrites: rewrites) }
            thread.name = "switchyard-broker-relay-\(firstPort + index)"
            thread.start()
        }
        return relay
    }

    /// A socket listening on `host:port`.
    private static func listen(host: String, port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw KafkaError.unavailable(reason: "cannot open a socket: \(String(cString: strerror(errno)))") }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = UInt16(port).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 64) == 0 else {
            let cause = errno
            close(fd)
            let reason = cause == EADDRINUSE ? "port \(port) is in use on \(host) (another broker, or another program; choose another --port)"
                : "cannot listen on \(host):\(port): \(String(cString: strerror(cause)))"
            throw KafkaError.unavailable(reason: reason)
        }
        return fd
    }

    /// Accepts connections until the listener is shut down, relaying each to `target`.
    private static func accept(on listener: Int32, target: (host: String, port: Int), rewrites: [Int: Int]) {
        while true {
            let client = Glibc.accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr(target.host)
            address.sin_port = UInt16(target.port).bigEndian
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard upstream >= 0, connected == 0 else {
                // The broker is down (as a test may set it): the client sees its connection close, as with the broker itself.
                if upstream >= 0 { close(upstream) }
                close(client)
                continue
            }
            for fd in [client, upstream] {
                var on: Int32 = 1
                _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            }
            let connection = Connection(client: client, upstream: upstream, host: target.host, rewrites: rewrites)
            Thread { connection.pumpRequests() }.start()
            Thread { connection.pumpResponses() }.start()
        }
    }

    /// One relayed connection: requests go up unchanged (their API key is noted by correlation id), answers come
    /// down with the brokers' ports rewritten in Metadata and FindCoordinator answers.
    private final class Connection: Sendable {
        let client: Int32
        let upstream: Int32
        /// The bytes of the host string as it appears before a port in an answer.
        let host: [UInt8]
        let rewrites: [Int: Int]
        /// Correlation id → API key of the requests not answered yet.
        let pending = Mutex<[Int32: Int16]>([:])
        /// How many of the two directions are still running; the last one closes both sockets.
        let running = Atomic<Int>(2)

        /// Metadata and FindCoordinator: the answers that name brokers.
        static let advertising: Set<Int16> = [3, 10]

        init(client: Int32, upstream: Int32, host: String, rewrites: [Int: Int]) {
            self.client = client
            self.upstream = upstream
            self.host = Array(host.utf8)
            self.rewrites = rewrites
        }

        func pumpRequests() {
            while let frame = Self.readFrame(client) {
                // Request header: api_key (int16), api_version (int16), correlation_id (int32).
                if frame.count >= 8 {
                    let apiKey = Int16(bitPattern: UInt16(frame[4]) << 8 | UInt16(frame[5]))
                    if Self.advertising.contains(apiKey) {
                        pending.withLock { $0[Self.int32(frame, at: 8)] = apiKey }
                    }
                }
                guard Self.writeAll(upstream, frame) else { break }
            }
            finish()
        }

        func pumpResponses() {
            while var frame = Self.readFrame(upstream) {
                // Response header: correlation_id (int32) right after the size.
                if frame.count >= 8, pending.withLock({ $0.removeValue(forKey: Self.int32(frame, at: 4)) }) != nil {
                    rewritePorts(&frame)
                }
                guard Self.writeAll(client, frame) else { break }
            }
            finish()
        }

        /// Replaces each broker port that follows the host string (`host` then a big-endian int32) by its relay port.
        func rewritePorts(_ frame: inout [UInt8]) {
            guard frame.count >= host.count + 4 else { return }
            var i = 8
            while i + host.count + 4 <= frame.count {
                if frame[i] == host[0], frame[i..<(i + host.count)].elementsEqual(host) {
                    let at = i + host.count
                    if let port = rewrites[Int(Self.int32(frame, at: at))] {
                        let bytes = withUnsafeBytes(of: UInt32(port).bigEndian) { Array($0) }
                        frame.replaceSubrange(at..<(at + 4), with: bytes)
                    }
                    i = at
                } else {
                    i += 1
                }
            }
        }

        private func finish() {
            // Either side closing ends the connection: wake the other direction, and the last one closes.
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(upstream, Int32(SHUT_RDWR))
            if running.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
                close(client)
                close(upstream)
            }
        }

        static func int32(_ bytes: [UInt8], at index: Int) -> Int32 {
            Int32(bitPattern: UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16 | UInt32(bytes[index + 2]) << 8 | UInt32(bytes[index + 3]))
        }

        /// One Kafka frame (its int32 size and the bytes it counts), or nil at the end of the stream.
        static func readFrame(_ fd: Int32) -> [UInt8]? {
            guard let size = readExactly(fd, 4) else { return nil }
            let length = Int(int32(size, at: 0))
            guard length >= 0, length <= 1 << 30, let body = readExactly(fd, length) else { return nil }
            return size + body
        }

        static func readExactly(_ fd: Int32, _ count: Int) -> [UInt8]? {
            var bytes = [UInt8](repeating: 0, count: count)
            var done = 0
            while done < count {
                let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, count - done) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return nil }
                done += n
            }
            return bytes
        }

        static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
            var done = 0
            while done < bytes.count {
                let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL)) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                done += n
            }
            return true
        }
    }
}
