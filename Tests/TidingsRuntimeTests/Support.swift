import RuntimeTestSupport
import TestSupport
import TidingsBase
import TidingsRegistry
import TidingsRuntime

/// Bundles in a temporary directory, indexed, with a host serving them.
final class Fixture: @unchecked Sendable {
    let directory = TemporaryDirectory("runtime")
    let events = EventLog()

    /// A host over everything installed so far.
    func host(deadline: Double = 2) -> NotificationHost {
        var configuration = NotificationHost.Configuration()
        configuration.responseDeadline = deadline
        return host(configuration: configuration)
    }

    /// A host over everything installed so far, configured as given.
    func host(configuration: NotificationHost.Configuration) -> NotificationHost {
        let events = self.events
        return NotificationHost(index: Discovery.scan(SearchPath(directories: [directory.path], origin: .option)),
                                configuration: configuration, onEvent: { events.append($0) })
    }

    /// Installs the EventInvite sample and registers nothing.
    func installEventInvite() throws {
        try BundleMaker.installSample("EventInvite", in: directory.path)
    }

    /// Builds the C sample from source against the header alone and installs it.
    func installBuildStatusFromSource() throws {
        let library = try CCompiler.sharedLibrary(Locations.repositoryFile("Plugins/BuildStatus/BuildStatus.c"),
                                                  output: directory.file("libBuildStatus.so"))
        let manifest = try String(contentsOfFile: Locations.repositoryFile("Manifests/BuildStatus.plist"), encoding: .utf8)
        try BundleMaker.make("BuildStatus", in: directory.path, manifest: manifest, library: library,
                             resources: [Locations.repositoryFile("Plugins/BuildStatus/MainInterface.json")])
    }

    /// Builds the misbehaving fixture and installs it for category "misbehave" of com.example.tests.
    @discardableResult
    func installMisbehaving(overridesTitle: Bool = false) throws -> String {
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
}

/// Collects host events from any thread.
final class EventLog: @unchecked Sendable {
    private let lock = NSLockish()
    private var events: [HostEvent] = []

    func append(_ event: HostEvent) { lock.locked { events.append(event) } }

    var diagnostics: [Diagnostic] {
        lock.locked { events.map { if case .diagnostic(let diagnostic) = $0 { diagnostic } else { nil } }.compactMap { $0 } }
    }

    /// Every event so far.
    var all: [HostEvent] { lock.locked { events } }

    /// The presentations pushed because an extension changed them on its own.
    var presentations: [Presentation] {
        all.compactMap { if case .presentationChanged(let presentation) = $0 { presentation } else { nil } }
    }

    /// The dismissals: identifier and reason.
    var dismissals: [(String, DismissReason)] {
        all.compactMap { if case let .dismissed(identifier, _, reason) = $0 { (identifier, reason) } else { nil } }
    }

    /// What the app received.
    var forwarded: [ForwardedResponse] {
        all.compactMap { if case .forwarded(let response) = $0 { response } else { nil } }
    }

    /// Waits up to `seconds` for `condition` to hold; false when it did not.
    func wait(seconds: Double = 3, until condition: (EventLog) -> Bool) -> Bool {
        let deadline = MonotonicClock.deadline(after: seconds)
        while !condition(self) {
            if MonotonicClock.now() > deadline { return false }
            usleep(5_000)
        }
        return true
    }
}

import Foundation

private typealias NSLockish = NSLock

extension NSLock {
    func locked<T>(_ body: () -> T) -> T {
        lock()
        defer { unlock() }
        return body()
    }
}
