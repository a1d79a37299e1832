/// A file shown with a notification (`UNNotificationAttachment`).
///
/// Its thumbnail options are Apple's options keys as members: the desktop
/// front end shows an image attachment as the notification's image (the
/// `image-path` hint), which is the thumbnail, so ``thumbnailHidden`` sends
/// none. ``thumbnailClippingRect`` is carried to front ends and the
/// notification's content extension; the desktop's servers take a whole
/// image file, so the desktop shows the whole image. `ThumbnailTimeKey` is
/// absent: front ends show still images only (a video is not thumbnailed).
public struct NotificationAttachment: Sendable, Hashable {
    /// The part of an image its thumbnail shows
    /// (`UNNotificationAttachmentOptionsThumbnailClippingRectKey`), in unit
    /// coordinates: each of `x`, `y`, `width` and `height` in 0…1 of the
    /// image's size, from its top left corner.
    public struct ClippingRect: Sendable, Hashable {
        /// The left edge.
        public var x: Double
        /// The top edge.
        public var y: Double
        /// The width.
        public var width: Double
        /// The height.
        public var height: Double

        /// The rectangle at `x`, `y` of `width` by `height`, each in 0…1.
        public init(x: Double, y: Double, width: Double, height: Double) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    /// Its identifier, unique within the notification.
    public var identifier: String
    /// The file: a path or a `file://` URL. A request's file is moved into the
    /// host's store as iOS moves it; a delivered notification's is the store's copy.
    public var url: String
    /// Its type (a uniform type identifier such as `public.jpeg`), when known
    /// (`UNNotificationAttachmentOptionsTypeHintKey`).
    public var type: String?
    /// Whether its thumbnail is hidden (`UNNotificationAttachmentOptionsThumbnailHiddenKey`):
    /// on the desktop, the image is not sent with the notification.
    public var thumbnailHidden: Bool
    /// The part of the image its thumbnail shows
    /// (`UNNotificationAttachmentOptionsThumbnailClippingRectKey`); nil for
    /// all of it. Carried; the desktop shows the whole image.
    public var thumbnailClippingRect: ClippingRect?

    /// An attachment of the file at `url` (a path or a `file://` URL), with
    /// its thumbnail options (`attachment(withIdentifier:url:options:)`).
    public init(identifier: String, url: String, type: String? = nil, thumbnailHidden: Bool = false,
                thumbnailClippingRect: ClippingRect? = nil) {
        self.identifier = identifier
        self.url = url
        self.type = type
        self.thumbnailHidden = thumbnailHidden
        self.thumbnailClippingRect = thumbnailClippingRect
    }

    /// As a request payload names it.
    var json: JSONValue {
        var members: [String: JSONValue] = ["identifier": .string(identifier),
                                            url.hasPrefix("file://") ? "url" : "path": .string(url)]
        if let type { members["typeHint"] = .string(type) }
        if thumbnailHidden { members["thumbnailHidden"] = .bool(true) }
        if let rect = thumbnailClippingRect {
            members["thumbnailClippingRect"] = .object(["x": .double(rect.x), "y": .double(rect.y),
                                                        "width": .double(rect.width), "height": .double(rect.height)])
        }
        return .object(members)
    }

    /// Reads an attachment as the host gives it (a delivered notification's,
    /// a pending request's).
    init(json attachment: JSONValue) {
        var rect: ClippingRect?
        if let clip = attachment["thumbnailClippingRect"], let x = clip["x"]?.doubleValue, let y = clip["y"]?.doubleValue,
           let width = clip["width"]?.doubleValue, let height = clip["height"]?.doubleValue {
            rect = ClippingRect(x: x, y: y, width: width, height: height)
        }
        self.init(identifier: attachment["identifier"]?.stringValue ?? "",
                  url: attachment["url"]?.stringValue ?? attachment["path"]?.stringValue ?? "",
                  type: attachment["type"]?.stringValue ?? attachment["typeHint"]?.stringValue,
                  thumbnailHidden: attachment["thumbnailHidden"]?.boolValue ?? false, thumbnailClippingRect: rect)
    }
}

/// How strongly a notification interrupts (`UNNotificationInterruptionLevel`).
public enum InterruptionLevel: String, Sendable, Hashable {
    /// Delivered quietly, not lighting the screen.
    case passive
    /// The usual level.
    case active
    /// Breaks through Focus.
    case timeSensitive = "time-sensitive"
    /// Breaks through Focus and the ring switch.
    case critical
}

/// What a notification says (`UNMutableNotificationContent`).
public struct NotificationContent: Sendable, Hashable {
    /// The title.
    public var title = ""
    /// The subtitle.
    public var subtitle = ""
    /// The body.
    public var body = ""
    /// The badge to set; nil leaves it as it is, 0 clears it.
    public var badge: Int?
    /// The sound it plays (``NotificationSound/default`` for the system's); nil for none.
    public var sound: NotificationSound?
    /// The category: which actions and which content extension.
    public var categoryIdentifier = ""
    /// The thread it is grouped in.
    public var threadIdentifier = ""
    /// The content in the app it brings forward.
    public var targetContentIdentifier: String?
    /// How strongly it interrupts.
    public var interruptionLevel = InterruptionLevel.active
    /// How it ranks in a summary, 0 – 1.
    public var relevanceScore = 0.0
    /// What the notification is about, in its group's summary
    /// ("… from Anna and 2 others"): the host's group summary names it.
    public var summaryArgument = ""
    /// How many items the notification stands for in its group's summary
    /// (3 new messages: 3); 0 counts it as one.
    public var summaryArgumentCount = 0
    /// The Focus filter it matches (`filterCriteria`); carried, not filtered on: desktops have no Focus filters.
    public var filterCriteria: String?
    /// The app's own data.
    public var userInfo: [String: JSONValue] = [:]
    /// Its files.
    public var attachments: [NotificationAttachment] = []

    /// Empty content, to fill in.
    public init() {}

    /// As `requests.add` and `notifications.deliver` take it in a request payload.
    var json: JSONValue {
        var members: [String: JSONValue] = [
            "title": .string(title), "subtitle": .string(subtitle), "body": .string(body),
            "categoryIdentifier": .string(categoryIdentifier), "threadIdentifier": .string(threadIdentifier),
            "interruptionLevel": .string(interruptionLevel.rawValue), "relevanceScore": .double(relevanceScore),
            "userInfo": .object(userInfo),
        ]
        if let badge { members["badge"] = .integer(Int64(badge)) }
        if let sound { members["sound"] = sound.json }
        if !summaryArgument.isEmpty { members["summaryArgument"] = .string(summaryArgument) }
        if summaryArgumentCount != 0 { members["summaryArgumentCount"] = .integer(Int64(summaryArgumentCount)) }
        if let filterCriteria { members["filterCriteria"] = .string(filterCriteria) }
        if let targetContentIdentifier { members["targetContentIdentifier"] = .string(targetContentIdentifier) }
        if !attachments.isEmpty { members["attachments"] = .array(attachments.map(\.json)) }
        return .object(members)
    }

    /// Reads content from a notification or a request's content as the host gives it.
    init(json: JSONValue) {
        title = json["title"]?.stringValue ?? ""
        subtitle = json["subtitle"]?.stringValue ?? ""
        body = json["body"]?.stringValue ?? ""
        badge = json["badge"]?.integerValue.map { Int($0) }
        sound = NotificationSound(json: json["sound"])
        // A delivered notification gives a critical sound beside its name.
        if let name = sound?.name, json["criticalSound"]?.boolValue == true {
            sound = NotificationSound(name: name, isCritical: true, volume: json["soundVolume"]?.doubleValue)
        }
        summaryArgument = json["summaryArgument"]?.stringValue ?? ""
        summaryArgumentCount = json["summaryArgumentCount"]?.integerValue.map { Int($0) } ?? 0
        filterCriteria = json["filterCriteria"]?.stringValue
        categoryIdentifier = json["categoryIdentifier"]?.stringValue ?? ""
        threadIdentifier = json["threadIdentifier"]?.stringValue ?? ""
        targetContentIdentifier = json["targetContentIdentifier"]?.stringValue
        interruptionLevel = json["interruptionLevel"]?.stringValue.flatMap(InterruptionLevel.init(rawValue:)) ?? .active
        relevanceScore = json["relevanceScore"]?.doubleValue ?? 0
        userInfo = json["userInfo"]?.objectValue ?? [:]
        attachments = (json["attachments"]?.arrayValue ?? []).map(NotificationAttachment.init(json:))
    }
}
