/// The sound a notification plays (`UNNotificationSound`): the system's, a
/// named one, or a critical alert's.
///
/// On a desktop the system's sound is the sound theme's message sound
/// (`sound-name` "message-new-instant"), a name that is an absolute path
/// plays that file (`sound-file`), and another name, a sound in an iOS app's
/// bundle, plays the message sound instead (the front end says so). A
/// critical sound is shown with critical urgency (2). The volume is kept
/// but not played: freedesktop notifications have no volume.
public struct NotificationSound: Sendable, Hashable {
    /// The sound's name: `default` for the system's sound.
    public var name: String
    /// Whether it is a critical alert's sound, which plays through Do Not Disturb.
    public var isCritical: Bool
    /// A critical sound's volume, 0 – 1; nil for the system's.
    public var volume: Double?

    /// The sound `name`, critical when `isCritical`.
    init(name: String, isCritical: Bool, volume: Double?) {
        self.name = name
        self.isCritical = isCritical
        self.volume = volume
    }

    /// The sound named `name` (`init(named:)`): a file's absolute path on
    /// Linux; the name of a sound in the app's bundle on iOS.
    public init(named name: String) {
        self.init(name: name, isCritical: false, volume: nil)
    }

    /// The system's sound (`default`).
    public static let `default` = NotificationSound(name: "default", isCritical: false, volume: nil)

    /// The system's sound for critical alerts (`defaultCritical`): needs
    /// ``AuthorizationOptions/criticalAlert``.
    public static let defaultCritical = NotificationSound(name: "default", isCritical: true, volume: nil)

    /// The system's critical sound at `volume`, 0 – 1 (`defaultCriticalSound(withAudioVolume:)`).
    public static func defaultCriticalSound(withAudioVolume volume: Float) -> NotificationSound {
        NotificationSound(name: "default", isCritical: true, volume: Double(volume))
    }

    /// The critical sound `name` (`criticalSoundNamed(_:)`).
    public static func criticalSoundNamed(_ name: String) -> NotificationSound {
        NotificationSound(name: name, isCritical: true, volume: nil)
    }

    /// The critical sound `name` at `volume`, 0 – 1 (`criticalSoundNamed(_:withAudioVolume:)`).
    public static func criticalSoundNamed(_ name: String, withAudioVolume volume: Float) -> NotificationSound {
        NotificationSound(name: name, isCritical: true, volume: Double(volume))
    }

    /// As a request payload's `sound`: the name, or `{name, critical: 1, volume}`
    /// for a critical sound (APNs' spelling: the number 1).
    var json: JSONValue {
        guard isCritical else { return .string(name) }
        var members: [String: JSONValue] = ["name": .string(name), "critical": .integer(1)]
        if let volume { members["volume"] = .double(volume) }
        return .object(members)
    }

    /// The sound `json` names (a name, or `{name, critical, volume}`); nil for none.
    init?(json: JSONValue?) {
        if let name = json?.stringValue {
            self.init(named: name)
        } else if let name = json?["name"]?.stringValue {
            let critical = json?["critical"]?.boolValue ?? (json?["critical"]?.integerValue == 1)
            self.init(name: name, isCritical: critical, volume: json?["volume"]?.doubleValue)
        } else {
            return nil
        }
    }
}
