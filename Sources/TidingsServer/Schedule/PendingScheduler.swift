import Synchronization
import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// The pending requests of every app and the one timer that fires them: a
/// heap of calendar dates on the wall clock and one of interval deadlines
/// on the elapsed clock (`FireHeap`), served by one thread (`ScheduleLoop`) that sleeps
/// until the earliest is due — or, with a test's clock, by whoever calls
/// `runDue()`.
///
/// Durability: every change is recorded in the server's state before it is
/// made (under the scheduler's one lock, so that the journal holds them in
/// the order they are made); a request whose record cannot be written is
/// refused. A one-shot request that fired is delivered (its delivery
/// recorded) and then removed: a crash between the two delivers it again
/// under the same identifier, which replaces the one shown.
package final class PendingScheduler: Sendable {
    /// What the lock guards.
    struct Book {
        var requests = PendingRequests()
        /// Calendar requests by wall date (nanoseconds since 1970).
        var wallHeap = FireHeap()
        /// Time-interval requests by elapsed deadline (nanoseconds).
        var elapsedHeap = FireHeap()
        /// The location requests.
        var regions: Set<PendingKey> = []
        /// The number the next request added gets (wrapping after 2³² adds: it only tells a request
        /// from an earlier one of its identifier whose delivery is under way, and orders ties).
        var nextNumber: UInt32 = 1
        /// The wall clock less the elapsed one when last looked at: a change is a jump of the wall clock.
        var offset: Double
        /// What the thread's timers are armed for (nanoseconds on each clock); nil: not armed.
        var armedWall: UInt64?
        var armedElapsed: UInt64?
    }

    /// What `add` answers.
    package struct Added: Sendable {
        /// The request's next fire, in wall seconds; nil for a location trigger or a date that never comes.
        package var nextTriggerDate: Double?
        /// Whether it replaced a pending request of its identifier.
        package var replaced: Bool
        /// The requests of its app the pending limit dropped, the latest-firing first.
        package var dropped: [String]
    }

    /// The most requests pending per app unless told otherwise: iOS's 64.
    package static let defaultLimit = 64
    /// How much later than its time a request fires to be called late, in seconds.
    static let lateness = 1.0
    /// How far the wall clock must move against the elapsed one to be taken for a jump, in seconds.
    static let jumpTolerance = 1.0
    /// How long after its delivery could not be recorded a one-shot request is tried again, in seconds.
    static let retryDelay = 1.0

    /// The clocks and time zone requests are scheduled by.
    package let clock: any ScheduleClock
    /// The most requests pending per app.
    package let limit: Int
    /// The most requests pending in all, across apps: each app is bounded by
    /// `limit`, the number of apps is not.
    package let totalLimit: Int
    /// The most requests pending in all unless told otherwise: 4,096, 64
    /// apps' worth of iOS's 64 each, about 66 MB at the largest request's
    /// 16 KiB.
    package static let defaultTotalLimit = 4_096
    let state: (any ServerState)?
    let subscribers: Subscribers
    let log: @Sendable (Diagnostic) -> Void
    let book: Mutex<Book>
    /// Delivers a request that fired, then calls `settle`; set by `start(delivering:)`.
    let deliverer = Mutex<(@Sendable (Firing) -> Void)?>(nil)
    /// The thread serving the timers; nil with a clock a test drives.
    let loop: ScheduleLoop?

    /// A scheduler by `clock` of the requests `kept`, at most `limit` per
    /// app, recording in `state`, publishing to `subscribers`. With
    /// `drivingItself`, a thread of its own fires requests when due (started
    /// with the first one armed); else the caller calls `runDue()`.
    init(clock: any ScheduleClock, limit: Int, totalLimit: Int = defaultTotalLimit, kept: [KeptRequest],
         state: (any ServerState)?, subscribers: Subscribers,
         drivingItself: Bool, log: @escaping @Sendable (Diagnostic) -> Void) {
        self.clock = clock
        self.limit = limit
        self.totalLimit = totalLimit
        self.state = state
        self.subscribers = subscribers
        self.log = log
        let wallNow = clock.wallNow(), elapsedNow = clock.elapsedNow()
        var book = Book(offset: wallNow - elapsedNow)
        // Numbered in the order they were added, as new ones are.
        for request in kept.sorted(by: { $0.added < $1.added }) {
            let key = PendingKey(app: book.requests.interned(request.record.app), identifier: request.record.identifier)
            var pending = PendingRequest(record: request.record.bytes, trigger: StoredTrigger(request.trigger),
                                         number: book.nextNumber)
            book.nextNumber &+= 1
            if case .calendar(_, true) = pending.trigger, request.lastFired != nil {
                pending.trigger = .calendar(repeats: true, fired: true)
            }
            pending.due = Self.firstDue(of: request.trigger, added: request.added, lastFired: request.lastFired,
                                        wallNow: wallNow, elapsedNow: elapsedNow, zone: clock.timeZone())
            Self.arm(key, pending, in: &book)
        }
        self.book = Mutex(book)
        loop = drivingItself ? ScheduleLoop() : nil
    }

    deinit {
        loop?.stop()
    }

    /// Starts firing requests: each that fires goes to `deliver`, which
    /// delivers it and calls `settle(_:_:)`. Due ones fire at once (a
    /// one-shot whose time passed while the server was down, late).
    func start(delivering deliver: @escaping @Sendable (Firing) -> Void) {
        deliverer.withLock { $0 = deliver }
        loop?.attach(self)
        if book.withLock({ !$0.requests.apps.isEmpty }) { loop?.wake() }
    }

    // MARK: Changes

    /// Adds `request` (a request payload; its trigger and identifier are
    /// kept beside it) for `app` under `identifier`, firing on `trigger`:
    /// recorded, then pending, replacing one of its identifier; the app's
    /// requests beyond the limit are dropped.
    /// - Throws: `schedule.total-reached` when `totalLimit` requests are
    ///   pending and this one would add to them (it replaces none, and its
    ///   app is below its own limit, whose excess it would push out); else
    ///   when its record cannot be written; nothing changed then.
    package func add(app: String, identifier: String, trigger: NotificationTrigger, request: JSON) throws(Diagnostic) -> Added {
        let (added, wakes) = try book.withLock { (book: inout Book) throws(Diagnostic) -> (Added, Bool) in
            let key = PendingKey(app: book.requests.interned(app), identifier: identifier)
            if book.requests.count >= totalLimit, book.requests[key] == nil, (book.requests.apps[app]?.count ?? 0) < limit {
                throw .error(.scheduleTotalReached,
                             "The server keeps \(totalLimit) pending requests in all already (--pending-total); remove some (requests.remove) first.")
            }
            let wallNow = clock.wallNow(), elapsedNow = clock.elapsedNow()
            let record = ScheduledRecord(app: app, identifier: identifier, added: wallNow, trigger: trigger, request: request)
            try state?.recordScheduled(record)
            let replaced = Self.take(key, from: &book) != nil
            var pending = PendingRequest(record: record.bytes, trigger: StoredTrigger(trigger), number: book.nextNumber)
            book.nextNumber &+= 1
            pending.due = Self.firstDue(of: trigger, added: wallNow, lastFired: nil, wallNow: wallNow, elapsedNow: elapsedNow,
                                        zone: clock.timeZone())
            Self.arm(key, pending, in: &book)
            let date = Self.wallDate(of: pending, wallNow: wallNow, elapsedNow: elapsedNow)
            publish("request.scheduled", [
                ("app", .string(app)), ("identifier", .string(identifier)), ("trigger", trigger.json),
                ("nextTriggerDate", date.map { .string(ISO8601.format($0)) } ?? .null), ("replaced", .bool(replaced)),
            ], app: app)
            let dropped = dropExcess(of: app, from: &book, wallNow: wallNow, elapsedNow: elapsedNow)
            Self.tidy(&book)
            return (Added(nextTriggerDate: date, replaced: replaced, dropped: dropped), Self.armsEarlier(book))
        }
        if wakes { loop?.wake() }
        return added
    }

    /// Drops the requests of `app` beyond the limit (recorded first; when
    /// that fails, they stay, and the log says so); returns them.
    private func dropExcess(of app: String, from book: inout Book, wallNow: Double, elapsedNow: Double) -> [String] {
        let dropped = book.requests.excess(of: app, limit: limit) {
            Self.wallDate(of: $0, wallNow: wallNow, elapsedNow: elapsedNow)
        }
        guard !dropped.isEmpty else { return [] }
        do throws(Diagnostic) {
            try state?.recordUnscheduled(dropped, of: app)
        } catch {
            log(.warning(error.code, "The requests of \(app) beyond its pending limit could not be dropped: \(error.message)"))
            return []
        }
        for identifier in dropped { Self.take(PendingKey(app: app, identifier: identifier), from: &book) }
        publishRemoval(of: dropped, of: app, reason: "limit")
        return dropped
    }

    /// Removes the pending requests `identifiers` of `app` (every one of
    /// the app's when nil): recorded, then removed. Returns those that were pending.
    /// - Throws: when the record cannot be written; nothing changed then.
    package func remove(_ identifiers: [String]?, of app: String) throws(Diagnostic) -> [String] {
        try book.withLock { (book: inout Book) throws(Diagnostic) -> [String] in
            var seen: Set<String> = []
            let pending = book.requests.apps[app] ?? [:]
            let removing = (identifiers ?? pending.keys.sorted()).filter { pending[$0] != nil && seen.insert($0).inserted }
            guard !removing.isEmpty else { return [] }
            try state?.recordUnscheduled(removing, of: app)
            for identifier in removing { Self.take(PendingKey(app: app, identifier: identifier), from: &book) }
            Self.tidy(&book)
            publishRemoval(of: removing, of: app, reason: "removed")
            return removing
        }
    }

    // MARK: Reading

    /// The pending requests of `app` (every app's when nil), in the order of
    /// `PendingRequests` (soonest first, location requests last): each
    /// `{app, identifier, request, trigger, nextTriggerDate, added}`.
    package func pending(of app: String?) -> [JSON] {
        let listed = book.withLock { book in
            let wallNow = clock.wallNow(), elapsedNow = clock.elapsedNow()
            let requests = app.map { book.requests.requests(of: $0) } ?? book.requests.all
            return requests.map { entry in
                (entry.key, entry.request, Self.wallDate(of: entry.request, wallNow: wallNow, elapsedNow: elapsedNow))
            }
        }
        return listed.sorted { first, second in
            let (a, b) = (PendingRequests.rank(first.1, firingAt: first.2), PendingRequests.rank(second.1, firingAt: second.2))
            return a != b ? a < b : (first.0.app, first.0.identifier) < (second.0.app, second.0.identifier)
        }.compactMap { key, request, date in
            let record = ScheduledRecord.contents(ofBytes: request.record, identifier: key.identifier)
            return record.map { contents in
                .object([("app", .string(key.app)), ("identifier", .string(key.identifier)), ("request", contents.request),
                         ("trigger", contents.trigger.json), ("nextTriggerDate", date.map { .string(ISO8601.format($0)) } ?? .null),
                         ("added", .string(ISO8601.format(contents.added)))])
            }
        }
    }

    /// How many requests are pending, across apps.
    package var count: Int {
        book.withLock { $0.requests.count }
    }

    /// What `server.describe` says of the pending requests: how many, of how
    /// many apps, the next fire, the time zone, the limit per app.
    package var summary: JSON {
        let (count, apps, next) = book.withLock { book in
            let wallNow = clock.wallNow(), elapsedNow = clock.elapsedNow()
            let wall = book.wallHeap.earliest.map { Double($0) / 1e9 }
            let interval = book.elapsedHeap.earliest.map { wallNow + Double($0) / 1e9 - elapsedNow }
            return (book.requests.count, book.requests.apps.count, [wall, interval].compactMap { $0 }.min())
        }
        return .object([
            ("pending", .integer(Int64(count))), ("apps", .integer(Int64(apps))),
            ("nextTriggerDate", next.map { .string(ISO8601.format($0)) } ?? .null),
            ("timeZone", .string(clock.timeZone().name)), ("pendingLimit", .integer(Int64(limit))),
            ("pendingTotalLimit", .integer(Int64(totalLimit))),
        ])
    }

    // MARK: Events

    /// Publishes the event `method` with `members` to the subscribers of `app`.
    func publish(_ method: String, _ members: [(String, JSON)], app: String) {
        subscribers.publish(method, .object(members), app: app)
    }

    /// Publishes `request.removed` of `identifiers` of `app` for `reason`.
    func publishRemoval(of identifiers: [String], of app: String, reason: String) {
        publish("request.removed", [("app", .string(app)), ("identifiers", .array(identifiers.map(JSON.string))),
                                    ("reason", .string(reason))], app: app)
    }
}

extension Diagnostic.Code {
    /// A request was refused: the server keeps as many pending requests in all as it may.
    package static let scheduleTotalReached = Self("schedule.total-reached")
}
