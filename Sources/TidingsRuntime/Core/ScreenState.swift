import TidingsBase
import TidingsProtocol

/// What the host's lock guards: the delivered set, the routes, the apps'
/// registrations and the open interface, which change together (taking a
/// notification off closes its interface; an interface opens only for one
/// still shown).
struct ScreenState {
    /// The notifications shown.
    var delivered = DeliveredSet()
    /// Each (app, category) with a registered category or a known target.
    var routes = RouteTable()
    /// Each app's registration (name, icon, show previews), by app.
    var apps: [String: AppRegistration] = [:]
    /// The expanded interface open now, if any.
    private(set) var open: InterfaceSession?

    /// What taking a delivery off the screen leaves to do outside the lock.
    struct Removal {
        /// The delivery taken off, if one was.
        var entry: DeliveredNotification?
        /// The instances nobody holds any more: to be destroyed.
        var ended: [InstanceRecord] = []

        /// The attachments of the delivery taken off, which leave the store.
        var attachments: [NotificationAttachment] { entry?.notification.attachments ?? [] }
    }

    /// What showing a delivery did (`show`), left to do outside the lock.
    struct Showing {
        /// True when the delivery shows: false when a later delivery of its
        /// identifier had begun meanwhile, which replaced it at once.
        var shown: Bool
        /// What the delivery it replaced leaves; when not shown, what the
        /// delivery leaves itself.
        var replaced: Removal
        /// What the notifications that expired to make room leave, the oldest first.
        var expired: [Removal] = []
        /// Why the oldest notification left did not expire: its dismissal
        /// could not be recorded. Nil when every one that had to expired.
        var refusal: Diagnostic?
    }

    /// What the presentation of `entry` takes from its app, its registered
    /// category and the notifications of its app and thread shown now.
    func settings(for entry: DeliveredNotification) -> PresentationSettings {
        PresentationSettings(app: apps.isEmpty ? AppRegistration() : apps[entry.app] ?? AppRegistration(),
                             category: routes.registered(for: entry)?.category,
                             group: delivered.group(presenting: entry))
    }

    /// What shows as `key`, with its registered category and the
    /// instance of its interface when that is open, held for the caller,
    /// who lets go of it.
    func claim(_ key: NotificationKey) -> (DeliveredNotification, RouteTable.Registered?, InstanceRecord?)? {
        guard let entry = delivered[key] else { return nil }
        let instance = interface(of: entry)?.instance
        instance?.holds.add(1, ordering: .relaxed)
        return (entry, routes.registered(for: entry), instance)
    }

    /// The open interface, when it is `entry`'s.
    func interface(of entry: DeliveredNotification) -> InterfaceSession? {
        open.flatMap { $0.isInterface(of: entry) ? $0 : nil }
    }

    /// The instance of the open interface when `entry` is a thread-mate of
    /// its notification, held for the caller, who lets go of it.
    func holdThreadMate(of entry: DeliveredNotification) -> InstanceRecord? {
        open?.holdForThreadMate(entry)
    }

    /// Opens the interface of `entry`, served by `instance` (held by the
    /// interface and by the caller, who lets go of it), closing the one
    /// open; returns the one closed, with its instance when nobody holds
    /// it any more: to be destroyed. Nil when `entry` no longer shows.
    mutating func open(_ entry: DeliveredNotification, with instance: InstanceRecord?)
        -> (closed: DeliveredNotification?, ended: InstanceRecord?)? {
        guard delivered.isShowing(entry) else { return nil }
        instance?.holds.add(2, ordering: .relaxed)
        let previous = open
        open = InterfaceSession(of: entry, servedBy: instance)
        return (previous?.delivered, previous?.instance.flatMap { letGo(of: $0) })
    }

    /// Moves the open interface to `entry` when its instance shows it
    /// already: `entry`, still shown, is a thread-mate of the open one's
    /// notification, and the delivery the instance was given last
    /// (`InstanceRecord.hasReceived`). The instance serves on, held for the
    /// caller too when `holding`; returns the notification whose interface
    /// it was, and the instance. Nil, changing nothing, otherwise.
    mutating func follow(to entry: DeliveredNotification, holding: Bool)
        -> (left: DeliveredNotification, instance: InstanceRecord)? {
        guard let previous = open, let instance = previous.instance, previous.delivered !== entry,
              entry.isThreadMate(of: previous.delivered), delivered.isShowing(entry), instance.hasReceived(entry)
        else { return nil }
        if holding { instance.holds.add(1, ordering: .relaxed) }
        // The session's hold passes to the new one.
        open = InterfaceSession(of: entry, servedBy: instance)
        return (previous.delivered, instance)
    }

    /// Closes the interface of `entry` when it is open (and, when
    /// `instance` is given, only while that instance serves it); returns
    /// whether it was, and its instance when nobody holds it any more.
    mutating func closeInterface(of entry: DeliveredNotification, servedBy instance: InstanceRecord? = nil)
        -> (closed: Bool, ended: InstanceRecord?) {
        guard let current = interface(of: entry), instance == nil || current.instance === instance
        else { return (false, nil) }
        open = nil
        return (true, current.instance.flatMap { letGo(of: $0) })
    }

    /// Lets go of one hold on `instance`; returns it when that was the
    /// last: to be destroyed.
    func letGo(of instance: InstanceRecord) -> InstanceRecord? {
        instance.holds.subtract(1, ordering: .relaxed).newValue == 0 ? instance : nil
    }

    /// Shows `entry`, delivered under `reservation` (`DeliveredSet.show`),
    /// closing the interfaces of the deliveries it replaces or expires.
    mutating func show(_ entry: DeliveredNotification, reserved reservation: UInt64, limits: KeptLimits,
                       recording record: (NotificationKey) -> Diagnostic?) -> Showing {
        let insertion = delivered.show(entry, reserved: reservation, limits: limits, recording: record)
        let replaced = insertion.shown ? closing(insertion.replaced) : Removal(entry: entry)
        return Showing(shown: insertion.shown, replaced: replaced, expired: insertion.expired.map { closing($0) },
                       refusal: insertion.refusal)
    }

    /// Stops showing `entry` unless a newer delivery replaced it; returns
    /// what it leaves to dispose of.
    mutating func hide(_ entry: DeliveredNotification) -> Removal {
        delivered.hide(entry) ? closing(entry) : Removal()
    }

    /// Stops showing what shows as `key`, if anything; returns what
    /// it leaves to dispose of.
    mutating func hide(key: NotificationKey) -> Removal {
        closing(delivered.hide(key: key))
    }

    /// What `entry`, taken off the delivered set, leaves: its interface
    /// closes when it is open, and its instance is to be destroyed when
    /// nobody else holds it.
    private mutating func closing(_ entry: DeliveredNotification?) -> Removal {
        guard let entry else { return Removal() }
        var removal = Removal(entry: entry)
        if let ended = closeInterface(of: entry).ended { removal.ended.append(ended) }
        return removal
    }
}
