import SwitchyardHTTP

extension Worker {
    /// The worker's HTTP routes: `/metrics` (Prometheus text), `/healthz` (the process and its loop are
    /// alive), `/readyz` (joined its group, not shutting down, no partition held by a
    /// dead-letter or republish topic it cannot write, and no record retried for ``RetryPolicy/stuckAfter``), `/status` (JSON: assignment, halted
    /// partitions, lag, recent errors). No secrets and no record values appear in any of them.
    public var routes: HTTPRoutes {
        var routes = HTTPRoutes()
        routes.get("/metrics") { [metrics] _ in .prometheus(metrics.registry.render()) }
        routes.get("/healthz") { [self] _ in
            status.phase == .failed ? .text("failed\n", status: .serviceUnavailable) : .text("ok\n")
        }
        routes.get("/readyz") { [self] _ in
            let s = status
            guard s.phase == .running else { return .text("\(s.phase.rawValue)\n", status: .serviceUnavailable) }
            guard s.joined else { return .text("joining the consumer group\n", status: .serviceUnavailable) }
            // A partition held by a topic it cannot write to makes no progress until someone acts.
            if let (tp, held) = s.targetUnavailable.min(by: { $0.key < $1.key }) {
                return .text(
                    "halted \(tp.topic)/\(tp.partition) at \(held.offset): \(held.target) (\(held.configurationKey)) cannot be written since \(held.since.text): \(held.error)\n",
                    status: .serviceUnavailable)
            }
            // A record retried for a while holds its partition back: not ready, and says which.
            let now = ContinuousClock.now
            if let (location, info) = s.retrying.first(where: { $0.value.since.duration(to: now) >= RetryPolicy.stuckAfter }) {
                return .text("retrying \(location) (attempt \(info.attempt), since \(info.sinceTimestamp.text))\n", status: .serviceUnavailable)
            }
            return .text("ready\n")
        }
        routes.get("/status") { [self] _ in .json(bytes: status.json(configuration: configuration).bytes) }
        return routes
    }

    /// Serves ``routes`` on the configured metrics host and port (or on `port`, if given).
    ///
    /// - Throws: ``WorkerError`` `.configuration` when the address cannot be bound.
    public func serveEndpoints(port: Int? = nil) throws -> HTTPServer {
        do {
            return try HTTPServer.start(host: configuration.metrics.host, port: port ?? configuration.metrics.port, routes: routes)
        } catch {
            throw WorkerError.configuration("metrics endpoint: \(error)")
        }
    }
}
