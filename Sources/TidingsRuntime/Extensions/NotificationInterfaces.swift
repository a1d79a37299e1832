import Synchronization
import TidingsABI

/// The notifications the host laid out (`CNotificationLayout`) and that are
/// alive, by the address of their `tidings_notification`, with where the
/// answers about them lie: what the host's interfaces that take a pointer
/// it passed (`tidings.content/1`, `tidings.trigger/1`) look up. A pointer
/// the host did not pass is in no entry, so it gets NULL.
enum LaidOutNotifications {
    /// Where the answers about one laid-out notification lie, as addresses.
    struct Answers: Sendable {
        /// Its `tidings_content`.
        var content: UInt
        /// Its content's `tidings_content_details`.
        var details: UInt
        /// Its `tidings_trigger`; 0 when it has none.
        var trigger: UInt
    }

    /// Each laid-out notification alive, by its address, and by its content's.
    private static let table = Mutex<(notifications: [UInt: Answers], contents: [UInt: UInt])>(([:], [:]))

    /// Makes `answers` those of the notification at `notification`, until `forget`.
    /// Thread: any.
    static func remember(_ notification: UnsafeRawPointer, answers: Answers) {
        let key = UInt(bitPattern: notification)
        table.withLock { table in
            table.notifications[key] = answers
            table.contents[answers.content] = key
        }
    }

    /// Forgets the notification at `notification`.
    /// Thread: any.
    static func forget(_ notification: UnsafeRawPointer) {
        table.withLock { table in
            guard let answers = table.notifications.removeValue(forKey: UInt(bitPattern: notification)) else { return }
            table.contents[answers.content] = nil
        }
    }

    /// The answers about the notification at `notification`; nil for one the host did not lay out.
    /// Thread: any.
    static func answers(notification: UnsafeRawPointer) -> Answers? {
        table.withLock { $0.notifications[UInt(bitPattern: notification)] }
    }

    /// The answers about the notification whose content is at `content`; nil for a content the host did not lay out.
    /// Thread: any.
    static func answers(content: UnsafeRawPointer) -> Answers? {
        table.withLock { table in table.contents[UInt(bitPattern: content)].flatMap { table.notifications[$0] } }
    }
}

/// The host's `tidings.content/1` interface: the details of a content the
/// host laid out that `tidings_content` does not carry.
enum ContentInterface {
    /// The interface, made once and never freed, as the ABI promises; never
    /// changed after it is made, so it may be read from any thread.
    nonisolated(unsafe) static let interface: UnsafePointer<tidings_content_interface> = {
        let made = UnsafeMutablePointer<tidings_content_interface>.allocate(capacity: 1)
        made.initialize(to: tidings_content_interface(
            struct_size: UInt32(MemoryLayout<tidings_content_interface>.size), get_details: getDetails))
        return UnsafePointer(made)
    }()

    /// `get_details`: the details of a content the host passed; NULL for any other pointer.
    private static let getDetails: @convention(c) (UnsafePointer<tidings_content>?) -> UnsafePointer<tidings_content_details>? = {
        content in
        guard let content, let answers = LaidOutNotifications.answers(content: content) else { return nil }
        return UnsafeRawPointer(bitPattern: answers.details)?.assumingMemoryBound(to: tidings_content_details.self)
    }
}

/// The host's `tidings.trigger/1` interface: the trigger of a notification
/// the host laid out (UNNotificationRequest.trigger).
enum TriggerInterface {
    /// The interface, made once and never freed, as the ABI promises; never
    /// changed after it is made, so it may be read from any thread.
    nonisolated(unsafe) static let interface: UnsafePointer<tidings_trigger_interface> = {
        let made = UnsafeMutablePointer<tidings_trigger_interface>.allocate(capacity: 1)
        made.initialize(to: tidings_trigger_interface(
            struct_size: UInt32(MemoryLayout<tidings_trigger_interface>.size), get_trigger: getTrigger))
        return UnsafePointer(made)
    }()

    /// `get_trigger`: the trigger of a notification the host passed; NULL
    /// for one without a trigger and for any other pointer.
    private static let getTrigger: @convention(c) (UnsafePointer<tidings_notification>?) -> UnsafePointer<tidings_trigger>? = {
        notification in
        guard let notification, let answers = LaidOutNotifications.answers(notification: notification) else { return nil }
        return UnsafeRawPointer(bitPattern: answers.trigger)?.assumingMemoryBound(to: tidings_trigger.self)
    }
}
