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

    /// Installs the EventInvite sample and registers nothing; with
    /// `userInteraction` false, its manifest does not enable user interaction.
    package func installEventInvite(userInteraction: Bool = true) throws {
        let path = try BundleMaker.installSample("EventInvite", in: directory.path)
        guard !userInteraction else { return }
        let manifest = path + "/Info.plist"
        let enabled = "<key>UNNotificationExtensionUserInteractionEnabled</key>\n\t\t\t<true/>"
        let text = try String(contentsOfFile: manifest, encoding: .utf8)
        guard text.contains(enabled) else { throw FixtureProblem("the EventInvite manifest no longer enables user interaction as expected") }
        try text.replacingOccurrences(of: enabled, with: "<key>UNNotificationExtensionUserInteractionEnabled</key><false/>")
            .write(toFile: manifest, atomically: true, encoding: .utf8)
    }

    /// The interface of the Interactive fixture: a label "status", buttons
    /// "go", "ask", "stop" and a disabled "off", and a text field "note".
    package static let interactiveInterface = """
        {"version": 1, "root": {"type": "stack", "children": [
          {"type": "label", "id": "status"},
          {"type": "button", "id": "go", "title": "Go"},
          {"type": "button", "id": "ask", "title": "Ask"},
          {"type": "button", "id": "stop", "title": "Stop"},
          {"type": "button", "id": "off", "title": "Off", "enabled": false},
          {"type": "textField", "id": "note", "placeholder": "A note", "text": "draft"}]}}
        """

    /// Builds the Interactive fixture and installs it for category
    /// "interactive" of com.example.tests, its manifest enabling user
    /// interaction as `userInteraction` says.
    package func installInteractive(userInteraction: Bool = true) throws {
        let library = try CCompiler.fixture("Interactive", into: directory.path)
        let interface = try directory.write(Self.interactiveInterface, to: "interactive/MainInterface.json")
        let manifest = BundleMaker.contentManifest(identifier: "com.example.tests.interactive",
                                                   executable: "libInteractive.so", categories: ["interactive"],
                                                   interface: "MainInterface", userInteraction: userInteraction)
        try BundleMaker.make("Interactive", in: directory.path, manifest: manifest, library: library,
                             resources: [interface])
    }

    /// Builds the C sample from source against the header alone and installs it.
    package func installBuildStatusFromSource() throws {
        let library = try CCompiler.sharedLibrary(Locations.repositoryFile("Plugins/BuildStatus/BuildStatus.c"),
                                                  output: directory.file("libBuildStatus.so"))
        let manifest = try String(contentsOfFile: Locations.repositoryFile("Manifests/BuildStatus.plist"), encoding: .utf8)
        try BundleMaker.make("BuildStatus", in: directory.path, manifest: manifest, library: library,
                             resources: [Locations.repositoryFile("Plugins/BuildStatus/MainInterface.json")])
    }

    /// Builds the misbehaving fixture and installs it for category "misbehave"
    /// of com.example.tests; with `sharedWorker`, its opened interfaces share
    /// one worker (and its globals) in isolated mode.
    @discardableResult
    package func installMisbehaving(overridesTitle: Bool = false, sharedWorker: Bool = false) throws -> String {
        let library = try CCompiler.fixture("Misbehaving", into: directory.path, extraFlags: ["-pthread"])
        let interface = try directory.write("""
            {"version": 1, "root": {"type": "stack", "children": [
              {"type": "label", "id": "count"}, {"type": "label", "id": "instances"}]}}
            """, to: "MainInterface.json")
        let manifest = BundleMaker.contentManifest(identifier: "com.example.tests.misbehaving",
                                                   executable: "libMisbehaving.so", categories: ["misbehave"],
                                                   overridesTitle: overridesTitle, interface: "MainInterface",
                                                   sharedWorker: sharedWorker)
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

    /// Waits for `condition` to hold, for at most `seconds`; false when it did not.
    package func wait(seconds: Double = patience, until condition: (EventLog) -> Bool) -> Bool {
        eventually(within: seconds) { condition(self) }
    }
}


extension NSLock {
    package func locked<T>(_ body: () -> T) -> T {
        lock()
        defer { unlock() }
        return body()
    }
}

/// A fixture that cannot be set up as a test expects (a sample changed under it).
package struct FixtureProblem: Error, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}
