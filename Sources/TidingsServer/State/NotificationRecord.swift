import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// A delivered notification as the server's state keeps it: every field,
/// attachments with their place in the store, the trigger that delivered it,
/// so that it comes back after a restart exactly as it was delivered.
enum NotificationRecord {
    /// The notification as JSON.
    static func json(_ notification: UserNotification) -> JSON {
        let content = notification.content
        var members: [(String, JSON)] = [
            ("title", .string(content.title)), ("subtitle", .string(content.subtitle)), ("body", .string(content.body)),
            ("threadIdentifier", .string(content.threadIdentifier)),
            ("categoryIdentifier", .string(content.categoryIdentifier)),
            ("interruptionLevel", .integer(Int64(content.interruptionLevel.rawValue))),
            ("relevanceScore", .double(content.relevanceScore)), ("mutableContent", .bool(content.mutableContent)),
            ("userInfo", .object(content.userInfo)),
            ("attachments", .array(content.attachments.map(\.json))),
        ]
        if let badge = content.badge { members.append(("badge", .integer(badge))) }
        if let sound = content.sound { members.append(("sound", .string(sound))) }
        if let target = content.targetContentIdentifier { members.append(("targetContentIdentifier", .string(target))) }
        if content.criticalSound { members.append(("criticalSound", .bool(true))) }
        if let volume = content.soundVolume { members.append(("soundVolume", .double(volume))) }
        if !content.launchImageName.isEmpty { members.append(("launchImageName", .string(content.launchImageName))) }
        if !content.summaryArgument.isEmpty { members.append(("summaryArgument", .string(content.summaryArgument))) }
        if content.summaryArgumentCount != 0 {
            members.append(("summaryArgumentCount", .integer(Int64(content.summaryArgumentCount))))
        }
        if let criteria = content.filterCriteria { members.append(("filterCriteria", .string(criteria))) }
        if content.contentAvailable { members.append(("contentAvailable", .bool(true))) }
        if content.isLocal { members.append(("local", .bool(true))) }
        var record: [(String, JSON)] = [("identifier", .string(notification.identifier)), ("date", .double(notification.date)),
                                        ("content", .object(members))]
        if let trigger = notification.trigger { record.append(("trigger", trigger.json)) }
        if notification.late { record.append(("late", .bool(true))) }
        return .object(record)
    }

    /// The notification `json` holds; nil when it is not one this type wrote.
    /// A trigger that cannot be read is left out rather than the notification.
    static func notification(_ json: JSON) -> UserNotification? {
        var warnings: [Diagnostic] = []
        return notification(json, warnings: &warnings)
    }

    /// The notification `json` holds; nil when it is not one this type wrote
    /// (or its date lies outside `CheckedNumbers.dates`).
    /// A trigger that cannot be read is left out, with a warning in `warnings`,
    /// rather than the notification.
    static func notification(_ json: JSON, warnings: inout [Diagnostic]) -> UserNotification? {
        guard let identifier = json["identifier"]?.stringValue, let date = json["date"]?.doubleValue,
              CheckedNumbers.dates.contains(date), let fields = json["content"], let userInfo = fields["userInfo"]?.objectMembers,
              let level = fields["interruptionLevel"]?.integerValue.flatMap(Int32.init(exactly:)).flatMap(InterruptionLevel.init(rawValue:))
        else { return nil }
        var content = NotificationContent()
        content.title = fields["title"]?.stringValue ?? ""
        content.subtitle = fields["subtitle"]?.stringValue ?? ""
        content.body = fields["body"]?.stringValue ?? ""
        content.threadIdentifier = fields["threadIdentifier"]?.stringValue ?? ""
        content.categoryIdentifier = fields["categoryIdentifier"]?.stringValue ?? ""
        content.interruptionLevel = level
        content.relevanceScore = fields["relevanceScore"]?.doubleValue ?? 0
        content.mutableContent = fields["mutableContent"]?.boolValue ?? false
        content.userInfo = userInfo
        content.badge = fields["badge"]?.integerValue
        content.sound = fields["sound"]?.stringValue
        content.targetContentIdentifier = fields["targetContentIdentifier"]?.stringValue
        content.criticalSound = fields["criticalSound"]?.boolValue ?? false
        content.soundVolume = fields["soundVolume"]?.doubleValue
        content.launchImageName = fields["launchImageName"]?.stringValue ?? ""
        content.summaryArgument = fields["summaryArgument"]?.stringValue ?? ""
        content.summaryArgumentCount = fields["summaryArgumentCount"]?.integerValue.map { Int(clamping: $0) } ?? 0
        content.filterCriteria = fields["filterCriteria"]?.stringValue
        content.contentAvailable = fields["contentAvailable"]?.boolValue ?? false
        content.isLocal = fields["local"]?.boolValue ?? false
        for attachment in fields["attachments"]?.arrayValue ?? [] {
            guard let made = self.attachment(attachment) else { return nil }
            content.attachments.append(made)
        }
        var trigger: NotificationTrigger?
        if let kept = json["trigger"] {
            trigger = NotificationTrigger.read(kept, allowingPush: true).trigger
            if trigger == nil {
                warnings.append(.warning(.stateUnreadable,
                                         "The trigger of kept notification \"\(identifier)\" could not be read; the notification is kept without it."))
            }
        }
        return UserNotification(identifier: identifier, date: date, content: content, trigger: trigger,
                                late: json["late"]?.boolValue ?? false)
    }

    /// An attachment as `NotificationAttachment.json` gives it.
    private static func attachment(_ json: JSON) -> NotificationAttachment? {
        guard let identifier = json["identifier"]?.stringValue, let type = json["type"]?.stringValue,
              let url = json["url"]?.stringValue, url.hasPrefix("file://"), let path = FileURL.path(of: url)
        else { return nil }
        var thumbnail = ThumbnailOptions(hidden: json["thumbnailHidden"]?.boolValue ?? false,
                                         time: json["thumbnailTime"]?.doubleValue)
        if let rect = json["thumbnailClippingRect"], let x = rect["x"]?.doubleValue, let y = rect["y"]?.doubleValue,
           let width = rect["width"]?.doubleValue, let height = rect["height"]?.doubleValue {
            thumbnail.clippingRect = .init(x: x, y: y, width: width, height: height)
        }
        return NotificationAttachment(identifier: identifier, type: type, path: path,
                                      size: UInt64(clamping: json["size"]?.integerValue ?? 0), thumbnail: thumbnail)
    }
}
