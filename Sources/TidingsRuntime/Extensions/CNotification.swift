import TidingsABI

/// Hands a notification (and a response to it) to an extension as the ABI's
/// C structs.
///
/// The notification's structs and strings are laid out once per notification
/// value (`UserNotification.cLayout`) and kept with it, so that delivering
/// it again and every response to it reuse them; a response adds only its
/// own struct and strings. The pointers handed to `body` are valid only
/// inside it, as the ABI says ("borrowed for the duration of the call").
enum CNotification {
    /// Calls `body` with the notification as a `tidings_notification`.
    static func with<Result>(_ notification: UserNotification,
                             _ body: (UnsafePointer<tidings_notification>) -> Result) -> Result {
        notification.cLayout.withNotification(body)
    }

    /// Calls `body` with the notification and `response` as C structs.
    static func with<Result>(_ notification: UserNotification, response: ResponseRequest,
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

/// One notification laid out as the ABI's C structs, in one buffer that is
/// never changed after it is made: the `tidings_notification` first, then
/// its content, the userInfo entries and the attachments with their pointer
/// arrays, then every string they point to (userInfo values serialised as
/// JSON text). The structs point into the same buffer, which neither moves
/// nor changes while this object lives.
final class CNotificationLayout: Sendable {
    /// The structs and strings, in words so that every struct is aligned.
    private let words: [UInt64]

    /// Lays `notification` out.
    init(_ notification: UserNotification) {
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

        // Three offsets per userInfo entry (key, JSON, string value) and per attachment (identifier, type, URL).
        words = withUnsafeTemporaryAllocation(of: Int?.self, capacity: 3 * (userInfoCount + attachmentCount)) { offsets in
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
            let entrySize = MemoryLayout<tidings_user_info_entry>.stride
            let attachmentSize = MemoryLayout<tidings_attachment>.stride
            let pointerSize = MemoryLayout<UnsafeRawPointer>.stride
            let contentOffset = MemoryLayout<tidings_notification>.stride
            let entriesOffset = contentOffset + MemoryLayout<tidings_content>.stride
            let entryPointersOffset = entriesOffset + userInfoCount * entrySize
            let attachmentsOffset = entryPointersOffset + userInfoCount * pointerSize
            let attachmentPointersOffset = attachmentsOffset + attachmentCount * attachmentSize
            let stringsOffset = attachmentPointersOffset + attachmentCount * pointerSize
            let byteCount = stringsOffset + strings.bytes.count

            return [UInt64](unsafeUninitializedCapacity: (byteCount + 7) / 8) { words, initialized in
                words[words.count - 1] = 0  // the bytes after the last string
                let base = UnsafeMutableRawPointer(words.baseAddress!)
                let text = strings.bytes.withUnsafeBytes { bytes in
                    (base + stringsOffset).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
                    return (base + stringsOffset).bindMemory(to: CChar.self, capacity: bytes.count)
                }
                /// The string at `offset` in the table; nil for nil.
                func pointer(_ offset: Int?) -> UnsafePointer<CChar>? {
                    offset.map { UnsafePointer(text + $0) }
                }

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
                base.bindMemory(to: tidings_notification.self, capacity: 1).initialize(to: tidings_notification(
                    struct_size: UInt32(MemoryLayout<tidings_notification>.size), identifier: pointer(identifier),
                    date: notification.date, content: UnsafePointer(cContent)))
                initialized = words.count
            }
        }
    }

    /// Calls `body` with the `tidings_notification`, valid only inside `body`.
    func withNotification<Result>(_ body: (UnsafePointer<tidings_notification>) -> Result) -> Result {
        words.withUnsafeBufferPointer { words in
            body(UnsafeRawPointer(words.baseAddress!).assumingMemoryBound(to: tidings_notification.self))
        }
    }
}
