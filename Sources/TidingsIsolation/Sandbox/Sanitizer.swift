import TidingsSystemShims

/// The sanitizer this build was compiled with (`swift build --sanitize=address`
/// or `thread`), if any. Its runtime lives in every process of the build,
/// workers included, and changes what a worker's limits measure: its shadow
/// memory, allocator and quarantine count against the worker's memory limit,
/// and its instrumentation against the CPU budget. The sandbox report says
/// so; tests that measure those limits know not to run (see Docs/contributing/testing.md,
/// "Sanitizers and fuzzing").
package enum Sanitizer: String, Sendable {
    /// `--sanitize=address`: memory errors.
    case address = "AddressSanitizer"
    /// `--sanitize=thread`: data races.
    case thread = "ThreadSanitizer"

    /// The sanitizer of this build, from how its C code was compiled.
    package static let current: Sanitizer? = switch tidings_sanitizer() {
    case Int32(TIDINGS_SANITIZER_ADDRESS.rawValue): .address
    case Int32(TIDINGS_SANITIZER_THREAD.rawValue): .thread
    default: nil
    }
}
