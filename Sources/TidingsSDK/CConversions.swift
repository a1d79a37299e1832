internal import TidingsABI

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
        relevanceScore = content.relevance_score
        userInfo = (0..<content.user_info_count).compactMap { position in
            content.user_info?[position].map { entry in
                UserInfoEntry(key: string(entry.pointee.key), json: string(entry.pointee.json),
                              string: entry.pointee.string_value.map { String(cString: $0) })
            }
        }
        attachments = (0..<content.attachment_count).compactMap { position in
            content.attachments?[position].map { attachment in
                NotificationAttachment(identifier: string(attachment.pointee.identifier),
                                       type: string(attachment.pointee.type), url: string(attachment.pointee.url))
            }
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
        relevanceScore = 0
        userInfo = []
        attachments = []
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

/// The string at a C pointer the ABI promises is non-NULL; "" if it is NULL anyway.
private func string(_ pointer: UnsafePointer<CChar>?) -> String {
    pointer.map { String(cString: $0) } ?? ""
}
