import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// A request that fired: what its delivery needs, and what `request.fired` says.
struct Firing: Sendable {
    /// The request.
    let key: PendingKey
    /// The number it was armed under: a request added again since is another.
    let number: UInt32
    /// Its record, which holds the request payload.
    let record: [UInt8]
    /// Its trigger.
    let trigger: NotificationTrigger
    /// When it fired, in wall seconds: the notification's date.
    let date: Double
    /// True when it fired more than `PendingScheduler.lateness` after its
    /// time: its time passed while the server was down, the machine asleep,
    /// or the clock was set past it.
    let late: Bool
    /// For a location trigger, the crossing that fired it: "entry" or "exit".
    let crossing: String?

    /// The request payload, its identifier first, without its trigger; nil
    /// when the record cannot be read back.
    var request: JSON? {
        ScheduledRecord.contents(ofBytes: record, identifier: key.identifier)?.request
    }

    /// The members of `request.fired`.
    var event: [(String, JSON)] {
        var members: [(String, JSON)] = [
            ("app", .string(key.app)), ("identifier", .string(key.identifier)), ("date", .string(ISO8601.format(date))),
            ("late", .bool(late)), ("trigger", trigger.json),
        ]
        if let crossing { members.append(("crossing", .string(crossing))) }
        return members
    }
}

/// How the delivery of a request that fired ended.
enum FiringOutcome: Sendable {
    /// Delivered (presented, to the inbox, or its badge set).
    case delivered
    /// Refused for good: the payload is no longer valid, its app cannot be found.
    case refused(Diagnostic)
    /// Its record could not be written (the state is degraded): tried again.
    case notRecorded(Diagnostic)
}
