import TidingsBase

/// What the host waits for from an extension, told to a front end as the
/// wait begins (`Configuration.onWait`), so that it can say what it waits
/// for rather than wait in silence: the extension, the call, and how long
/// until the host stops waiting.
package struct ExtensionWait: Sendable {
    /// The deadline the wait runs to, and so the setting that changes it.
    package enum Deadline: Sendable, Equatable {
        /// A response's completion: `Configuration.responseDeadline`.
        case response
        /// A service extension's content handler: `Configuration.serviceDeadline` (and its grace period).
        case service
    }

    /// The extension's bundle identifier.
    package var extensionIdentifier: String
    /// The call, in the ABI's words: "didReceive", "the service's didReceive", "didReceive of response \"accept\" and its completion".
    package var call: String
    /// The seconds until the host stops waiting; nil when the host sets no deadline of its own (a call runs to its end,
    /// or to the call timeout of the worker running it).
    package var seconds: Double?
    /// Which deadline, when there is one.
    package var deadline: Deadline?

    /// A wait on `extensionIdentifier`'s `call`, stopped after `seconds` by `deadline`.
    package init(extensionIdentifier: String, call: String, seconds: Double? = nil, deadline: Deadline? = nil) {
        self.extensionIdentifier = extensionIdentifier
        self.call = call
        self.seconds = seconds
        self.deadline = deadline
    }
}

/// Told of each wait as it begins; returns what to call once it ends.
package typealias ExtensionWaitObserver = @Sendable (ExtensionWait) -> (@Sendable () -> Void)
