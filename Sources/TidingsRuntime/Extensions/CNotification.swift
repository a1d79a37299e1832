import TidingsABI

/// Lays a notification (and a response to it) out as the ABI's C structs:
/// every string in one buffer (userInfo values serialised straight into it),
/// then the structs in one temporary allocation pointing into it.
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
        let userInfoCount = content.userInfo.count
        let attachmentCount = content.attachments.count

        // Every string, userInfo values as JSON text, goes into one table first.
        var strings = CStringTable(capacity: 512)
        let identifier = strings.add(notification.identifier)
        let title = strings.add(content.title)
        let subtitle = strings.add(content.subtitle)
        let bodyText = strings.add(content.body)
        let category = strings.add(content.categoryIdentifier)
        let thread = strings.add(content.threadIdentifier)
        let target = strings.add(content.targetContentIdentifier)
        let sound = strings.add(content.sound)
        let action = response.map { strings.add($0.actionIdentifier) }
        let userText = strings.add(response?.userText)

        // Three offsets per userInfo entry (key, JSON, string value) and per attachment (identifier, type, URL).
        return withUnsafeTemporaryAllocation(of: Int?.self, capacity: 3 * (userInfoCount + attachmentCount)) { offsets in
            for (position, (key, value)) in content.userInfo.enumerated() {
                offsets.initializeElement(at: 3 * position, to: strings.add(key))
                offsets.initializeElement(at: 3 * position + 1, to: strings.add(json: value))
                offsets.initializeElement(at: 3 * position + 2, to: strings.add(value.stringValue))
            }
            for (position, attachment) in content.attachments.enumerated() {
                let slot = 3 * (userInfoCount + position)
                offsets.initializeElement(at: slot, to: strings.add(attachment.identifier))
                offsets.initializeElement(at: slot + 1, to: strings.add(attachment.type))
                offsets.initializeElement(at: slot + 2, to: strings.add(attachment.url))
            }

            // Sizes: every struct is a multiple of 8 bytes, so each region stays aligned.
            let responseSize = response == nil ? 0 : MemoryLayout<tidings_response>.stride
            let entrySize = MemoryLayout<tidings_user_info_entry>.stride
            let attachmentSize = MemoryLayout<tidings_attachment>.stride
            let pointerSize = MemoryLayout<UnsafeRawPointer>.stride
            let notificationOffset = responseSize
            let contentOffset = notificationOffset + MemoryLayout<tidings_notification>.stride
            let entriesOffset = contentOffset + MemoryLayout<tidings_content>.stride
            let entryPointersOffset = entriesOffset + userInfoCount * entrySize
            let attachmentsOffset = entryPointersOffset + userInfoCount * pointerSize
            let attachmentPointersOffset = attachmentsOffset + attachmentCount * attachmentSize
            let structsSize = attachmentPointersOffset + attachmentCount * pointerSize

            return withUnsafeTemporaryAllocation(byteCount: structsSize, alignment: 16) { buffer in
                strings.withPointers { pointer in
                    let base = buffer.baseAddress!
                    let entries = (base + entriesOffset).bindMemory(to: tidings_user_info_entry.self, capacity: userInfoCount)
                    let entryPointers = (base + entryPointersOffset)
                        .bindMemory(to: UnsafePointer<tidings_user_info_entry>?.self, capacity: userInfoCount)
                    for position in 0..<userInfoCount {
                        (entries + position).initialize(to: tidings_user_info_entry(
                            struct_size: UInt32(entrySize), key: pointer(offsets[3 * position]),
                            json: pointer(offsets[3 * position + 1]), string_value: pointer(offsets[3 * position + 2])))
                        (entryPointers + position).initialize(to: UnsafePointer(entries + position))
                    }
                    let cAttachments = (base + attachmentsOffset).bindMemory(to: tidings_attachment.self, capacity: attachmentCount)
                    let attachmentPointers = (base + attachmentPointersOffset)
                        .bindMemory(to: UnsafePointer<tidings_attachment>?.self, capacity: attachmentCount)
                    for position in 0..<attachmentCount {
                        let slot = 3 * (userInfoCount + position)
                        (cAttachments + position).initialize(to: tidings_attachment(
                            struct_size: UInt32(attachmentSize), identifier: pointer(offsets[slot]),
                            type: pointer(offsets[slot + 1]), url: pointer(offsets[slot + 2])))
                        (attachmentPointers + position).initialize(to: UnsafePointer(cAttachments + position))
                    }

                    let cContent = (base + contentOffset).bindMemory(to: tidings_content.self, capacity: 1)
                    cContent.initialize(to: tidings_content(
                        struct_size: UInt32(MemoryLayout<tidings_content>.size),
                        interruption_level: content.interruptionLevel.rawValue,
                        title: pointer(title), subtitle: pointer(subtitle), body: pointer(bodyText),
                        category_identifier: pointer(category), thread_identifier: pointer(thread),
                        target_content_identifier: pointer(target), sound: pointer(sound),
                        badge: content.badge ?? Int64(TIDINGS_BADGE_NONE), relevance_score: content.relevanceScore,
                        user_info_count: userInfoCount, user_info: userInfoCount == 0 ? nil : UnsafePointer(entryPointers),
                        attachment_count: attachmentCount,
                        attachments: attachmentCount == 0 ? nil : UnsafePointer(attachmentPointers)))
                    let cNotification = (base + notificationOffset).bindMemory(to: tidings_notification.self, capacity: 1)
                    cNotification.initialize(to: tidings_notification(
                        struct_size: UInt32(MemoryLayout<tidings_notification>.size), identifier: pointer(identifier),
                        date: notification.date, content: UnsafePointer(cContent)))

                    var cResponse: UnsafePointer<tidings_response>?
                    if let action {
                        let responsePointer = base.bindMemory(to: tidings_response.self, capacity: 1)
                        responsePointer.initialize(to: tidings_response(
                            struct_size: UInt32(MemoryLayout<tidings_response>.size),
                            action_identifier: pointer(action), user_text: pointer(userText),
                            notification: UnsafePointer(cNotification)))
                        cResponse = UnsafePointer(responsePointer)
                    }
                    return body(UnsafePointer(cNotification), cResponse)
                }
            }
        }
    }
}
