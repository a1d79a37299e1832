import Synchronization
import TidingsBase
import TidingsRuntime

/// Each app's inbox: what the app received — responses (the whole
/// UNNotificationResponse) and background notifications — kept until its
/// front end takes it, as iOS launches an app to hand it what it received.
///
/// An entry is recorded in the server's state before it is kept (and so
/// before the call that made it is answered), pushed to the subscribers of
/// its app, and replayed to each new subscription of its app until taken.
/// Each app keeps at most `limit` entries: one more drops the oldest, with
/// a warning logged and pushed (`inbox.dropped`). All apps keep at most
/// `totalLimit`: one more drops the oldest of the app keeping the most, so
/// that one app's flood never drops another app's entries.
package final class AppInbox: Sendable {
    /// The entries each app keeps unless told otherwise: far more than a user
    /// answers while an app is away, and a bound on what the state holds.
    package static let defaultLimit = 1_000
    /// The entries all apps keep unless told otherwise: ten apps' worth.
    package static let defaultTotalLimit = 10_000

    /// What the lock guards: the entries by identifier, each app's and all
    /// of them, so that a page is found by a binary search and the oldest
    /// leaves without moving the others.
    private struct Kept {
        /// Each app's entries, in the order kept (by identifier).
        var entries: [String: SequencedList<InboxEntry>] = [:]
        /// Every app's entries, in the order kept.
        var all = SequencedList<InboxEntry>()
        /// The largest identifier given.
        var last: UInt64 = 0

        /// Keeps `entry`, whose identifier no entry kept has.
        mutating func add(_ entry: InboxEntry) {
            entries[entry.app, default: SequencedList()].insert(entry, as: entry.identifier)
            all.insert(entry, as: entry.identifier)
            last = max(last, entry.identifier)
        }

        /// Takes the entry `identifier` of `app` out, if kept.
        mutating func remove(_ identifier: UInt64, of app: String) {
            guard entries[app]?.remove(identifier) != nil else { return }
            all.remove(identifier)
            if entries[app]?.count == 0 { entries[app] = nil }
        }
    }

    /// The most entries an app keeps.
    package let limit: Int
    /// The most entries all apps keep.
    package let totalLimit: Int
    private let kept: Mutex<Kept>
    private let state: (any ServerState)?
    private let subscribers: Subscribers
    /// Told of what the inbox had to drop or could not record.
    private let log: @Sendable (Diagnostic) -> Void

    /// An inbox holding `entries` (kept across a restart), recording in
    /// `state`, pushing to `subscribers`, keeping at most `limit` entries an
    /// app and `totalLimit` in all (each at least 1), telling `log` what it drops.
    package init(limit: Int, totalLimit: Int = defaultTotalLimit, entries: [InboxEntry], state: (any ServerState)?,
                 subscribers: Subscribers, log: @escaping @Sendable (Diagnostic) -> Void) {
        self.limit = max(1, limit)
        self.totalLimit = max(1, totalLimit)
        var kept = Kept()
        // In the order kept across apps, so that each is added after the last.
        for entry in entries.sorted(by: { $0.identifier < $1.identifier }) { kept.add(entry) }
        self.kept = Mutex(kept)
        self.state = state
        self.subscribers = subscribers
        self.log = log
    }

    /// Keeps `message` in its app's inbox: records it, pushes it to the
    /// app's subscribers, and drops the oldest entries past the limit.
    /// - Parameter refusingUnrecorded: when its record cannot be written,
    ///   throw and keep nothing (the call that brings it is refused); else
    ///   keep it in memory all the same (what the app received already
    ///   happened) and log why it will not survive a restart.
    @discardableResult
    package func keep(_ message: InboxEntry.Message, refusingUnrecorded: Bool) throws(Diagnostic) -> InboxEntry {
        try kept.withLock { (kept: inout Kept) throws(Diagnostic) -> InboxEntry in
            let now = Payload.currentTime()
            // Microseconds since 1970, past the last: identifiers grow across restarts without a counter kept.
            let identifier = max(kept.last + 1, UInt64(saturating: now * 1e6))
            let entry = InboxEntry(identifier: identifier, received: now, message: message)
            do throws(Diagnostic) {
                try state?.recordInboxed(entry)
            } catch {
                if refusingUnrecorded { throw error }
                log(.warning(.inboxNotRecorded,
                             "An entry for the inbox of \(entry.app) could not be recorded; it is kept until the server stops: \(error.message)"))
            }
            kept.add(entry)
            subscribers.publish(entry.event, entry.json, app: entry.app)
            dropExcess(of: entry.app, in: &kept)
            while kept.all.count > totalLimit,
                  let largest = KeptLimits.appToGiveUpItsOldest(of: kept.entries, keeping: entry.identifier) {
                drop(1, of: largest, in: &kept, because: "The inboxes keep at most \(totalLimit) entries in all (--inbox-total); of \(largest), which keeps the most,")
            }
            return entry
        }
    }

    /// Drops the oldest entries of `app` past the limit, with a warning.
    private func dropExcess(of app: String, in kept: inout Kept) {
        guard let entries = kept.entries[app], entries.count > limit else { return }
        drop(entries.count - limit, of: app, in: &kept,
             because: "The inbox of \(app) keeps at most \(limit) entries (--inbox-limit);")
    }

    /// Drops the `count` oldest entries of `app`, with a warning that begins with `reason`.
    private func drop(_ count: Int, of app: String, in kept: inout Kept, because reason: String) {
        guard let entries = kept.entries[app] else { return }
        let dropped = entries.elements.prefix(count).map(\.key)
        var message = "\(reason) the oldest, \(dropped.map(String.init).joined(separator: ", ")), was dropped before its front end took it."
        do throws(Diagnostic) {
            try state?.recordTaken(dropped, of: app)
        } catch {
            message += " Its removal could not be recorded (\(error.message)); it comes back after a restart."
        }
        for identifier in dropped { kept.remove(identifier, of: app) }
        let warning = Diagnostic.warning(.inboxDropped, message)
        log(warning)
        subscribers.publish("inbox.dropped", .object([
            ("app", .string(app)), ("ids", Self.json(dropped)), ("diagnostic", warning.json),
        ]), app: app)
    }

    /// Up to `limit` entries (only `app`'s when given), in the order kept,
    /// from the one after identifier `after`; and the identifier to give as
    /// `after` for the next page, nil when there is none.
    package func list(app: String?, after: UInt64, limit: Int) -> (entries: [InboxEntry], next: UInt64?) {
        kept.withLock { kept in
            let list = app.map { kept.entries[$0] ?? SequencedList() } ?? kept.all
            let page = list.elements(after: after).prefix(limit + 1).map(\.element)
            return (Array(page.prefix(limit)), page.count > limit ? page[limit - 1].identifier : nil)
        }
    }

    /// Takes the entries of `app` that `chosen` accepts out of its inbox:
    /// records that they left, removes them, tells the app's subscribers
    /// (`inbox.taken`). Returns the identifiers taken, in order.
    /// - Throws: when their removal cannot be recorded; nothing is taken.
    package func take(of app: String, where chosen: (UInt64) -> Bool) throws(Diagnostic) -> [UInt64] {
        try kept.withLock { (kept: inout Kept) throws(Diagnostic) -> [UInt64] in
            let taken = (kept.entries[app]?.elements.map(\.key) ?? []).filter(chosen)
            guard !taken.isEmpty else { return [] }
            try state?.recordTaken(taken, of: app)
            for identifier in taken { kept.remove(identifier, of: app) }
            subscribers.publish("inbox.taken", .object([("app", .string(app)), ("ids", Self.json(taken))]), app: app)
            return taken
        }
    }

    /// Makes `receiver` hear the events `events` names (nil: all) of `apps`
    /// (nil: every app), resuming after the sequence number `after` when
    /// given (`Subscribers.subscribe`), and, when `replaying`, then pushes it
    /// every entry kept for them whose event it hears, in the order kept,
    /// each as its event marked `"replayed": true` — under the inbox's lock,
    /// so that no entry kept meanwhile is missed or pushed twice.
    /// Returns how many entries were replayed, and the subscription's resumption and last sequence number.
    package func subscribe(_ receiver: any EventReceiver, apps: Set<String>?, events: Set<String>? = nil, after: UInt64? = nil,
                           replaying: Bool) -> (replayed: Int, resumption: Subscribers.Resumption?, last: UInt64) {
        kept.withLock { kept in
            let (resumption, last) = subscribers.subscribe(receiver, apps: apps, events: events, after: after)
            guard replaying else { return (0, resumption, last) }
            let entries = kept.all.elements.map(\.element)
                .filter { (apps?.contains($0.app) ?? true) && (events?.contains($0.event) ?? true) }
            for entry in entries {
                let params = JSON.object((entry.json.objectMembers ?? []) + [("replayed", .bool(true))])
                _ = receiver.push(RPCReply.notification(entry.event, params: params))
            }
            return (entries.count, resumption, last)
        }
    }

    /// `identifiers` as a JSON array of numbers.
    private static func json(_ identifiers: [UInt64]) -> JSON {
        .array(identifiers.map { .integer(Int64(clamping: $0)) })
    }
}

extension Diagnostic.Code {
    /// An app's inbox was full: its oldest entry was dropped before it was taken.
    package static let inboxDropped = Self("inbox.dropped")
    /// An inbox entry could not be recorded: it does not survive a restart.
    package static let inboxNotRecorded = Self("inbox.not-recorded")
}
