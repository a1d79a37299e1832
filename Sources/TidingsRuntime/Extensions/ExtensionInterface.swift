import TidingsBase
import TidingsProtocol
import TidingsRegistry

/// Starts the extension of a bundle. The runtime asks once per bundle and
/// keeps the result (or the failure).
///
/// Two implementations are meant to exist: in this process
/// (`InProcessLauncher`) and elsewhere (another process, as the isolation
/// layer runs it); the runtime cannot tell them apart.
package protocol ExtensionLauncher: Sendable {
    /// Makes the bundle's extension ready to create instances for `host`,
    /// whose table it is given and whose completions it answers.
    func launch(_ bundle: ExtensionBundle, for host: HostEndpoint) throws(Diagnostic) -> any ExtensionProvider
}

/// A started extension, which makes instances.
package protocol ExtensionProvider: Sendable {
    /// True when the extension handles responses; when false they go straight to the app.
    var handlesResponses: Bool { get }
    /// True when the extension handles media play and pause.
    var handlesMedia: Bool { get }
    /// True when the extension offers `tidings.element-events/1`: its view's events can reach it.
    var handlesElementEvents: Bool { get }
    /// Creates an instance that reports through `context`.
    func makeInstance(context: InstanceContext) throws(Diagnostic) -> any ExtensionInstance
    /// Tells the provider that its extension misused a completion token (the
    /// `CompletionCenter` decides: called twice, with an undefined option,
    /// through the wrong function, naming another instance; once per token),
    /// so that it counts as a fault where faults are counted. A completion
    /// that is late, or never comes, is no fault and never comes here. Also
    /// told of a bundle that keeps passing the attachment store's quota
    /// (`attachment.store-abuse`).
    func noteFault(_ diagnostic: Diagnostic)
    /// Tells the provider that its bundle was replaced or removed (the index
    /// changed): it keeps nothing for later instances — no idle worker, and
    /// none of its workers serves again once its instance ends — while the
    /// instances under way run to their end. True when a new provider is to
    /// serve the bundle from now on, loading what is there now; false when
    /// this one serves on.
    func retire() -> Bool
}

extension ExtensionProvider {
    /// Nothing: an extension in this process has no fault count.
    package func noteFault(_ diagnostic: Diagnostic) {}

    /// False: a library loaded in this process keeps its code (code cannot be
    /// unloaded), and the provider serves on.
    package func retire() -> Bool { false }
}

/// One instance of an extension (a view controller, or a service extension
/// object, on iOS).
///
/// The runtime calls an instance from one thread at a time and never after
/// `destroy()`. A call throws when it could not be made, or did not come
/// back: the extension, run elsewhere, ended (in this process, calls
/// never throw); the instance is then gone.
package protocol ExtensionInstance: Sendable {
    /// `didReceive(_:)`: fill the view for `notification`.
    func didReceive(_ notification: UserNotification) throws(Diagnostic)
    /// `didReceive(_:completionHandler:)`; the answer arrives through the
    /// completion `token` before `deadline` (monotonic nanoseconds).
    func didReceive(_ response: ResponseRequest, to notification: UserNotification, token: UInt64,
                    deadline: UInt64) throws(Diagnostic)
    /// A service extension's `didReceive(_:withContentHandler:)`; the
    /// rewritten content arrives through the completion `token` before
    /// `deadline` (monotonic nanoseconds: the deadline and its grace period).
    /// The call itself may last until then; time-will-expire may come from
    /// another thread while it runs.
    func didReceive(request: UserNotification, token: UInt64, deadline: UInt64) throws(Diagnostic)
    /// `serviceExtensionTimeWillExpire()`: the deadline has passed. It may
    /// come while `didReceive(request:…)` still runs, from another thread.
    func serviceExtensionTimeWillExpire() throws(Diagnostic)
    /// The user tapped play.
    func mediaPlay() throws(Diagnostic)
    /// The user tapped pause.
    func mediaPause() throws(Diagnostic)
    /// The user tapped a button, submitted a text field or answered a
    /// text-input request (`tidings.element-events/1`'s handle_event).
    func handle(_ event: ElementEvent) throws(Diagnostic)
    /// Frees the instance; it never fails, as an extension that ended elsewhere took its instances with it.
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
