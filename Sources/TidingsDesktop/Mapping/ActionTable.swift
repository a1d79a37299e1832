import TidingsBase

/// A desktop notification's actions: the keys and labels Notify sends, what
/// each key means, and the hints an inline reply needs.
///
/// Keys are the presentation's action identifiers, so that what the server
/// reports back names the action itself. Four keys are the front end's:
/// `default` (the notification itself), `inline-reply` (the key KDE Plasma
/// and swaync take for the reply field, reported as NotificationReplied) and
/// `tidings.open` (open the expanded interface), and `tidings.settings` for
/// an app with its own notification settings; an action of the app's with
/// one of those identifiers, one already used, or one that is no name (empty,
/// huge, with control characters: `DesktopText.name`) is left out. An
/// action's options change nothing here: a server has one kind of button
/// (`destructive` has no colour, `authenticationRequired` no lock), and
/// `foreground` is for the response's delivery to the app.
///
/// Icons: on a server with `action-icons`, when an action of the
/// presentation has an icon (`systemImageName`, `templateImageName`), Notify
/// sends the `action-icons` hint, and the server reads every action key as
/// an icon name (the freedesktop specification's way: the label stays, for
/// accessibility). An action with an icon is then keyed by the icon's name
/// (`ActionIcon`), and the key is mapped back to the action when the server
/// reports it; one without, or whose icon's name is taken, keeps its
/// identifier; "Show More" and "Settings" get icon names of their own. On a
/// server without `action-icons` the actions are text.
struct ActionTable {
    /// The most actions of a presentation offered (iOS shows up to ten).
    static let actionLimit = 10
    /// The key of the inline reply.
    static let replyKey = "inline-reply"
    /// The key that opens the expanded interface.
    static let openKey = "tidings.open"
    /// The label of the action that opens the expanded interface.
    static let openLabel = "Show More"
    /// The key, and the response's action, of "Settings": the app's own
    /// notification settings (`openSettingsFor`).
    static let settingsKey = "tidings.settings"

    /// The key of "Show More" as an icon (where actions are icons).
    static let openIconKey = "view-fullscreen"
    /// The key of "Settings" as an icon (where actions are icons).
    static let settingsIconKey = "preferences-system"

    /// Notify's actions, in order.
    private(set) var actions: [DesktopNotification.Action] = []
    /// What each key means.
    private(set) var meanings: [String: DesktopAction] = [:]
    /// The inline reply's hints: `x-kde-reply-placeholder-text`,
    /// `x-kde-reply-submit-button-text`; `action-icons` when the keys are icon names.
    private(set) var hints: [String: BusValue] = [:]
    /// What the server cannot offer.
    private(set) var degradations: [String] = []

    /// An empty table.
    init() {}

    /// The actions of `presentation` on a server with `capabilities`: the
    /// default action ("Open"), the presentation's actions (its text-input
    /// action as the inline reply, where the server takes one), and "Show
    /// More" when a content extension can open an expanded interface not
    /// open yet, and "Settings" when the app has its own notification settings (`settings`).
    init(_ presentation: JSON, capabilities: ServerCapabilities, settings: Bool = false) {
        guard capabilities.actions else {
            degradations.append(Degradation.noActions)
            return
        }
        add(key: "default", label: "Open", meaning: .respond("default"))
        let listed = presentation["actions"]?.arrayValue ?? []
        let icons = capabilities.actionIcons && listed.prefix(Self.actionLimit).contains { ActionIcon.name(of: $0) != nil }
        if icons { hints["action-icons"] = .bool(true) }
        for action in listed.prefix(Self.actionLimit) { add(action, capabilities: capabilities, icons: icons) }
        if listed.count > Self.actionLimit { degradations.append(Degradation.tooManyActions) }
        if presentation["extension"]?.stringValue?.isEmpty == false, presentation["expanded"]?.boolValue != true,
           presentation["previewsHidden"]?.boolValue != true {
            add(key: icons ? Self.openIconKey : Self.openKey, label: Self.openLabel, meaning: .openInterface)
        }
        if settings {
            add(key: icons ? Self.settingsIconKey : Self.settingsKey, label: "Settings", meaning: .respond(Self.settingsKey))
        }
    }

    /// Offers `key` as `label`, meaning `meaning`; false (nothing offered) when the key is taken.
    @discardableResult
    mutating func add(key: String, label: String, meaning: DesktopAction) -> Bool {
        guard meanings[key] == nil else { return false }
        actions.append(DesktopNotification.Action(key: key, label: label))
        meanings[key] = meaning
        return true
    }

    /// Adds one action of the presentation (`identifier`, `title`,
    /// `textInput`, `icon`), keyed by its icon's name when `icons`.
    private mutating func add(_ action: JSON, capabilities: ServerCapabilities, icons: Bool) {
        guard let identifier = DesktopText.name(action["identifier"]?.stringValue),
              ![Self.replyKey, Self.openKey].contains(identifier), meanings[identifier] == nil else {
            degradations.append(Degradation.actionKeyTaken)
            return
        }
        let title = DesktopText.line(action["title"]?.stringValue ?? "", limit: DesktopText.labelLimit)
        let label = title.isEmpty ? DesktopText.line(identifier, limit: DesktopText.labelLimit) : title
        guard let input = action["textInput"], input.objectMembers != nil else {
            if icons, let icon = ActionIcon.name(of: action), !icon.hasPrefix("tidings."),
               ![Self.replyKey, Self.openIconKey, Self.settingsIconKey].contains(icon), add(key: icon, label: label, meaning: .respond(identifier)) {
                return
            }
            add(key: identifier, label: label, meaning: .respond(identifier))
            return
        }
        guard capabilities.inlineReply else {
            add(key: identifier, label: label + "…", meaning: .typeIn(identifier))
            degradations.append(Degradation.noInlineReply)
            return
        }
        guard add(key: Self.replyKey, label: label, meaning: .reply(identifier)) else {
            degradations.append(Degradation.oneInlineReply)
            return
        }
        let placeholder = DesktopText.line(input["placeholder"]?.stringValue ?? "", limit: DesktopText.labelLimit)
        let button = DesktopText.line(input["buttonTitle"]?.stringValue ?? "", limit: DesktopText.labelLimit)
        if !placeholder.isEmpty { hints["x-kde-reply-placeholder-text"] = .string(placeholder) }
        if !button.isEmpty { hints["x-kde-reply-submit-button-text"] = .string(button) }
    }
}
