import TidingsABI
import TidingsBase
import TidingsLoader
import TidingsRuntime

/// The baseline: `tidings_noop_direct(instance, notification)` — the work of
/// NoOp's `did_receive_notification`, exported for this purpose — called
/// through its `dlsym` address on a notification marshalled once before the
/// loop. It is the cost of a plain C call through a pointer, measured in the
/// same loop as the runtime's operations.
enum DirectBaseline {
    /// The C type of `tidings_noop_direct`.
    private typealias DirectFunction = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<tidings_notification>?) -> Void

    /// Loads `library` (the NoOp bundle's copy, which the host also loads),
    /// makes a real instance through its descriptor, and measures the direct call.
    static func measure(library: String, notification: UserNotification,
                        timer: LoopTimer) throws(BenchmarkFailure) -> LoopResult {
        let loaded: LoadedExtension
        do {
            loaded = try ExtensionLoader.load(library, bundle: Path.directory(of: library),
                                              host: HostFunctions.table(callRate: .standard).pointer)
        } catch {
            throw BenchmarkFailure(error.message)
        }
        let opened: DynamicLibrary
        do {
            opened = try DynamicLibrary(opening: library)
        } catch {
            throw BenchmarkFailure(error.message)
        }
        guard let address = opened.address(of: "tidings_noop_direct") else {
            throw BenchmarkFailure("\(library) does not export tidings_noop_direct, the baseline's function.")
        }
        guard let instance = loaded.create(nil) else { throw BenchmarkFailure("NoOp's create returned NULL.") }
        defer { loaded.destroy(instance) }
        let direct = unsafeBitCast(address, to: DirectFunction.self)
        // Marshalled once, by the runtime's own code, before the loop.
        return CNotification.with(notification) { marshalled in
            timer.measure(Sink.opaque(LoopBenchmark(key: "baseline", title: "baseline: tidings_noop_direct via dlsym") {
                direct(instance, marshalled)
                return 1
            }))
        }
    }
}
