import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// One change of the server's state as its journal holds it: the JSON
/// record's bytes, and what it changes.
///
/// Records are JSON: `{"categories": APP, "list": [...]}` (an app's
/// categories, replacing those it had), `{"appRegistered": APP,
/// "registration": {...}}` (an app's name, icon and show-previews setting,
/// replacing those it had), `{"delivered": APP, "width": W,
/// "notification": {...}}` (a notification shown, replacing one of its app
/// and identifier), `{"removed": [{"app": APP, "identifier": ID}, ...]}`
/// (notifications that left the screen; an earlier version wrote bare
/// identifiers, `{"removed": [IDS]}`, from when identifiers were unique
/// across apps: each removes that identifier of whichever app has it),
/// `{"inboxed": APP, "id": N, ...}` (an entry kept in an app's inbox, see
/// `InboxEntry.record`), `{"taken": APP, "ids": [N]}` (entries that left it)
/// and `{"badge": APP, "count": N}` (an app's badge; 0: none); for pending
/// requests, `{"scheduled": APP, "identifier": ID, "added": WALL, "trigger":
/// {...}, "request": {...}}` (a request added, replacing one of its app and
/// identifier; see `ScheduledRecord`), `{"unscheduled": APP, "identifiers":
/// [IDS]}` (requests removed: by the app, fired, dropped) and `{"fired": APP,
/// "identifier": ID, "at": WALL}` (a repeating request's last fire, so that a
/// restart does not fire it again); `{"authorization": APP, "status": S,
/// "options": [NAMES]}` (the user's decision about an app, see `AppAuthorization`);
/// `{"sequence": N}` (event sequence numbers reserved up to N).
/// A snapshot is the records that rebuild the state: each app's categories
/// and registration, then each notification kept, in the order they were
/// delivered, then each pending request and the last fire of those that repeat.
struct StateRecord: Sendable {
    /// What a record changes.
    enum Subject: Sendable {
        /// The categories of an app.
        case categories(app: String)
        /// The registration (name, icon, show previews) of an app.
        case registration(app: String)
        /// A notification delivered, by app and identifier.
        case delivered(NotificationKey)
        /// Notifications that left the screen, by app and identifier; an app
        /// of nil (a record of an earlier version) is whichever app has it.
        case removed([(app: String?, identifier: String)])
        /// An entry kept in an app's inbox.
        case inboxed(app: String, identifier: UInt64)
        /// Entries that left an app's inbox.
        case taken(app: String, identifiers: [UInt64])
        /// An app's badge.
        case badge(app: String)
        /// A pending request added.
        case scheduled(app: String, identifier: String)
        /// Pending requests removed.
        case unscheduled(app: String, identifiers: [String])
        /// A repeating request fired.
        case fired(app: String, identifier: String)
        /// The user's decision about an app's notifications.
        case authorization(app: String)
        /// Event sequence numbers reserved.
        case sequence
    }

    /// What the record changes.
    let subject: Subject
    /// The record as written: JSON.
    let bytes: [UInt8]

    /// The record of `app` registering `categories`.
    init(categories: [NotificationCategory], of app: String) {
        self.init(.categories(app: app),
                  .object([("categories", .string(app)), ("list", .array(categories.map(\.json)))]))
    }

    /// The record of `app` registering `registration`.
    init(registration: AppRegistration, of app: String) {
        self.init(.registration(app: app), .object([("appRegistered", .string(app)), ("registration", registration.json)]))
    }

    /// The record of `notification` delivered to `app` at `width`.
    init(delivery notification: UserNotification, to app: String, width: Double) {
        self.init(.delivered(NotificationKey(app: app, identifier: notification.identifier)),
                  .object([("delivered", .string(app)), ("width", .double(width)),
                           ("notification", NotificationRecord.json(notification))]))
    }

    /// The record of the notifications `keys` leaving the screen.
    init(removal keys: [NotificationKey]) {
        self.init(.removed(keys.map { ($0.app, $0.identifier) }), .object([("removed", .array(keys.map { key in
            .object([("app", .string(key.app)), ("identifier", .string(key.identifier))])
        }))]))
    }

    /// What a removal record's entry names: a notification of an app
    /// (`{"app", "identifier"}`), or an identifier alone (an earlier
    /// version's record); nil for neither.
    private static func removedEntry(_ entry: JSON) -> (app: String?, identifier: String)? {
        if let identifier = entry.stringValue { return (nil, identifier) }
        guard let app = entry["app"]?.stringValue, let identifier = entry["identifier"]?.stringValue else { return nil }
        return (app, identifier)
    }

    /// The record of `entry` kept in its app's inbox.
    init(inboxed entry: InboxEntry) {
        self.init(.inboxed(app: entry.app, identifier: entry.identifier), entry.record)
    }

    /// The record of the entries `identifiers` leaving the inbox of `app`.
    init(taken identifiers: [UInt64], of app: String) {
        self.init(.taken(app: app, identifiers: identifiers),
                  .object([("taken", .string(app)), ("ids", .array(identifiers.map { .integer(Int64(clamping: $0)) }))]))
    }

    /// The record of `app`'s badge becoming `count` (0: none).
    init(badge count: Int64, of app: String) {
        self.init(.badge(app: app), .object([("badge", .string(app)), ("count", .integer(count))]))
    }

    /// The record of the pending request `record` added.
    init(scheduled record: ScheduledRecord) {
        subject = .scheduled(app: record.app, identifier: record.identifier)
        bytes = record.bytes
    }

    /// The record of the pending requests `identifiers` of `app` removed.
    init(unscheduled identifiers: [String], of app: String) {
        self.init(.unscheduled(app: app, identifiers: identifiers),
                  .object([("unscheduled", .string(app)), ("identifiers", .array(identifiers.map(JSON.string)))]))
    }

    /// The record of the repeating request `identifier` of `app` firing at `instant` (wall seconds).
    init(fired identifier: String, of app: String, at instant: Double) {
        self.init(.fired(app: app, identifier: identifier),
                  .object([("fired", .string(app)), ("identifier", .string(identifier)), ("at", .double(instant))]))
    }

    /// The record of the user's decision `authorization` about `app`.
    init(authorization: AppAuthorization, of app: String) {
        self.init(.authorization(app: app), authorization.record(of: app))
    }

    /// The record of event sequence numbers reserved up to `last`.
    init(sequenceThrough last: UInt64) {
        self.init(.sequence, .object([("sequence", .integer(Int64(clamping: last)))]))
    }

    /// The record `json`, serialized, about `subject`.
    private init(_ subject: Subject, _ json: JSON) {
        self.subject = subject
        var bytes: [UInt8] = []
        json.serialize(into: &bytes)
        self.bytes = bytes
    }

    /// The record read back as `json` from `bytes`; nil when it is not one this server writes.
    init?(reading json: JSON, bytes: [UInt8]) {
        if let app = json["categories"]?.stringValue, json["list"]?.arrayValue != nil {
            subject = .categories(app: app)
        } else if let app = json["appRegistered"]?.stringValue, json["registration"]?.objectMembers != nil {
            subject = .registration(app: app)
        } else if let app = json["delivered"]?.stringValue, json["width"]?.doubleValue != nil,
                  let identifier = json["notification"]?["identifier"]?.stringValue {
            subject = .delivered(NotificationKey(app: app, identifier: identifier))
        } else if let removed = json["removed"]?.arrayValue {
            subject = .removed(removed.compactMap(Self.removedEntry))
        } else if let app = json["inboxed"]?.stringValue, let identifier = json["id"]?.integerValue.flatMap(UInt64.init(exactly:)) {
            subject = .inboxed(app: app, identifier: identifier)
        } else if let app = json["taken"]?.stringValue, let taken = json["ids"]?.arrayValue {
            subject = .taken(app: app, identifiers: taken.compactMap { $0.integerValue.flatMap(UInt64.init(exactly:)) })
        } else if let app = json["badge"]?.stringValue, json["count"]?.integerValue != nil {
            subject = .badge(app: app)
        } else if let record = ScheduledRecord(reading: json, bytes: bytes) {
            subject = .scheduled(app: record.app, identifier: record.identifier)
        } else if let app = json["unscheduled"]?.stringValue, let identifiers = json["identifiers"]?.arrayValue {
            subject = .unscheduled(app: app, identifiers: identifiers.compactMap(\.stringValue))
        } else if let app = json["fired"]?.stringValue, let identifier = json["identifier"]?.stringValue,
                  json["at"]?.doubleValue != nil {
            subject = .fired(app: app, identifier: identifier)
        } else if let app = json["authorization"]?.stringValue, AppAuthorization(record: json) != nil {
            subject = .authorization(app: app)
        } else if json["sequence"]?.integerValue != nil {
            subject = .sequence
        } else {
            return nil
        }
        self.bytes = bytes
    }

    /// The records a snapshot written by an earlier version holds, one JSON
    /// object `{"version": 1, "categories": [{"app", "categories"}],
    /// "delivered": [records]}`; nil when `json` is not one. An entry that is
    /// not a record is left out and counted in `unreadable`.
    static func records(ofEarlierSnapshot json: JSON, unreadable: inout Int) -> [(StateRecord, JSON)]? {
        guard json["version"] != nil, let delivered = json["delivered"]?.arrayValue else { return nil }
        var records: [(StateRecord, JSON)] = []
        for entry in json["categories"]?.arrayValue ?? [] {
            guard let app = entry["app"]?.stringValue, let list = entry["categories"], list.arrayValue != nil else {
                unreadable += 1
                continue
            }
            let record = JSON.object([("categories", .string(app)), ("list", list)])
            records.append((StateRecord(.categories(app: app), record), record))
        }
        for record in delivered {
            guard let identifier = record["notification"]?["identifier"]?.stringValue,
                  let app = record["delivered"]?.stringValue, record["width"]?.doubleValue != nil
            else {
                unreadable += 1
                continue
            }
            records.append((StateRecord(.delivered(NotificationKey(app: app, identifier: identifier)), record), record))
        }
        return records
    }
}
