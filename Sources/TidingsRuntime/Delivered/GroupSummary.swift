/// What the summary of one group of notifications shown counts, kept as
/// they come and go (`DeliveredSet`), so that a presentation's group is made
/// without passing its members: how many items they hold, and their
/// distinct summary arguments by the earliest notification giving each.
///
/// Adding or removing a notification costs a hash and a binary search or
/// two (`SortedList`); a group made from it costs constant time plus its
/// distinct arguments, which it lists.
package struct GroupSummary: Sendable {
    /// Where a notification stands in its group: by date, then identifier
    /// (the order `NotificationGroup` lists arguments in).
    package struct Place: Comparable, Sendable {
        var date: Double
        var identifier: String

        /// The place of `notification`.
        init(of notification: UserNotification) {
            date = notification.date
            identifier = notification.identifier
        }

        /// True when `lhs` comes first: the earlier date, or the smaller identifier on the same date.
        package static func < (lhs: Place, rhs: Place) -> Bool {
            (lhs.date, lhs.identifier) < (rhs.date, rhs.identifier)
        }
    }

    /// The notifications in the group.
    package private(set) var size = 0
    /// The items they hold: each one's summary argument count, 1 for one that gives none.
    package private(set) var items = 0
    /// The places of the notifications giving each (non-empty) summary argument.
    private var places: [String: SortedList<Place, Void>] = [:]
    /// Each summary argument, at the place of the earliest notification giving it.
    private var firsts = SortedList<Place, String>()

    /// An empty group.
    package init() {}

    /// The items `notification` counts for in its group's summary.
    static func items(of notification: UserNotification) -> Int {
        max(1, notification.content.summaryArgumentCount)
    }

    /// Counts `notification`, which the group does not hold.
    package mutating func add(_ notification: UserNotification) {
        size += 1
        items += Self.items(of: notification)
        let argument = notification.content.summaryArgument
        guard !argument.isEmpty else { return }
        let place = Place(of: notification)
        let earliest = places[argument]?.first?.key
        places[argument, default: SortedList()].insert((), as: place)
        guard earliest.map({ place < $0 }) ?? true else { return }
        if let earliest { firsts.remove(earliest) }
        firsts.insert(argument, as: place)
    }

    /// Stops counting `notification`, which the group holds.
    package mutating func remove(_ notification: UserNotification) {
        size -= 1
        items -= Self.items(of: notification)
        let argument = notification.content.summaryArgument
        guard !argument.isEmpty else { return }
        let place = Place(of: notification)
        let wasEarliest = places[argument]?.first?.key == place
        places[argument]?.remove(place)
        guard wasEarliest else { return }
        firsts.remove(place)
        if let next = places[argument]?.first?.key {
            firsts.insert(argument, as: next)
        } else {
            places[argument] = nil
        }
    }

    /// The group `notification` is presented in: these notifications, but
    /// for `shown`, what the group holds under its identifier (nil when
    /// nothing), and with `notification` itself, counted whether or not it
    /// is still shown.
    package func group(presenting notification: UserNotification, shown: UserNotification?) -> NotificationGroup {
        let count = items - (shown.map(Self.items) ?? 0) + Self.items(of: notification)
        let argument = notification.content.summaryArgument
        let place = Place(of: notification)
        if let shown, Place(of: shown) == place, shown.content.summaryArgument == argument {
            // The common case: the notification presented is the one the group holds.
            return NotificationGroup(count: count, arguments: firsts.elements.map(\.element))
        }
        var earliest = Dictionary(uniqueKeysWithValues: firsts.elements.map { ($0.element, $0.key) })
        if let shown, case let given = shown.content.summaryArgument, !given.isEmpty,
           earliest[given] == Place(of: shown) {
            earliest[given] = places[given]?.first(after: Place(of: shown))?.key
        }
        if !argument.isEmpty { earliest[argument] = min(earliest[argument] ?? place, place) }
        return NotificationGroup(count: count, arguments: earliest.sorted { $0.value < $1.value }.map(\.key))
    }
}
