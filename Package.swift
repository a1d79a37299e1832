// swift-tools-version: 6.0
// Tidings: a Linux runtime for notification extensions.
// The package depends on no other package: Glibc, the Swift standard library
// and Swift Testing are enough.
import PackageDescription

let package = Package(
    name: "Tidings",
    products: [
        .executable(name: "tidings", targets: ["tidings"]),
        .executable(name: "tidings-benchmark", targets: ["TidingsBenchmark"]),
        .library(name: "TidingsSDK", targets: ["TidingsSDK"]),
        // What an app's own code imports: UNUserNotificationCenter's shape, over the protocol.
        .library(name: "TidingsApp", targets: ["TidingsApp"]),
        // A sample app built on TidingsApp.
        .executable(name: "tidings-reminders", targets: ["tidings-reminders"]),
        // A sample D-Bus app: com.example.events, which receives responses over org.freedesktop.Application.
        .executable(name: "tidings-events-app", targets: ["tidings-events-app"]),
        // Sample extensions: each one a shared library loaded by the host.
        .library(name: "EventInvite", type: .dynamic, targets: ["EventInvite"]),
        .library(name: "InviteService", type: .dynamic, targets: ["InviteService"]),
        .library(name: "BuildStatus", type: .dynamic, targets: ["BuildStatus"]),
        .library(name: "NoOp", type: .dynamic, targets: ["NoOp"]),
        // A test fixture: a Swift extension that logs the trigger it is given.
        .library(name: "TriggerReport", type: .dynamic, targets: ["TriggerReport"]),
    ],
    targets: [
        // 1. ABI: the C contract, header only (plus compile-time layout checks).
        .target(name: "TidingsABI"),
        // What Swift cannot call: variadic and undeclared system calls, CMSG
        // layout, seccomp, Landlock, and the sandboxed spawn (code that runs
        // between clone and execve). Private: no product exposes it.
        .target(name: "TidingsSystemShims"),
        // Shared plumbing below every layer: diagnostics, JSON, files, text,
        // and reading the ABI's sized structs.
        .target(name: "TidingsBase", dependencies: ["TidingsABI"]),
        // 2. Manifest: property lists, Info.plist model and validation, interface files.
        .target(name: "TidingsManifest", dependencies: ["TidingsBase"]),
        // 3. Registry: search path, bundle discovery, the (app, category) index.
        .target(name: "TidingsRegistry", dependencies: ["TidingsBase", "TidingsManifest"]),
        // 4. Loader: dlopen, the entry function, ABI negotiation.
        .target(name: "TidingsLoader", dependencies: ["TidingsABI", "TidingsBase"]),
        // Cryptography from the system's OpenSSL 3, libcrypto.so.3, opened
        // with dlopen at run time (not linked; never written by hand): SHA-256,
        // random bytes, P-256 keys and ECDH, HKDF-SHA-256, AES-128-GCM, and on
        // them RFC 8188's aes128gcm coding and RFC 8291's Web Push encryption;
        // its C declarations, header only, in TidingsCryptoShims.
        .target(name: "TidingsCryptoShims"),
        .target(name: "TidingsCrypto", dependencies: ["TidingsLoader", "TidingsCryptoShims"]),
        // 5. Runtime: presentations, instances, responses, deadlines (over
        // TidingsProtocol's wire model: triggers, date components, categories).
        .target(
            name: "TidingsRuntime",
            dependencies: ["TidingsABI", "TidingsBase", "TidingsProtocol", "TidingsManifest", "TidingsRegistry",
                           "TidingsLoader", "TidingsSystemShims"]
        ),
        // 5b. Isolation: extensions in sandboxed worker processes, behind the
        // runtime's launcher / provider / instance interface.
        .target(
            name: "TidingsIsolation",
            dependencies: ["TidingsABI", "TidingsBase", "TidingsProtocol", "TidingsManifest", "TidingsRegistry",
                           "TidingsLoader", "TidingsRuntime", "TidingsSystemShims", "TidingsCrypto"]
        ),
        // The protocol's one client side: the method and event names (the
        // server's method table takes them from here), the line-framed
        // JSON-RPC client over the wire JSON of TidingsBase (blocking,
        // polled and async adapters of one core), following events, and the
        // wire model the server and the app library share (triggers, date
        // components, categories), read with the server's checks.
        .target(name: "TidingsProtocol", dependencies: ["TidingsBase"]),
        // 6. Surfaces: the JSON-RPC server and the command line.
        .target(
            name: "TidingsServer",
            dependencies: ["TidingsBase", "TidingsProtocol", "TidingsManifest", "TidingsRegistry", "TidingsRuntime",
                           "TidingsSystemShims", "TidingsCrypto"]
        ),
        .executableTarget(
            name: "tidings",
            dependencies: ["TidingsBase", "TidingsProtocol", "TidingsManifest", "TidingsRegistry", "TidingsLoader",
                           "TidingsRuntime", "TidingsIsolation", "TidingsServer", "TidingsDesktop", "TidingsWindow"]
        ),
        // 7. SDK: what Swift extension authors import.
        .target(name: "TidingsSDK", dependencies: ["TidingsABI", "TidingsBase"]),
        // 8. App library: what an app's own code imports. Nothing of the runtime,
        // only the protocol: TidingsProtocol's client and the wire JSON of TidingsBase (Glibc, no Foundation).
        .target(name: "TidingsApp", dependencies: ["TidingsBase", "TidingsProtocol"]),
        // 9. Desktop: the Linux desktop front end's pieces. D-Bus through
        // libsystemd's sd-bus, opened with dlopen at run time (not linked);
        // its C declarations, header only, in TidingsDesktopShims.
        .target(name: "TidingsDesktopShims"),
        .target(name: "TidingsDesktop", dependencies: ["TidingsBase", "TidingsProtocol", "TidingsLoader", "TidingsCrypto", "TidingsDesktopShims"]),
        // The expanded interface's window (`tidings show`): GTK 4, opened with
        // dlopen at run time only when a window is asked for (not linked); its
        // C declarations, header only, in TidingsWindowShims.
        .target(name: "TidingsWindowShims"),
        .target(name: "TidingsWindow", dependencies: ["TidingsBase", "TidingsProtocol", "TidingsManifest", "TidingsLoader",
                                                      "TidingsDesktop", "TidingsWindowShims"]),
        // The sample app: reminders with "done" and "snooze".
        .executableTarget(name: "tidings-reminders", dependencies: ["TidingsApp"], path: "Sources/RemindersSample"),
        // The sample D-Bus app EventInvite's responses go to: com.example.events.
        .executableTarget(name: "tidings-events-app", dependencies: ["TidingsBase", "TidingsDesktop"],
                          path: "Sources/EventsAppSample"),

        // Benchmarks (release mode): swift run -c release tidings-benchmark
        .executableTarget(
            name: "TidingsBenchmark",
            dependencies: ["TidingsABI", "TidingsBase", "TidingsProtocol", "TidingsRegistry", "TidingsLoader",
                           "TidingsRuntime", "TidingsIsolation", "TidingsServer", "TidingsCrypto"]
        ),

        // Sample extensions.
        .target(
            name: "EventInvite",
            dependencies: ["TidingsSDK"],
            path: "Plugins/EventInvite",
            exclude: ["MainInterface.json", "Payloads"]
        ),
        .target(name: "InviteService", dependencies: ["TidingsSDK"], path: "Plugins/InviteService", exclude: ["Payloads"]),
        // C extensions have no public headers of their own: "." keeps SwiftPM from
        // expecting an include/ folder.
        .target(name: "BuildStatus", dependencies: ["TidingsABI"], path: "Plugins/BuildStatus",
                exclude: ["MainInterface.json", "Payloads"], publicHeadersPath: "."),
        .target(name: "NoOp", dependencies: ["TidingsABI"], path: "Plugins/NoOp", publicHeadersPath: "."),
        .target(name: "TriggerReport", dependencies: ["TidingsSDK"], path: "Tests/Fixtures/SwiftExtensions/TriggerReport"),

        // Tests.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .target(name: "RuntimeTestSupport", dependencies: ["TidingsRuntime", "TestSupport"],
                path: "Tests/RuntimeTestSupport"),
        // The tests' JSON-RPC client of `tidings serve`: a facade over TidingsProtocol's.
        .target(name: "ServerTestSupport", dependencies: ["TidingsBase", "TidingsProtocol", "TidingsServer", "TestSupport"],
                path: "Tests/ServerTestSupport"),
        .testTarget(name: "TidingsABITests", dependencies: ["TidingsRegistry", "TidingsRuntime", "TidingsProtocol", "TestSupport"]),
        .testTarget(name: "TidingsBaseTests", dependencies: ["TidingsBase", "TestSupport"]),
        .testTarget(name: "TidingsProtocolTests", dependencies: ["TidingsProtocol", "TidingsBase", "TestSupport"]),
        .testTarget(name: "TidingsManifestTests", dependencies: ["TidingsManifest", "TestSupport"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "TidingsRegistryTests", dependencies: ["TidingsRegistry", "TestSupport"]),
        .testTarget(name: "TidingsLoaderTests", dependencies: ["TidingsABI", "TidingsBase", "TidingsLoader", "TestSupport"]),
        .testTarget(name: "TidingsCryptoTests", dependencies: ["TidingsCrypto", "TestSupport"]),
        .testTarget(name: "TidingsRuntimeTests",
                    dependencies: ["TidingsRuntime", "TidingsProtocol", "TestSupport", "RuntimeTestSupport"]),
        .testTarget(name: "TidingsIsolationTests",
                    dependencies: ["TidingsIsolation", "TidingsRuntime", "TidingsProtocol", "TidingsRegistry", "TestSupport",
                                   "RuntimeTestSupport", "ServerTestSupport", "TidingsCrypto"]),
        .testTarget(name: "TidingsServerTests",
                    dependencies: ["TidingsServer", "TidingsRuntime", "TidingsProtocol", "TestSupport", "ServerTestSupport"]),
        .testTarget(name: "TidingsCommandLineTests", dependencies: ["TestSupport"]),
        // The end-to-end tests drive `tidings serve` with the server tests' JSON-RPC client.
        .testTarget(name: "TidingsDesktopTests", dependencies: ["TidingsDesktop", "TidingsBase", "TidingsProtocol", "TestSupport", "ServerTestSupport"]),
        .testTarget(name: "TidingsAppTests", dependencies: ["TidingsApp", "TidingsBase", "TidingsProtocol", "TidingsServer", "TestSupport",
                                                       "ServerTestSupport"]),
    ]
)

// Fuzzing: `Fuzz/run` builds the libFuzzer targets with TIDINGS_FUZZ=1 (and
// -sanitize=fuzzer,address). In the package itself, so that they reach its
// `package` declarations; only then, so that `swift build` and `swift test`
// never build them.
if Context.environment["TIDINGS_FUZZ"] == "1" {
    package.targets.append(.executableTarget(
        name: "tidings-fuzz",
        dependencies: ["TidingsABI", "TidingsBase", "TidingsProtocol", "TidingsManifest", "TidingsRegistry", "TidingsRuntime",
                       "TidingsIsolation", "TidingsServer"],
        path: "Fuzz/Sources",
        // No top-level code: Entry.swift defines the entry point, which calls
        // libFuzzer's driver, declared with @_extern(c).
        swiftSettings: [.unsafeFlags(["-parse-as-library"]), .enableExperimentalFeature("Extern")]
    ))
}
