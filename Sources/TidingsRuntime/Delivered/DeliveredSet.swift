import TidingsBase

/// The notifications delivered and shown now, as a plain value (its owner
/// guards it): by request identifier, in the order they were delivered, by
/// group, with the deliveries begun and not yet shown and the attachments
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

    /// What is shown, by request identifier.
    private var byIdentifier: [String: DeliveredNotification] = [:]
    /// What is shown, in the order it was delivered, the oldest first.
    private var order = SequencedList<DeliveredNotification>()
    /// What is shown of each app, in the order it was delivered.
    private var byApp: [String: SequencedList<DeliveredNotification>] = [:]
    /// The number the next delivery takes in `order`.
    private var nextNumber: UInt64 = 1
    /// What the summary of each group counts.
    private var groups: [Group: GroupSummary] = [:]
    /// The latest delivery of each identifier begun and not yet shown, by
    /// the number `reserve` gave it.
    private var reservations: [String: UInt64] = [:]
    /// The number the next `reserve` gives.
    private var nextReservation: UInt64 = 0
    /// How many times the notifications shown carry each attachment, by path.
    private var attachmentUses: [String: Int] = [:]

    /// An empty set.
    package init() {}

    /// How many notifications are shown.
    package var count: Int { byIdentifier.count }

    /// The identifiers of the notifications shown, in no order.
    package var identifiers: Dictionary<String, DeliveredNotification>.Keys { byIdentifier.keys }

    /// What shows as `identifier`, if anything.
    package subscript(identifier: String) -> DeliveredNotification? { byIdentifier[identifier] }

    /// What the summary of `group` counts; nil when none of its notifications shows.
    package func summary(of group: Group) -> GroupSummary? { groups[group] }

    /// The group `entry` is presented in: the notifications of its app and
    /// thread shown now, with `entry` counted whether or not it still shows
    /// (in place of what shows under its identifier).
    package func group(presenting entry: DeliveredNotification) -> NotificationGroup {
        let group = Group(of: entry)
        let shown = byIdentifier[entry.identifier].flatMap { Group(of: $0) == group ? $0.notification : nil }
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

    /// Begins a delivery of `identifier`, which `show(_:reserved:…)` is to
    /// show; returns its reservation. Of two deliveries of one identifier,
    /// the one that reserves last is the one that stays shown, whichever
    /// finishes first — the order in which they were recorded.
    package mutating func reserve(_ identifier: String) -> UInt64 {
        nextReservation += 1
        reservations[identifier] = nextReservation
        return nextReservation
    }

    /// Shows `entry`, delivered under `reservation`, replacing what showed
    /// under its identifier; then takes the oldest off while more than
    /// `limit` show, each once `record` has written its dismissal (nil; else
    /// why it could not, and the oldest then stays). When a later delivery
    /// of the identifier has reserved it since, `entry` is not shown: it
    /// counts as replaced by that one at once.
    package mutating func show(_ entry: DeliveredNotification, reserved reservation: UInt64, limit: Int?,
                               recording record: (String) -> Diagnostic?) -> Insertion {
        let identifier = entry.identifier
        var insertion = Insertion(shown: reservations[identifier] == reservation, replaced: entry)
        if insertion.shown {
            reservations[identifier] = nil
            insertion.replaced = hide(identifier: identifier)
            byIdentifier[identifier] = entry
            order.insert(entry, as: entry.number)
            byApp[entry.app, default: SequencedList()].insert(entry, as: entry.number)
            groups[Group(of: entry), default: GroupSummary()].add(entry.notification)
            for attachment in entry.notification.attachments { attachmentUses[attachment.path, default: 0] += 1 }
        }
        while let limit, byIdentifier.count > limit, let oldest = order.first?.element, oldest !== entry {
            if let refusal = record(oldest.identifier) {
                insertion.refusal = refusal
                break
            }
            hide(oldest)
            insertion.expired.append(oldest)
        }
        return insertion
    }

    /// True when `entry` is shown: no newer delivery replaced it, nothing took it off.
    package func isShowing(_ entry: DeliveredNotification) -> Bool {
        byIdentifier[entry.identifier] === entry
    }

    /// Stops showing `entry` unless a newer delivery replaced it; returns whether it showed.
    @discardableResult
    package mutating func hide(_ entry: DeliveredNotification) -> Bool {
        guard isShowing(entry) else { return false }
        return hide(identifier: entry.identifier) != nil
    }

    /// Stops showing what shows as `identifier`, if anything, and returns it.
    @discardableResult
    package mutating func hide(identifier: String) -> DeliveredNotification? {
        guard let index = byIdentifier.index(forKey: identifier) else { return nil }
        let entry = byIdentifier.remove(at: index).value
        byIdentifier.releaseUnusedCapacity()
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
