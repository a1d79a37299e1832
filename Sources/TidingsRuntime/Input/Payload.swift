import Glibc
import TidingsBase
import TidingsProtocol

/// Turns a payload file's JSON into a notification.
///
/// Two forms are accepted:
/// - an APNs payload: an `aps` dictionary (alert, badge, sound, thread-id,
///   category, …) with custom keys beside it; as on iOS, the whole payload
///   becomes `userInfo`;
/// - a request, as an app builds one locally: `identifier`, `date` and a
///   `content` object with UNNotificationContent's property names
///   (`title`, `body`, `categoryIdentifier`, `userInfo`, `attachments`, …).
package enum Payload {
    /// The outcome of decoding: the notification, the files it asks to
    /// attach, and warnings either way.
    package struct Reading: Sendable {
        /// The notification, without attachments: they become attachments
        /// only once the store has taken their files in.
        package var notification: UserNotification?
        /// The request's attachments, in order, to be admitted into the store.
        package var attachments: [AttachmentRequest]
        package var diagnostics: [Diagnostic]
    }

    /// The size APNs accepts for a payload, in bytes (5120 for VoIP).
    package static let defaultSizeLimit = 4096

    /// Decodes `json`. Relative attachment paths are taken from
    /// `baseDirectory` and must stay inside it; with no base directory,
    /// attachments must name absolute paths or file:// URLs.
    /// - Parameters:
    ///   - identifier: the request identifier for an APNs payload, which carries none;
    ///     generated when nil.
    ///   - strings: the app's localized strings, for `*-loc-key` (a key missing
    ///     from it stands for itself).
    package static func decode(_ json: JSON, file: String? = nil, baseDirectory: String? = ".",
                               identifier: String? = nil, strings: [String: String] = [:],
                               now: Double = currentTime()) -> Reading {
        var reader = PayloadReader(fields: JSONFieldReader(file: file, invalidCode: .payloadInvalid,
                                                           unknownMemberCode: .payloadUnknownKey),
                                   baseDirectory: baseDirectory, strings: strings)
        let notification: UserNotification?
        if json["aps"] != nil {
            notification = reader.remote(json, identifier: identifier ?? generateIdentifier(), date: now)
        } else if json["content"] != nil {
            notification = reader.request(json, identifier: identifier, now: now)
        } else {
            reader.fields.report(.error, .payloadUnrecognized,
                                 "The payload is neither an APNs payload (with \"aps\") nor a request (with \"content\").",
                                 at: [])
            notification = nil
        }
        return Reading(notification: reader.fields.failed ? nil : notification,
                       attachments: reader.fields.failed ? [] : reader.attachments,
                       diagnostics: reader.fields.diagnostics)
    }

    /// True when an APNs payload's alert names localization keys (`*-loc-key`),
    /// which need the app's strings.
    package static func usesLocalization(_ json: JSON) -> Bool {
        guard let alert = json["aps"]?["alert"]?.objectMembers else { return false }
        return alert.contains { $0.0.hasSuffix("loc-key") && $0.0 != "action-loc-key" }
    }

    /// Seconds since 1970, now. The corresponding C function is `clock_gettime(CLOCK_REALTIME)`.
    package static func currentTime() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// A random identifier in UUID form, for requests that carry none.
    package static func generateIdentifier() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        let hex = String(high, radix: 16, uppercase: true).leftPadded(to: 16, with: "0")
            + String(low, radix: 16, uppercase: true).leftPadded(to: 16, with: "0")
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4),
                     hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.joined(separator: "-")
    }
}

extension Diagnostic.Code {
    /// A payload member has the wrong type or value (a request's; a field of
    /// an APNs payload is ignored instead: payload.field-ignored).
    package static let payloadInvalid = Self("payload.invalid")
    /// The payload is neither an APNs payload nor a request.
    package static let payloadUnrecognized = Self("payload.unrecognized")
    /// A key the payload format does not define, usually a misspelling.
    package static let payloadUnknownKey = Self("payload.unknown-key")
    /// An APNs payload is larger than the size limit.
    package static let payloadTooLarge = Self("payload.too-large")
    /// A request with a trigger given to be delivered now: scheduling is `requests.add`.
    package static let payloadScheduled = Self("payload.scheduled")
}

private struct PayloadReader {
    var fields: JSONFieldReader
    let baseDirectory: String?
    let strings: [String: String]
    /// The attachments a request asks for.
    var attachments: [AttachmentRequest] = []

    static let apsKeys = [
        "alert", "badge", "sound", "thread-id", "category", "content-available", "mutable-content",
        "target-content-id", "interruption-level", "relevance-score", "filter-criteria", "stale-date",
        "timestamp", "event", "content-state", "dismissal-date", "attributes-type", "attributes",
    ]
    static let alertKeys = [
        "title", "subtitle", "body", "launch-image", "title-loc-key", "title-loc-args", "subtitle-loc-key",
        "subtitle-loc-args", "loc-key", "loc-args", "action-loc-key", "summary-arg", "summary-arg-count",
    ]
    /// A request's members; its `trigger` is read where requests are scheduled (a request
    /// delivered at once with one is refused before it is decoded: payload.scheduled).
    static let requestKeys = ["identifier", "date", "content", "trigger"]
    static let contentKeys = [
        "title", "subtitle", "body", "badge", "sound", "threadIdentifier", "categoryIdentifier",
        "targetContentIdentifier", "interruptionLevel", "relevanceScore", "userInfo", "attachments",
        "launchImageName", "summaryArgument", "summaryArgumentCount", "filterCriteria",
    ]

    // MARK: APNs

    mutating func remote(_ json: JSON, identifier: String, date: Double) -> UserNotification? {
        guard let payload = fields.object(json, at: []), let apsMembers = fields.object(json["aps"], at: ["aps"]) else {
            return nil
        }
        fields.checkMembers(apsMembers, allowed: Self.apsKeys, at: ["aps"])
        // A device ignores a field it cannot read and shows the rest: what is wrong from here on is a warning.
        let firstFieldProblem = fields.diagnostics.count
        defer { ignoreUnreadableFields(since: firstFieldProblem) }
        let aps = JSON.object(apsMembers)
        var content = NotificationContent()
        switch aps["alert"] {
        case .string(let body)?:
            content.body = body
        case let alert? where alert.objectMembers == nil:
            fields.report(.error, .payloadInvalid,
                          "\"alert\" must be a string (the body) or a dictionary; it is \(alert.typeDescription).",
                          at: ["aps", "alert"])
        case let alert?:
            if let members = fields.object(alert, at: ["aps", "alert"]) {
                fields.checkMembers(members, allowed: Self.alertKeys, at: ["aps", "alert"])
                content.title = localized(alert, text: "title", key: "title-loc-key", arguments: "title-loc-args") ?? ""
                content.subtitle =
                    localized(alert, text: "subtitle", key: "subtitle-loc-key", arguments: "subtitle-loc-args") ?? ""
                content.body = localized(alert, text: "body", key: "loc-key", arguments: "loc-args") ?? ""
                content.launchImageName = fields.string(alert["launch-image"], at: ["aps", "alert", "launch-image"]) ?? ""
                content.summaryArgument = fields.string(alert["summary-arg"], at: ["aps", "alert", "summary-arg"]) ?? ""
                content.summaryArgumentCount = summaryCount(alert["summary-arg-count"],
                                                            at: ["aps", "alert", "summary-arg-count"])
            }
        case nil:
            break
        }
        content.badge = fields.integer(aps["badge"], at: ["aps", "badge"])
        sound(aps["sound"], at: ["aps", "sound"], into: &content)
        content.threadIdentifier = fields.string(aps["thread-id"], at: ["aps", "thread-id"]) ?? ""
        content.categoryIdentifier = fields.string(aps["category"], at: ["aps", "category"]) ?? ""
        content.targetContentIdentifier = fields.string(aps["target-content-id"], at: ["aps", "target-content-id"])
        if let level = fields.string(aps["interruption-level"], at: ["aps", "interruption-level"]) {
            content.interruptionLevel = interruptionLevel(level, at: ["aps", "interruption-level"])
        }
        content.relevanceScore = fields.number(aps["relevance-score"], at: ["aps", "relevance-score"], in: 0...1) ?? 0
        content.filterCriteria = fields.string(aps["filter-criteria"], at: ["aps", "filter-criteria"])
        content.contentAvailable = flag(aps["content-available"], at: ["aps", "content-available"])
        content.mutableContent = flag(aps["mutable-content"], at: ["aps", "mutable-content"])
        content.userInfo = payload
        if !content.hasAlert && content.sound == nil && content.badge == nil && !content.contentAvailable {
            refuseEmpty("The payload's \"aps\" has no alert, sound, badge or content-available that a device can read, "
                            + "so there is nothing to deliver", at: ["aps"])
            return nil
        }
        // A remote notification's request has the push trigger (UNPushNotificationTrigger).
        return UserNotification(identifier: identifier, date: date, content: content, trigger: .push)
    }

    /// Makes each wrong-typed or out-of-range field found since the
    /// diagnostic at `start` a warning (`payload.field-ignored`): the field
    /// is left out and the rest delivered, as a device does with an APNs payload.
    mutating func ignoreUnreadableFields(since start: Int) {
        for index in fields.diagnostics.indices.dropFirst(start) {
            let problem = fields.diagnostics[index]
            guard problem.severity == .error, problem.code == .payloadInvalid else { continue }
            fields.diagnostics[index] = .warning(
                .payloadFieldIgnored,
                problem.message + " A device ignores the field and delivers the rest of the notification, and so does Tidings.",
                at: problem.location)
        }
    }

    /// Refuses a notification with nothing to show, sound or badge, as
    /// Apple does (notificationInvalidNoContent); `sentence` says what is missing.
    mutating func refuseEmpty(_ sentence: String, at path: [String]) {
        fields.report(.error, .notificationNoContent,
                      "\(sentence): Apple refuses it (Apple's error \(Payload.noContentAppleCode), UNErrorCodeNotificationInvalidNoContent).",
                      at: path)
    }

    /// The alert text, or the localized text of the key (the key itself when
    /// the app's strings lack it) with its arguments substituted for `%@` and `%n$@`.
    mutating func localized(_ alert: JSON, text: String, key: String, arguments: String) -> String? {
        if let value = fields.string(alert[text], at: ["aps", "alert", text]) { return value }
        guard let format = fields.string(alert[key], at: ["aps", "alert", key]) else { return nil }
        let values = (fields.array(alert[arguments], at: ["aps", "alert", arguments]) ?? []).map { argument in
            argument.stringValue ?? argument.serialized()
        }
        return LocalizedFormat.substitute(strings[format] ?? format, values)
    }

    /// Reads a sound at `path` into `content`: a name, or a dictionary of
    /// `name`, `critical` and `volume` (a critical alert's sound).
    mutating func sound(_ value: JSON?, at path: [String], into content: inout NotificationContent) {
        switch value {
        case nil: return
        case .string(let name)?: content.sound = name
        case .object(let members)?:
            fields.checkMembers(members, allowed: ["critical", "name", "volume"], at: path)
            content.criticalSound = flag(value?["critical"], at: path + ["critical"])
            content.soundVolume = fields.number(value?["volume"], at: path + ["volume"], in: 0...1)
            if value?["name"] == nil {
                fields.report(.warning, .payloadInvalid,
                              "The sound dictionary has no \"name\", so the notification is silent; use \"default\" for the default sound.",
                              at: path)
            }
            content.sound = fields.string(value?["name"], at: path + ["name"])
        case let other?:
            fields.report(.error, .payloadInvalid,
                          "\"sound\" must be a sound name or a dictionary; it is \(other.typeDescription).", at: path)
        }
    }

    /// A summary argument count: a whole number, at least 0; 0 when absent.
    mutating func summaryCount(_ value: JSON?, at path: [String]) -> Int {
        guard let value else { return 0 }
        guard let count = value.integerValue, count >= 0, count <= Int64(Int32.max) else {
            fields.report(.error, .payloadInvalid,
                          "\(fields.name(path)) must be a whole number of items, at least 0; it is \(value.serialized()).",
                          at: path)
            return 0
        }
        return Int(count)
    }

    /// A flag APNs writes as a number (`mutable-content`, `content-available`,
    /// a sound's `critical`): true for 1, false for 0 or no value.
    mutating func flag(_ value: JSON?, at path: [String]) -> Bool {
        guard let value else { return false }
        guard let number = value.integerValue, number == 0 || number == 1 else {
            fields.report(.error, .payloadInvalid,
                          "\(fields.name(path)) must be the number 1 (or 0); it is \(value.serialized()).", at: path)
            return false
        }
        return number == 1
    }

    mutating func interruptionLevel(_ name: String, at path: [String]) -> InterruptionLevel {
        let spellings = InterruptionLevel.allCases.map { ($0.payloadName, $0) } + [("timeSensitive", .timeSensitive)]
        if let level = spellings.first(where: { $0.0 == name })?.1 { return level }
        fields.report(.error, .payloadInvalid,
                      "\"\(name)\" is not an interruption level; use passive, active, time-sensitive or critical.", at: path)
        return .active
    }

    // MARK: Requests

    mutating func request(_ json: JSON, identifier: String?, now: Double) -> UserNotification? {
        guard let members = fields.object(json, at: []) else { return nil }
        fields.checkMembers(members, allowed: Self.requestKeys, at: [])
        let identifier = identifier ?? fields.string(json["identifier"], at: ["identifier"]) ?? Payload.generateIdentifier()
        if identifier.isEmpty {
            fields.report(.error, .payloadInvalid, "\"identifier\" is empty.", at: ["identifier"])
        }
        var date = now
        switch json["date"] {
        case .string(let text)?:
            if let parsed = ISO8601.parse(text) {
                date = parsed
            } else {
                fields.report(.error, .payloadInvalid,
                              "\"date\" must be ISO 8601 (2026-11-21T09:30:00Z) or seconds since 1970; it is \"\(text)\".",
                              at: ["date"])
            }
        case let value?:
            date = fields.date(value, at: ["date"]) ?? now
        case nil:
            break
        }
        guard let contentMembers = fields.object(json["content"], at: ["content"]) else { return nil }
        fields.checkMembers(contentMembers, allowed: Self.contentKeys, at: ["content"])
        let source = JSON.object(contentMembers)
        func at(_ key: String) -> [String] { ["content", key] }
        var content = NotificationContent()
        content.title = fields.string(source["title"], at: at("title")) ?? ""
        content.subtitle = fields.string(source["subtitle"], at: at("subtitle")) ?? ""
        content.body = fields.string(source["body"], at: at("body")) ?? ""
        content.badge = fields.integer(source["badge"], at: at("badge"))
        sound(source["sound"], at: at("sound"), into: &content)
        content.threadIdentifier = fields.string(source["threadIdentifier"], at: at("threadIdentifier")) ?? ""
        content.categoryIdentifier = fields.string(source["categoryIdentifier"], at: at("categoryIdentifier")) ?? ""
        content.targetContentIdentifier = fields.string(source["targetContentIdentifier"], at: at("targetContentIdentifier"))
        if let level = fields.string(source["interruptionLevel"], at: at("interruptionLevel")) {
            content.interruptionLevel = interruptionLevel(level, at: at("interruptionLevel"))
        }
        content.relevanceScore = fields.number(source["relevanceScore"], at: at("relevanceScore"), in: 0...1) ?? 0
        content.launchImageName = fields.string(source["launchImageName"], at: at("launchImageName")) ?? ""
        content.summaryArgument = fields.string(source["summaryArgument"], at: at("summaryArgument")) ?? ""
        content.summaryArgumentCount = summaryCount(source["summaryArgumentCount"], at: at("summaryArgumentCount"))
        content.filterCriteria = fields.string(source["filterCriteria"], at: at("filterCriteria"))
        content.isLocal = true
        content.userInfo = fields.object(source["userInfo"], at: at("userInfo")) ?? []
        for (position, element) in (fields.array(source["attachments"], at: at("attachments")) ?? []).enumerated() {
            let path = at("attachments") + ["\(position)"]
            guard let attachment = attachment(element, at: path) else { continue }
            if !attachment.identifier.isEmpty && attachments.contains(where: { $0.identifier == attachment.identifier }) {
                fields.report(.error, .payloadInvalid,
                              "Two attachments have the identifier \"\(attachment.identifier)\"; each needs its own.",
                              at: path + ["identifier"])
            }
            attachments.append(attachment)
        }
        if !content.hasAlert && content.sound == nil && content.badge == nil && attachments.isEmpty && !fields.failed {
            refuseEmpty("The request's content has no title, subtitle, body, sound, badge or attachment", at: ["content"])
            return nil
        }
        return UserNotification(identifier: identifier, date: date, content: content)
    }

    static let attachmentKeys = [
        "identifier", "path", "url", "typeHint", "thumbnailHidden", "thumbnailClippingRect", "thumbnailTime",
    ]
    /// Attachment keys of earlier versions, with their names now.
    static let renamedAttachmentKeys = ["type": "typeHint"]

    /// An attachment entry: the file (`path`, relative to the payload, or a
    /// `file://` `url`), its identifier, and UNNotificationAttachment's options.
    mutating func attachment(_ json: JSON, at path: [String]) -> AttachmentRequest? {
        guard let members = fields.object(json, at: path) else { return nil }
        fields.checkMembers(members.filter { Self.renamedAttachmentKeys[$0.0] == nil }, allowed: Self.attachmentKeys,
                            at: path)
        for (key, _) in members {
            guard let name = Self.renamedAttachmentKeys[key] else { continue }
            fields.report(.warning, .payloadUnknownKey,
                          "\"\(key)\" is not a member this format defines and is ignored; "
                              + "did you mean \"\(name)\", its new name?", at: path + [key])
        }
        let url = fields.string(json["url"], at: path + ["url"])
        let file = fields.string(json["path"], at: path + ["path"])
        if let url, !url.hasPrefix("file://") {
            fields.report(.error, .payloadInvalid,
                          "Attachment URLs must be file:// URLs (the host fetches nothing); \"\(url)\" is not one.",
                          at: path + ["url"])
            return nil
        }
        if url != nil && file != nil {
            fields.report(.error, .payloadInvalid, "An attachment takes a \"path\" or a \"url\", not both.", at: path)
            return nil
        }
        guard let location = url ?? file else {
            fields.report(.error, .payloadInvalid, "An attachment needs a \"path\" or a file:// \"url\".", at: path)
            return nil
        }
        var thumbnail = ThumbnailOptions()
        thumbnail.hidden = fields.bool(json["thumbnailHidden"], at: path + ["thumbnailHidden"]) ?? false
        thumbnail.time = fields.number(json["thumbnailTime"], at: path + ["thumbnailTime"], in: 0...86_400)
        if let rect = fields.object(json["thumbnailClippingRect"], at: path + ["thumbnailClippingRect"]) {
            thumbnail.clippingRect = clippingRect(JSON.object(rect), at: path + ["thumbnailClippingRect"])
        }
        return AttachmentRequest(identifier: fields.string(json["identifier"], at: path + ["identifier"]) ?? "",
                                 url: location, base: baseDirectory,
                                 typeHint: fields.string(json["typeHint"], at: path + ["typeHint"]),
                                 thumbnail: thumbnail, location: .init(file: fields.file, path: JSON.pointer(path)))
    }

    /// A thumbnail clipping rectangle `{"x", "y", "width", "height"}`, normalised to 0…1.
    mutating func clippingRect(_ json: JSON, at path: [String]) -> ThumbnailOptions.ClippingRect? {
        fields.checkMembers(json.objectMembers ?? [], allowed: ["x", "y", "width", "height"], at: path)
        let reported = fields.diagnostics.count
        let values = ["x", "y", "width", "height"].map { fields.number(json[$0], at: path + [$0], in: 0...1) }
        guard let x = values[0], let y = values[1], let width = values[2], let height = values[3] else {
            if fields.diagnostics.count == reported {
                fields.report(.error, .payloadInvalid, "A clipping rectangle needs \"x\", \"y\", \"width\" and \"height\".",
                              at: path)
            }
            return nil
        }
        let rect = ThumbnailOptions.ClippingRect(x: x, y: y, width: width, height: height)
        guard rect.isNormalized else {
            fields.report(.error, .payloadInvalid,
                          "The clipping rectangle must have a size and lie within the image (0…1): x + width and y + height at most 1.",
                          at: path)
            return nil
        }
        return rect
    }
}
