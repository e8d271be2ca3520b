import Testing

@testable import SwitchyardJSON

/// Integers written with a fraction or exponent are accepted only when the decimal value is exactly
/// an integer. Found by fuzz-decode / the adversarial inputs: `0.` followed by 10,000 zeros and a 1
/// underflowed to the Double 0 and decoded as the integer 0.
@Suite struct IntegerExactnessTests {
    struct Box: Decodable { var n: Int64 }

    static func decode(_ number: String) -> Int64? {
        try? SwitchyardJSONDecoder().decode(Box.self, from: Array(#"{"n":\#(number)}"#.utf8)).n
    }

    @Test(arguments: [
        ("1e2", 100), ("1.0", 1), ("100.000", 100), ("1.999e3", 1999), ("0.05e2", 5), ("-2.50e1", -25), ("0.0", 0),
        ("-0.0e5", 0), ("12E+0", 12), ("9007199254740992.0", 9_007_199_254_740_992), ("1e-0", 1),
    ] as [(String, Int64)])
    func integralValuesDecode(_ text: String, _ value: Int64) {
        #expect(Self.decode(text) == value, "\(text)")
    }

    @Test(arguments: [
        "0." + String(repeating: "0", count: 10_000) + "1", "1.0000000000000000001", "1999.0000000000000001", "1e-400",
        "5e-1", "1.5", "1e999999999", "9007199254740993.0", "1e19", "-1e999",
    ])
    func nonIntegralOrOutOfRangeValuesFail(_ text: String) {
        #expect(Self.decode(text) == nil, "\(text.prefix(40))")
    }
}
