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
    let context: InstanceContext
    let manifest: Manifest
    let provider: any ExtensionProvider
    /// How many of its host's presentations show this instance. The host
    /// changes it only under its own lock, so that retiring a presentation
    /// need not search all the others to know whether the instance is still used.
    let presentations = Atomic<Int>(0)

    private struct Slot {
        var instance: (any ExtensionInstance)?
        var destroyed = false
    }

    private let slot = Mutex(Slot())

    init(bundleManifest manifest: Manifest, interface: Interface?, provider: any ExtensionProvider) {
        self.manifest = manifest
        self.provider = provider
        context = InstanceContext(extensionIdentifier: manifest.bundleIdentifier,
                                  mayOverrideTitle: manifest.overridesDefaultTitle, interface: interface)
    }

    /// Calls `body` with the instance, creating it first when needed.
    /// - Throws: the creation failure; a destroyed record throws too.
    func call(_ body: (any ExtensionInstance) -> Void) throws(Diagnostic) {
        try slot.withLock { (slot: inout Slot) throws(Diagnostic) in
            guard !slot.destroyed else {
                throw .error(.instanceCreateFailed, "The instance of \(manifest.bundleIdentifier) was already destroyed.")
            }
            if slot.instance == nil {
                slot.instance = try provider.makeInstance(context: context)
            }
            body(slot.instance!)
        }
    }

    /// Destroys the instance, if one was made, and retires the context's handle.
    func destroy() {
        slot.withLock { slot in
            slot.instance?.destroy()
            slot.instance = nil
            slot.destroyed = true
        }
        context.close()
    }
}

/// The started extension of each bundle, or why it could not start; each
/// bundle is launched at most once.
final class ProviderCache: Sendable {
    private final class Entry: Sendable {
        let result = Mutex<Result<any ExtensionProvider, Diagnostic>?>(nil)
    }

    private let entries = Mutex<[String: Entry]>([:])

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
        let result = entry.result.withLock { result in
            if let result { return result }
            let launched: Result<any ExtensionProvider, Diagnostic>
            do throws(Diagnostic) {
                launched = .success(try launcher.launch(bundle))
            } catch {
                launched = .failure(error)
            }
            result = launched
            return launched
        }
        return try result.get()
    }
}
