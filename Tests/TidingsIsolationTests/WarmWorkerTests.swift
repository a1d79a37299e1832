import Foundation
import RuntimeTestSupport
import Testing
import TestSupport
import TidingsBase
import TidingsIsolation
import TidingsProtocol
import TidingsRegistry
import TidingsRuntime

/// Warm workers (`WorkerPool`): a content extension's worker whose
/// interface closed serves the same bundle's next one, as iOS keeps an
/// extension's process across notifications. The Ledger fixture names each
/// instance "N@T", N counting instances in its process (a global): a reused
/// worker counts on, while nothing of the first notification's view reaches
/// the second.
@Suite struct WarmWorkerTests {
    let fixture = Fixture()
    static let app = LedgerFixture.app

    init() throws {
        try fixture.installLedger()
    }

    /// A host serving the Ledger fixture in workers kept warm as `pool` says; and its launcher.
    func host(pool: WorkerPoolSettings) -> (NotificationHost, WorkerLauncher) {
        var settings = IsolationMode.workerSettings
        settings.pool = pool
        let launcher = WorkerLauncher(settings: settings)
        let host = fixture.host(configuration: NotificationHost.Configuration(), launcher: launcher)
        host.register([NotificationCategory(identifier: LedgerFixture.category, actions: [
            NotificationAction(identifier: "keep", title: "Keep"),
        ])], for: Self.app)
        _ = host.deliver(notification("first", category: LedgerFixture.category, thread: "one"), to: Self.app)
        _ = host.deliver(notification("second", category: LedgerFixture.category, thread: "two"), to: Self.app)
        return (host, launcher)
    }

    /// The number the Ledger fixture gave the instance whose view is `presentation`'s ("N" of "N@T").
    func instanceNumber(_ presentation: Presentation) -> String? {
        presentation.view?.text(of: "instance")?.split(separator: "@").first.map(String.init)
    }

    @Test func aClosedInterfacesWorkerServesTheNextWithItsGlobalsButNoneOfItsView() throws {
        // One idle worker per bundle: the closed interface's pushes out the spare (surplus), and serves the next.
        let (host, launcher) = host(pool: WorkerPoolSettings(hostLimit: 4, bundleLimit: 1, idleTime: 600))
        let first = try host.respond(to: "first", with: ResponseRequest(actionIdentifier: "keep"))
        #expect(instanceNumber(first.presentation) == "1")
        #expect(first.presentation.view?.text(of: "response") == "first seen by \(first.presentation.view?.text(of: "instance") ?? "")")
        // The spare started when the pool ran empty is idle before the interface closes.
        #expect(eventually { launcher.idleWorkers.idle == 1 })
        _ = try host.close("first")
        // The spare, over the limit, ends after a moment (`WorkerPool.surplusGrace`) unless taken.
        #expect(eventually { launcher.idleWorkers.idle == 1 })
        #expect(launcher.idleWorkers.residentBytes > 0)
        let second = try host.open("second")
        #expect(second.diagnostics.isEmpty, "\(second.diagnostics)")
        // The same process (its global counted on), and a view of the second notification's alone.
        #expect(instanceNumber(second.presentation) == "2")
        #expect(second.presentation.view?.text(of: "received") == "second")
        #expect(second.presentation.view?.text(of: "response")?.isEmpty != false)
        let answered = try host.respond(to: "second", with: ResponseRequest(actionIdentifier: "keep"))
        #expect(answered.presentation.view?.text(of: "response")?.hasPrefix("second seen by 2@") == true)
    }

    @Test func withoutAPoolEachInterfaceStartsAWorkerOfItsOwn() throws {
        let (host, launcher) = host(pool: .off)
        let first = try host.open("first")
        #expect(instanceNumber(first.presentation) == "1")
        _ = try host.close("first")
        let second = try host.open("second")
        #expect(instanceNumber(second.presentation) == "1")
        #expect(launcher.idleWorkers.idle == 0)
    }

    @Test func theIdleTimeEndsIdleWorkers() throws {
        let (host, launcher) = host(pool: WorkerPoolSettings(hostLimit: 4, bundleLimit: 2, idleTime: 0.05))
        _ = try host.open("first")
        _ = try host.close("first")
        #expect(eventually { launcher.idleWorkers.idle == 0 })
        // The next open starts cold and still serves.
        let second = try host.open("second")
        #expect(second.presentation.view?.text(of: "received") == "second")
    }

    @Test func aBundlesIdleWorkerNeverServesAnotherBundle() throws {
        // A second bundle of the same library, for category "other": its worker keeps its own count.
        let interface = try fixture.directory.write(LedgerFixture.interface, to: "other/MainInterface.json")
        let library = try CCompiler.fixture("Ledger", into: fixture.directory.file("other"), output: "libOther.so")
        try BundleMaker.make("Other", in: fixture.directory.path, manifest: BundleMaker.contentManifest(
            identifier: "com.example.tests.other", executable: "libOther.so", categories: ["other"],
            interface: "MainInterface"), library: library, resources: [interface])
        let (host, launcher) = host(pool: WorkerPoolSettings(hostLimit: 4, bundleLimit: 1, idleTime: 600))
        host.register([NotificationCategory(identifier: "other", actions: [])], for: Self.app)
        _ = host.deliver(notification("third", category: "other", thread: "three"), to: Self.app)
        _ = try host.open("first")
        #expect(eventually { launcher.idleWorkers.idle == 1 })
        _ = try host.close("first")
        // The Ledger bundle's worker, with one instance made, is idle; the other bundle's first instance is its own.
        let third = try host.open("third")
        #expect(third.presentation.extensionIdentifier == "com.example.tests.other")
        #expect(instanceNumber(third.presentation) == "1")
        _ = try host.close("third")
        let second = try host.open("second")
        #expect(instanceNumber(second.presentation) == "2")
    }

    /// The build of the Ledger library an instance whose view is `presentation`'s ran ("B" of "N@T build B").
    func build(_ presentation: Presentation) -> String? {
        presentation.view?.text(of: "instance")?.components(separatedBy: " build ").dropFirst().first
    }

    /// Replaces the Ledger bundle with one whose library is build `build`, as
    /// `tidings install` does: assembled beside, the old one renamed away,
    /// the new one renamed into place.
    func install(build: String) throws {
        let staging = fixture.directory.file("staging-\(build)")
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        let library = try CCompiler.fixture("Ledger", into: staging, extraFlags: ["-DLEDGER_BUILD=\"\(build)\""])
        let interface = try fixture.directory.write(LedgerFixture.interface, to: "staging-\(build)/MainInterface.json")
        let manifest = BundleMaker.contentManifest(identifier: LedgerFixture.identifier, executable: "libLedger.so",
                                                   categories: [LedgerFixture.category], interface: "MainInterface")
        let staged = try BundleMaker.make("Ledger", in: staging, manifest: manifest, library: library, resources: [interface])
        let bundle = fixture.directory.file("Ledger.appex")
        try FileManager.default.moveItem(atPath: bundle, toPath: fixture.directory.file("Ledger-old-\(build).appex.removed"))
        try FileManager.default.moveItem(atPath: staged, toPath: bundle)
    }

    /// The host serves what is on disk now, as `tidings serve` does once its watcher saw a change.
    func reload(_ host: NotificationHost) {
        host.replaceIndex(with: Discovery.scan(SearchPath(directories: [fixture.directory.path], origin: .option)))
    }

    @Test func aReplacedBundleIsServedByItsNewVersionAndNoOldWorkerServesAgain() throws {
        try install(build: "1")
        let (host, launcher) = host(pool: WorkerPoolSettings(hostLimit: 4, bundleLimit: 2, idleTime: 600))
        // Warm: the closed interface's worker and the spare are idle; "second" keeps one busy across the install.
        let first = try host.open("first")
        #expect(build(first.presentation) == "1")
        _ = try host.close("first")
        #expect(eventually { launcher.idleWorkers.idle == 2 })
        let second = try host.open("second")
        #expect(build(second.presentation) == "1")
        #expect(launcher.idleWorkers.idle >= 1)
        try install(build: "2")
        reload(host)
        // The idle workers of build 1 ended with the reload; the busy one ends with its interface.
        #expect(launcher.idleWorkers.idle == 0)
        _ = try host.close("second")
        var builds: [String?] = []
        for round in 0..<20 {
            let identifier = "after-\(round)"
            _ = host.deliver(notification(identifier, category: LedgerFixture.category, thread: identifier), to: Self.app)
            let opened = try host.open(identifier)
            #expect(opened.presentation.view?.text(of: "received") == identifier, "\(opened.diagnostics)")
            builds.append(build(opened.presentation))
            _ = try host.close(identifier)
        }
        #expect(builds == Array(repeating: "2", count: 20))
        // A notification delivered before keeps the manifest it was routed by; its interface opens in a
        // worker of its own, which loads the library there is now.
        let reopened = try host.open("first")
        #expect(build(reopened.presentation) == "2")
    }

    @Test func anEditedManifestOrARemovedBundleEndsItsIdleWorkers() throws {
        let (host, launcher) = host(pool: WorkerPoolSettings(hostLimit: 4, bundleLimit: 2, idleTime: 600))
        _ = try host.open("first")
        _ = try host.close("first")
        #expect(eventually { launcher.idleWorkers.idle == 2 })
        // The same library, a manifest that says another version.
        let manifest = fixture.directory.file("Ledger.appex/Info.plist")
        let text = try String(contentsOfFile: manifest, encoding: .utf8)
        try text.replacingOccurrences(of: "<key>CFBundleIdentifier</key>",
                                      with: "<key>CFBundleShortVersionString</key><string>2.0</string><key>CFBundleIdentifier</key>")
            .write(toFile: manifest, atomically: true, encoding: .utf8)
        reload(host)
        #expect(launcher.idleWorkers.idle == 0)
        // The new version serves what is delivered from now on, and keeps its workers warm in turn.
        _ = host.deliver(notification("third", category: LedgerFixture.category, thread: "three"), to: Self.app)
        let third = try host.open("third")
        #expect(third.presentation.view?.text(of: "received") == "third")
        _ = try host.close("third")
        #expect(eventually { launcher.idleWorkers.idle > 0 })
        try FileManager.default.removeItem(atPath: fixture.directory.file("Ledger.appex"))
        reload(host)
        #expect(launcher.idleWorkers.idle == 0)
    }

    @Test func theLimitsBoundTheIdleWorkers() throws {
        let (host, launcher) = host(pool: WorkerPoolSettings(hostLimit: 1, bundleLimit: 1, idleTime: 600))
        _ = try host.open("first")
        _ = try host.close("first")
        _ = try host.open("second")
        _ = try host.close("second")
        // The worker over the limit is surplus: it ends after a moment unless an open takes it.
        #expect(eventually { launcher.idleWorkers.idle == 1 })
    }
}

/// The CPU time a worker has used, which decides whether it is kept warm.
@Suite struct ProcessCPUTimeTests {
    @Test func aProcessesCPUTimeIsReadAndAnEndedOnesIsNot() {
        var spent = 0.0
        for number in 0..<2_000_000 { spent += Double(number % 7) }
        #expect(spent > 0)
        #expect((ProcessStatus.cpuSeconds(of: "self") ?? -1) > 0)
        #expect(ProcessStatus.cpuSeconds(of: "999999999") == nil)
    }
}
