// A fixture of bundles in a temporary directory and the host events it
// collects, shared by the runtime's and the isolation layer's tests.
import Foundation
import TestSupport
import TidingsBase
import TidingsRegistry
import TidingsRuntime

/// Bundles in a temporary directory, indexed, with a host serving them.
package final class Fixture: @unchecked Sendable {
    package let directory = TemporaryDirectory("runtime")
    package let events = EventLog()

    package init() {}

    /// A host over everything installed so far.
    package func host(deadline: Double = 2) -> NotificationHost {
        var configuration = NotificationHost.Configuration()
        configuration.responseDeadline = deadline
        return host(configuration: configuration)
    }

    /// A host over everything installed so far, configured as given,
    /// starting extensions with `launcher` (in this process by default).
    package func host(configuration: NotificationHost.Configuration,
                      launcher: any ExtensionLauncher = InProcessLauncher()) -> NotificationHost {
        let events = self.events
        return NotificationHost(index: Discovery.scan(SearchPath(directories: [directory.path], origin: .option)),
                                configuration: configuration, launcher: launcher, onEvent: { events.append($0) })
    }

    /// Installs the EventInvite sample and registers nothing.
    package func installEventInvite() throws {
        try BundleMaker.installSample("EventInvite", in: directory.path)
    }

    /// Builds the C sample from source against the header alone and installs it.
    package func installBuildStatusFromSource() throws {
        let library = try CCompiler.sharedLibrary(Locations.repositoryFile("Plugins/BuildStatus/BuildStatus.c"),
                                                  output: directory.file("libBuildStatus.so"))
        let manifest = try String(contentsOfFile: Locations.repositoryFile("Manifests/BuildStatus.plist"), encoding: .utf8)
        try BundleMaker.make("BuildStatus", in: directory.path, manifest: manifest, library: library,
                             resources: [Locations.repositoryFile("Plugins/BuildStatus/MainInterface.json")])
    }

    /// Builds the misbehaving fixture and installs it for category "misbehave" of com.example.tests.
    @discardableResult
    package func installMisbehaving(overridesTitle: Bool = false) throws -> String {
        let library = try CCompiler.fixture("Misbehaving", into: directory.path, extraFlags: ["-pthread"])
        let interface = try directory.write("""
            {"version": 1, "root": {"type": "stack", "children": [
              {"type": "label", "id": "count"}, {"type": "label", "id": "instances"}]}}
            """, to: "MainInterface.json")
        let manifest = BundleMaker.contentManifest(identifier: "com.example.tests.misbehaving",
                                                   executable: "libMisbehaving.so", categories: ["misbehave"],
                                                   overridesTitle: overridesTitle, interface: "MainInterface")
        try BundleMaker.make("Misbehaving", in: directory.path, manifest: manifest, library: library,
                             resources: [interface])
        return library
    }

    /// Builds the Ledger fixture and installs it (`LedgerFixture` says for what).
    package func installLedger() throws {
        let library = try CCompiler.fixture("Ledger", into: directory.path)
        let interface = try directory.write(LedgerFixture.interface, to: "ledger/MainInterface.json")
        let manifest = BundleMaker.contentManifest(identifier: LedgerFixture.identifier, executable: "libLedger.so",
                                                   categories: [LedgerFixture.category], interface: "MainInterface")
        try BundleMaker.make("Ledger", in: directory.path, manifest: manifest, library: library, resources: [interface])
    }
}

/// Collects host events from any thread.
package final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [HostEvent] = []

    package init() {}

    package func append(_ event: HostEvent) { lock.locked { events.append(event) } }

    package var diagnostics: [Diagnostic] {
        lock.locked { events.map { if case .diagnostic(let diagnostic, _) = $0 { diagnostic } else { nil } }.compactMap { $0 } }
    }

    /// Every event so far.
    package var all: [HostEvent] { lock.locked { events } }

    /// The presentations pushed because an extension changed them on its own.
    package var presentations: [Presentation] {
        all.compactMap { if case .presentationChanged(let presentation) = $0 { presentation } else { nil } }
    }

    /// The dismissals: identifier and reason.
    package var dismissals: [(String, DismissReason)] {
        all.compactMap { if case let .dismissed(identifier, _, reason) = $0 { (identifier, reason) } else { nil } }
    }

    /// What the app received.
    package var forwarded: [ForwardedResponse] {
        all.compactMap { if case .forwarded(let response) = $0 { response } else { nil } }
    }

    /// The completions reported late: whose, and the diagnostic.
    package var lateCompletions: [(LateCompletion, Diagnostic)] {
        all.compactMap { if case let .lateCompletion(late, diagnostic) = $0 { (late, diagnostic) } else { nil } }
    }

    /// Waits up to `seconds` for `condition` to hold; false when it did not.
    package func wait(seconds: Double = 3, until condition: (EventLog) -> Bool) -> Bool {
        let deadline = MonotonicClock.deadline(after: seconds)
        while !condition(self) {
            if MonotonicClock.now() > deadline { return false }
            usleep(5_000)
        }
        return true
    }
}


extension NSLock {
    package func locked<T>(_ body: () -> T) -> T {
        lock()
        defer { unlock() }
        return body()
    }
}
