import Glibc
import TidingsABI

/// Lays a notification (and a response to it) out as the ABI's C structs in
/// one temporary allocation: structs first, then every string.
///
/// The pointers handed to `body` are valid only inside it, as the ABI says
/// ("borrowed for the duration of the call").
enum CNotification {
    /// Calls `body` with the notification as a `tidings_notification`.
    static func with<Result>(_ notification: UserNotification,
                             _ body: (UnsafePointer<tidings_notification>) -> Result) -> Result {
        layOut(notification, response: nil) { notification, _ in body(notification) }
    }

    /// Calls `body` with the notification and `response` as C structs.
    static func with<Result>(_ notification: UserNotification, response: ResponseRequest,
                             _ body: (UnsafePointer<tidings_notification>, UnsafePointer<tidings_response>) -> Result) -> Result {
        layOut(notification, response: response) { notification, response in body(notification, response!) }
    }

    private static func layOut<Result>(
        _ notification: UserNotification, response: ResponseRequest?,
        _ body: (UnsafePointer<tidings_notification>, UnsafePointer<tidings_response>?) -> Result
    ) -> Result {
        let content = notification.content
        let userInfo = content.userInfo.map { (key: $0.0, json: $0.1.serialized(), string: $0.1.stringValue) }
        let attachments = content.attachments.map { (identifier: $0.identifier, type: $0.type, url: $0.url) }

        // Sizes: every struct is a multiple of 8 bytes, so each region stays aligned.
        let responseSize = response == nil ? 0 : MemoryLayout<tidings_response>.stride
        let entrySize = MemoryLayout<tidings_user_info_entry>.stride
        let attachmentSize = MemoryLayout<tidings_attachment>.stride
        let pointerSize = MemoryLayout<UnsafeRawPointer>.stride
        let notificationOffset = responseSize
        let contentOffset = notificationOffset + MemoryLayout<tidings_notification>.stride
        let entriesOffset = contentOffset + MemoryLayout<tidings_content>.stride
        let entryPointersOffset = entriesOffset + userInfo.count * entrySize
        let attachmentsOffset = entryPointersOffset + userInfo.count * pointerSize
        let attachmentPointersOffset = attachmentsOffset + attachments.count * attachmentSize
        let stringsOffset = attachmentPointersOffset + attachments.count * pointerSize

        var stringBytes = 0
        func measure(_ text: String?) { if let text { stringBytes += text.utf8.count + 1 } }
        for text in [notification.identifier, content.title, content.subtitle, content.body, content.categoryIdentifier,
                     content.threadIdentifier] { measure(text) }
        measure(content.targetContentIdentifier)
        measure(content.sound)
        for entry in userInfo {
            measure(entry.key)
            measure(entry.json)
            measure(entry.string)
        }
        for attachment in attachments {
            measure(attachment.identifier)
            measure(attachment.type)
            measure(attachment.url)
        }
        if let response {
            measure(response.actionIdentifier)
            measure(response.userText)
        }

        return withUnsafeTemporaryAllocation(byteCount: stringsOffset + stringBytes, alignment: 16) { buffer in
            let base = buffer.baseAddress!
            var cursor = stringsOffset
            func put(_ text: String) -> UnsafePointer<CChar> {
                var text = text
                let start = base + cursor
                text.withUTF8 { bytes in
                    if let source = bytes.baseAddress { memcpy(start, source, bytes.count) }
                    start.storeBytes(of: 0, toByteOffset: bytes.count, as: UInt8.self)
                    cursor += bytes.count + 1
                }
                return UnsafePointer(start.assumingMemoryBound(to: CChar.self))
            }
            func put(optional text: String?) -> UnsafePointer<CChar>? { text.map { put($0) } }

            let entries = (base + entriesOffset).bindMemory(to: tidings_user_info_entry.self, capacity: userInfo.count)
            let entryPointers = (base + entryPointersOffset)
                .bindMemory(to: UnsafePointer<tidings_user_info_entry>?.self, capacity: userInfo.count)
            for (position, entry) in userInfo.enumerated() {
                (entries + position).initialize(to: tidings_user_info_entry(
                    struct_size: UInt32(entrySize), key: put(entry.key), json: put(entry.json),
                    string_value: put(optional: entry.string)))
                (entryPointers + position).initialize(to: UnsafePointer(entries + position))
            }
            let cAttachments = (base + attachmentsOffset).bindMemory(to: tidings_attachment.self, capacity: attachments.count)
            let attachmentPointers = (base + attachmentPointersOffset)
                .bindMemory(to: UnsafePointer<tidings_attachment>?.self, capacity: attachments.count)
            for (position, attachment) in attachments.enumerated() {
                (cAttachments + position).initialize(to: tidings_attachment(
                    struct_size: UInt32(attachmentSize), identifier: put(attachment.identifier),
                    type: put(attachment.type), url: put(attachment.url)))
                (attachmentPointers + position).initialize(to: UnsafePointer(cAttachments + position))
            }

            let cContent = (base + contentOffset).bindMemory(to: tidings_content.self, capacity: 1)
            cContent.initialize(to: tidings_content(
                struct_size: UInt32(MemoryLayout<tidings_content>.size),
                interruption_level: content.interruptionLevel.rawValue,
                title: put(content.title), subtitle: put(content.subtitle), body: put(content.body),
                category_identifier: put(content.categoryIdentifier), thread_identifier: put(content.threadIdentifier),
                target_content_identifier: put(optional: content.targetContentIdentifier), sound: put(optional: content.sound),
                badge: content.badge ?? Int64(TIDINGS_BADGE_NONE), relevance_score: content.relevanceScore,
                user_info_count: userInfo.count, user_info: userInfo.isEmpty ? nil : UnsafePointer(entryPointers),
                attachment_count: attachments.count,
                attachments: attachments.isEmpty ? nil : UnsafePointer(attachmentPointers)))
            let cNotification = (base + notificationOffset).bindMemory(to: tidings_notification.self, capacity: 1)
            cNotification.initialize(to: tidings_notification(
                struct_size: UInt32(MemoryLayout<tidings_notification>.size), identifier: put(notification.identifier),
                date: notification.date, content: UnsafePointer(cContent)))

            var cResponse: UnsafePointer<tidings_response>?
            if let response {
                let pointer = base.bindMemory(to: tidings_response.self, capacity: 1)
                pointer.initialize(to: tidings_response(
                    struct_size: UInt32(MemoryLayout<tidings_response>.size),
                    action_identifier: put(response.actionIdentifier), user_text: put(optional: response.userText),
                    notification: UnsafePointer(cNotification)))
                cResponse = UnsafePointer(pointer)
            }
            return body(UnsafePointer(cNotification), cResponse)
        }
    }
}
