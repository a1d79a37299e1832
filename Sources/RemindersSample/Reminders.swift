import Synchronization
import TidingsApp

/// The reminders app: its category, scheduling and listing, on the app's notification center.
struct Reminders {
    /// The app's identifier.
    static let app = "org.tidings.reminders"
    /// The app's icon, where its package installs it: front ends show it beside the name.
    static let icon = "/usr/share/icons/hicolor/scalable/apps/org.tidings.reminders.svg"
    /// The category of its reminders: "done" and "snooze" buttons, with
    /// icons (a desktop that shows action icons shows a check mark and a clock).
    static let category = NotificationCategory(identifier: "reminder", actions: [
        NotificationAction(identifier: "done", title: "Done", icon: NotificationActionIcon(systemImageName: "checkmark")),
        NotificationAction(identifier: "snooze", title: "Snooze 10 min", icon: NotificationActionIcon(systemImageName: "clock")),
    ])
    /// Home, for "when I get home" reminders: 100 m around it, firing on the way in.
    static let home = CircularRegion(identifier: "home", latitude: 52.5200, longitude: 13.4050, radius: 100,
                                     notifyOnEntry: true, notifyOnExit: false)

    /// The app's notification center.
    let center: UserNotificationCenter

    /// Names the app for front ends, asks to notify (answered by the user
    /// through a front end, or at once when decided already) and registers the category.
    func setUp() async throws -> Bool {
        try await center.setDisplayName("Reminders", icon: Self.icon)   // the prompt and headers say "Reminders", not the id
        let granted = try await center.requestAuthorization(
            options: [.alert, .sound, .badge, .criticalAlert, .providesAppNotificationSettings])
        try await center.setNotificationCategories([Self.category])
        return granted
    }

    /// Schedules a reminder saying `text`, delivered when `trigger` fires
    /// (now when nil), playing `sound`: the desktop's message sound by default,
    /// a critical alert's for a dose not to miss.
    func schedule(_ text: String, identifier: String, trigger: (any NotificationTrigger)?,
                  sound: NotificationSound = .default) async throws {
        var content = NotificationContent()
        content.title = "Reminder"
        content.body = text
        content.sound = sound
        if sound.isCritical { content.interruptionLevel = .critical }
        content.categoryIdentifier = Self.category.identifier
        content.userInfo = ["text": .string(text)]
        try await center.add(NotificationRequest(identifier: identifier, content: content, trigger: trigger))
    }

    /// The reminders waiting, one line each: what, when (a date, a daily
    /// time in its zone, or a place) and when it fires next.
    func list() async throws -> [String] {
        try await center.pendingNotificationRequests().map { request in
            let next = request.nextTriggerDate.map { "next: \($0)" } ?? "no date"
            return "\(request.identifier): \(request.content.body) (\(Self.describe(request.trigger)), \(next))"
        }
    }

    /// What `trigger` waits for, in a few words.
    static func describe(_ trigger: (any NotificationTrigger)?) -> String {
        switch trigger {
        case let calendar as CalendarNotificationTrigger:
            let components = calendar.dateComponents
            let time = "\(components.hour ?? 0):" + (components.minute.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00")
            return (calendar.repeats ? "daily at " : "at ") + time + " " + (components.timeZone ?? "in the host's zone")
        case let location as LocationNotificationTrigger:
            return "on arriving at \(location.region.identifier)"
        case let interval as TimeIntervalNotificationTrigger:
            return "in \(Int(interval.timeInterval)) s"
        default:
            return "now"
        }
    }
}

/// What the app does with the responses its reminders' actions forward:
/// prints them; "snooze" schedules the reminder again in ten minutes;
/// "Settings" opens the app's own notification settings.
final class ReminderDelegate: UserNotificationCenterDelegate {
    /// The app, to reschedule a snoozed reminder.
    let reminders: Reminders
    /// Each response handled, for whoever waits for them (the demo).
    let handled: AsyncStream<NotificationResponse>
    private let continuation: AsyncStream<NotificationResponse>.Continuation
    /// The notification each "Settings" was picked on (nil: from the app's settings page), for whoever waits.
    let settings: AsyncStream<UserNotification?>
    private let settingsContinuation: AsyncStream<UserNotification?>.Continuation
    /// The inbox identifiers of the responses handled: a response handed
    /// again (the app ended before calling the completion handler) is not
    /// acted on twice. A real app keeps them with its data, across starts.
    private let seen = Mutex<Set<Int64>>([])

    /// A delegate rescheduling through `reminders`.
    init(reminders: Reminders) {
        self.reminders = reminders
        (handled, continuation) = AsyncStream.makeStream(of: NotificationResponse.self)
        (settings, settingsContinuation) = AsyncStream.makeStream(of: UserNotification?.self)
    }

    /// In the foreground: shown as a banner, in the list, with its sound.
    func userNotificationCenter(_ center: UserNotificationCenter,
                                willPresent notification: UserNotification) async -> PresentationOptions {
        [.banner, .list, .sound]
    }

    /// Apple's completion-handler shape: the response stays in the app's
    /// inbox until `completionHandler` is called, so one the app ended in
    /// the middle of is handed again at the next start, with the same
    /// `inboxIdentifier`; one handled already is only taken. Prints the
    /// response; "snooze" schedules the reminder again.
    func userNotificationCenter(_ center: UserNotificationCenter, didReceive response: NotificationResponse,
                                withCompletionHandler completionHandler: @escaping @Sendable () -> Void) {
        let first = seen.withLock { $0.insert(response.inboxIdentifier).inserted }
        guard first else {
            print("response \(response.inboxIdentifier): handled already")
            completionHandler()
            return
        }
        Task {
            await self.handle(response)
            completionHandler()
            self.continuation.yield(response)
        }
    }

    /// Acts on one response, the first time it is handed.
    private func handle(_ response: NotificationResponse) async {
        let request = response.notification.request
        print("response: \(response.actionIdentifier) to \(request.identifier) (\(request.content.body))")
        guard response.actionIdentifier == "snooze" else { return }
        do {
            try await reminders.schedule(request.content.body, identifier: request.identifier,
                                         trigger: TimeIntervalNotificationTrigger(timeInterval: 600, repeats: false))
            print("snoozed: \(request.identifier) in 10 min")
        } catch {
            print("snooze failed: \(error)")
        }
    }

    /// The person picked "Settings" on a notification (the app asked for
    /// `providesAppNotificationSettings`): the app shows its own settings
    /// page; here it says so.
    func userNotificationCenter(_ center: UserNotificationCenter, openSettingsFor notification: UserNotification?) async {
        print("settings: opened from \(notification?.request.identifier ?? "the app")")
        settingsContinuation.yield(notification)
    }
}
