import TidingsApp

/// The reminders app: its category, scheduling and listing, on the app's notification center.
struct Reminders {
    /// The app's identifier.
    static let app = "org.tidings.reminders"
    /// The category of its reminders: "done" and "snooze" buttons.
    static let category = NotificationCategory(identifier: "reminder", actions: [
        NotificationAction(identifier: "done", title: "Done"),
        NotificationAction(identifier: "snooze", title: "Snooze 10 min"),
    ])

    /// The app's notification center.
    let center: UserNotificationCenter

    /// Names the app for front ends, asks to notify (answered by the user
    /// through a front end, or at once when decided already) and registers the category.
    func setUp() async throws -> Bool {
        try await center.setDisplayName("Reminders")   // the prompt and headers say "Reminders", not the id
        let granted = try await center.requestAuthorization(options: [.alert, .sound, .badge])
        try await center.setNotificationCategories([Self.category])
        return granted
    }

    /// Schedules a reminder saying `text`, delivered when `trigger` fires (now when nil).
    func schedule(_ text: String, identifier: String, trigger: (any NotificationTrigger)?) async throws {
        var content = NotificationContent()
        content.title = "Reminder"
        content.body = text
        content.sound = .default
        content.categoryIdentifier = Self.category.identifier
        content.userInfo = ["text": .string(text)]
        try await center.add(NotificationRequest(identifier: identifier, content: content, trigger: trigger))
    }

    /// The reminders waiting, one line each.
    func list() async throws -> [String] {
        try await center.pendingNotificationRequests().map { request in
            let when = request.nextTriggerDate.map { "\($0)" } ?? "no date"
            return "\(request.identifier): \(request.content.body) (next: \(when))"
        }
    }
}

/// What the app does with the responses its reminders' actions forward:
/// prints them; "snooze" schedules the reminder again in ten minutes.
final class ReminderDelegate: UserNotificationCenterDelegate {
    /// The app, to reschedule a snoozed reminder.
    let reminders: Reminders
    /// Each response handled, for whoever waits for them (the demo).
    let handled: AsyncStream<NotificationResponse>
    private let continuation: AsyncStream<NotificationResponse>.Continuation

    /// A delegate rescheduling through `reminders`.
    init(reminders: Reminders) {
        self.reminders = reminders
        (handled, continuation) = AsyncStream.makeStream(of: NotificationResponse.self)
    }

    /// In the foreground: shown as a banner, in the list, with its sound.
    func userNotificationCenter(_ center: UserNotificationCenter,
                                willPresent notification: UserNotification) async -> PresentationOptions {
        [.banner, .list, .sound]
    }

    /// Prints the response; "snooze" schedules the reminder again. The
    /// response is taken from the inbox when this returns: one the app ended
    /// in the middle of is handed again at the next start, with the same
    /// `inboxIdentifier` (a reminder snoozed twice replaces itself, as its
    /// identifier is the same: nothing to de-duplicate here).
    func userNotificationCenter(_ center: UserNotificationCenter, didReceive response: NotificationResponse) async {
        let request = response.notification.request
        print("response \(response.inboxIdentifier): \(response.actionIdentifier) to \(request.identifier) (\(request.content.body))")
        if response.actionIdentifier == "snooze" {
            do {
                try await reminders.schedule(request.content.body, identifier: request.identifier,
                                             trigger: TimeIntervalNotificationTrigger(timeInterval: 600, repeats: false))
                print("snoozed: \(request.identifier) in 10 min")
            } catch {
                print("snooze failed: \(error)")
            }
        }
        continuation.yield(response)
    }
}
