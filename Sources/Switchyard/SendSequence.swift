import SwitchyardKafka
import Synchronization

/// The sends of one partition (or, with key ordering, of one handler lane's keys) in the order they were
/// submitted, also when one fails.
///
/// Sends go to the producer at once, one after another (librdkafka keeps their order per target partition).
/// When one fails, the sequence holds: later sends wait, the sends already in flight report, and then the
/// first failed one is retried alone, with backoff, until it succeeds; then the other failed ones and the held
/// ones go out, in submission order (and if one of them fails, the sequence holds again). A retry on its own timer would let later sends overtake it
/// (republished records out of order downstream). The hold ends early when the partition is revoked, the
/// shutdown deadline for work in flight comes, or an error is permanent (the worker ends): what is left is
/// abandoned, never stored, and read again by the partition's next owner.
final class SendSequence: Sendable {
    private let effects: Effects
    private let progress: PartitionProgress
    private let state = Mutex(State())

    struct Entry: Sendable {
        var number: UInt64
        var send: Effects.Send
        var attempt = 0
        /// The retry sent alone while the sequence holds.
        var probe = false
    }

    struct State {
        var next: UInt64 = 0
        /// Sends handed to the producer whose delivery report has not come yet (the retry included).
        var inFlight = 0
        /// Failed sends waiting for their retry, in submission order.
        var failed: [Entry] = []
        /// A probe (the first failed send, retried alone) is scheduled or in flight.
        var retrying = false
        /// The last probe succeeded: what failed and what is held may go out.
        var probed = false
        /// Sends submitted while the sequence holds, in submission order.
        var held: [Entry] = []

        var holds: Bool { !failed.isEmpty || retrying }

        /// What to do now that something changed: retry the first failed send once every report is in, or
        /// release the held sends once nothing failed is left.
        mutating func nextStep() -> Step {
            if retrying || inFlight > 0 { return .none }
            if var first = failed.first, !probed {
                failed.removeFirst()
                first.probe = true
                retrying = true
                inFlight += 1
                return .retry(first)
            }
            probed = false
            let ready = failed + held
            guard !ready.isEmpty else { return .none }
            failed.removeAll()
            held.removeAll()
            inFlight += ready.count
            return .produce(ready)
        }

        /// Everything not in flight, to abandon.
        mutating func dropAll() -> [Entry] {
            defer {
                failed.removeAll()
                held.removeAll()
            }
            retrying = false
            probed = false
            return failed + held
        }
    }

    enum Step {
        case none
        case produce([Entry])
        case retry(Entry)
    }

    init(effects: Effects, progress: PartitionProgress) {
        self.effects = effects
        self.progress = progress
    }

    /// Sends `send` now, or after the failed sends before it.
    func submit(_ send: Effects.Send) {
        effects.started()
        let entry = state.withLock { s -> Entry? in
            let entry = Entry(number: s.next, send: send)
            s.next &+= 1
            if s.holds || !s.held.isEmpty {
                s.held.append(entry)
                return nil
            }
            s.inFlight += 1
            return entry
        }
        if let entry { produce(entry) }
    }

    private func produce(_ entry: Entry) {
        let started = effects.produce(entry.send, progress: progress) { [self] result in
            reported(entry, result)
        }
        if !started {
            // Revoked: nothing more of this partition goes out.
            let dropped = state.withLock { s -> [Entry] in
                s.inFlight -= 1
                return s.dropAll()
            }
            effects.finished()
            for _ in dropped { effects.finished() }
        }
    }

    private func run(_ step: Step) {
        switch step {
        case .none:
            break
        case .produce(let entries):
            for entry in entries { produce(entry) }
        case .retry(let entry):
            produce(entry)
        }
    }

    private func reported(_ entry: Entry, _ result: Result<KafkaDeliveryReport, any Error>) {
        switch result {
        case .success(let report):
            effects.acknowledged(entry.send, report: report, progress: progress)
            let step = state.withLock { s -> Step in
                s.inFlight -= 1
                if entry.probe {
                    s.retrying = false
                    s.probed = true
                }
                return s.nextStep()
            }
            run(step)
        case .failure(let error):
            let delay: Duration
            var replacement: Effects.Send?
            switch effects.failed(entry.send, error: error, attempt: entry.attempt, progress: progress) {
            case .retry(let backoff):
                delay = backoff
            case .replace(let send):
                delay = .zero
                replacement = send
            case .givenUp:
                abandon(entry)
                return
            }
            let step = state.withLock { s -> Step in
                s.inFlight -= 1
                if entry.probe { s.retrying = false }
                var again = entry
                again.attempt += 1
                again.probe = false
                if let replacement { again.send = replacement }
                let at = s.failed.firstIndex { $0.number > entry.number } ?? s.failed.endIndex
                s.failed.insert(again, at: at)
                return s.nextStep()
            }
            guard case .retry(let next) = step, delay > .zero else {
                run(step)
                return
            }
            Task {
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    self.abandon(next)
                    return
                }
                self.produce(next)
            }
        }
    }

    /// Gives up `entry` (already counted out of ``State/inFlight`` by the caller or not yet): it and everything
    /// held or failed behind it stay unstored.
    private func abandon(_ entry: Entry) {
        let dropped = state.withLock { s -> [Entry] in
            s.inFlight -= 1
            s.retrying = false
            return s.dropAll()
        }
        effects.finished()
        for _ in dropped { effects.finished() }
    }
}
