import Glibc

// libFuzzer's entry points. The binary is linked with libFuzzer
// (`-sanitize=fuzzer`). SwiftPM names an executable's entry point after its
// module and links `main` to it, so `tidings_fuzz_main` hands the process to
// libFuzzer's driver, which calls `LLVMFuzzerInitialize` once and then
// `LLVMFuzzerTestOneInput` for every input. libFuzzer ignores arguments that
// begin with `--`, so `--target=NAME` and `--write-seeds=DIR` are ours.

/// libFuzzer's driver: parses its flags, then runs `callback` on every input.
@_extern(c, "LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<Int32>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                     _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

/// The process's entry point (`main`, as SwiftPM links it): libFuzzer's driver.
@_cdecl("tidings_fuzz_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    var count = argc
    var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return runFuzzerDriver(&count, &arguments, fuzzerTestOneInput)
}

/// The target this process fuzzes, named by `--target=NAME`.
private let selected: FuzzTarget = {
    let name = argument("--target=")
    guard let name, let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        var line = "tidings-fuzz: \(name.map { "no target is named \($0)" } ?? "no --target=NAME") (targets: \(names))\n"
        line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
        exit(64)
    }
    return target
}()

/// The value of the argument `prefix`VALUE, if there is one.
private func argument(_ prefix: String) -> String? {
    CommandLine.arguments.first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
}

/// Called by libFuzzer before the first input: writes the seed corpus and
/// exits when asked to (`--write-seeds=DIR`, run from the repository's
/// root), else checks that `--target=NAME` names a target.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<Int32>,
                             _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> Int32 {
    if let directory = argument("--write-seeds=") {
        exit(Seeds.write(into: directory) ? 0 : 1)
    }
    _ = selected
    return 0
}

/// Called by libFuzzer with each input: runs the selected target's checks,
/// which trap when a property of the code under test does not hold.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    selected.check(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
