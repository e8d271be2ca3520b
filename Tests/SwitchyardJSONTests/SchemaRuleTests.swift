import Foundation
import Testing

@testable import SwitchyardJSON

/// The validation keywords' checks computed on a number's digits and a pattern's bytes give the answers of
/// `Decimal` and `NSRegularExpression`, which they replace on the decode paths.
@Suite struct SchemaRuleTests {
    static let numbers = [
        "0", "-0", "0.0", "1", "-1", "0.01", "0.1", "0.10", "1.5", "1.50", "15e-1", "150E-2", "0.015e2", "49.48", "49.485",
        "12.345", "9.5", "120", "1.2e2", "1e2", "100", "-100.00", "31.5", "31.50001", "31.49999", "1e-7", "-1e-7",
        "2.5e-3", "9999999999999999999", "1000000000000000000", "18446744073709551615", "12345678901234567.89",
        "0.0000000000000000000000001", "3e400", "-3e400", "7", "0.07", "0.3", "1e19", "5E+1",
    ]

    static func reference(_ a: String, _ b: String) -> Int? {
        guard let x = Decimal(string: a, locale: Locale(identifier: "en_US_POSIX")),
            let y = Decimal(string: b, locale: Locale(identifier: "en_US_POSIX"))
        else { return nil }
        return x < y ? -1 : x == y ? 0 : 1
    }

    static func referenceMultiple(_ a: String, _ b: String) -> Bool {
        guard let x = Decimal(string: a, locale: Locale(identifier: "en_US_POSIX")),
            let y = Decimal(string: b, locale: Locale(identifier: "en_US_POSIX")), y != 0
        else { return false }
        var quotient = x / y
        var whole = Decimal()
        NSDecimalRound(&whole, &quotient, 0, .down)
        return whole == quotient
    }

    @Test func comparisonsAgreeWithDecimal() {
        for a in Self.numbers {
            for b in Self.numbers {
                #expect(SchemaRule.compare(ExactNumber(a)!, b) == Self.reference(a, b), "\(a) vs \(b)")
            }
        }
    }

    @Test func multiplesAgreeWithDecimal() {
        for a in Self.numbers {
            for b in Self.numbers where !(b.hasPrefix("-") || Self.reference(b, "0") == 0) {
                #expect(SchemaRule.isMultiple(ExactNumber(a)!, of: b) == Self.referenceMultiple(a, b), "\(a) multiple of \(b)")
            }
        }
    }

    @Test func digitsAreExact() throws {
        let d = try #require(DecimalDigits("-0.01500e3"))
        #expect(d.negative && d.significand == 15 && d.exponent == 0)
        let e = try #require(DecimalDigits("120"))
        #expect(e.significand == 12 && e.exponent == 1 && e.digitCount == 2)
        #expect(DecimalDigits("12345678901234567891") == nil)  // 20 significant digits: computed through Decimal
        #expect(DecimalDigits("12345678901234567890")?.significand == 1_234_567_890_123_456_789)
        #expect(DecimalDigits("3e400") == nil)
        #expect(SchemaRule.isMultiple(ExactNumber("49.48")!, of: "0.01"))
        #expect(!SchemaRule.isMultiple(ExactNumber("12.345")!, of: "0.01"))
        #expect(SchemaRule.above(ExactNumber("0.001")!, "0") && !SchemaRule.above(ExactNumber("0.0")!, "0"))
    }

    static let patterns = [
        "^ORD-[0-9]{8}$", "^[A-Z]{2}$", "^[A-Z0-9-]{4,32}$", "^[0-9]{4}$", "[a-c]+x?", "^ab*c{2,}$", "^-?[0-9]+$",
        "\\.json$", "^v[0-9]+\\.[0-9]+$", "[_a-z]", "^$", "x{0,2}y$", "^[a-zA-Z_][a-zA-Z0-9_]*$",
        // Not in the byte subset: answered by NSRegularExpression.
        "^\\d{3}$", "^[^a]+$", "^(ab)+$", "a|b", "^.{2}$", "^\\w+$", "^[a-z]+?$", "^ä+$",
    ]

    static let inputs = [
        "", "ORD-12345678", "ORD-1234567", "ORD-123456789", "ord-12345678", "ORD-12345678\n", "ORD-12345678\r\n",
        "ORD-12345678\n\n", "ORD-12345678\u{2028}", "ORD-12345678\u{85}", "ORD-12345678\r", "ORD-12345678\u{B}", "DE",
        "D", "DEU", "de", "TSHIRT-BLK-M", "ABC", "A-B-C-D-E", "4242", "42424", "٤٢٤٢", "aax", "abcx", "zzz", "abcc",
        "acc", "abbbccc", "ac", "-12", "12", "--12", "a.json", "ajson", "v1.2", "v1x2", "_", "Ä", "xxy", "xxxy", "y",
        "aäb", "äää", "abab", "a_1", "1a", "ab\n", "DE\u{2029}",
    ]

    @Test func bytePatternsAgreeWithRegularExpressions() {
        for source in Self.patterns {
            let pattern = SchemaPattern(source)
            for input in Self.inputs {
                #expect(pattern.matches(input) == pattern.regularExpressionMatches(input), "\(source) on \(input.debugDescription)")
            }
        }
    }

    @Test func commonPatternsAreMatchedOnBytes() {
        for source in Self.patterns.prefix(13) { #expect(SchemaPattern(source).matchesBytes, "\(source)") }
        for source in Self.patterns.suffix(8) { #expect(!SchemaPattern(source).matchesBytes, "\(source)") }
    }

    @Test func uniqueItems() {
        #expect(SchemaRule.isUnique(["a", "b", "c"]))
        #expect(!SchemaRule.isUnique(["a", "b", "a"]))
        #expect(SchemaRule.isUnique([String]()))
        #expect(!SchemaRule.isUnique(Array(0..<40) + [39]))
        #expect(SchemaRule.isUnique(Array(0..<40)))
    }
}
