import TidingsABI
import TidingsBase
import TidingsIsolation
import TidingsRuntime

/// The payload decoder (APNs payloads and requests, with localized alerts)
/// and the category-file decoder, on whatever JSON the parser accepts; then
/// what a decoded notification becomes on its way to an extension: its C
/// layout must say what the notification says, and the worker protocol must
/// carry it unchanged.
enum PayloadChecks {
    /// An app's strings, so that `*-loc-key` and `*-loc-args` are substituted.
    private static let strings = [
        "GREETING": "Hello %@", "INVITE": "%2$@ invites %1$@ to %3$@", "PERCENT": "100%% %@ %", "EMPTY": "",
    ]

    static func check(_ bytes: [UInt8]) {
        guard let json = try? JSON.parse(bytes) else { return }
        _ = CategoryFile.read(json)
        _ = Payload.usesLocalization(json)
        let reading = Payload.decode(json, identifier: "fuzz", strings: strings, now: 0)
        guard let notification = reading.notification else { return }
        CNotification.with(notification) { checkLayout($0.pointee, of: notification) }
        let message = WorkerMessage.receiveNotification(call: 1, instance: 1, notification: notification, categoryActions: [])
        precondition((try? WorkerMessage(decoding: message.encoded)) == message,
                     "the worker protocol does not carry the notification unchanged")
    }

    /// Checks that the C structs say what `notification` says.
    private static func checkLayout(_ layout: tidings_notification, of notification: UserNotification) {
        let content = notification.content
        let cContent = layout.content.pointee
        precondition(text(layout.identifier) == cText(notification.identifier), "the C identifier differs")
        precondition(layout.date == notification.date || layout.date.isNaN && notification.date.isNaN, "the C date differs")
        for (cString, string) in [(cContent.title, content.title), (cContent.subtitle, content.subtitle),
                                  (cContent.body, content.body), (cContent.category_identifier, content.categoryIdentifier),
                                  (cContent.thread_identifier, content.threadIdentifier)] {
            precondition(text(cString) == cText(string), "a C string of the content differs")
        }
        precondition(text(cContent.sound) == content.sound.map(cText), "the C sound differs")
        precondition(text(cContent.target_content_identifier) == content.targetContentIdentifier.map(cText),
                     "the C target content identifier differs")
        precondition(cContent.user_info_count == content.userInfo.count, "the C userInfo count differs")
        for (position, (key, value)) in content.userInfo.enumerated() {
            let entry = cContent.user_info[position]!.pointee
            precondition(text(entry.key) == cText(key), "a C userInfo key differs")
            let json = text(entry.json).flatMap { try? JSON.parse(Array($0.utf8)) }
            precondition(json == value, "a C userInfo value's JSON does not read back as the value")
            precondition(text(entry.string_value) == value.stringValue.map(cText), "a C userInfo string differs")
        }
    }

    /// The string at `pointer`, nil for NULL.
    private static func text(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    /// What C sees of `string`: the part before its first NUL.
    private static func cText(_ string: String) -> String {
        String(decoding: string.utf8.prefix { $0 != 0 }, as: UTF8.self)
    }
}
