import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// Names a pending request: its app and its identifier.
struct PendingKey: Hashable, Sendable {
    /// The app the request is for.
    let app: String
    /// The request's identifier, unique among the app's.
    let identifier: String
}

/// One request waiting for its trigger, as the scheduler keeps it: the
/// bytes of its record (shared with the state), its trigger, and when it
/// fires next. The request payload itself is read back from the record only
/// when it fires or is listed, so that 100,000 pending cost little more than
/// their records.
struct PendingRequest: Sendable {
    /// Its record (`ScheduledRecord.bytes`): the request payload, its trigger, when it was added.
    let record: [UInt8]
    /// `due`, NaN for none: 8 bytes rather than an optional's 16, for each of 100,000 requests.
    private var dueOrNaN = Double.nan
    /// Its trigger, small for the common time interval.
    var trigger: StoredTrigger
    /// For a location trigger, whether the device was last known inside its
    /// region; nil until a position tells.
    var inside: Bool?
    /// A one-shot request that fired and whose delivery is under way: it
    /// is removed once delivered, and fires no more meanwhile.
    var firing = false
    /// Tells this request from an earlier one of its identifier; larger for
    /// one added later (what ranks requests without a date among themselves).
    /// Last and 4 bytes, so that a request takes 32 bytes rather than 40.
    let number: UInt32

    /// A request of `record` with `trigger`, numbered `number`, not due yet.
    init(record: [UInt8], trigger: StoredTrigger, number: UInt32) {
        self.record = record
        self.trigger = trigger
        self.number = number
    }

    /// When it fires next: wall seconds for a calendar trigger, elapsed
    /// seconds for a time interval; nil for a location trigger, and for a
    /// calendar trigger whose components match no date to come.
    var due: Double? {
        get { dueOrNaN.isNaN ? nil : dueOrNaN }
        set { dueOrNaN = newValue ?? .nan }
    }
}

/// A trigger as a pending request keeps it: a time interval in place; a
/// calendar trigger as whether it repeats, its components read back from
/// the request's record when a date must be computed (when it fires, when
/// the clock or the time zone changes); the rare location trigger boxed.
/// 100,000 requests, half of them calendar ones, so cost no trigger on the
/// heap but their records.
enum StoredTrigger: Sendable {
    /// `NotificationTrigger.timeInterval`.
    case interval(seconds: Double, repeats: Bool)
    /// `NotificationTrigger.calendar`, its components left in the record;
    /// `fired` once a repeating one fired (its next date is then a bound a
    /// clock set back does not move it before: nothing matches between the
    /// last fire and it, and the last fire does not fire again).
    case calendar(repeats: Bool, fired: Bool)
    /// Any other trigger: location, push.
    case boxed(TriggerBox)

    /// The trigger `trigger`, stored.
    init(_ trigger: NotificationTrigger) {
        switch trigger {
        case .timeInterval(let seconds, let repeats): self = .interval(seconds: seconds, repeats: repeats)
        case .calendar(_, let repeats): self = .calendar(repeats: repeats, fired: false)
        case .location, .push: self = .boxed(TriggerBox(trigger))
        }
    }

    /// The trigger, a calendar one read back from `record` (the request's
    /// record, which holds it); nil when the record cannot be read back.
    func trigger(record: [UInt8]) -> NotificationTrigger? {
        switch self {
        case .interval(let seconds, let repeats): .timeInterval(seconds: seconds, repeats: repeats)
        case .calendar(let repeats, _): ScheduledRecord.dateMatching(ofBytes: record).map { .calendar($0, repeats: repeats) }
        case .boxed(let box): box.trigger
        }
    }
}

/// A trigger on the heap, shared by the copies of its request.
final class TriggerBox: Sendable {
    /// The trigger.
    let trigger: NotificationTrigger

    /// A box holding `trigger`.
    init(_ trigger: NotificationTrigger) {
        self.trigger = trigger
    }
}
