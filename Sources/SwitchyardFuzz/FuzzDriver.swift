import Foundation

/// The entry point of a fuzz executable, in both of its builds.
///
/// - Built by `make fuzz` (`-sanitize=fuzzer,address -D SWITCHYARD_LIBFUZZER`): hands the command line
///   to libFuzzer (`LLVMFuzzerRunDriver`), which calls `testOneInput` for every input it generates.
///   SwiftPM links executables against their own `main`, so libFuzzer's `main` is not used; its
///   driver function is.
/// - Built normally: runs `testOneInput` on every file named on the command line (directories are
///   walked), to reproduce a crash without sanitizers: `fuzz-decode crash-1234`.
package enum FuzzDriver {
    package typealias TestOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

    package static func main(_ testOneInput: TestOneInput) -> Never {
        #if SWITCHYARD_LIBFUZZER
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
        #else
        let paths = CommandLine.arguments.dropFirst().filter { !$0.hasPrefix("-") }
        if paths.isEmpty {
            FileHandle.standardError.write(Data("usage: \(CommandLine.arguments[0]) FILE|DIR… (built without libFuzzer: replays inputs)\n".utf8))
            exit(64)
        }
        var count = 0
        for path in paths {
            for file in files(at: path) {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                _ = data.withUnsafeBytes { raw in
                    testOneInput(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count)
                }
                count += 1
            }
        }
        print("\(count) input(s), no invariant broken")
        exit(0)
        #endif
    }

    static func files(at path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return [] }
        guard isDirectory.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().flatMap { files(at: path + "/" + $0) }
    }
}

#if SWITCHYARD_LIBFUZZER
/// libFuzzer's driver for programs with their own `main`.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ testOneInput: FuzzDriver.TestOneInput
) -> CInt
#endif
