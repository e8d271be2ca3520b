import Foundation
import SwitchyardJSON
import Testing

/// `Timestamp(Date)`: the UTC text every log line and dead letter (`switchyard.failed.at`) carries, against
/// Foundation's ISO 8601 formatter.
@Suite struct TimestampFormattingTests {
    @Test("UTC text with milliseconds, as Foundation's ISO 8601 formatter writes it; it parses back to the same instant")
    func matchesFoundation() throws {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        // The epoch, a leap day, the last millisecond of a year, 1600 and 9999, before 1970, and a spread. (Not
        // before 1583: Foundation writes Julian dates before the Gregorian reform, RFC 3339 proleptic Gregorian.)
        var seconds: [Double] = [0, 951_782_400.5, 1_704_067_199.999, -11_676_096_000, 253_402_300_799.123, -1.25, 86_399.001]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            seconds.append(Double(Int64.random(in: -11_000_000_000_000...250_000_000_000_000, using: &generator)) / 1000)
        }
        for s in seconds {
            let date = Date(timeIntervalSince1970: s)
            let timestamp = Timestamp(date)
            #expect(timestamp.text == formatter.string(from: date), "\(s)")
            let parsed = try #require(Timestamp(rfc3339: timestamp.text), "\(timestamp.text)")
            #expect(parsed == timestamp)
        }
    }

    @Test("milliseconds round to the nearest, carrying into the second")
    func rounding() {
        #expect(Timestamp(Date(timeIntervalSince1970: 1.9996)).text == "1970-01-01T00:00:02.000Z")
        #expect(Timestamp(Date(timeIntervalSince1970: 59.0004)).text == "1970-01-01T00:00:59.000Z")
    }
}
