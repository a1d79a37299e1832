import Glibc
import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// The server's state on disk, in a `RecordStore` (`server.snapshot` and
/// `server.journal.G` under `$XDG_STATE_HOME/tidings`; records in
/// `StateRecord`).
///
/// Durability. Each change is one journal record (a delivery with the
/// expiry it makes room by, two), written with one `write`
/// before the change is made and answered, so an answer means the change
/// survives the server being killed; a change whose record cannot be
/// written is refused, not made — the state in memory is the state on disk. The journal is flushed to disk every
/// second, and each snapshot as it is written: a power loss loses at most
/// the last second.
///
/// Folding. Once the journal's segment grows past `foldThreshold` bytes
/// and past the last snapshot's records (so that folding costs the same
/// per change however large the state) it is sealed and a new one started, at once (and as soon, with the segment
/// made ahead, once removals halved the notifications kept, so that the
/// state kept for folding lets go of them too); the keeper thread then writes
/// the state as of the sealed segment's end to a new snapshot while changes
/// go on to the new segment. No change waits for a fold.
package final class JournaledState: ServerState {
    /// What was kept when the state was opened.
    package let kept: KeptState
    /// The directory holding the state.
    package let directory: String
    /// What loading repaired, in words.
    private let repaired: [Diagnostic]
    /// What loading found damaged.
    private let losses: [RecordStore.Loss]
    /// The records loading could not use (unreadable, or holding what does
    /// not fit, as a request of an absurd interval an older version kept):
    /// left out, each with its diagnostic, so that the server serves.
    private let setAside: [Diagnostic]
    /// The lock on `server.lock`, held while this state is open, so that two
    /// servers never write one state.
    private let lock: FileDescriptor
    private let writer: StateWriter
    private let keeper: StateKeeper

    /// The journal segment's size past which it is folded into a snapshot: 4 MiB.
    package static let defaultFoldThreshold = 4 << 20

    /// Opens (or makes) the state in `directory`, reading back what it kept,
    /// and starts the thread that folds and flushes it.
    /// - Parameter foldThreshold: the journal segment's size past which it is
    ///   folded into a snapshot, in bytes.
    package init(directory: String, foldThreshold: Int = defaultFoldThreshold) throws(Diagnostic) {
        lock = try Self.lock(directory)
        self.directory = directory
        let store = RecordStore(directory: directory, name: "server")
        let loaded = try store.load()
        var diagnostics = loaded.recovered
        var state = FoldedState<(bytes: [UInt8], json: JSON)>()
        var unreadable = 0
        // An empty record is a probe written while the disk was failing.
        for payload in (loaded.snapshot ?? []) + loaded.entries where !payload.isEmpty {
            guard let json = try? JSON.parse(payload) else {
                unreadable += 1
                continue
            }
            if let records = StateRecord.records(ofEarlierSnapshot: json, unreadable: &unreadable) {
                for (record, json) in records { state.apply(record.subject, (record.bytes, json)) }
            } else if let record = StateRecord(reading: json, bytes: payload) {
                // A pending request is read again from its bytes (`keepPending`): 100,000 JSON trees
                // held to the end of loading would cost far more than their records.
                if case .scheduled = record.subject {
                    state.apply(record.subject, (payload, .null))
                } else {
                    state.apply(record.subject, (payload, json))
                }
            } else {
                unreadable += 1
            }
        }
        diagnostics += Array(repeating: .warning(.stateUnreadable, "A record of the state could not be read; it was skipped."),
                             count: unreadable)
        var kept = Self.kept(from: state.mapValues(\.json), diagnostics: diagnostics)
        Self.keepPending(of: &state, in: &kept)
        self.kept = kept
        setAside = kept.diagnostics.filter { $0.code == .stateUnreadable }
        repaired = loaded.recovered
        losses = loaded.losses
        let model = state.mapValues(\.bytes)
        writer = StateWriter(store: store, foldThreshold: foldThreshold,
                             snapshotBytes: (loaded.snapshot ?? []).reduce(0) { $0 + $1.count }, kept: model.deliveredCount)
        keeper = StateKeeper(writer: writer, model: model)
        try keeper.start()
    }

    deinit {
        keeper.stop()
    }

    /// Takes `server.lock` in `directory`, or says another server holds it;
    /// the directory and the lock are opened as what they must be (a private
    /// directory, a regular file of the user's own).
    /// The corresponding C function is `flock(LOCK_EX | LOCK_NB)`.
    private static func lock(_ directory: String) throws(Diagnostic) -> FileDescriptor {
        let path = Path.join(directory, "server.lock")
        _ = try FileDescriptor(openingPrivateDirectory: directory)
        let file = try FileDescriptor(openingOwn: path, as: .regularFile, O_RDWR | O_CREAT, mode: 0o600)
        guard flock(file.rawValue, LOCK_EX | LOCK_NB) == 0 else {
            throw .error(.stateLocked, "Another server keeps its state in \(directory); give this one another --state.",
                         at: .init(file: path))
        }
        return file
    }

    /// The typed state `state` holds.
    private static func kept(from state: FoldedState<JSON>, diagnostics: [Diagnostic]) -> KeptState {
        var kept = KeptState()
        kept.diagnostics = diagnostics
        kept.eventSequence = state.sequence?["sequence"]?.integerValue.flatMap(UInt64.init(exactly:)) ?? 0
        for (app, record) in state.categories.sorted(by: { $0.key < $1.key }) {
            let reading = CategoryFile.read(.object([("app", .string(app)), ("categories", record["list"] ?? .null)]))
            if let file = reading.file {
                kept.categories.append((app, file.categories))
            } else {
                kept.diagnostics.append(.warning(.stateUnreadable, "The kept categories of \(app) could not be read; they were left out."))
            }
        }
        for (app, record) in state.registrations.sorted(by: { $0.key < $1.key }) {
            let reading = AppRegistration.read(.object([("app", .string(app))] + (record["registration"]?.objectMembers ?? [])))
            if let (app, registration) = reading.registration {
                kept.registrations.append((app, registration))
            } else {
                kept.diagnostics.append(.warning(.stateUnreadable, "The kept registration of \(app) could not be read; it was left out."))
            }
        }
        for (app, record) in state.badges.sorted(by: { $0.key < $1.key }) {
            if let count = record["count"]?.integerValue {
                kept.badges.append((app, count))
            } else {
                kept.diagnostics.append(.warning(.stateUnreadable, "The kept badge of \(app) could not be read; it was left out."))
            }
        }
        for (app, record) in state.authorizations.sorted(by: { $0.key < $1.key }) {
            if let authorization = AppAuthorization(record: record) {
                kept.authorizations.append((app, authorization))
            } else {
                kept.diagnostics.append(.warning(.stateUnreadable, "The kept authorization of \(app) could not be read; it was left out."))
            }
        }
        for record in state.inboxEntries {
            guard let entry = InboxEntry(record: record) else {
                kept.diagnostics.append(.warning(.stateUnreadable, "A kept inbox entry could not be read; it was left out."))
                continue
            }
            kept.inbox.append(entry)
        }
        for record in state.orderedDeliveries {
            guard let app = record["delivered"]?.stringValue, let width = record["width"]?.doubleValue,
                  let notification = record["notification"].flatMap({ NotificationRecord.notification($0, warnings: &kept.diagnostics) })
            else {
                kept.diagnostics.append(.warning(.stateUnreadable, "A kept notification could not be read; it was left out."))
                continue
            }
            kept.delivered.append((app, notification, width))
        }
        return kept
    }

    /// Reads the pending requests `state` holds into `kept`, each keeping
    /// the bytes of its record (shared with the keeper's model). One that
    /// cannot be used — unreadable, or with a trigger or date that does not
    /// fit — is set aside: left out of `state` too (the next snapshot no
    /// longer holds it), with a diagnostic naming it.
    private static func keepPending(of state: inout FoldedState<(bytes: [UInt8], json: JSON)>, in kept: inout KeptState) {
        var pending: [KeptRequest] = []
        for (app, requests) in state.pending.sorted(by: { $0.key < $1.key }) {
            for (identifier, record) in requests.sorted(by: { $0.key < $1.key }) {
                // A repeating request's last fire, when it fired: at a date that fits, or the request is set aside.
                let fired = state.fired[app]?[identifier]
                let lastFired = fired?.json["at"]?.doubleValue
                guard let json = try? JSON.parse(record.bytes),
                      let contents = ScheduledRecord.contents(of: json, identifier: identifier),
                      let scheduled = ScheduledRecord(reading: json, bytes: record.bytes),
                      fired == nil || lastFired.map(CheckedNumbers.dates.contains) == true
                else {
                    kept.diagnostics.append(.warning(.stateUnreadable,
                                                     "The kept pending request \"\(identifier)\" of \(app) could not be used (unreadable, or a trigger or date that does not fit); it was set aside."))
                    state.apply(.unscheduled(app: app, identifiers: [identifier]), record)
                    continue
                }
                pending.append(KeptRequest(record: scheduled, added: contents.added, trigger: contents.trigger,
                                           lastFired: lastFired))
            }
        }
        kept.pending = KeptRequests(pending)
    }

    // MARK: Recording

    /// Writes the record of `app` registering `categories`; throws when it cannot be written.
    package func recordCategories(_ categories: [NotificationCategory], of app: String) throws(Diagnostic) {
        try writer.write(StateRecord(categories: categories, of: app))
    }

    /// Writes the record of `app` registering `registration`; throws when it cannot be written.
    package func recordRegistration(_ registration: AppRegistration, of app: String) throws(Diagnostic) {
        try writer.write(StateRecord(registration: registration, of: app))
    }

    /// Writes the record of `notification` delivered to `app` at `width`,
    /// and of `expiring` removed, with one `write`; throws when they cannot
    /// be written (then neither is).
    package func recordDelivery(of notification: UserNotification, to app: String, width: Double,
                                expiring: [NotificationKey]) throws(Diagnostic) {
        let delivery = StateRecord(delivery: notification, to: app, width: width)
        try writer.write(expiring.isEmpty ? [delivery] : [delivery, StateRecord(removal: expiring)])
    }

    /// Writes the record of the notifications `keys` leaving the screen; throws when it cannot be written.
    package func recordRemoval(of keys: [NotificationKey]) throws(Diagnostic) {
        try writer.write(StateRecord(removal: keys))
    }

    /// Writes the record of `entry` kept in its app's inbox; throws when it cannot be written.
    package func recordInboxed(_ entry: InboxEntry) throws(Diagnostic) {
        try writer.write(StateRecord(inboxed: entry))
    }

    /// Writes the record of `identifiers` leaving the inbox of `app`; throws when it cannot be written.
    package func recordTaken(_ identifiers: [UInt64], of app: String) throws(Diagnostic) {
        try writer.write(StateRecord(taken: identifiers, of: app))
    }

    /// Writes the record of the badge of `app` becoming `count`; throws when it cannot be written.
    package func recordBadge(_ count: Int64, of app: String) throws(Diagnostic) {
        try writer.write(StateRecord(badge: count, of: app))
    }

    /// Writes the record of a request added to the pending ones; throws when it cannot be written.
    package func recordScheduled(_ record: ScheduledRecord) throws(Diagnostic) {
        try writer.write(StateRecord(scheduled: record))
    }

    /// Writes the record of the pending requests `identifiers` of `app` removed; throws when it cannot be written.
    package func recordUnscheduled(_ identifiers: [String], of app: String) throws(Diagnostic) {
        try writer.write(StateRecord(unscheduled: identifiers, of: app))
    }

    /// Writes the record of the repeating request `identifier` of `app` firing at `instant`; throws when it cannot be written.
    package func recordFired(_ identifier: String, of app: String, at instant: Double) throws(Diagnostic) {
        try writer.write(StateRecord(fired: identifier, of: app, at: instant))
    }

    /// Writes the record of the user's decision about `app`; throws when it cannot be written.
    package func recordAuthorization(_ authorization: AppAuthorization, of app: String) throws(Diagnostic) {
        try writer.write(StateRecord(authorization: authorization, of: app))
    }

    /// Writes the record of event sequence numbers reserved up to `last`; throws when it cannot be written.
    package func recordSequence(through last: UInt64) throws(Diagnostic) {
        try writer.write(StateRecord(sequenceThrough: last))
    }

    // MARK: Health

    /// Whether changes are being written.
    package var health: StateHealth {
        writer.health
    }

    /// Has `observer` told of each change of health from now on.
    package func observe(_ observer: @escaping @Sendable (StateHealth) -> Void) {
        writer.observe(observer)
    }

    /// What the folds did; `running` also while a sealed batch waits for its fold.
    package var folds: FoldReport {
        var report = keeper.report
        report.running = report.running || writer.pendingBatch != nil
        return report
    }

    /// What the durability policy is, in words.
    static let durability = "Each change is written to the journal before it is made and answered, so it survives the server being killed; a change whose record cannot be written is refused. The journal is flushed to disk every second and each snapshot as it is written: a power loss loses at most the last second."

    /// What `server.describe` says of the state.
    package var report: JSON {
        var members = health.json.objectMembers ?? []
        members += [
            ("directory", .string(directory)),
            ("durability", .string(Self.durability)),
            ("journalBytes", .integer(Int64(writer.store.journalSize))),
            ("folds", folds.json),
            ("repaired", .array(repaired.map(\.json))),
            ("losses", .array(losses.map(\.json))),
            ("setAside", .object([("count", .integer(Int64(setAside.count))), ("diagnostics", .array(setAside.map(\.json)))])),
        ]
        return .object(members)
    }

    /// The parameters of `state.repaired`; nil when loading found the files whole.
    package var repairs: JSON? {
        guard !repaired.isEmpty else { return nil }
        return .object([("repaired", .array(repaired.map(\.json))), ("losses", .array(losses.map(\.json)))])
    }
}

extension Diagnostic.Code {
    /// Part of the server's kept state could not be read back.
    package static let stateUnreadable = Self("state.unreadable")
    /// Another server holds the state directory.
    package static let stateLocked = Self("state.locked")
}
