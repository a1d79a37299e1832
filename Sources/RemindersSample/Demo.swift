import TidingsApp

/// The sample's whole life, without a user: the front end's part (allowing
/// the app, tapping "snooze") played through the protocol on a front end's
/// connection of its own (`UserSide`: the app's connection may do neither).
/// Throws at the first step that does not go as the app expects.
func demo(_ reminders: Reminders, socketPath: String?) async throws {
    let center = reminders.center
    let user = try UserSide(socketPath: socketPath)
    // The user allows the app, as a front end's prompt (or `tidings apps allow`) would.
    try user.call("authorization.decide", #"{"app": "\#(Reminders.app)", "decision": "allow"}"#)
    guard try await reminders.setUp() else { throw DemoFailure("authorization was not granted") }
    print("authorization: granted")
    let delegate = ReminderDelegate(reminders: reminders)
    try await center.setDelegate(delegate)

    try await reminders.schedule("Water the plants", identifier: "plants",
                                 trigger: TimeIntervalNotificationTrigger(timeInterval: 3600, repeats: false))
    let pending = try await reminders.list()
    print("pending:", pending.joined(separator: "; "))
    guard pending.contains(where: { $0.hasPrefix("plants:") }) else { throw DemoFailure("the reminder is not pending") }

    // A reminder delivered now, and the user's "snooze" on it.
    try await reminders.schedule("Call the dentist", identifier: "dentist", trigger: nil)
    try user.call("notifications.respond", #"{"app": "\#(Reminders.app)", "identifier": "dentist", "action": "snooze"}"#)
    var responses = delegate.handled.makeAsyncIterator()
    guard let response = await responses.next(), response.actionIdentifier == "snooze",
          response.notification.request.identifier == "dentist" else {
        throw DemoFailure("the snooze response did not reach the app")
    }
    guard try await center.pendingNotificationRequests().contains(where: { $0.identifier == "dentist" }) else {
        throw DemoFailure("the snoozed reminder is not pending again")
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
