import Glibc
internal import TidingsABI

// Copies between the ABI's C structs and the SDK's Swift values. What the host
// passes is borrowed for the call, so it is copied out; what the SDK passes to
// the host lives until the host function returns.

extension DeliveredNotification {
    /// Copies a borrowed `tidings_notification`.
    init(_ pointer: UnsafePointer<tidings_notification>) {
        let notification = pointer.pointee
        identifier = string(notification.identifier)
        date = notification.date
        content = notification.content.map { NotificationContent($0) } ?? NotificationContent(empty: ())
    }
}

extension NotificationContent {
    init(_ pointer: UnsafePointer<tidings_content>) {
        let content = pointer.pointee
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
            content.user_info?[position].map { entry in
                entry.pointee.string_value.map { UserInfoEntry(key: string(entry.pointee.key), string: String(cString: $0)) }
                    ?? UserInfoEntry(key: string(entry.pointee.key), json: string(entry.pointee.json))
            }
        }
        attachments = (0..<content.attachment_count).compactMap { position in
            content.attachments?[position].map(NotificationAttachment.init)
        }
    }

    init(empty: Void) {
        title = ""
        subtitle = ""
        body = ""
        categoryIdentifier = ""
        threadIdentifier = ""
        targetContentIdentifier = nil
        sound = nil
        badge = nil
        interruptionLevel = TIDINGS_INTERRUPTION_ACTIVE
        relevanceScore = 0
        userInfo = []
        attachments = []
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
            var cAttachment = tidings_attachment()
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
    /// Copies a borrowed `tidings_attachment`, reading the version 2 fields only when it is large enough.
    init(_ pointer: UnsafePointer<tidings_attachment>) {
        let attachment = pointer.pointee
        identifier = string(attachment.identifier)
        type = string(attachment.type)
        url = string(attachment.url)
        let hasVersion2 = Int(attachment.struct_size) >= MemoryLayout<tidings_attachment>.size
        size = hasVersion2 ? attachment.size : 0
        let rect = attachment.thumbnail_clipping_rect
        thumbnail = hasVersion2
            ? ThumbnailOptions(hidden: attachment.thumbnail_hidden,
                               clippingRect: rect.width > 0 && rect.height > 0 ? (rect.x, rect.y, rect.width, rect.height) : nil,
                               time: attachment.thumbnail_time < 0 ? nil : attachment.thumbnail_time)
            : ThumbnailOptions()
    }
}

extension NotificationResponse {
    /// Copies a borrowed `tidings_response`.
    init(_ pointer: UnsafePointer<tidings_response>) {
        let response = pointer.pointee
        actionIdentifier = string(response.action_identifier)
        userText = response.user_text.map { String(cString: $0) }
        notification = response.notification.map { DeliveredNotification($0) }
            ?? DeliveredNotification(identifier: "", date: 0, content: NotificationContent(empty: ()))
    }
}

/// C copies of Swift strings, freed together.
struct CStrings {
    private var copies: [UnsafeMutablePointer<CChar>] = []

    /// A NUL-terminated copy of `text`, or NULL for nil.
    mutating func copy(_ text: String?) -> UnsafePointer<CChar>? {
        guard let text, let duplicate = strdup(text) else { return nil }
        copies.append(duplicate)
        return UnsafePointer(duplicate)
    }

    /// Frees every copy.
    mutating func free() {
        copies.forEach { Glibc.free($0) }
        copies = []
    }
}

/// The string at a C pointer the ABI promises is non-NULL; "" if it is NULL anyway.
private func string(_ pointer: UnsafePointer<CChar>?) -> String {
    pointer.map { String(cString: $0) } ?? ""
}
