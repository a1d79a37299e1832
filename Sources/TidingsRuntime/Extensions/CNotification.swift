import TidingsABI
import TidingsProtocol

/// Hands a notification (and a response to it) to an extension as the ABI's
/// C structs.
///
/// The notification's structs and strings are laid out once per notification
/// value (`UserNotification.cLayout`) and kept with it, so that delivering
/// it again and every response to it reuse them; a response adds only its
/// own struct and strings. The pointers handed to `body` are valid only
/// inside it, as the ABI says ("borrowed for the duration of the call").
package enum CNotification {
    /// Calls `body` with the notification as a `tidings_notification`.
    package static func with<Result>(_ notification: UserNotification,
                             _ body: (UnsafePointer<tidings_notification>) -> Result) -> Result {
        notification.cLayout.withNotification(body)
    }

    /// Calls `body` with the notification and `response` as C structs.
    package static func with<Result>(_ notification: UserNotification, response: ResponseRequest,
                             _ body: (UnsafePointer<tidings_notification>, UnsafePointer<tidings_response>) -> Result) -> Result {
        notification.cLayout.withNotification { cNotification in
            response.actionIdentifier.withCString { action in
                withCString(response.userText) { userText in
                    let cResponse = tidings_response(
                        struct_size: UInt32(MemoryLayout<tidings_response>.size), action_identifier: action,
                        user_text: userText, notification: cNotification)
                    return withUnsafePointer(to: cResponse) { body(cNotification, $0) }
                }
            }
        }
    }

    /// Calls `body` with `text` as a C string, or with NULL for nil.
    private static func withCString<Result>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> Result) -> Result {
        guard let text else { return body(nil) }
        return text.withCString(body)
    }
}

/// One notification laid out as the ABI's C structs, in one allocation
/// that this object owns and that is never changed after it is made: the
/// `tidings_notification` first, then its content, the content's details
/// and the notification's trigger when it has one (`tidings.content/1` and
/// `tidings.trigger/1`, which find them by the content's and the
/// notification's address while the layout lives), the userInfo entries
/// and the attachments with their pointer arrays, then every string they
/// point to, NUL-terminated (userInfo values serialised as JSON text). The structs point into the same
/// allocation, which is freed in `deinit`: every pointer into it is valid
/// exactly as long as this object lives, wherever references to it go.
///
/// `@unchecked Sendable`: the allocation is written only by `init`, before
/// the object is shared, and only read afterwards, from any thread.
final class CNotificationLayout: @unchecked Sendable {
    /// The structs and strings, 8-byte aligned so that every struct is.
    private let base: UnsafeMutableRawPointer

    /// Lays out the notification of request identifier `identifier`,
    /// delivered at `date`, saying `content`, delivered by `trigger`:
    /// measures every string, makes the buffer once, then writes the strings
    /// and the structs pointing to them.
    init(identifier: String, date: Double, content: NotificationContent, trigger: NotificationTrigger?) {
        let userInfo = content.userInfo
        let attachments = content.attachments
        let urls = attachments.map(\.url)

        // Each string takes its UTF-8 bytes and a NUL (none for nil); a userInfo value, its JSON text too.
        /// The room `string` takes.
        func size(_ string: String?) -> Int {
            string.map { $0.utf8.count + 1 } ?? 0
        }
        var stringsSize = size(identifier) + size(content.title) + size(content.subtitle)
        stringsSize += size(content.body) + size(content.categoryIdentifier) + size(content.threadIdentifier)
        stringsSize += size(content.targetContentIdentifier) + size(content.sound)
        stringsSize += size(content.launchImageName) + size(content.summaryArgument) + size(content.filterCriteria)
        stringsSize += size(trigger?.timeZone) + size(trigger?.regionIdentifier)
        for (key, value) in userInfo {
            stringsSize += size(key) + value.utf8Count() + 1 + size(value.stringValue)
        }
        for (attachment, url) in zip(attachments, urls) {
            stringsSize += size(attachment.identifier) + size(attachment.type) + size(url)
        }

        // Sizes: every struct is a multiple of 8 bytes, so each region stays aligned.
        let entrySize = MemoryLayout<tidings_user_info_entry>.stride
        let attachmentSize = MemoryLayout<tidings_attachment>.stride
        let pointerSize = MemoryLayout<UnsafeRawPointer>.stride
        let contentOffset = MemoryLayout<tidings_notification>.stride
        let detailsOffset = Self.detailsOffset
        let triggerOffset = detailsOffset + MemoryLayout<tidings_content_details>.stride
        let entriesOffset = triggerOffset + (trigger == nil ? 0 : MemoryLayout<tidings_trigger>.stride)
        let entryPointersOffset = entriesOffset + userInfo.count * entrySize
        let attachmentsOffset = entryPointersOffset + userInfo.count * pointerSize
        let attachmentPointersOffset = attachmentsOffset + attachments.count * attachmentSize
        let stringsOffset = attachmentPointersOffset + attachments.count * pointerSize

        // A multiple of 8 bytes; the bytes after the last string are zero.
        let byteCount = (stringsOffset + stringsSize + 7) / 8 * 8
        base = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: MemoryLayout<UInt64>.alignment)
        (base + byteCount - 8).initializeMemory(as: UInt64.self, repeating: 0, count: 1)
        let stringBytes = UnsafeMutableBufferPointer(
            start: (base + stringsOffset).bindMemory(to: UInt8.self, capacity: stringsSize), count: stringsSize)
        let text = UnsafeRawPointer(stringBytes.baseAddress!).assumingMemoryBound(to: CChar.self)
        var strings = OutputSpan(buffer: stringBytes, initializedCount: 0)
        /// Appends `string` and a NUL to `strings`; returns where it starts, or NULL for nil.
        func add(_ string: String?, to strings: inout OutputSpan<UInt8>) -> UnsafePointer<CChar>? {
            guard let string else { return nil }
            let start = text + strings.count
            strings.append(utf8: string)
            strings.append(0)
            return start
        }

        let entries = (base + entriesOffset).bindMemory(to: tidings_user_info_entry.self, capacity: userInfo.count)
        let entryPointers = (base + entryPointersOffset)
            .bindMemory(to: UnsafePointer<tidings_user_info_entry>?.self, capacity: userInfo.count)
        for (position, (key, value)) in userInfo.enumerated() {
            let cKey = add(key, to: &strings)
            let json = text + strings.count
            value.write(to: &strings)
            strings.append(0)
            let stringValue = add(value.stringValue, to: &strings)
            (entries + position).initialize(to: tidings_user_info_entry(
                struct_size: UInt32(entrySize), key: cKey, json: json, string_value: stringValue))
            (entryPointers + position).initialize(to: UnsafePointer(entries + position))
        }
        let cAttachments = (base + attachmentsOffset).bindMemory(to: tidings_attachment.self, capacity: attachments.count)
        let attachmentPointers = (base + attachmentPointersOffset)
            .bindMemory(to: UnsafePointer<tidings_attachment>?.self, capacity: attachments.count)
        for (position, (attachment, url)) in zip(attachments, urls).enumerated() {
            let identifier = add(attachment.identifier, to: &strings)
            let type = add(attachment.type, to: &strings)
            let cURL = add(url, to: &strings)
            let thumbnail = attachment.thumbnail
            let rect = thumbnail.clippingRect.map { tidings_rect(x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
            (cAttachments + position).initialize(to: tidings_attachment(
                struct_size: UInt32(MemoryLayout<tidings_attachment>.size), identifier: identifier, type: type,
                url: cURL, size: attachment.size, thumbnail_hidden: thumbnail.hidden,
                thumbnail_clipping_rect: rect ?? tidings_rect(), thumbnail_time: thumbnail.time ?? -1))
            (attachmentPointers + position).initialize(to: UnsafePointer(cAttachments + position))
        }

        let cIdentifier = add(identifier, to: &strings)
        let title = add(content.title, to: &strings)
        let subtitle = add(content.subtitle, to: &strings)
        let body = add(content.body, to: &strings)
        let category = add(content.categoryIdentifier, to: &strings)
        let thread = add(content.threadIdentifier, to: &strings)
        let target = add(content.targetContentIdentifier, to: &strings)
        let sound = add(content.sound, to: &strings)
        let launchImage = add(content.launchImageName, to: &strings)
        let summaryArgument = add(content.summaryArgument, to: &strings)
        let filterCriteria = add(content.filterCriteria, to: &strings)
        let timeZone = add(trigger?.timeZone, to: &strings)
        let regionIdentifier = add(trigger?.regionIdentifier, to: &strings)
        let written = strings.finalize(for: stringBytes)
        precondition(written == stringsSize, "The strings did not fill the room measured for them.")

        let contentStruct = (base + contentOffset).bindMemory(to: tidings_content.self, capacity: 1)
        contentStruct.initialize(to: tidings_content(
            struct_size: UInt32(MemoryLayout<tidings_content>.size),
            interruption_level: content.interruptionLevel.rawValue,
            title: title, subtitle: subtitle, body: body, category_identifier: category, thread_identifier: thread,
            target_content_identifier: target, sound: sound,
            badge: content.badge ?? Int64(TIDINGS_BADGE_NONE), relevance_score: content.relevanceScore,
            user_info_count: userInfo.count, user_info: userInfo.isEmpty ? nil : UnsafePointer(entryPointers),
            attachment_count: attachments.count,
            attachments: attachments.isEmpty ? nil : UnsafePointer(attachmentPointers)))
        (base + detailsOffset).bindMemory(to: tidings_content_details.self, capacity: 1).initialize(to: tidings_content_details(
            struct_size: UInt32(MemoryLayout<tidings_content_details>.size), critical_sound: content.criticalSound,
            sound_volume: content.soundVolume ?? -1, launch_image_name: launchImage, summary_argument: summaryArgument,
            summary_argument_count: UInt64(content.summaryArgumentCount), filter_criteria: filterCriteria))
        base.bindMemory(to: tidings_notification.self, capacity: 1).initialize(to: tidings_notification(
            struct_size: UInt32(MemoryLayout<tidings_notification>.size), identifier: cIdentifier,
            date: date, content: UnsafePointer(contentStruct)))
        var answers = LaidOutNotifications.Answers(content: UInt(bitPattern: base + contentOffset),
                                                   details: UInt(bitPattern: base + detailsOffset), trigger: 0)
        if let trigger {
            (base + triggerOffset).bindMemory(to: tidings_trigger.self, capacity: 1)
                .initialize(to: trigger.cTrigger(timeZone: timeZone, regionIdentifier: regionIdentifier))
            answers.trigger = UInt(bitPattern: base + triggerOffset)
        }
        LaidOutNotifications.remember(base, answers: answers)
    }

    /// Forgets the notification's answers, then frees the allocation.
    deinit {
        LaidOutNotifications.forget(base)
        base.deallocate()
    }

    /// Where the content's details lie in the buffer: right after the content.
    private static let detailsOffset = MemoryLayout<tidings_notification>.stride + MemoryLayout<tidings_content>.stride

    /// Calls `body` with the `tidings_notification`, valid only inside `body`
    /// (the ABI's borrowing rule; this object, which `body`'s caller holds, keeps it alive).
    func withNotification<Result>(_ body: (UnsafePointer<tidings_notification>) -> Result) -> Result {
        withExtendedLifetime(self) {
            body(UnsafeRawPointer(base).assumingMemoryBound(to: tidings_notification.self))
        }
    }
}

extension NotificationTrigger {
    /// The trigger's time zone, for a calendar trigger that names one.
    fileprivate var timeZone: String? {
        if case .calendar(let matching, _) = self { matching.timeZone } else { nil }
    }

    /// The region's identifier, for a location trigger.
    fileprivate var regionIdentifier: String? {
        if case .location(let region, _) = self { region.identifier } else { nil }
    }

    /// The trigger as a `tidings_trigger` whose strings are the ones given
    /// (laid out by the caller): the fields of its kind set, the others 0,
    /// NULL, false or `TIDINGS_DATE_COMPONENT_UNSET`.
    fileprivate func cTrigger(timeZone: UnsafePointer<CChar>?, regionIdentifier: UnsafePointer<CChar>?) -> tidings_trigger {
        /// A component as the ABI gives it.
        func component(_ value: Int?) -> Int64 { value.map(Int64.init) ?? TIDINGS_DATE_COMPONENT_UNSET }
        let matching: DateMatching
        var trigger = tidings_trigger()
        trigger.struct_size = UInt32(MemoryLayout<tidings_trigger>.size)
        trigger.repeats = repeats
        switch self {
        case .push:
            trigger.kind = TIDINGS_TRIGGER_PUSH
            matching = DateMatching()
        case .timeInterval(let seconds, _):
            trigger.kind = TIDINGS_TRIGGER_TIME_INTERVAL
            trigger.time_interval = seconds
            matching = DateMatching()
        case .calendar(let given, _):
            trigger.kind = TIDINGS_TRIGGER_CALENDAR
            trigger.time_zone = timeZone
            matching = given
        case .location(let region, _):
            trigger.kind = TIDINGS_TRIGGER_LOCATION
            trigger.region_identifier = regionIdentifier
            trigger.latitude = region.latitude
            trigger.longitude = region.longitude
            trigger.radius = region.radius
            trigger.notify_on_entry = region.notifyOnEntry
            trigger.notify_on_exit = region.notifyOnExit
            matching = DateMatching()
        }
        trigger.era = component(matching.era)
        trigger.year = component(matching.year)
        trigger.month = component(matching.month)
        trigger.day = component(matching.day)
        trigger.hour = component(matching.hour)
        trigger.minute = component(matching.minute)
        trigger.second = component(matching.second)
        trigger.weekday = component(matching.weekday)
        trigger.weekday_ordinal = component(matching.weekdayOrdinal)
        trigger.week_of_month = component(matching.weekOfMonth)
        trigger.week_of_year = component(matching.weekOfYear)
        return trigger
    }
}
