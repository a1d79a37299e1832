internal import TidingsABI
internal import TidingsBase

// Copies between the ABI's C structs and the SDK's Swift values. What the host
// passes is borrowed for the call, so it is copied out, each struct within
// its `struct_size` (a host of an older version passes smaller ones; what
// they lack takes its default); what the SDK passes to the host lives until
// the host function returns.

extension DeliveredNotification {
    /// Copies a borrowed `tidings_notification` of `host`'s, with its
    /// content's details and its trigger when the host offers them; an empty
    /// one when it is smaller than version 1's.
    init(_ pointer: UnsafePointer<tidings_notification>, host: HostConnection?) {
        let notification = tidings_notification.read(from: pointer) ?? .defaults
        identifier = string(notification.identifier)
        date = notification.date
        var content = NotificationContent(notification.content)
        if let given = notification.content, let details = host?.contentDetails(of: given) {
            content.criticalSound = details.critical_sound
            content.soundVolume = details.sound_volume < 0 ? nil : details.sound_volume
            content.launchImageName = string(details.launch_image_name)
            content.summaryArgument = string(details.summary_argument)
            content.summaryArgumentCount = Int(clamping: details.summary_argument_count)
            content.filterCriteria = details.filter_criteria.map { String(cString: $0) }
        }
        self.content = content
        trigger = host?.trigger(of: pointer).flatMap(NotificationTrigger.init)
    }
}

extension NotificationTrigger {
    /// Copies a `tidings_trigger` read within its size; nil for a kind this SDK does not know.
    init?(_ trigger: tidings_trigger) {
        switch trigger.kind {
        case TIDINGS_TRIGGER_PUSH:
            self = .push
        case TIDINGS_TRIGGER_TIME_INTERVAL:
            self = .timeInterval(trigger.time_interval, repeats: trigger.repeats)
        case TIDINGS_TRIGGER_CALENDAR:
            /// A component as the SDK gives it: nil when unset.
            func component(_ value: Int64) -> Int? {
                value == TIDINGS_DATE_COMPONENT_UNSET ? nil : Int(exactly: value)
            }
            self = .calendar(TriggerDateComponents(
                era: component(trigger.era), year: component(trigger.year), month: component(trigger.month),
                day: component(trigger.day), hour: component(trigger.hour), minute: component(trigger.minute),
                second: component(trigger.second), weekday: component(trigger.weekday),
                weekdayOrdinal: component(trigger.weekday_ordinal), weekOfMonth: component(trigger.week_of_month),
                weekOfYear: component(trigger.week_of_year), timeZone: trigger.time_zone.map { String(cString: $0) }),
                repeats: trigger.repeats)
        case TIDINGS_TRIGGER_LOCATION:
            self = .location(CircularRegion(identifier: string(trigger.region_identifier), latitude: trigger.latitude,
                                            longitude: trigger.longitude, radius: trigger.radius,
                                            notifyOnEntry: trigger.notify_on_entry, notifyOnExit: trigger.notify_on_exit),
                             repeats: trigger.repeats)
        default:
            return nil
        }
    }
}

extension NotificationContent {
    /// Copies a borrowed `tidings_content`; an empty one when it is smaller than version 1's.
    init(_ pointer: UnsafePointer<tidings_content>?) {
        self.init(tidings_content.read(from: pointer) ?? .defaults)
    }

    /// Copies a `tidings_content` read within its size, and the userInfo
    /// entries and attachments it points to, each within its own.
    private init(_ content: tidings_content) {
        title = string(content.title)
        subtitle = string(content.subtitle)
        body = string(content.body)
        categoryIdentifier = string(content.category_identifier)
        threadIdentifier = string(content.thread_identifier)
        targetContentIdentifier = content.target_content_identifier.map { String(cString: $0) }
        sound = content.sound.map { String(cString: $0) }
        badge = content.badge == Int64(TIDINGS_BADGE_NONE) ? nil : content.badge
        interruptionLevel = content.interruption_level
        relevanceScore = content.relevance_score
        userInfo = (0..<content.user_info_count).compactMap { position in
            tidings_user_info_entry.read(from: content.user_info?[position]).map { entry in
                entry.string_value.map { UserInfoEntry(key: string(entry.key), string: String(cString: $0)) }
                    ?? UserInfoEntry(key: string(entry.key), json: string(entry.json))
            }
        }
        attachments = (0..<content.attachment_count).compactMap { position in
            tidings_attachment.read(from: content.attachments?[position]).map(NotificationAttachment.init)
        }
    }

    /// Calls `use` with the content as a `tidings_content`, valid only inside `use`.
    func withCContent<Result>(_ use: (UnsafePointer<tidings_content>) -> Result) -> Result {
        var copies = CStrings()
        defer { copies.free() }
        let entries = UnsafeMutablePointer<tidings_user_info_entry>.allocate(capacity: max(1, userInfo.count))
        let entryPointers = UnsafeMutablePointer<UnsafePointer<tidings_user_info_entry>?>.allocate(capacity: max(1, userInfo.count))
        let cAttachments = UnsafeMutablePointer<tidings_attachment>.allocate(capacity: max(1, attachments.count))
        let attachmentPointers = UnsafeMutablePointer<UnsafePointer<tidings_attachment>?>.allocate(capacity: max(1, attachments.count))
        defer {
            entries.deallocate()
            entryPointers.deallocate()
            cAttachments.deallocate()
            attachmentPointers.deallocate()
        }
        for (position, entry) in userInfo.enumerated() {
            (entries + position).initialize(to: tidings_user_info_entry(
                struct_size: UInt32(MemoryLayout<tidings_user_info_entry>.size), key: copies.copy(entry.key),
                json: copies.copy(entry.json), string_value: copies.copy(entry.string)))
            entryPointers[position] = UnsafePointer(entries + position)
        }
        for (position, attachment) in attachments.enumerated() {
            // The host knows its attachments by identifier; the rest is ignored.
            var cAttachment = tidings_attachment.defaults
            cAttachment.struct_size = UInt32(MemoryLayout<tidings_attachment>.size)
            cAttachment.identifier = copies.copy(attachment.identifier)
            cAttachment.type = copies.copy(attachment.type)
            cAttachment.url = copies.copy(attachment.url)
            (cAttachments + position).initialize(to: cAttachment)
            attachmentPointers[position] = UnsafePointer(cAttachments + position)
        }
        var content = tidings_content(
            struct_size: UInt32(MemoryLayout<tidings_content>.size), interruption_level: interruptionLevel,
            title: copies.copy(title), subtitle: copies.copy(subtitle), body: copies.copy(body),
            category_identifier: copies.copy(categoryIdentifier), thread_identifier: copies.copy(threadIdentifier),
            target_content_identifier: copies.copy(targetContentIdentifier), sound: copies.copy(sound),
            badge: badge ?? Int64(TIDINGS_BADGE_NONE), relevance_score: relevanceScore,
            user_info_count: userInfo.count, user_info: UnsafePointer(entryPointers),
            attachment_count: attachments.count, attachments: UnsafePointer(attachmentPointers))
        return withUnsafePointer(to: &content) { use($0) }
    }
}

extension NotificationAttachment {
    /// Copies a `tidings_attachment` read within its size: from a version 1
    /// host, without a size and with the default thumbnail.
    init(_ attachment: tidings_attachment) {
        identifier = string(attachment.identifier)
        type = string(attachment.type)
        url = string(attachment.url)
        size = attachment.size
        let rect = attachment.thumbnail_clipping_rect
        thumbnail = ThumbnailOptions(
            hidden: attachment.thumbnail_hidden,
            clippingRect: rect.width > 0 && rect.height > 0 ? (rect.x, rect.y, rect.width, rect.height) : nil,
            time: attachment.thumbnail_time < 0 ? nil : attachment.thumbnail_time)
    }
}

extension NotificationResponse {
    /// Copies a borrowed `tidings_response` of `host`'s; an empty one when it is smaller than version 1's.
    init(_ pointer: UnsafePointer<tidings_response>, host: HostConnection?) {
        let response = tidings_response.read(from: pointer) ?? .defaults
        actionIdentifier = string(response.action_identifier)
        userText = response.user_text.map { String(cString: $0) }
        notification = response.notification.map { DeliveredNotification($0, host: host) }
            ?? DeliveredNotification(identifier: "", date: 0, content: NotificationContent(nil), trigger: nil)
    }
}

extension NotificationAction {
    /// Copies a borrowed `tidings_action` the host passed (to a `get_actions`
    /// receiver); nil when it is smaller than version 1's.
    init?(_ pointer: UnsafePointer<tidings_action>) {
        guard let action = tidings_action.read(from: pointer) else { return nil }
        self.init(identifier: string(action.identifier), title: string(action.title),
                  options: Options(rawValue: action.options),
                  textInput: action.text_input_button_title.map { (String(cString: $0), string(action.text_input_placeholder)) })
    }

    /// The action as the ABI's `tidings_action` carries it.
    var cFields: CActionFields {
        CActionFields(identifier: identifier, title: title, options: options.rawValue, textInput: textInput)
    }
}

/// The string at a C pointer the ABI promises is non-NULL; "" if it is NULL anyway.
private func string(_ pointer: UnsafePointer<CChar>?) -> String {
    pointer.map { String(cString: $0) } ?? ""
}
