import TidingsABI
import TidingsRuntime

/// A notification laid out as the ABI's C structs by the benchmark itself,
/// once, so that the baseline calls the extension without any of the
/// runtime's work. It holds what the runtime would pass: every string,
/// and each userInfo entry as JSON text (and as text, for strings).
enum MarshalledNotification {
    /// Calls `body` with `notification` as a `tidings_notification`; the
    /// pointers are valid only inside `body`. Attachments are left out (the
    /// sample has none).
    static func with<Result>(_ notification: UserNotification,
                             _ body: (UnsafePointer<tidings_notification>) -> Result) -> Result {
        let content = notification.content
        let entries = content.userInfo.map { [$0.0, $0.1.serialized(), $0.1.stringValue] }
        let fixed: [String?] = [notification.identifier, content.title, content.subtitle, content.body,
                                content.categoryIdentifier, content.threadIdentifier, content.targetContentIdentifier,
                                content.sound]
        return withCStrings(fixed + entries.flatMap { $0 }) { strings in
            let cEntries = entries.indices.map { position in
                tidings_user_info_entry(struct_size: UInt32(MemoryLayout<tidings_user_info_entry>.size),
                                        key: strings[fixed.count + 3 * position],
                                        json: strings[fixed.count + 3 * position + 1],
                                        string_value: strings[fixed.count + 3 * position + 2])
            }
            return cEntries.withUnsafeBufferPointer { entryBuffer in
                let pointers: [UnsafePointer<tidings_user_info_entry>?] = entryBuffer.indices.map { entryBuffer.baseAddress! + $0 }
                return pointers.withUnsafeBufferPointer { pointerBuffer in
                    var cContent = tidings_content(
                        struct_size: UInt32(MemoryLayout<tidings_content>.size),
                        interruption_level: content.interruptionLevel.rawValue,
                        title: strings[1], subtitle: strings[2], body: strings[3], category_identifier: strings[4],
                        thread_identifier: strings[5], target_content_identifier: strings[6], sound: strings[7],
                        badge: content.badge ?? Int64(TIDINGS_BADGE_NONE), relevance_score: content.relevanceScore,
                        user_info_count: entries.count, user_info: entries.isEmpty ? nil : pointerBuffer.baseAddress,
                        attachment_count: 0, attachments: nil)
                    return withUnsafePointer(to: &cContent) { contentPointer in
                        var cNotification = tidings_notification(
                            struct_size: UInt32(MemoryLayout<tidings_notification>.size), identifier: strings[0],
                            date: notification.date, content: contentPointer)
                        return withUnsafePointer(to: &cNotification) { body($0) }
                    }
                }
            }
        }
    }

    /// Calls `body` with each string as a NUL-terminated C string (nil stays NULL).
    private static func withCStrings<Result>(_ strings: [String?], _ collected: [UnsafePointer<CChar>?] = [],
                                             _ body: ([UnsafePointer<CChar>?]) -> Result) -> Result {
        guard collected.count < strings.count else { return body(collected) }
        guard let next = strings[collected.count] else { return withCStrings(strings, collected + [nil], body) }
        return next.withCString { withCStrings(strings, collected + [$0], body) }
    }
}
