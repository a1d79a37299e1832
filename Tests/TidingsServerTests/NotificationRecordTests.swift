import Testing
import TestSupport
import TidingsBase
import TidingsProtocol
import TidingsRuntime
@testable import TidingsServer

/// A kept notification keeps the trigger that delivered it, through the
/// state on disk; a trigger that cannot be read costs the trigger, with a
/// warning, never the notification.
@Suite struct NotificationRecordTests {
    let directory = TemporaryDirectory("state")

    /// A notification of `identifier` delivered by `trigger`.
    static func notification(_ identifier: String, trigger: NotificationTrigger?) -> UserNotification {
        var content = NotificationContent()
        content.title = "Stand-up"
        content.isLocal = trigger != .push
        return UserNotification(identifier: identifier, date: 1_795_000_000, content: content, trigger: trigger)
    }

    static let triggers: [NotificationTrigger?] = [
        nil, .push, .timeInterval(seconds: 90, repeats: false),
        .calendar({ var matching = DateMatching(); matching.weekday = 2; matching.hour = 9; matching.timeZone = "Europe/Paris"; return matching }(),
                  repeats: true),
        .location(CircularRegion(identifier: "office", latitude: 48.85, longitude: 2.35, radius: 100, notifyOnEntry: false),
                  repeats: true),
    ]

    @Test(arguments: triggers)
    func theRecordKeepsTheTrigger(_ trigger: NotificationTrigger?) throws {
        let notification = Self.notification("n", trigger: trigger)
        let record = NotificationRecord.json(notification)
        #expect(record["trigger"] == trigger?.json)
        var warnings: [Diagnostic] = []
        #expect(NotificationRecord.notification(record, warnings: &warnings) == notification)
        #expect(warnings.isEmpty)
    }

    @Test func aKeptNotificationComesBackWithItsTriggerAfterARestart() throws {
        let calendar = Self.triggers[3]
        do {
            let state = try JournaledState(directory: directory.file("tidings"))
            try state.recordDelivery(of: Self.notification("fired", trigger: calendar), to: "com.example.team", width: 360)
            try state.recordDelivery(of: Self.notification("pushed", trigger: .push), to: "com.example.team", width: 360)
        }
        let kept = try JournaledState(directory: directory.file("tidings")).kept
        #expect(kept.diagnostics.isEmpty)
        #expect(kept.delivered.map(\.notification.trigger) == [calendar, .push])
    }

    @Test func anUnreadableTriggerIsLeftOutWithAWarningAndTheNotificationKept() throws {
        guard case .object(var members) = NotificationRecord.json(Self.notification("n", trigger: .push)) else {
            Issue.record("a record is an object")
            return
        }
        members.removeAll { $0.0 == "trigger" }
        members.append(("trigger", .object([("timeInterval", .integer(-5))])))
        var warnings: [Diagnostic] = []
        let read = try #require(NotificationRecord.notification(.object(members), warnings: &warnings))
        #expect(read.trigger == nil && read.identifier == "n" && read.content.title == "Stand-up")
        #expect(warnings.map(\.code) == [.stateUnreadable])
        #expect(warnings.first?.message.contains("kept without it") == true)
    }
}
