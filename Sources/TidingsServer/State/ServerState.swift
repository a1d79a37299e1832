import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// Where a server keeps what must survive a restart: each app's registered
/// categories, registration, badge, authorization and inbox, the notifications delivered
/// and not yet dismissed, and the requests pending.
///
/// A change is recorded before it is made and answered: each `record…`
/// method returns once the change is safe from the server's own death
/// (`kill -9` included), or throws when it cannot be written — the change
/// must then not be made. Callers record and make changes in one order (under
/// one lock), so that the state on disk is the state in memory.
package protocol ServerState: Sendable {
    /// What was kept when the server started.
    var kept: KeptState { get }
    /// `app` registered `categories`, replacing those it had.
    func recordCategories(_ categories: [NotificationCategory], of app: String) throws(Diagnostic)
    /// `app` registered `registration` (name, icon, show previews), replacing what it had.
    func recordRegistration(_ registration: AppRegistration, of app: String) throws(Diagnostic)
    /// `notification` was delivered to `app` at `width`, replacing the app's
    /// one of its identifier, and the notifications `expiring` left the
    /// screen to make room for it: one change, written as a whole or not at all.
    func recordDelivery(of notification: UserNotification, to app: String, width: Double,
                        expiring: [NotificationKey]) throws(Diagnostic)
    /// The notifications `keys` left the screen: a front end removed
    /// them, or a response or their extension closed them.
    func recordRemoval(of keys: [NotificationKey]) throws(Diagnostic)
    /// `entry` was kept in its app's inbox.
    func recordInboxed(_ entry: InboxEntry) throws(Diagnostic)
    /// The entries `identifiers` left the inbox of `app`: taken by its front end, or dropped.
    func recordTaken(_ identifiers: [UInt64], of app: String) throws(Diagnostic)
    /// The badge of `app` became `count` (0: none).
    func recordBadge(_ count: Int64, of app: String) throws(Diagnostic)
    /// A request was added to the pending ones, replacing one of its app and identifier.
    func recordScheduled(_ record: ScheduledRecord) throws(Diagnostic)
    /// The pending requests `identifiers` of `app` were removed: by the app, fired, or dropped.
    func recordUnscheduled(_ identifiers: [String], of app: String) throws(Diagnostic)
    /// The repeating request `identifier` of `app` fired at `instant` (wall seconds).
    func recordFired(_ identifier: String, of app: String, at instant: Double) throws(Diagnostic)
    /// The user decided `authorization` about the notifications of `app`.
    func recordAuthorization(_ authorization: AppAuthorization, of app: String) throws(Diagnostic)
    /// Event sequence numbers up to `last` were reserved: a restarted server numbers its events past it.
    func recordSequence(through last: UInt64) throws(Diagnostic)
    /// Whether changes are being written.
    var health: StateHealth { get }
    /// Has `observer` told of each change of health from now on.
    func observe(_ observer: @escaping @Sendable (StateHealth) -> Void)
    /// What `server.describe` says of the state: its health, where it is,
    /// its durability, its folds, and what was repaired when it was loaded.
    var report: JSON { get }
    /// The parameters of the `state.repaired` event: what loading the state
    /// repaired and lost; nil when the files were whole.
    var repairs: JSON? { get }
}

extension ServerState {
    /// `notification` was delivered to `app` at `width`, making no room.
    package func recordDelivery(of notification: UserNotification, to app: String, width: Double) throws(Diagnostic) {
        try recordDelivery(of: notification, to: app, width: width, expiring: [])
    }
}

/// What a server kept from before it started.
package struct KeptState: Sendable {
    /// Each app's categories.
    package var categories: [(app: String, categories: [NotificationCategory])] = []
    /// Each app's registration.
    package var registrations: [(app: String, registration: AppRegistration)] = []
    /// Each app's badge (none with 0).
    package var badges: [(app: String, count: Int64)] = []
    /// Each app's authorization, as the user last decided it.
    package var authorizations: [(app: String, authorization: AppAuthorization)] = []
    /// The inbox entries not taken, by app, in the order they were kept.
    package var inbox: [InboxEntry] = []
    /// The notifications delivered and not dismissed, in the order they were delivered.
    package var delivered: [(app: String, notification: UserNotification, width: Double)] = []
    /// The pending requests, until the scheduler takes them.
    package var pending = KeptRequests()
    /// The last event sequence number reserved (0: none).
    package var eventSequence: UInt64 = 0
    /// What was repaired or could not be read back.
    package var diagnostics: [Diagnostic] = []

    /// Nothing kept.
    package init() {}
}
