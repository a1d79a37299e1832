import TidingsBase
import TidingsRegistry

/// Starts the extension of a bundle. The runtime asks once per bundle and
/// keeps the result (or the failure).
///
/// Two implementations are meant to exist: in this process
/// (`InProcessLauncher`) and in a worker process; the runtime cannot tell
/// them apart.
package protocol ExtensionLauncher: Sendable {
    /// Makes the bundle's extension ready to create instances.
    func launch(_ bundle: ExtensionBundle) throws(Diagnostic) -> any ExtensionProvider
}

/// A started extension, which makes instances.
package protocol ExtensionProvider: Sendable {
    /// True when the extension handles responses; when false they go straight to the app.
    var handlesResponses: Bool { get }
    /// True when the extension handles media play and pause.
    var handlesMedia: Bool { get }
    /// Creates an instance that reports through `context`.
    func makeInstance(context: InstanceContext) throws(Diagnostic) -> any ExtensionInstance
}

/// One instance of an extension (a view controller, or a service extension
/// object, on iOS).
///
/// The runtime calls an instance from one thread at a time and never after
/// `destroy()`.
package protocol ExtensionInstance: Sendable {
    /// `didReceive(_:)`: fill the view for `notification`.
    func didReceive(_ notification: UserNotification)
    /// `didReceive(_:completionHandler:)`; the answer arrives through the completion `token`.
    func didReceive(_ response: ResponseRequest, to notification: UserNotification, token: UInt64)
    /// A service extension's `didReceive(_:withContentHandler:)`; the
    /// rewritten content arrives through the completion `token`.
    func didReceive(request: UserNotification, token: UInt64)
    /// `serviceExtensionTimeWillExpire()`: the deadline has passed.
    func serviceExtensionTimeWillExpire()
    /// The user tapped play.
    func mediaPlay()
    /// The user tapped pause.
    func mediaPause()
    /// Frees the instance.
    func destroy()
}

/// The user's answer to a notification, before it reaches anyone.
package struct ResponseRequest: Sendable, Equatable {
    /// A custom action's identifier, `ActionIdentifier.default` or `ActionIdentifier.dismiss`.
    package var actionIdentifier: String
    /// What the user typed, for a text-input action.
    package var userText: String?

    package init(actionIdentifier: String, userText: String? = nil) {
        self.actionIdentifier = actionIdentifier
        self.userText = userText
    }
}

extension Diagnostic.Code {
    /// The extension's create function returned NULL.
    package static let instanceCreateFailed = Self("extension.create-failed")
}
