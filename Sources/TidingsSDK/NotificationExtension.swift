/// What every notification extension is: an object the host makes per
/// presented notification (content) or per incoming request (service),
/// with a context to talk back through.
public protocol NotificationExtension: AnyObject {
    /// Makes an instance; `context` is how it changes what is shown.
    init(context: NotificationExtensionContext)
}

/// A content extension: draws the custom view of notifications of the
/// categories its manifest declares (UNNotificationContentExtension).
///
/// The host makes an instance when a notification's expanded interface
/// opens, releases it when the interface closes, and calls it from one
/// thread at a time.
public protocol NotificationContentExtension: NotificationExtension {
    /// Fills the view for `notification` (`didReceive(_:)`). Called again when
    /// a new notification of the same thread arrives while the view shows.
    func didReceive(_ notification: DeliveredNotification)
}

/// A content extension that handles the user's responses itself
/// (`didReceive(_:completionHandler:)`). Without it, responses go straight
/// to the app.
public protocol NotificationResponseHandling: NotificationContentExtension {
    /// Handles `response`; must call `completion` exactly once, from any
    /// thread, before the host's deadline.
    func didReceive(_ response: NotificationResponse,
                    completionHandler completion: @escaping @Sendable (ContentExtensionResponseOption) -> Void)
}

/// A content extension that plays media when the user taps its media button
/// (`mediaPlay()` / `mediaPause()`).
public protocol NotificationMediaHandling: NotificationContentExtension {
    /// The user tapped play.
    func mediaPlay()
    /// The user tapped pause.
    func mediaPause()
}

/// A content extension whose view's buttons and text fields take the
/// user's input (iOS 12's interactive notifications: controls that work
/// when the manifest sets UNNotificationExtensionUserInteractionEnabled), and
/// which may ask for text with its own input view
/// (`NotificationExtensionContext.requestTextInput`). Its events arrive
/// through the `tidings.element-events/1` interface, from a host that
/// offers interactive elements, and only with that manifest key.
public protocol NotificationElementHandling: NotificationContentExtension {
    /// The user tapped the button `element`.
    func didTapButton(_ element: String)
    /// The user submitted `text` in the text field `element`, which now holds it.
    func didSubmitText(_ text: String, in element: String)
    /// The user answered the text-input request with `text`; the request is gone.
    func didReceiveTextInput(_ text: String)
}

extension NotificationElementHandling {
    /// By default a tap changes nothing.
    public func didTapButton(_ element: String) {}
    /// By default a submission changes nothing.
    public func didSubmitText(_ text: String, in element: String) {}
    /// By default the answer changes nothing.
    public func didReceiveTextInput(_ text: String) {}
}

/// A service extension: rewrites an incoming remote notification (with
/// `mutable-content` and alert text) before it is shown
/// (UNNotificationServiceExtension).
public protocol NotificationServiceExtension: NotificationExtension {
    /// Changes `request`'s content and hands the result to `contentHandler`,
    /// once, from any thread, before the deadline. Content without alert text
    /// is ignored and the original is shown.
    func didReceive(_ request: DeliveredNotification,
                    withContentHandler contentHandler: @escaping @Sendable (NotificationContent) -> Void)

    /// The deadline has passed: hand the best attempt to the content handler
    /// now, or the original content is shown. Called on another thread.
    func serviceExtensionTimeWillExpire()
}

extension NotificationServiceExtension {
    /// By default nothing is done, and the original content is shown.
    public func serviceExtensionTimeWillExpire() {}
}

/// An extension that offers the host named interfaces (tidings.h, "Named
/// interfaces"): capabilities the host asks for by id, those later
/// versions of Tidings define ("tidings.…/1") or your own
/// ("com.example.feature/1").
public protocol NotificationInterfaceProviding: NotificationExtension {
    /// The interface named `id` ("name/major"): a pointer to its C struct,
    /// which begins with `uint32_t struct_size` and must stay valid and
    /// unchanged for the life of the process; nil when the extension offers
    /// none by that id. Asked once per id, from any thread, never twice at once.
    static func interface(_ id: String) -> UnsafeRawPointer?
}
