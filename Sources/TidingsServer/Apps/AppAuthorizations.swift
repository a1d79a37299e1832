import Synchronization
import TidingsBase
import TidingsRuntime

/// Each app's authorization (UNUserNotificationCenter's
/// `requestAuthorization`): the user's decisions, recorded in the server's
/// state before they change, and the requests waiting for one.
///
/// A request of an app not determined (or provisional, asking for more)
/// waits for the user: the first of its app publishes
/// `authorization.requested`, and a decision (`decide`) answers every
/// request of the app waiting then. A waiting request holds no thread: its
/// bound is a job on one `DeadlineTimer`, which answers it not determined.
package final class AppAuthorizations: Sendable {
    /// What a request is answered: the app's authorization then, and whether it timed out waiting.
    package struct Answer: Sendable {
        /// The authorization decided (not determined when it timed out).
        package var authorization: AppAuthorization
        /// No decision came within the request's bound.
        package var timedOut: Bool
    }

    /// A user's answer to a prompt, or the command line's.
    package enum Decision: String, Sendable, CaseIterable {
        /// Allow the app's notifications (authorized, with the options asked).
        case allow
        /// Turn them off (denied).
        case deny
        /// Forget the decision: the app's next request asks again.
        case reset
    }

    /// A request waiting for the user.
    private struct Waiter {
        let number: UInt64
        /// The connection it came on: its wait ends when that one does.
        let client: ObjectIdentifier
        let options: Set<AppAuthorization.Option>
        let answer: @Sendable (Answer) -> Void
        var timer: UInt64 = 0
    }

    /// What the lock guards.
    private struct Book {
        var decided: [String: AppAuthorization] = [:]
        var waiting: [String: [Waiter]] = [:]
        var nextNumber: UInt64 = 1
    }

    /// The most requests of one app waiting for the user at once: a front
    /// end shows one prompt, and each wait holds its connection open.
    package static let waitingLimit = 64

    /// How an app that never asked is delivered.
    package let unasked: UnaskedApps
    private let book: Mutex<Book>
    private let state: (any ServerState)?
    private let subscribers: Subscribers
    private let clock: DeadlineClock
    private let timer: DeadlineTimer

    /// The decisions `kept` (across a restart), recording in `state`,
    /// publishing to `subscribers`, bounding waits by `clock`.
    package init(kept: [(app: String, authorization: AppAuthorization)], unasked: UnaskedApps,
                 state: (any ServerState)?, subscribers: Subscribers, clock: DeadlineClock) {
        var book = Book()
        for (app, authorization) in kept where authorization.status != .notDetermined {
            book.decided[app] = authorization
        }
        self.book = Mutex(book)
        self.unasked = unasked
        self.state = state
        self.subscribers = subscribers
        self.clock = clock
        timer = DeadlineTimer(clock: clock)
    }

    /// The authorization of `app` (not determined when it never asked or was reset).
    package func authorization(of app: String) -> AppAuthorization {
        book.withLock { $0.decided[app] } ?? .notDetermined
    }

    /// Every app's decided authorization, by app.
    package var all: [String: AppAuthorization] {
        book.withLock { $0.decided }
    }

    /// How the notifications of `app` may show now.
    package func policy(of app: String) -> PresentationPolicy {
        authorization(of: app).policy(unasked: unasked)
    }

    /// Whether the badge of `app` shows now.
    package func showsBadge(of app: String) -> Bool {
        authorization(of: app).showsBadge(unasked: unasked)
    }

    /// `app` (named `name` to the user) asks for `options` on the
    /// connection `client`: answers through `answer` once, at once when it
    /// is decided already or asks provisionally while not determined
    /// (granted, recorded first), else when the user decides, `timeout`
    /// seconds pass or `client` leaves (`forget(client:)`).
    /// - Throws: when a provisional grant cannot be recorded, or the app has
    ///   `waitingLimit` requests waiting already (`authorization.too-many-waiting`);
    ///   nothing changed then.
    package func request(_ options: Set<AppAuthorization.Option>, of app: String, name: String?, timeout: Double,
                         from client: ObjectIdentifier, answer: @escaping @Sendable (Answer) -> Void) throws(Diagnostic) {
        let immediate = try book.withLock { (book: inout Book) throws(Diagnostic) -> Answer? in
            let current = book.decided[app] ?? .notDetermined
            switch current.status {
            case .authorized, .denied, .ephemeral:
                return Answer(authorization: current, timedOut: false)
            case .provisional where options.contains(.provisional):
                return Answer(authorization: current, timedOut: false)
            case .notDetermined where options.contains(.provisional):
                let granted = AppAuthorization(status: .provisional, options: options)
                try state?.recordAuthorization(granted, of: app)
                book.decided[app] = granted
                subscribers.publish("authorization.changed", Self.changed(app, granted), app: app)
                return Answer(authorization: granted, timedOut: false)
            case .notDetermined, .provisional:
                guard book.waiting[app, default: []].count < Self.waitingLimit else {
                    throw .error(.authorizationTooManyWaiting,
                                 "\(app) has \(Self.waitingLimit) authorization requests waiting for the user already; wait for their answer.")
                }
                let number = book.nextNumber
                book.nextNumber += 1
                var waiter = Waiter(number: number, client: client, options: options, answer: answer)
                // The job waits for this lock, so it finds the waiter in place.
                waiter.timer = timer.schedule(at: clock.deadline(after: timeout)) { [weak self] in
                    self?.timeOut(number, of: app)
                }
                let first = book.waiting[app, default: []].isEmpty
                book.waiting[app, default: []].append(waiter)
                if first {
                    var members: [(String, JSON)] = [("app", .string(app))]
                    if let name { members.append(("name", .string(name))) }
                    members.append(("options", AppAuthorization(status: .notDetermined, options: options).optionNames))
                    subscribers.publish("authorization.requested", .object(members), app: app)
                }
                return nil
            }
        }
        if let immediate { answer(immediate) }
    }

    /// Records and makes the user's `decision` about `app`, publishes
    /// `authorization.changed`, and answers every request of the app
    /// waiting (allow, deny; a reset leaves them waiting). Allowing grants
    /// the options the app asked for, those waiting and those kept; alert,
    /// sound and badge when it never said.
    /// - Throws: when its record cannot be written; nothing changed then.
    @discardableResult
    package func decide(_ decision: Decision, for app: String) throws(Diagnostic) -> AppAuthorization {
        let (made, answered) = try book.withLock { (book: inout Book) throws(Diagnostic) -> (AppAuthorization, [Waiter]) in
            let waiting = decision == .reset ? [] : book.waiting[app] ?? []
            var options = waiting.reduce(book.decided[app]?.options ?? []) { $0.union($1.options) }
            options.remove(.provisional)
            if options.isEmpty { options = [.alert, .sound, .badge] }
            let made = switch decision {
            case .allow: AppAuthorization(status: .authorized, options: options)
            case .deny: AppAuthorization(status: .denied, options: options)
            case .reset: AppAuthorization.notDetermined
            }
            try state?.recordAuthorization(made, of: app)
            book.decided[app] = made.status == .notDetermined ? nil : made
            if decision != .reset { book.waiting[app] = nil }
            subscribers.publish("authorization.changed", Self.changed(app, made), app: app)
            return (made, waiting)
        }
        for waiter in answered {
            timer.cancel(waiter.timer)
            waiter.answer(Answer(authorization: made, timedOut: false))
        }
        return made
    }

    /// Ends the waits of the requests that came on `client`, which left:
    /// each is answered not determined, timed out (nobody reads it), so that
    /// nothing holds the connection open.
    package func forget(client: ObjectIdentifier) {
        end { $0.client == client }
    }

    /// Ends every wait, answered not determined, timed out: the server stops.
    package func endWaits() {
        end { _ in true }
    }

    /// Takes the waiting requests `ending` picks and answers them not determined, timed out.
    private func end(_ ending: (Waiter) -> Bool) {
        let ended = book.withLock { (book: inout Book) -> [Waiter] in
            var ended: [Waiter] = []
            for (app, waiters) in book.waiting {
                ended += waiters.filter(ending)
                let staying = waiters.filter { !ending($0) }
                book.waiting[app] = staying.isEmpty ? nil : staying
            }
            return ended
        }
        for waiter in ended {
            timer.cancel(waiter.timer)
            waiter.answer(Answer(authorization: .notDetermined, timedOut: true))
        }
    }

    /// Answers the waiting request `number` of `app` not determined: its bound passed.
    private func timeOut(_ number: UInt64, of app: String) {
        let waiter = book.withLock { (book: inout Book) -> Waiter? in
            guard let position = book.waiting[app]?.firstIndex(where: { $0.number == number }) else { return nil }
            let waiter = book.waiting[app]!.remove(at: position)
            if book.waiting[app]!.isEmpty { book.waiting[app] = nil }
            return waiter
        }
        waiter?.answer(Answer(authorization: .notDetermined, timedOut: true))
    }

    /// The parameters of `authorization.changed`.
    private static func changed(_ app: String, _ authorization: AppAuthorization) -> JSON {
        .object([("app", .string(app)), ("status", .string(authorization.status.rawValue))])
    }
}

extension Diagnostic.Code {
    /// An app asked for authorization while `AppAuthorizations.waitingLimit` of its requests wait already.
    package static let authorizationTooManyWaiting = Self("authorization.too-many-waiting")
}
