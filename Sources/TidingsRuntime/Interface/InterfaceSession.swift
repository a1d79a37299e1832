/// An expanded interface open: the notification whose interface it is and
/// the instance serving it. One is open per host, as on a phone's screen.
///
/// A session never changes: opening another interface or closing this one
/// replaces or clears the host's open session, under the host's lock, in the
/// same step as the delivered set changes (an interface opens only for a
/// notification still shown, and closes with it), so it needs no lock of its
/// own. The instance counts its holds (`InstanceRecord.holds`): the session
/// is one, and each call under way with it another.
final class InterfaceSession: Sendable {
    /// The notification whose interface it is.
    let delivered: DeliveredNotification
    /// The instance serving it; nil when none could be made (the interface
    /// then shows the default content).
    let instance: InstanceRecord?

    /// The interface of `delivered`, served by `instance`.
    init(of delivered: DeliveredNotification, servedBy instance: InstanceRecord?) {
        self.delivered = delivered
        self.instance = instance
    }

    /// True when it is the interface of `delivered`.
    func isInterface(of delivered: DeliveredNotification) -> Bool {
        self.delivered === delivered
    }

    /// The instance when `other` is a thread-mate of its notification (it
    /// is then passed to this interface), held for the caller, who lets go of it.
    func holdForThreadMate(_ other: DeliveredNotification) -> InstanceRecord? {
        guard let instance, delivered !== other, other.isThreadMate(of: delivered) else { return nil }
        instance.holds.add(1, ordering: .relaxed)
        return instance
    }
}
