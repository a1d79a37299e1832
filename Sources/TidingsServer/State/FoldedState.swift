import TidingsBase
import TidingsRuntime

/// The server's state as its records leave it: the latest record of each
/// app's categories, registration, badge and authorization, of each inbox entry kept and of
/// each notification kept, with the order the notifications were delivered
/// in, and of each pending request and the last fire of a repeating one.
/// What a snapshot holds.
///
/// `Value` is what is kept of each record: its bytes for the snapshot, or
/// its JSON while the state is read back.
struct FoldedState<Value> {
    /// Each app's categories record.
    private(set) var categories: [String: Value] = [:]
    /// Each app's registration record.
    private(set) var registrations: [String: Value] = [:]
    /// Each app's badge record.
    private(set) var badges: [String: Value] = [:]
    /// Each app's authorization record (the user's last decision).
    private(set) var authorizations: [String: Value] = [:]
    /// Each app's inbox entries' records, by entry identifier.
    private(set) var inbox: [String: [UInt64: Value]] = [:]
    /// Each kept notification's record, by identifier and then app, with
    /// its place in the delivery order (by identifier first: a removal of an
    /// earlier version names the identifier alone).
    private(set) var delivered: [String: [String: (order: Int, value: Value)]] = [:]
    /// The kept notifications' records by their place in the delivery
    /// order: a snapshot of 100,000 walks them, where sorting them took a
    /// third of the fold.
    private var deliveryOrder = SortedList<Int, Value>()
    /// How many notifications are kept.
    private(set) var deliveredCount = 0
    /// Each app's pending requests' records, by identifier.
    private(set) var pending: [String: [String: Value]] = [:]
    /// The record of the last fire of each app's repeating requests that fired, by identifier.
    private(set) var fired: [String: [String: Value]] = [:]
    /// The record of the event sequence numbers last reserved.
    private(set) var sequence: Value?
    /// The place the next delivery takes.
    private var nextOrder = 0

    /// Nothing kept.
    init() {}

    /// Applies the change `subject` names, whose record is `value`.
    mutating func apply(_ subject: StateRecord.Subject, _ value: Value) {
        switch subject {
        case .categories(let app):
            categories[app] = value
        case .registration(let app):
            registrations[app] = value
        case .delivered(let key):
            if let replaced = delivered[key.identifier]?[key.app] {
                deliveryOrder.remove(replaced.order)
            } else {
                deliveredCount += 1
            }
            delivered[key.identifier, default: [:]][key.app] = (nextOrder, value)
            deliveryOrder.insert(value, as: nextOrder)
            nextOrder += 1
        case .removed(let removed):
            for (app, identifier) in removed {
                guard let apps = delivered[identifier] else { continue }
                if let app {
                    guard let removedEntry = apps[app] else { continue }
                    deliveredCount -= 1
                    deliveryOrder.remove(removedEntry.order)
                    delivered[identifier] = apps.count == 1 ? nil : apps.filter { $0.key != app }
                } else {
                    // An earlier version's record: identifiers were unique across apps then.
                    deliveredCount -= apps.count
                    for entry in apps.values { deliveryOrder.remove(entry.order) }
                    delivered[identifier] = nil
                }
            }
            // What 100,000 notifications removed leave goes back, rather than staying with the keeper.
            delivered.releaseUnusedCapacity()
        case .badge(let app):
            badges[app] = value
        case .inboxed(let app, let identifier):
            inbox[app, default: [:]][identifier] = value
        case .taken(let app, let identifiers):
            for identifier in identifiers { inbox[app]?[identifier] = nil }
            if inbox[app]?.isEmpty == true { inbox[app] = nil }
        case .scheduled(let app, let identifier):
            pending[app, default: [:]][identifier] = value
            // A request added again starts afresh.
            fired[app]?[identifier] = nil
        case .unscheduled(let app, let identifiers):
            for identifier in identifiers {
                pending[app]?[identifier] = nil
                fired[app]?[identifier] = nil
            }
            if pending[app]?.isEmpty == true { pending[app] = nil }
            if fired[app]?.isEmpty == true { fired[app] = nil }
        case .authorization(let app):
            authorizations[app] = value
        case .sequence:
            sequence = value
        case .fired(let app, let identifier):
            if pending[app]?[identifier] != nil { fired[app, default: [:]][identifier] = value }
        }
    }

    /// The records that rebuild the state: each app's categories,
    /// registration, badge and authorization, by app, then each app's inbox entries, by
    /// app and in the order kept, then each notification kept, in delivery
    /// order, then each pending request, then the last fires of those that repeat.
    var records: [Value] {
        categories.keys.sorted().map { categories[$0]! } + registrations.keys.sorted().map { registrations[$0]! }
            + badges.keys.sorted().map { badges[$0]! } + authorizations.keys.sorted().map { authorizations[$0]! }
            + inboxEntries + orderedDeliveries
            + pending.values.flatMap(\.values) + fired.values.flatMap(\.values) + (sequence.map { [$0] } ?? [])
    }

    /// The inbox entries' records, by app, in the order they were kept.
    var inboxEntries: [Value] {
        inbox.keys.sorted().flatMap { app in inbox[app]!.sorted { $0.key < $1.key }.map(\.value) }
    }

    /// The notifications' records, in delivery order.
    var orderedDeliveries: [Value] {
        deliveryOrder.elements.map(\.element)
    }

    /// The same state keeping `transform` of each record.
    func mapValues<Other>(_ transform: (Value) -> Other) -> FoldedState<Other> {
        var mapped = FoldedState<Other>()
        mapped.categories = categories.mapValues(transform)
        mapped.registrations = registrations.mapValues(transform)
        mapped.badges = badges.mapValues(transform)
        mapped.authorizations = authorizations.mapValues(transform)
        mapped.inbox = inbox.mapValues { $0.mapValues(transform) }
        mapped.delivered = delivered.mapValues { $0.mapValues { ($0.order, transform($0.value)) } }
        for (order, value) in deliveryOrder.elements { mapped.deliveryOrder.insert(transform(value), as: order) }
        mapped.deliveredCount = deliveredCount
        mapped.pending = pending.mapValues { $0.mapValues(transform) }
        mapped.fired = fired.mapValues { $0.mapValues(transform) }
        mapped.sequence = sequence.map(transform)
        mapped.nextOrder = nextOrder
        return mapped
    }
}

extension FoldedState: Sendable where Value: Sendable {}
