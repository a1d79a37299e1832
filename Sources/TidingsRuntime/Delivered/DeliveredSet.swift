import TidingsBase
import TidingsProtocol

/// The notifications delivered and shown now, as a plain value (its owner
/// guards it): by app and request identifier (`NotificationKey`), in the
/// order they were delivered, by group, with the deliveries begun and not yet shown and the attachments
/// the notifications shown carry.
///
/// Finding a notification, a group's summary, or whether an attachment is
/// in use costs constant time, and an app's notifications in order are
/// found without passing the others' (a binary search to where a page
/// starts); showing or hiding one costs constant time (amortised) in the
/// number shown, a binary search or two in its group (`GroupSummary`), plus
/// its attachments.
package struct DeliveredSet {
    /// A group of notifications a summary counts: those of one app and thread.
    package struct Group: Hashable, Sendable {
        /// The app.
        package var app: String
        /// The notifications' thread identifier ("" for those without one).
        package var thread: String

        /// The group of `delivered`.
        package init(of delivered: DeliveredNotification) {
            app = delivered.app
            thread = delivered.notification.content.threadIdentifier
        }
    }

    /// What showing a delivery did to the set.
    package struct Insertion {
        /// True when the delivery shows: false when a later delivery of its
        /// identifier had begun meanwhile, which replaced it at once.
        package var shown: Bool
        /// The delivery it replaced, if any; when not shown, the delivery itself.
        package var replaced: DeliveredNotification?
        /// The notifications that expired to make room, the oldest first.
        package var expired: [DeliveredNotification] = []
        /// Why the oldest notification left did not expire: its dismissal
        /// could not be recorded. Nil when every one that had to expired.
        package var refusal: Diagnostic?
    }

    /// What is shown, by app and request identifier.
    private var byKey: [NotificationKey: DeliveredNotification] = [:]
    /// The apps that have each request identifier shown (most often one).
    private var appsByIdentifier: [String: [String]] = [:]
    /// What is shown, in the order it was delivered, the oldest first.
    private var order = SequencedList<DeliveredNotification>()
    /// What is shown of each app, in the order it was delivered.
    private var byApp: [String: SequencedList<DeliveredNotification>] = [:]
    /// The number the next delivery takes in `order`.
    private var nextNumber: UInt64 = 1
    /// What the summary of each group counts.
    private var groups: [Group: GroupSummary] = [:]
    /// The latest delivery of each key begun and not yet shown, by
    /// the number `reserve` gave it.
    private var reservations: [NotificationKey: UInt64] = [:]
    /// The number the next `reserve` gives.
    private var nextReservation: UInt64 = 0
    /// How many times the notifications shown carry each attachment, by path.
    private var attachmentUses: [String: Int] = [:]

    /// An empty set.
    package init() {}

    /// How many notifications are shown.
    package var count: Int { byKey.count }

    /// How many notifications of `app` are shown.
    package func count(ofApp app: String) -> Int { byApp[app]?.count ?? 0 }

    /// The keys of the notifications shown, in no order.
    package var keys: Dictionary<NotificationKey, DeliveredNotification>.Keys { byKey.keys }

    /// What shows as `key`, if anything.
    package subscript(key: NotificationKey) -> DeliveredNotification? { byKey[key] }

    /// The apps that have a notification `identifier` shown, sorted.
    package func apps(showing identifier: String) -> [String] { (appsByIdentifier[identifier] ?? []).sorted() }

    /// What the summary of `group` counts; nil when none of its notifications shows.
    package func summary(of group: Group) -> GroupSummary? { groups[group] }

    /// The group `entry` is presented in: the notifications of its app and
    /// thread shown now, with `entry` counted whether or not it still shows
    /// (in place of what shows under its key).
    package func group(presenting entry: DeliveredNotification) -> NotificationGroup {
        let group = Group(of: entry)
        let shown = byKey[entry.key].flatMap { Group(of: $0) == group ? $0.notification : nil }
        return (groups[group] ?? GroupSummary()).group(presenting: entry.notification, shown: shown)
    }

    /// True when a notification shown carries the attachment at `path`.
    package func isInUse(attachmentAt path: String) -> Bool { attachmentUses[path] != nil }

    /// The notifications shown (only `app`'s when given), in the order they
    /// were delivered, from the one delivered after `position` (0: from the
    /// first), with their numbers.
    package func inOrder(ofApp app: String? = nil, after position: UInt64)
        -> some Sequence<(key: UInt64, element: DeliveredNotification)> {
        let list = app.map { byApp[$0] ?? SequencedList() } ?? order
        return list.elements(after: position)
    }

    /// A number for a new delivery shown, after every other.
    package mutating func takeNumber() -> UInt64 {
        defer { nextNumber += 1 }
        return nextNumber
    }

    /// Begins a delivery of `key`, which `show(_:reserved:…)` is to
    /// show; returns its reservation. Of two deliveries of one key,
    /// the one that reserves last is the one that stays shown, whichever
    /// finishes first — the order in which they were recorded.
    package mutating func reserve(_ key: NotificationKey) -> UInt64 {
        nextReservation += 1
        reservations[key] = nextReservation
        return nextReservation
    }

    /// Shows `entry`, delivered under `reservation`, replacing what showed
    /// under its key; then, each once `record` has written its dismissal
    /// (nil; else why it could not, and that one then stays), takes off the
    /// oldest of its app while more than `limits.perApp` of the app show,
    /// and the oldest of the app showing the most while more than
    /// `limits.total` show in all — so that one app's flood expires its own
    /// notifications, never another's. When a later delivery of the key has
    /// reserved it since, `entry` is not shown: it counts as replaced by
    /// that one at once.
    package mutating func show(_ entry: DeliveredNotification, reserved reservation: UInt64, limits: KeptLimits,
                               recording record: (NotificationKey) -> Diagnostic?) -> Insertion {
        let key = entry.key
        var insertion = Insertion(shown: reservations[key] == reservation, replaced: entry)
        if insertion.shown {
            reservations[key] = nil
            insertion.replaced = hide(key: key)
            byKey[key] = entry
            appsByIdentifier[key.identifier, default: []].append(key.app)
            order.insert(entry, as: entry.number)
            byApp[entry.app, default: SequencedList()].insert(entry, as: entry.number)
            groups[Group(of: entry), default: GroupSummary()].add(entry.notification)
            for attachment in entry.notification.attachments { attachmentUses[attachment.path, default: 0] += 1 }
        }
        while let oldest = oldestBeyond(limits, delivering: entry) {
            if let refusal = record(oldest.key) {
                insertion.refusal = refusal
                break
            }
            hide(oldest)
            insertion.expired.append(oldest)
        }
        return insertion
    }

    /// The notification to expire next while more than `limits` show: the
    /// oldest of `entry`'s app when that app shows more than its share,
    /// else, when more show in all than the total, the oldest of the app
    /// showing the most (`KeptLimits.appToGiveUpItsOldest`); nil when none
    /// has to go, or when the one to go is `entry` itself.
    private func oldestBeyond(_ limits: KeptLimits, delivering entry: DeliveredNotification) -> DeliveredNotification? {
        oldestBeyond(limits, of: entry.app, keeping: entry.number, arriving: false)
    }

    /// The notification `show` would expire first to make room for a
    /// delivery to `app` that is not shown yet and replaces nothing (its
    /// key shows nothing now): the one `oldestBeyond` names once it shows,
    /// found before, so that its dismissal can be recorded with the
    /// delivery. Nil when none has to go.
    package func oldestToMakeRoom(forDeliveryTo app: String, limits: KeptLimits) -> DeliveredNotification? {
        // Numbers start at 1: a delivery not shown yet is none of those shown.
        oldestBeyond(limits, of: app, keeping: 0, arriving: true)
    }

    /// `oldestBeyond(_:delivering:)` for the delivery numbered `newcomer`
    /// to `app`, counted as shown when `arriving` though it is not yet.
    private func oldestBeyond(_ limits: KeptLimits, of app: String, keeping newcomer: UInt64,
                              arriving: Bool) -> DeliveredNotification? {
        let arrival = arriving ? 1 : 0
        if let perApp = limits.perApp, let own = byApp[app], own.count + arrival > perApp {
            return own.first.flatMap { $0.key == newcomer ? nil : $0.element }
        }
        guard let total = limits.total, byKey.count + arrival > total,
              let chosen = KeptLimits.appToGiveUpItsOldest(of: byApp, keeping: newcomer, arriving: arriving ? app : nil)
        else { return nil }
        return byApp[chosen]?.first?.element
    }

    /// True when `entry` is shown: no newer delivery replaced it, nothing took it off.
    package func isShowing(_ entry: DeliveredNotification) -> Bool {
        byKey[entry.key] === entry
    }

    /// Stops showing `entry` unless a newer delivery replaced it; returns whether it showed.
    @discardableResult
    package mutating func hide(_ entry: DeliveredNotification) -> Bool {
        guard isShowing(entry) else { return false }
        return hide(key: entry.key) != nil
    }

    /// Stops showing what shows as `key`, if anything, and returns it.
    @discardableResult
    package mutating func hide(key: NotificationKey) -> DeliveredNotification? {
        guard let index = byKey.index(forKey: key) else { return nil }
        let entry = byKey.remove(at: index).value
        byKey.releaseUnusedCapacity()
        if let apps = appsByIdentifier[key.identifier], apps.count > 1 {
            appsByIdentifier[key.identifier] = apps.filter { $0 != key.app }
        } else {
            appsByIdentifier[key.identifier] = nil
        }
        order.remove(entry.number)
        byApp[entry.app]?.remove(entry.number)
        if byApp[entry.app]?.count == 0 { byApp[entry.app] = nil }
        let group = Group(of: entry)
        groups[group]?.remove(entry.notification)
        if groups[group]?.size == 0 { groups[group] = nil }
        for attachment in entry.notification.attachments {
            if let uses = attachmentUses[attachment.path], uses > 1 {
                attachmentUses[attachment.path] = uses - 1
            } else {
                attachmentUses[attachment.path] = nil
            }
        }
        return entry
    }
}
