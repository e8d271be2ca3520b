import Synchronization
import Testing

@testable import Switchyard

/// `DeadlineWatch` and `race(_:_:)`: what the worker's handler lanes and shutdown steps are abandoned by.
@Suite struct DeadlineWatchTests {
    @Test func expiresWhatIsRegisteredAtTheDeadlineAndNothingElse() async throws {
        let watch = DeadlineWatch()
        let expired = Mutex<[String]>([])
        let early = try #require(watch.register { expired.withLock { $0.append("early") } })
        let gone = try #require(watch.register { expired.withLock { $0.append("gone") } })
        watch.unregister(gone)
        let start = ContinuousClock.now
        watch.arm(at: start + .milliseconds(100))
        watch.arm(at: start + .seconds(60))  // the first deadline stays
        #expect(watch.deadline == start + .milliseconds(100))
        let late = try #require(watch.register { expired.withLock { $0.append("late") } })
        _ = (early, late)
        while expired.withLock({ $0.count }) < 2, ContinuousClock.now - start < .seconds(10) {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(ContinuousClock.now - start >= .milliseconds(100))
        #expect(expired.withLock { $0.sorted() } == ["early", "late"])
        // Past the deadline nothing is registered: what registers expires at once.
        #expect(watch.register { expired.withLock { $0.append("after") } } == nil)
        #expect(expired.withLock { $0.sorted() } == ["after", "early", "late"])
    }

    @Test func aRaceReturnsTheResultBeforeTheDeadlineAndNilAfterIt() async throws {
        let watch = DeadlineWatch()
        #expect(try await race(watch) { 42 } == 42)
        await #expect(throws: CancellationError.self) { try await race(watch) { throw CancellationError() } }
        // A body that ignores cancellation does not hold the race past the deadline.
        let never = Mutex<CheckedContinuation<Void, Never>?>(nil)
        watch.arm(at: .now + .milliseconds(100))
        let result: Int? = try await race(watch) {
            await withCheckedContinuation { continuation in never.withLock { $0 = continuation } }
            return 1
        }
        #expect(result == nil)
        never.withLock { $0 }?.resume()
        // Once the deadline passed, a race ends at once.
        #expect(try await race(watch) { try await Task.sleep(for: .seconds(60)); return 2 } == nil)
    }

    /// A shutdown step's race against a fixed deadline leaves nothing behind when it ends early: its
    /// watch's task does not sleep on until the deadline (up to the shutdown timeout) after the step has finished.
    @Test func aFixedDeadlineRaceStopsItsWatchWhenItEnds() async throws {
        let watch = DeadlineWatch()
        #expect(await raceDeadline(.now + .seconds(3600), watch: watch) {} != nil)
        let start = ContinuousClock.now
        while watch.isWatching, ContinuousClock.now - start < .seconds(10) {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(!watch.isWatching)
        // Stopped is passed: a race that starts against it ends at once.
        #expect(try await race(watch) { try await Task.sleep(for: .seconds(60)); return 1 } == nil)
    }
}
