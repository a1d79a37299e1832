import TidingsApp

/// The sample's whole life, without a user: the front end's part (allowing
/// the app, tapping "snooze", picking "Settings", the device arriving home)
/// played through the protocol on a front end's connection of its own
/// (`UserSide`: the app's connection may do none of it). Throws at the
/// first step that does not go as the app expects. What it prints depends
/// on nothing but the host's answers: no step waits on the clock.
func demo(_ reminders: Reminders, socketPath: String?) async throws {
    let center = reminders.center
    let user = try UserSide(socketPath: socketPath)
    // The app asks; once the host shows the request (authorization.requested)
    // the user allows it, as a front end's prompt (or `tidings apps allow`)
    // would: allowing grants what the app asked for, its own settings included.
    // (Decided already, from an earlier run on the same state: nothing to ask.)
    let undecided = try user.call("authorization.settings", #"{"app": "\#(Reminders.app)"}"#).contains("notDetermined")
    if undecided {
        try user.call("events.subscribe", #"{"apps": ["\#(Reminders.app)"]}"#)
    }
    async let asked = reminders.setUp()
    if undecided {
        try await user.waitFor(event: "authorization.requested")
        try user.call("authorization.decide", #"{"app": "\#(Reminders.app)", "decision": "allow"}"#)
        try user.call("events.unsubscribe", "{}")
    }
    guard try await asked else { throw DemoFailure("authorization was not granted") }
    print("authorization: granted")
    let settings = try await center.notificationSettings()
    guard settings.providesAppNotificationSettings else { throw DemoFailure("the app's own settings are not known") }
    let delegate = ReminderDelegate(reminders: reminders)
    try await center.setDelegate(delegate)
    var responses = delegate.handled.makeAsyncIterator()
    var settingsOpened = delegate.settings.makeAsyncIterator()

    // In an hour; every morning at 08:00 in Berlin, wherever the host runs;
    // and when the device arrives home.
    try await reminders.schedule("Water the plants", identifier: "plants",
                                 trigger: TimeIntervalNotificationTrigger(timeInterval: 3600, repeats: false))
    try await reminders.schedule("Morning pill", identifier: "morning-pill", trigger: CalendarNotificationTrigger(
        dateMatching: TriggerDateComponents(hour: 8, minute: 0, timeZone: "Europe/Berlin"), repeats: true))
    try await reminders.schedule("Evening pill", identifier: "evening-pill",
                                 trigger: LocationNotificationTrigger(region: Reminders.home, repeats: false))
    let pending = try await center.pendingNotificationRequests()
    for request in pending.sorted(by: { $0.identifier < $1.identifier }) {
        print("pending: \(request.identifier): \(request.content.body) (\(Reminders.describe(request.trigger)))")
    }
    guard Set(pending.map(\.identifier)) == ["plants", "morning-pill", "evening-pill"] else {
        throw DemoFailure("the reminders are not pending")
    }
    let morning = pending.first { $0.identifier == "morning-pill" }?.trigger as? CalendarNotificationTrigger
    guard morning?.dateComponents.timeZone == "Europe/Berlin" else { throw DemoFailure("the morning pill lost its zone") }

    // The device is away, then arrives home, as the desktop front end tells
    // it from GeoClue (the first position only says where it is: nothing crossed yet).
    try user.call("location.update", #"{"latitude": 52.5300, "longitude": 13.4050, "accuracy": 10}"#)
    let located = try user.call("location.update", #"{"latitude": 52.5201, "longitude": 13.4051, "accuracy": 10}"#)
    guard located.contains(#""evening-pill""#),
          try await center.deliveredNotifications().contains(where: { $0.request.identifier == "evening-pill" }) else {
        throw DemoFailure("arriving home did not deliver the evening pill: \(located)")
    }
    print("arrived home: evening-pill delivered")

    // A dose not to miss: a critical alert's sound (critical urgency on the desktop).
    try await reminders.schedule("Missed dose: take it now", identifier: "missed-dose", trigger: nil, sound: .defaultCritical)
    guard let missed = try await center.deliveredNotifications().first(where: { $0.request.identifier == "missed-dose" }),
          missed.request.content.sound?.isCritical == true else {
        throw DemoFailure("the missed dose was not delivered with a critical sound")
    }
    print("missed-dose: delivered with a critical sound")

    // A reminder delivered now, and the user's "snooze" on it.
    try await reminders.schedule("Call the dentist", identifier: "dentist", trigger: nil)
    try user.call("notifications.respond", #"{"app": "\#(Reminders.app)", "identifier": "dentist", "action": "snooze"}"#)
    guard let response = await responses.next(), response.actionIdentifier == "snooze",
          response.notification.request.identifier == "dentist" else {
        throw DemoFailure("the snooze response did not reach the app")
    }
    guard try await center.pendingNotificationRequests().contains(where: { $0.identifier == "dentist" }) else {
        throw DemoFailure("the snoozed reminder is not pending again")
    }

    // The user picks "Settings" on the missed dose: the app's own settings open.
    try user.call("notifications.respond", #"{"app": "\#(Reminders.app)", "identifier": "missed-dose", "action": "\#(NotificationResponse.openSettingsActionIdentifier)"}"#)
    guard let opened = await settingsOpened.next(), opened?.request.identifier == "missed-dose" else {
        throw DemoFailure("Settings did not open the app's settings")
    }

    try await center.removeAllPendingNotificationRequests()
    try await center.removeAllDeliveredNotifications()
    try await center.setDelegate(nil)
    print("demo: ok")
}

/// A demo step that did not go as expected.
struct DemoFailure: Error, CustomStringConvertible {
    /// What went wrong.
    let description: String
    /// A failure saying `description`.
    init(_ description: String) { self.description = description }
}
