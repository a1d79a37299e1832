import Synchronization
import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// A pending request as the state keeps it: the journal record
/// `{"scheduled": APP, "identifier": ID, "added": WALL, "trigger": {...},
/// "request": {...}}` (the request payload without its identifier and
/// trigger, which the record holds beside it), as bytes.
///
/// The scheduler keeps the same bytes as the state's journal and snapshot
/// do (one array, shared), and reads the request back from them only when it
/// fires or is listed: a pending request costs its record and little more.
package struct ScheduledRecord: Sendable {
    /// The app the request is for.
    package let app: String
    /// The request's identifier.
    package let identifier: String
    /// The record as written: JSON.
    package let bytes: [UInt8]

    /// The record of `request` (a request payload; its `identifier` and
    /// `trigger` are left out, the record holding them) scheduled for `app`
    /// under `identifier` at `added` (wall seconds) with `trigger`.
    package init(app: String, identifier: String, added: Double, trigger: NotificationTrigger, request: JSON) {
        self.app = app
        self.identifier = identifier
        let payload = (request.objectMembers ?? []).filter { $0.0 != "identifier" && $0.0 != "trigger" }
        var bytes: [UInt8] = []
        JSON.object([("scheduled", .string(app)), ("identifier", .string(identifier)), ("added", .double(added)),
                     ("trigger", trigger.json), ("request", .object(payload))]).serialize(into: &bytes)
        // Kept as long as the request is pending, by the scheduler and the state alike: no slack.
        self.bytes = bytes.trimmed
    }

    /// The record read back as `json` from `bytes`; nil when it is not one.
    init?(reading json: JSON, bytes: [UInt8]) {
        guard let app = json["scheduled"]?.stringValue, let identifier = json["identifier"]?.stringValue else { return nil }
        self.app = app
        self.identifier = identifier
        self.bytes = bytes
    }

    /// What the record holds besides its app and identifier.
    package struct Contents: Sendable {
        /// When it was added, in wall seconds.
        package var added: Double
        /// Its trigger.
        package var trigger: NotificationTrigger
        /// The request payload, its identifier in first place, without its trigger.
        package var request: JSON
    }

    /// What the record `bytes` holds, for a request of `identifier`; nil
    /// when they are not a request this server wrote.
    static func contents(ofBytes bytes: [UInt8], identifier: String) -> Contents? {
        (try? JSON.parse(bytes)).flatMap { contents(of: $0, identifier: identifier) }
    }

    /// The components of the calendar trigger the record `bytes` holds, as
    /// this server wrote them (not checked again); nil when they hold none.
    static func dateMatching(ofBytes bytes: [UInt8]) -> DateMatching? {
        (try? JSON.parse(bytes))?["trigger"]?["dateMatching"].flatMap { DateMatching(written: $0) }
    }

    /// What the record `json` holds, for a request of `identifier`; nil
    /// when it was added at a date outside `CheckedNumbers.dates` or its
    /// trigger is not one an app may give (an interval no clock holds).
    static func contents(of json: JSON, identifier: String) -> Contents? {
        guard let added = json["added"]?.doubleValue, CheckedNumbers.dates.contains(added),
              let members = json["request"]?.objectMembers,
              let trigger = json["trigger"].flatMap({ NotificationTrigger.read($0, allowingPush: true).trigger })
        else { return nil }
        return Contents(added: added, trigger: trigger, request: .object([("identifier", .string(identifier))] + members))
    }
}

/// A pending request kept from before the server started.
package struct KeptRequest: Sendable {
    /// Its record.
    package var record: ScheduledRecord
    /// When it was added, in wall seconds.
    package var added: Double
    /// Its trigger.
    package var trigger: NotificationTrigger
    /// When a repeating one last fired, in wall seconds; nil when it never did.
    package var lastFired: Double?
}

/// The pending requests kept from before the server started, taken once by
/// the scheduler that arms them again: what they hold is then not kept twice.
package final class KeptRequests: Sendable {
    private let requests: Mutex<[KeptRequest]>

    /// `requests`, to be taken.
    package init(_ requests: [KeptRequest] = []) {
        self.requests = Mutex(requests)
    }

    /// How many are left to take.
    package var count: Int {
        requests.withLock { $0.count }
    }

    /// The requests, left to the caller: none are left here.
    package func take() -> [KeptRequest] {
        requests.withLock { requests in
            defer { requests = [] }
            return requests
        }
    }
}
