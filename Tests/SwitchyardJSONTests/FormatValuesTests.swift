import Foundation
import Testing

@testable import SwitchyardJSON

/// The values behind the generated typed accessors: each format's text gives its Foundation value, any
/// other text nil.
@Suite struct FormatValuesTests {
    @Test func uuid() {
        #expect(StringFormat.parseUUID("6a2f41a3-c54c-fce8-32d2-0324e1c32e22") == UUID(uuidString: "6A2F41A3-C54C-FCE8-32D2-0324E1C32E22"))
        #expect(StringFormat.parseUUID("6A2F41A3-C54C-FCE8-32D2-0324E1C32E22")?.uuidString == "6A2F41A3-C54C-FCE8-32D2-0324E1C32E22")
        for malformed in ["", "not a uuid", "6a2f41a3c54cfce832d20324e1c32e22", "{6a2f41a3-c54c-fce8-32d2-0324e1c32e22}", "6a2f41a3-c54c-fce8-32d2-0324e1c32e2g"] {
            #expect(StringFormat.parseUUID(malformed) == nil, "\(malformed)")
        }
    }

    @Test func url() {
        #expect(StringFormat.parseURL("https://example.com/a?b=c")?.absoluteString == "https://example.com/a?b=c")
        #expect(StringFormat.parseURL("urn:isbn:0451450523")?.scheme == "urn")
        // `uri` needs a scheme; `uri-reference` takes a relative reference too.
        #expect(StringFormat.parseURL("../x") == nil)
        #expect(StringFormat.parseURLReference("../x")?.relativeString == "../x")
        for malformed in ["", "https://example.com/a b", "https://ex.com/%zz"] {
            #expect(StringFormat.parseURL(malformed) == nil, "\(malformed)")
            #expect(StringFormat.parseURLReference(malformed) == nil, "\(malformed)")
        }
    }

    @Test func date() {
        // The start of the day in UTC, leap days and years before 1970 included.
        #expect(StringFormat.parseDate("1970-01-01") == Date(timeIntervalSince1970: 0))
        #expect(StringFormat.parseDate("2026-03-01") == Date(timeIntervalSince1970: 1_772_323_200))
        #expect(StringFormat.parseDate("2024-02-29") == Date(timeIntervalSince1970: 1_709_164_800))
        #expect(StringFormat.parseDate("0001-01-01") == Date(timeIntervalSince1970: -62_135_596_800))
        for malformed in ["", "2026-02-30", "2026-13-01", "2026-1-01", "20260301", "2026-03-01T00:00:00Z"] {
            #expect(StringFormat.parseDate(malformed) == nil, "\(malformed)")
        }
    }
}
