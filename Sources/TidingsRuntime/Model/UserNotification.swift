import Synchronization
import TidingsBase
import TidingsProtocol

/// A delivered notification: its request identifier, date and content
/// (UNNotification with its UNNotificationRequest).
///
/// A value, but its fields live in one storage object that copies share and
/// nobody changes, so that a copy (into the host's table of what is shown,
/// into a presentation) costs one retain. Setting a field gives the value a
/// storage object of its own.
///
/// What the host derives from a value for the ABI (`cLayout`) is kept in
/// the storage: made on first use, shared by the copies, and never seen by a
/// changed value, whose storage is new.
package struct UserNotification: Sendable, Equatable {
    /// The fields of a notification value and of its copies, never changed.
    private final class Storage: Sendable {
        /// The request identifier.
        let identifier: String
        /// Seconds since 1970-01-01 UTC.
        let date: Double
        /// What the notification says.
        let content: NotificationContent
        /// What delivered it; nil for a request delivered at once.
        let trigger: NotificationTrigger?
        /// A scheduled request that fired late: its time passed while the host was down or asleep.
        let late: Bool
        /// The C layout of these fields, once made.
        let cLayout = Mutex<CNotificationLayout?>(nil)

        /// Storage holding the given fields.
        init(identifier: String, date: Double, content: NotificationContent, trigger: NotificationTrigger?, late: Bool) {
            self.identifier = identifier
            self.date = date
            self.content = content
            self.trigger = trigger
            self.late = late
        }
    }

    /// The fields, shared with copies.
    private var storage: Storage

    /// The request identifier; a new notification with the same one replaces the old.
    package var identifier: String {
        get { storage.identifier }
        set { storage = Storage(identifier: newValue, date: storage.date, content: storage.content, trigger: storage.trigger, late: storage.late) }
    }

    /// When it was delivered, in seconds since 1970-01-01 UTC.
    package var date: Double {
        get { storage.date }
        set { storage = Storage(identifier: storage.identifier, date: newValue, content: storage.content, trigger: storage.trigger, late: storage.late) }
    }

    /// What it says.
    package var content: NotificationContent {
        get { storage.content }
        set { storage = Storage(identifier: storage.identifier, date: storage.date, content: newValue, trigger: storage.trigger, late: storage.late) }
    }

    /// What delivered it (UNNotificationRequest.trigger): the push of a
    /// remote notification, the trigger of a scheduled request; nil for a
    /// request delivered at once.
    package var trigger: NotificationTrigger? {
        get { storage.trigger }
        set { storage = Storage(identifier: storage.identifier, date: storage.date, content: storage.content, trigger: newValue,
                                late: storage.late) }
    }

    /// True when a scheduled request delivered it late: more than a second
    /// after its time, which passed while the host was down, the machine
    /// asleep, or the clock was set past it. False for one on time and for
    /// every notification delivered at once.
    package var late: Bool {
        get { storage.late }
        set { storage = Storage(identifier: storage.identifier, date: storage.date, content: storage.content, trigger: storage.trigger,
                                late: newValue) }
    }

    /// The content's attachments, read without copying the rest of the content.
    package var attachments: [NotificationAttachment] { storage.content.attachments }

    /// A notification of `identifier`, delivered at `date`, saying `content`, delivered by `trigger`, `late` or not.
    package init(identifier: String, date: Double, content: NotificationContent, trigger: NotificationTrigger? = nil,
                 late: Bool = false) {
        storage = Storage(identifier: identifier, date: date, content: content, trigger: trigger, late: late)
    }

    /// The notification as the ABI's C structs, made on the first use by this
    /// value or a copy of it and kept with them; safe from any thread (when
    /// two threads make it at once, both get the one kept).
    var cLayout: CNotificationLayout {
        if let layout = storage.cLayout.withLock({ $0 }) { return layout }
        let made = CNotificationLayout(identifier: storage.identifier, date: storage.date, content: storage.content,
                                       trigger: storage.trigger)
        return storage.cLayout.withLock { layout in
            if let layout { return layout }
            layout = made
            return made
        }
    }

    /// True when the identifiers, dates, contents, triggers and lateness are equal.
    package static func == (lhs: UserNotification, rhs: UserNotification) -> Bool {
        lhs.identifier == rhs.identifier && lhs.date == rhs.date && lhs.content == rhs.content && lhs.trigger == rhs.trigger
            && lhs.late == rhs.late
    }
}

/// What a notification says (UNNotificationContent).
package struct NotificationContent: Sendable, Equatable {
    package var title = ""
    package var subtitle = ""
    package var body = ""
    /// The badge number; nil leaves the badge as it is, 0 removes it.
    package var badge: Int64?
    /// The sound's name, "default" for the default sound; nil for silence.
    package var sound: String?
    /// The sound is critical (`aps.sound.critical` 1): it plays even when the device is muted.
    package var criticalSound = false
    /// A critical sound's volume, 0…1 (`aps.sound.volume`); nil for the system's.
    package var soundVolume: Double?
    /// The image shown while the app launches from the notification (`aps.alert.launch-image`); "" for none.
    package var launchImageName = ""
    /// What the notification adds to its category's summary format's `%@` (`aps.alert.summary-arg`); "" for none.
    package var summaryArgument = ""
    /// How many items the notification adds to its group's count, the summary format's `%u`
    /// (`aps.alert.summary-arg-count`); 0 counts as 1, as on iOS.
    package var summaryArgumentCount = 0
    /// The Focus filter criteria the notification matches (`aps.filter-criteria`); nil for none.
    package var filterCriteria: String?
    package var threadIdentifier = ""
    package var categoryIdentifier = ""
    package var targetContentIdentifier: String?
    package var interruptionLevel = InterruptionLevel.active
    /// Between 0 and 1.
    package var relevanceScore = 0.0
    /// `aps.mutable-content` is 1: a service extension may rewrite the
    /// notification before it is shown (when it also has alert text).
    package var mutableContent = false
    /// `aps.content-available` is 1: the app is woken to fetch content in the background.
    package var contentAvailable = false
    /// The notification came as a local request (an app scheduled it), not as
    /// an APNs payload: it never goes through a service extension.
    package var isLocal = false
    /// The userInfo dictionary, in the order the payload gave it.
    package var userInfo: [(String, JSON)] = []
    package var attachments: [NotificationAttachment] = []

    package init() {}

    /// True when the notification has alert text (title, subtitle or body).
    package var hasAlert: Bool {
        !title.isEmpty || !subtitle.isEmpty || !body.isEmpty
    }

    package static func == (lhs: NotificationContent, rhs: NotificationContent) -> Bool {
        lhs.title == rhs.title && lhs.subtitle == rhs.subtitle && lhs.body == rhs.body && lhs.badge == rhs.badge
            && lhs.sound == rhs.sound && lhs.threadIdentifier == rhs.threadIdentifier
            && lhs.categoryIdentifier == rhs.categoryIdentifier
            && lhs.targetContentIdentifier == rhs.targetContentIdentifier
            && lhs.interruptionLevel == rhs.interruptionLevel && lhs.relevanceScore == rhs.relevanceScore
            && lhs.mutableContent == rhs.mutableContent && lhs.criticalSound == rhs.criticalSound
            && lhs.soundVolume == rhs.soundVolume && lhs.launchImageName == rhs.launchImageName
            && lhs.summaryArgument == rhs.summaryArgument && lhs.summaryArgumentCount == rhs.summaryArgumentCount
            && lhs.filterCriteria == rhs.filterCriteria && lhs.contentAvailable == rhs.contentAvailable
            && lhs.isLocal == rhs.isLocal
            && JSON.object(lhs.userInfo) == JSON.object(rhs.userInfo) && lhs.attachments == rhs.attachments
    }
}

/// How urgently a notification asks for attention, with Apple's raw values.
package enum InterruptionLevel: Int32, Sendable, CaseIterable {
    case passive = 0
    case active = 1
    case timeSensitive = 2
    case critical = 3

    /// The spelling APNs uses in `aps.interruption-level`.
    package var payloadName: String {
        switch self {
        case .passive: "passive"
        case .active: "active"
        case .timeSensitive: "time-sensitive"
        case .critical: "critical"
        }
    }
}

/// A file attached to a notification (UNNotificationAttachment).
package struct NotificationAttachment: Sendable, Equatable {
    package var identifier: String
    /// The uniform type identifier, such as `public.png`; "" when unknown.
    package var type: String
    /// The file's absolute path.
    package var path: String
    /// The file's size in bytes; 0 when not known.
    package var size: UInt64
    /// How its thumbnail is shown.
    package var thumbnail: ThumbnailOptions

    package init(identifier: String, type: String, path: String, size: UInt64 = 0,
                 thumbnail: ThumbnailOptions = ThumbnailOptions()) {
        self.identifier = identifier
        self.type = type
        self.path = path
        self.size = size
        self.thumbnail = thumbnail
    }

    /// The `file://` URL of the file, percent-encoding what a URL path may not hold.
    package var url: String { FileURL.url(of: path) }
}

/// How an attachment's thumbnail is shown (UNNotificationAttachment's options).
package struct ThumbnailOptions: Sendable, Equatable {
    /// Hide the thumbnail.
    package var hidden: Bool
    /// The part shown, normalised to 0…1 (x, y, width, height); nil for the whole.
    package var clippingRect: ClippingRect?
    /// The moment of a video or animation shown, in seconds; nil for the default.
    package var time: Double?

    /// A rectangle normalised to the image: every value within 0…1.
    package struct ClippingRect: Sendable, Equatable {
        package var x: Double
        package var y: Double
        package var width: Double
        package var height: Double

        package init(x: Double, y: Double, width: Double, height: Double) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }

        /// True when the rectangle lies within the unit square and has a size.
        package var isNormalized: Bool {
            [x, y, width, height].allSatisfy { $0.isFinite && $0 >= 0 } && width > 0 && height > 0
                && x + width <= 1 && y + height <= 1
        }
    }

    package init(hidden: Bool = false, clippingRect: ClippingRect? = nil, time: Double? = nil) {
        self.hidden = hidden
        self.clippingRect = clippingRect
        self.time = time
    }
}
