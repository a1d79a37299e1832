import Glibc
import TidingsApp

// tidings-reminders: a small reminders app on TidingsApp.
let usage = """
    usage: tidings-reminders [--socket PATH] COMMAND
      schedule TEXT (--in SECONDS | --at HH:MM)   schedule a reminder (--at: in this process's time zone)
      schedule TEXT --home                        remind on arriving home (fed by the desktop's location)
      list                                        the reminders waiting
      listen                                      handle "done" / "snooze" until interrupted
      demo                                        the whole story, answering as the user (for CI)
    """

var arguments = Array(CommandLine.arguments.dropFirst())
var socket: String?
if arguments.first == "--socket", arguments.count > 1 {
    socket = arguments[1]
    arguments.removeFirst(2)
}
let reminders = Reminders(center: UserNotificationCenter(app: Reminders.app, socketPath: socket))

/// The trigger `--in SECONDS` or `--at HH:MM` asks for; nil when neither is given right.
func trigger(_ options: ArraySlice<String>) -> (any NotificationTrigger)? {
    guard options.count == 2, let value = options.last else { return nil }
    switch options.first {
    case "--in":
        return Double(value).flatMap { $0 > 0 ? TimeIntervalNotificationTrigger(timeInterval: $0, repeats: false) : nil }
    case "--at":
        let parts = value.split(separator: ":").compactMap { Int($0) }
        guard parts.count == 2, (0..<24).contains(parts[0]), (0..<60).contains(parts[1]) else { return nil }
        return CalendarNotificationTrigger(dateMatching: TriggerDateComponents(hour: parts[0], minute: parts[1]), repeats: false)
    default:
        return nil
    }
}

do {
    switch arguments.first {
    case "schedule" where arguments.count == 3 && arguments[2] == "--home":
        print(try await reminders.setUp() ? "authorization: granted" : "authorization: not granted")
        let identifier = "reminder-\(time(nil))"
        try await reminders.schedule(arguments[1], identifier: identifier,
                                     trigger: LocationNotificationTrigger(region: Reminders.home, repeats: false))
        print("scheduled: \(identifier)")
    case "schedule" where arguments.count == 4:
        guard let trigger = trigger(arguments[2...]) else {
            print(usage)
            exit(64)
        }
        print(try await reminders.setUp() ? "authorization: granted" : "authorization: not granted")
        let identifier = "reminder-\(time(nil))"
        try await reminders.schedule(arguments[1], identifier: identifier, trigger: trigger)
        print("scheduled: \(identifier)")
    case "list":
        for line in try await reminders.list() { print(line) }
    case "listen":
        let delegate = ReminderDelegate(reminders: reminders)
        try await reminders.center.setDelegate(delegate)
        for await _ in delegate.handled {}
    case "demo":
        try await demo(reminders, socketPath: socket)
    default:
        print(usage)
        exit(64)
    }
} catch {
    print("tidings-reminders: \(error)")
    exit(1)
}
