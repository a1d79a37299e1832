import TidingsBase

/// The hints of a presentation: how urgent it is, what it sounds like,
/// whether the server keeps it, and who sent it.
///
/// - `urgency` from the notification's interruption level: passive 0,
///   active and time-sensitive 1, critical 2 (1 when unknown); 2 for a
///   critical alert's sound (`UNNotificationSound.defaultCritical` and the
///   like) whatever its level.
/// - Quiet (delivered quietly, the app authorized provisionally: iOS lists it
///   without a banner or sound), and shown in the list only (an app in the
///   foreground chose `list` without `banner`): desktops have no list without
///   a banner, so it is shown with urgency 0, no sound and `transient` false
///   (kept in the server's history), and the degradation says so. A banner
///   not kept in the list (`banner` without `list`) is `transient`.
/// - `suppress-sound` unless a sound plays: the notification has a sound and
///   its presentation options hold `sound`. The sound plays as
///   `sound-name` "message-new-instant" (the freedesktop sound theme's name
///   for a message): "default" is that; a name that is an absolute path
///   plays that file (`sound-file`); another name is a sound in the app's
///   bundle, which the desktop does not have (a degradation).
/// - `desktop-entry` the app's identifier, `category` the category's identifier.
struct PresentationHints {
    /// The sound theme's name of the sound that plays.
    static let messageSound = "message-new-instant"

    /// The hints.
    private(set) var hints: [String: BusValue] = [:]
    /// What the server cannot do of it.
    private(set) var degradations: [String] = []

    /// The hints of `presentation`, from `app`, for a server with `capabilities`.
    init(_ presentation: JSON, app: AppDisplay, capabilities: ServerCapabilities) {
        let attributes = presentation["attributes"]
        let options = Set((presentation["presentationOptions"]?.arrayValue ?? [.string("banner"), .string("list"),
                                                                               .string("sound"), .string("badge")])
            .prefix(16).compactMap(\.stringValue))
        let listOnly = options.contains("list") && !options.contains("banner")
        let quiet = presentation["quiet"]?.boolValue == true || listOnly

        let critical = attributes?["sound"]?["critical"]?.boolValue == true
        hints["urgency"] = .byte(quiet ? 0 : critical ? 2 : Self.urgency(attributes?["interruptionLevel"]?.stringValue))
        if quiet {
            hints["transient"] = .bool(false)
            degradations.append(Degradation.noQuietList)
        } else if options.contains("banner"), !options.contains("list") {
            hints["transient"] = .bool(true)
        }

        let sound = attributes?["sound"]?["name"]?.stringValue ?? ""
        if quiet || !options.contains("sound") || sound.isEmpty {
            hints["suppress-sound"] = .bool(true)
        } else {
            if sound.hasPrefix("/") {
                hints["sound-file"] = .string(sound)
            } else {
                hints["sound-name"] = .string(Self.messageSound)
                if sound != "default" { degradations.append(Degradation.customSound) }
            }
            if !capabilities.sound { degradations.append(Degradation.noSound) }
        }

        if let entry = DesktopText.name(app.identifier) { hints["desktop-entry"] = .string(entry) }
        if let category = DesktopText.name(presentation["category"]?["identifier"]?.stringValue) {
            hints["category"] = .string(category)
        }
    }

    /// Sets `image-path` to the image at the absolute `path`, as a `file://` URI.
    mutating func setImage(_ path: String?) {
        if let path { hints["image-path"] = .string(FileURL.url(of: path)) }
    }

    /// The urgency of an interruption level (`aps.interruption-level`'s spelling, or Apple's `timeSensitive`).
    private static func urgency(_ level: String?) -> UInt8 {
        switch level {
        case "passive": 0
        case "critical": 2
        default: 1
        }
    }
}
