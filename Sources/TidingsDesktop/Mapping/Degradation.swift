/// What a notification server could not show of a presentation: one plain
/// sentence each, stable (front ends log each kind once; tests compare them).
enum Degradation {
    /// The server has no `actions` capability.
    static let noActions = "this server shows no actions: respond through another client of `tidings serve` (notifications.respond)"
    /// The authorization prompt on a server without `actions`.
    static let noActionsToDecide = "this server shows no actions: decide with `tidings apps allow` or `tidings apps deny`"
    /// A text-input action on a server without `inline-reply`.
    static let noInlineReply =
        "this server takes no inline reply: a text-input action opens the interface's window (tidings show), with the action's field to type in"
    /// A second text-input action: a notification takes one inline reply.
    static let oneInlineReply = "this server takes one inline reply per notification: further text-input actions are left out"
    /// More actions than a notification offers.
    static let tooManyActions = "a notification offers at most \(ActionTable.actionLimit) actions: the rest are left out"
    /// An action whose identifier is no name (empty, huge, with control characters) or already a key.
    static let actionKeyTaken = "an action whose identifier is empty, malformed or another key is left out"
    /// The server has no `body` capability.
    static let noBody = "this server shows no body: only the summary is shown"
    /// The expanded view has titles and the server has no `body-markup`.
    static let noMarkup = "this server shows no body markup: the view's titles are plain text"
    /// The view's first image is not bound to a file.
    static let imageNotFile = "the view's image is not a file this server can show"
    /// The view has more than one image and the server shows none in the body.
    static let noBodyImages = "this server shows no images in the body: the view's other images are left out"
    /// The view has buttons or text fields.
    static let noControls = "the view's buttons and text fields are not shown: use them through another client of `tidings serve` (notifications.interact)"
    /// The extension shows a media play/pause button.
    static let noMediaButton = "the view's media button is not shown: play or pause through another client of `tidings serve` (notifications.interact)"
    /// The extension asks for text (its `textInput`).
    static let noExtensionInput = "the extension's text input is not shown: type through another client of `tidings serve` (notifications.input)"
    /// The view is cut short: more elements than a notification shows.
    static let viewCut = "the view has more elements than a notification shows: the rest are left out"
    /// A sound would play and the server has no `sound` capability.
    static let noSound = "this server plays no sounds: the notification's sound is not played"
    /// A sound other than the default: it is in the app, not on the desktop.
    static let customSound = "the notification's own sound is not on this desktop: the desktop's message sound plays instead"
    /// Quiet or list-only: desktops have no list without a banner.
    static let noQuietList = "this desktop has no list without a banner: the notification is shown with low urgency and no sound"
    /// The authorization prompt on a server without `persistence`.
    static let promptMayExpire =
        "this server keeps no notifications: if the prompt goes away, decide with `tidings apps allow` or `tidings apps deny`"
}
