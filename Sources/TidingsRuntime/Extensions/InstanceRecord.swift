import Synchronization
import TidingsBase
import TidingsManifest
import TidingsRegistry

/// One extension instance as the runtime holds it: the context host
/// functions change, and the instance itself, created on first use.
///
/// Every call into the instance happens under its lock, which is how the
/// ABI's rule "an instance is called from one thread at a time" is kept.
final class InstanceRecord: Sendable {
    /// What the host functions change.
    let context: InstanceContext
    /// Where the route led: the bundle and its manifest, shared with every
    /// other instance of the route.
    let target: RouteTarget
    /// The started extension that makes the instance.
    let started: StartedExtension
    /// How many hold the instance: each presentation that shows it, and each
    /// delivery, response or media tap under way with it. The host counts
    /// only under its own lock, where finding the instance and holding it
    /// are one step, and so are letting go of it and forgetting it: an
    /// instance nobody holds is forgotten, then destroyed, and never found again.
    let holds = Atomic<Int>(0)
    /// How many calls into the instance are under way; what the extension
    /// changes meanwhile is collected when the call returns.
    private let calls = Atomic<Int>(0)
    /// When the host looks at what the extension changed outside calls
    /// (`OutOfCallChanges`): at most once a frame.
    let looks = Mutex(LookSchedule())
    /// What front ends were told of the instance's presentations.
    private let told = Mutex(Told())
    /// The number (`DeliveredNotification.number`) of the delivery the
    /// instance was last given (`receive`); nil before its first.
    private let received = Mutex<UInt64?>(nil)

    /// What front ends were told of an instance's presentations: nothing
    /// until the interface it opened is told (`tellOpening`), and from then
    /// on nothing older than what they heard last.
    private struct Told {
        /// The revision of the state (`InstanceContext.State.revision`)
        /// drawn in the last presentation told.
        var revision = -1
        /// True once the interface the instance opened was told.
        var opened = false
        /// True when a presentation came to be told before the opening was,
        /// and was held back.
        var heldBack = false
    }

    /// What the lock guards.
    private struct Slot {
        /// The instance, once made.
        var made: MadeInstance?
        /// True once `destroy()` ran.
        var destroyed = false
    }

    /// An instance in a class, so that reaching it under the lock copies a
    /// reference rather than an existential.
    private final class MadeInstance: Sendable {
        /// The instance.
        let instance: any ExtensionInstance

        /// Boxes `instance`.
        init(_ instance: any ExtensionInstance) {
            self.instance = instance
        }
    }

    private let slot = Mutex(Slot())

    /// A record for an instance of `target`'s extension, made by `provider`
    /// on first use, whose host calls may come at `callRate` and whose
    /// changes of what shows at `viewChangeRate`, named by a handle of `contexts`.
    init(target: RouteTarget, provider: StartedExtension, callRate: CallRate?, viewChangeRate: CallRate?,
         in contexts: ContextRegistry) {
        self.target = target
        started = provider
        context = InstanceContext(extensionIdentifier: target.manifest.bundleIdentifier,
                                  mayOverrideTitle: target.manifest.overridesDefaultTitle,
                                  mayInteract: target.manifest.userInteractionEnabled,
                                  interface: target.bundle.interface, callRate: callRate,
                                  viewChangeRate: viewChangeRate, in: contexts)
    }

    /// Tells front ends, through `onEvent`, of `presentation`, the
    /// instance's, drawn from its state at `revision`, unless one drawn at
    /// that revision or later was told already, or `stillShown` (asked
    /// then) says it no longer shows: a call and a look that drew one after
    /// the other may come to tell in the other order, and what front ends
    /// hear last must be the latest. Before the interface the instance
    /// opened was told, it is held back (`tellOpening`).
    func tell(_ presentation: Presentation, drawnAt revision: Int, stillShown: () -> Bool,
              to onEvent: (@Sendable (HostEvent) -> Void)?) {
        told.withLock { told in
            guard told.opened else {
                told.heldBack = true
                return
            }
            guard revision > told.revision, stillShown() else { return }
            told.revision = revision
            onEvent?(.presentationChanged(presentation))
        }
    }

    /// Tells front ends of the interface the instance opened, drawn from its
    /// state at `revision`: `body` tells them, before any other presentation
    /// of the instance (front ends hear of a notification's delivery before
    /// its changes), and is told whether one was held back meanwhile, in
    /// which case it draws the interface anew, as it is now.
    func tellOpening(drawnAt revision: Int, _ body: (_ heldBack: Bool) -> Void) {
        told.withLock { told in
            let heldBack = told.heldBack
            told = Told(revision: max(told.revision, revision), opened: true)
            body(heldBack)
        }
    }

    /// True while a call into the instance is under way.
    var isInCall: Bool { calls.load(ordering: .relaxed) > 0 }

    /// The bundle's manifest.
    var manifest: Manifest { target.manifest }

    /// Calls `body` with the instance, creating it first when needed.
    /// - Throws: the creation failure; a destroyed record throws too.
    func call(_ body: (any ExtensionInstance) throws(Diagnostic) -> Void) throws(Diagnostic) {
        calls.add(1, ordering: .relaxed)
        defer { calls.subtract(1, ordering: .relaxed) }
        try slot.withLock { (slot: inout Slot) throws(Diagnostic) in
            guard !slot.destroyed else {
                throw .error(.instanceCreateFailed, "The instance of \(manifest.bundleIdentifier) was already destroyed.")
            }
            if let made = slot.made {
                try body(made.instance)
            } else {
                let made = MadeInstance(try started.provider.makeInstance(context: context))
                slot.made = made
                try body(made.instance)
            }
        }
    }

    /// Gives the instance `entry`'s notification (`didReceive`), creating
    /// it first when needed; from then on, until it is given another, it
    /// `hasReceived(entry)`.
    /// - Throws: the call's failure, or the creation's.
    func receive(_ entry: DeliveredNotification) throws(Diagnostic) {
        try call { (instance: any ExtensionInstance) throws(Diagnostic) in
            try instance.didReceive(entry.notification)
            // Under the call's lock: the last call to return is the last noted.
            received.withLock { $0 = entry.number }
        }
    }

    /// True when the delivery the instance was given last is `entry`: its
    /// view shows that notification.
    func hasReceived(_ entry: DeliveredNotification) -> Bool {
        received.withLock { $0 == entry.number }
    }

    /// Runs `body` while no call into the instance is under way (waiting for
    /// one to end), unless the record was destroyed; `body` must not call
    /// into the instance, nor destroy it.
    func whileIdle<Result>(_ body: () -> Result) -> Result? {
        slot.withLock { slot in slot.destroyed ? nil : body() }
    }

    /// Destroys the instance, if one was made, and retires the context's handle.
    func destroy() {
        slot.withLock { slot in
            slot.made?.instance.destroy()
            slot.made = nil
            slot.destroyed = true
        }
        context.close()
    }
}

/// A started extension's provider, in a class so that handing it around
/// costs a retain rather than an existential copy.
final class StartedExtension: Sendable {
    /// The provider.
    let provider: any ExtensionProvider

    /// Boxes `provider`.
    init(_ provider: any ExtensionProvider) {
        self.provider = provider
    }
}

/// The started extension of each bundle, or why it could not start; each
/// bundle is launched at most once per version (`BundleVersion`), for one host.
final class ProviderCache: Sendable {
    /// The host the extensions are launched for.
    private let host: HostEndpoint

    /// A cache of the extensions launched for `host`.
    init(for host: HostEndpoint) {
        self.host = host
    }

    /// One bundle's launch, once tried.
    private struct Launch {
        var result: Result<any ExtensionProvider, Diagnostic>
        /// The version it was launched from.
        var version: BundleVersion
    }

    private final class Entry: Sendable {
        let launch = Mutex<Launch?>(nil)
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// Forgets the launches that failed, so that they are tried again (the
    /// bundle may have been fixed: a library copied in full, say).
    func forgetFailures() {
        let all = entries.withLock { Array($0) }
        let failed = all.filter { _, entry in
            entry.launch.withLock { launch in
                if case .failure? = launch?.result { return true }
                return false
            }
        }.map(\.key)
        entries.withLock { entries in for path in failed { entries[path] = nil } }
    }

    /// Retires the extensions whose bundle `index` no longer has, or has in
    /// another version (its library replaced, its manifest or interface
    /// edited): each keeps nothing for later (no idle worker; see
    /// `ExtensionProvider.retire()`) and is forgotten, so that the bundle's
    /// next instance is launched from what is there now — unless it serves
    /// on (a library loaded in this process). Instances under way keep theirs.
    func retireChanged(in index: ExtensionIndex) {
        let bundles = Dictionary(index.bundles.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        let all = entries.withLock { Array($0) }
        let changed = all.compactMap { path, entry -> (String, any ExtensionProvider)? in
            guard let launch = entry.launch.withLock({ $0 }), case .success(let provider) = launch.result,
                  bundles[path].map({ BundleVersion(of: $0) }) != launch.version
            else { return nil }
            return (path, provider)
        }
        let forgotten = changed.filter { $0.1.retire() }.map(\.0)
        entries.withLock { entries in for path in forgotten { entries[path] = nil } }
    }

    /// The bundle's provider, launching it on first use.
    func provider(for bundle: ExtensionBundle, launcher: any ExtensionLauncher) throws(Diagnostic)
        -> any ExtensionProvider
    {
        let entry = entries.withLock { entries in
            if let entry = entries[bundle.path] { return entry }
            let entry = Entry()
            entries[bundle.path] = entry
            return entry
        }
        let result = entry.launch.withLock { launch in
            if let launch { return launch.result }
            // Read before the launch: a library replaced meanwhile is a new version at the next reload.
            let version = BundleVersion(of: bundle)
            let launched: Result<any ExtensionProvider, Diagnostic>
            do throws(Diagnostic) {
                launched = .success(try launcher.launch(bundle, for: host))
            } catch {
                launched = .failure(error)
            }
            launch = Launch(result: launched, version: version)
            return launched
        }
        return try result.get()
    }
}
