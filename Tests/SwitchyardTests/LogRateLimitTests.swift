import Testing

@testable import Switchyard

/// The rate limit on `record dead-lettered` warnings: a burst of ten seconds' worth passes, then
/// `perSecond` a second; everything held back is counted by kind for the summary line.
@Suite struct LogRateLimitTests {
    let start = ContinuousClock.now

    @Test("a burst of ten seconds' worth passes, then lines are held back and counted by kind")
    func burstThenSuppressed() {
        var limit = LogRateLimit(perSecond: 10, now: start)
        let admitted = (0..<100).filter { _ in limit.admit("dataCorrupted", at: start) }.count
        #expect(admitted == 100)
        let past = [limit.admit("dataCorrupted", at: start), limit.admit("typeMismatch", at: start), limit.admit("dataCorrupted", at: start)]
        #expect(past == [false, false, false])
        let first = limit.takeSuppressed()
        let second = limit.takeSuppressed()
        #expect(first == ["dataCorrupted": 2, "typeMismatch": 1])
        #expect(second.isEmpty, "counting starts again after a summary")
    }

    @Test("the bucket refills at perSecond, never above the burst")
    func refill() {
        var limit = LogRateLimit(perSecond: 10, now: start)
        for _ in 0..<100 { _ = limit.admit("k", at: start) }
        let full = limit.admit("k", at: start)
        #expect(!full)
        // Half a second later: five more lines.
        let half = start + .milliseconds(500)
        #expect((0..<20).filter { _ in limit.admit("k", at: half) }.count == 5)
        // An hour idle refills only the burst.
        let later = half + .seconds(3600)
        #expect((0..<1000).filter { _ in limit.admit("k", at: later) }.count == 100)
        let suppressed = limit.takeSuppressed()
        #expect(suppressed == ["k": 1 + 15 + 900])
    }

    @Test("0 per second: no line passes, every one is counted for the summary")
    func zeroWritesOnlySummaries() {
        var limit = LogRateLimit(perSecond: 0, now: start)
        let admitted = [limit.admit("missingField", at: start), limit.admit("missingField", at: start + .seconds(60))]
        #expect(admitted == [false, false])
        let suppressed = limit.takeSuppressed()
        #expect(suppressed == ["missingField": 2])
    }

    @Test("the summary line: total, kinds in name order, the limit")
    func summary() {
        let m = LogRateLimit.summary(["typeMismatch": 3, "dataCorrupted": 1200], perSecond: 10)
        #expect(m == ["log.suppressed": "1203", "log.suppressed_by_kind": "dataCorrupted=1200,typeMismatch=3", "log.limit_per_second": "10"])
    }
}
