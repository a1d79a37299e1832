// A launcher that counts every call the host makes into extension code,
// whichever launcher (in this process, or a worker) really starts it.
import Synchronization
import TidingsBase
import TidingsRegistry
import TidingsRuntime

/// Wraps a launcher and counts the host's calls into the extensions it
/// starts: launches (loading a library runs its entry function), instances
/// made and destroyed, notifications and responses received.
package final class CountingLauncher: ExtensionLauncher {
    /// The calls counted so far.
    package struct Counts: Sendable, Equatable {
        /// Bundles launched.
        package var launches = 0
        /// Instances made (view controllers created).
        package var instances = 0
        /// Instances destroyed.
        package var destroyed = 0
        /// `didReceive(notification)` calls, by the identifier received.
        package var notifications: [String] = []
        /// `didReceive(response)` calls, by action identifier.
        package var responses: [String] = []

        /// Instances made and not yet destroyed.
        package var live: Int { instances - destroyed }
        /// Every call into extension code counted.
        package var calls: Int { launches + instances + destroyed + notifications.count + responses.count }
    }

    private let inner: any ExtensionLauncher
    private let tally = Mutex(Counts())

    /// Counts the calls into what `inner` launches.
    package init(_ inner: any ExtensionLauncher) {
        self.inner = inner
    }

    /// The calls counted so far.
    package var counts: Counts { tally.withLock { $0 } }

    package func launch(_ bundle: ExtensionBundle, for host: HostEndpoint) throws(Diagnostic) -> any ExtensionProvider {
        tally.withLock { $0.launches += 1 }
        return Provider(try inner.launch(bundle, for: host), counting: self)
    }

    /// Adds to the counts.
    fileprivate func count(_ change: (inout Counts) -> Void) {
        tally.withLock { change(&$0) }
    }

    /// A provider whose instances are counted.
    private struct Provider: ExtensionProvider {
        let inner: any ExtensionProvider
        let launcher: CountingLauncher

        init(_ inner: any ExtensionProvider, counting launcher: CountingLauncher) {
            self.inner = inner
            self.launcher = launcher
        }

        var handlesResponses: Bool { inner.handlesResponses }
        var handlesMedia: Bool { inner.handlesMedia }
        var handlesElementEvents: Bool { inner.handlesElementEvents }

        func makeInstance(context: InstanceContext) throws(Diagnostic) -> any ExtensionInstance {
            launcher.count { $0.instances += 1 }
            return Instance(inner: try inner.makeInstance(context: context), launcher: launcher)
        }

        func noteFault(_ diagnostic: Diagnostic) { inner.noteFault(diagnostic) }

        func retire() -> Bool { inner.retire() }
    }

    /// An instance whose calls are counted.
    private struct Instance: ExtensionInstance {
        let inner: any ExtensionInstance
        let launcher: CountingLauncher

        func didReceive(_ notification: UserNotification) throws(Diagnostic) {
            launcher.count { $0.notifications.append(notification.identifier) }
            try inner.didReceive(notification)
        }

        func didReceive(_ response: ResponseRequest, to notification: UserNotification, token: UInt64,
                        deadline: UInt64) throws(Diagnostic) {
            launcher.count { $0.responses.append(response.actionIdentifier) }
            try inner.didReceive(response, to: notification, token: token, deadline: deadline)
        }

        func didReceive(request: UserNotification, token: UInt64, deadline: UInt64) throws(Diagnostic) {
            try inner.didReceive(request: request, token: token, deadline: deadline)
        }

        func serviceExtensionTimeWillExpire() throws(Diagnostic) { try inner.serviceExtensionTimeWillExpire() }
        func mediaPlay() throws(Diagnostic) { try inner.mediaPlay() }
        func mediaPause() throws(Diagnostic) { try inner.mediaPause() }
        func handle(_ event: ElementEvent) throws(Diagnostic) { try inner.handle(event) }

        func destroy() {
            launcher.count { $0.destroyed += 1 }
            inner.destroy()
        }
    }
}
