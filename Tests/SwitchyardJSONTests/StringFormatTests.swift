import Testing

@testable import SwitchyardJSON

/// The formats a catalog with `validateFormats` checks: what each accepts and refuses.
@Suite struct StringFormatTests {
    static let cases: [(StringFormat, accepted: [String], refused: [String])] = [
        (.uuid, ["6a2f41a3-c54c-fce8-32d2-0324e1c32e22", "6A2F41A3-C54C-FCE8-32D2-0324E1C32E22"],
         ["not a uuid", "6a2f41a3c54cfce832d20324e1c32e22", "6a2f41a3-c54c-fce8-32d2-0324e1c32e2g", "{6a2f41a3-c54c-fce8-32d2-0324e1c32e22}"]),
        (.date, ["2026-02-28", "2024-02-29", "2000-02-29"], ["2026-02-30", "2026-02-29", "1900-02-29", "2026-13-01", "2026-1-01", "20260101", "2026-01-00"]),
        (.time, ["10:42:17Z", "10:42:17.501+01:00", "23:59:60z"], ["25:00", "10:42:17", "10:42Z", "10:60:00Z", "10:42:17+0100", "10:42:17.Z"]),
        (.duration, ["P1D", "PT1H30M", "P2W", "P1Y2M3DT4H5M6S", "PT0S"], ["P", "PT", "P1DT", "1D", "P1H", "PT1D", "P1M1Y", "P1W2D", "P1.5D"]),
        (.email, ["a@example.com", "first.last+tag@sub.example.de"], ["a", "@example.com", "a@", "a@b@c", "a b@example.com", "a@example..com", "a@example.com."]),
        (.ipv4, ["192.168.0.1", "0.0.0.0", "255.255.255.255"], ["999.1.1.1", "1.2.3", "1.2.3.4.5", "01.2.3.4", "1.2.3.", "a.b.c.d", "1.2.3.4 "]),
        (.ipv6, ["::1", "::", "2001:db8::1", "1:2:3:4:5:6:7:8", "::ffff:192.0.2.1", "fe80::"],
         ["1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "1::2::3", "12345::", "1:", ":1", "::g", "fe80::1%eth0", "1.2.3.4"]),
        (.uri, ["https://example.com/a?b=c", "urn:isbn:0451450523", "mailto:a@example.com", "https://ex.com/%C3%A4"],
         ["../x", "example.com", "https://example.com/a b", "https://ex.com/%zz", "1http://x", "ä:x"]),
        (.hostname, ["h", "example.com", "a-b.example", "xn--bcher-kva.example"], ["", "-a.example", "a-.example", "a..b", "a_b.example", "a.", String(repeating: "a", count: 64)]),
    ]

    @Test func eachFormatAcceptsWhatItsRFCWritesAndNothingElse() {
        for (format, accepted, refused) in Self.cases {
            for value in accepted { #expect(format.accepts(value), "\(format) should accept \(value)") }
            for value in refused { #expect(!format.accepts(value), "\(format) should refuse \(value)") }
        }
        #expect(Set(Self.cases.map(\.0)) == Set(StringFormat.allCases))
    }
}
