import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A progress line on stderr for long reads and replays (`read 12000 of 50000 dead letters`), redrawn in
/// place at most five times a second, from a second into the work; only when stderr is a terminal, so logs
/// and pipes never see it, and cleared before the result or a warning is printed.
final class ProgressLine {
    private let enabled: Bool
    private let noun: String
    private let started = ContinuousClock.now
    private var lastDrawn: ContinuousClock.Instant?
    private var drawn = false

    /// `enabled` is ANDed with whether stderr is a terminal.
    init(enabled: Bool, noun: String) {
        self.enabled = enabled && isatty(2) == 1
        self.noun = noun
    }

    /// Redraws after a second of work, then at most every 200 ms.
    func update(_ count: Int, of total: Int64?) {
        guard enabled else { return }
        let now = ContinuousClock.now
        guard now - started >= .seconds(1), lastDrawn.map({ now - $0 >= .milliseconds(200) }) ?? true else { return }
        lastDrawn = now
        drawn = true
        let of = total.map { " of \($0)" } ?? ""
        FileHandle.standardError.write(Data("\r\u{1B}[Kread \(count)\(of) \(noun)".utf8))
    }

    /// Clears the line (before the result or a warning is printed).
    func finish() {
        guard drawn else { return }
        drawn = false
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
