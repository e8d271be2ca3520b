import SwitchyardFuzz

// libFuzzer calls the target from one thread at a time.
nonisolated(unsafe) var invariants = DecodeInvariants()

/// One fuzz input: decoded under both catalogs and policies; any broken invariant is a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecode(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    if let violation = invariants.check(UnsafeRawBufferPointer(start: data, count: count)) {
        fatalError("invariant broken: \(violation)")
    }
    return 0
}

@main
struct FuzzDecode {
    static func main() {
        FuzzDriver.main(fuzzDecode)
    }
}
