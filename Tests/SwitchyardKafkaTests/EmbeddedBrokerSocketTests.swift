import Foundation
import SwitchyardKafka
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The embedded broker's TCP sockets behave like Apache Kafka's: `TCP_NODELAY` on every connection, so a small
/// response never waits for the client's delayed ACK (40 ms on Linux). Read on this process's own descriptors:
/// the broker runs in the test process.
@Suite("Embedded broker sockets", .serialized, .timeLimit(.minutes(2)))
struct EmbeddedBrokerSocketTests {
    @Test("listeners and accepted connections have TCP_NODELAY, also after a broker comes back up")
    func noDelay() async throws {
        let broker = try EmbeddedBroker.make(brokers: 2)
        let ports = broker.bootstrapServers.split(separator: ",").compactMap { $0.split(separator: ":").last.flatMap { Int($0) } }
        #expect(ports.count == 2)
        for port in ports {
            let listeners = Self.sockets(port: port).filter { $0.listening }
            #expect(listeners.count == 1, "one listener on \(port)")
            #expect(listeners.allSatisfy { $0.noDelay }, "listener on \(port) has TCP_NODELAY")
        }

        // A client connection: the broker's end of it (same port, not listening) inherits the listener's option.
        let client = try Self.connect(port: ports[0])
        defer { close(client) }
        let accepted = try await Self.eventually { Self.sockets(port: ports[0]).filter { !$0.listening } }
        #expect(accepted.allSatisfy { $0.noDelay }, "the broker's end of an accepted connection has TCP_NODELAY")

        // Down and up: the mock opens a new listener, which gets the option again.
        try broker.setBrokerDown(2)
        try broker.setBrokerUp(2)
        let listeners = try await Self.eventually { Self.sockets(port: ports[1]).filter { $0.listening } }
        #expect(listeners.allSatisfy { $0.noDelay }, "the new listener of a broker brought back up has TCP_NODELAY")
    }

    struct Socket {
        var fd: Int32
        var listening: Bool
        var noDelay: Bool
    }

    /// This process's TCP sockets whose local address has `port`: a broker's listener and its ends of accepted
    /// connections (a client's end has an ephemeral port).
    static func sockets(port: Int) -> [Socket] {
        var result: [Socket] = []
        guard let directory = opendir("/proc/self/fd") else { return [] }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let fd = Int32(name) else { continue }
            var address = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            guard named == 0, address.sin_family == sa_family_t(AF_INET), Int(UInt16(bigEndian: address.sin_port)) == port else { continue }
            result.append(Socket(fd: fd, listening: option(fd, SOL_SOCKET, SO_ACCEPTCONN) == 1,
                                 noDelay: option(fd, Int32(IPPROTO_TCP), TCP_NODELAY) != 0))
        }
        return result
    }

    static func option(_ fd: Int32, _ level: Int32, _ name: Int32) -> Int32 {
        var value: Int32 = -1
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, level, name, &value, &length) == 0 ? value : -1
    }

    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        return fd
    }

    /// `body`'s value once it is not empty (the mock accepts and listens on its own thread); fails after 5 s.
    static func eventually(_ body: () -> [Socket]) async throws -> [Socket] {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            let found = body()
            if !found.isEmpty { return found }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("no socket appeared within 5 s")
        return []
    }
}
