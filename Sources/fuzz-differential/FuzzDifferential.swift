import SwitchyardFuzz

// libFuzzer calls the target from one thread at a time.
nonisolated(unsafe) var differential = DifferentialCheck()

/// One fuzz input: Switchyard's and Foundation's outcomes must agree where PRODUCT.md says they do.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDifferential(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = [UInt8](UnsafeBufferPointer(start: data, count: count))
    if let violation = differential.check(input) {
        fatalError("Switchyard and Foundation disagree: \(violation)")
    }
    return 0
}

@main
struct FuzzDifferential {
    static func main() {
        FuzzDriver.main(fuzzDifferential)
    }
}
