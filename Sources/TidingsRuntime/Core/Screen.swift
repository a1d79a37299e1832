import Synchronization
import TidingsBase
import TidingsProtocol

/// What a host shows, under its one lock (`ScreenState`), and the taking
/// off of what it shows: a notification leaves once its dismissal is
/// recorded, its instance ends when nobody holds it, its attachments leave
/// the store unless another notification shown carries them, and front ends hear.
final class Screen: Sendable {
    /// The lock and what it guards.
    let state = Mutex(ScreenState())
    /// Where attachments are kept; nil for a host that keeps no store.
    let attachments: AttachmentStore?
    /// The most notifications kept delivered, per app and in all.
    let keptLimits: KeptLimits
    /// Told what front ends may want to hear of; nil when nobody listens.
    let onEvent: (@Sendable (HostEvent) -> Void)?
    /// Told under the lock of each notification about to leave the screen
    /// unrecorded (see `NotificationHost.init`); returns why it could not be
    /// written, and the notification then stays shown.
    let onDismissal: @Sendable (NotificationKey) -> Diagnostic?

    /// A screen showing nothing, whose store is `attachments`, keeping at most `keptLimits`.
    init(attachments: AttachmentStore?, keptLimits: KeptLimits, onEvent: (@Sendable (HostEvent) -> Void)?,
         onDismissal: @escaping @Sendable (NotificationKey) -> Diagnostic?) {
        self.attachments = attachments
        self.keptLimits = keptLimits
        self.onEvent = onEvent
        self.onDismissal = onDismissal
    }

    /// The diagnostic for a request naming a notification not presented.
    static func notPresented(_ key: NotificationKey) -> Diagnostic {
        .error(.responseUnknownNotification, "No notification \"\(key.identifier)\" of \(key.app) is presented.")
    }

    /// The actions of the category registered for `entry`, if any.
    func categoryActions(of entry: DeliveredNotification) -> [NotificationAction]? {
        state.withLock { $0.routes.registered(for: entry)?.category.actions }
    }

    /// The actions a presentation offers while `instance` serves its open
    /// interface (nil: a banner): those the extension set, else its
    /// registered category's (`categoryActions`), as
    /// `presentation(_:categoryActions:dismissed:)` draws them.
    static func offeredActions(by instance: InstanceRecord?, categoryActions: [NotificationAction]?) -> [NotificationAction] {
        instance?.context.read(\.actions) ?? categoryActions ?? []
    }

    /// Tells front ends of each response in `forwarded`.
    func announce(forwarded: [ForwardedResponse]) {
        for response in forwarded { onEvent?(.forwarded(response)) }
    }

    /// Tells front ends that `presentation`, what `instance` shows for
    /// `entry`, drawn from its state at `revision`, changed — unless the
    /// instance no longer serves `entry`'s open interface (a banner, the
    /// interface closed, is told all the same) or a presentation of it drawn
    /// later was told already (`InstanceRecord.tell`).
    func tell(_ presentation: Presentation, of instance: InstanceRecord, drawnAt revision: Int,
              for entry: DeliveredNotification) {
        instance.tell(presentation, drawnAt: revision, stillShown: {
            !presentation.expanded || state.withLock { $0.interface(of: entry)?.instance === instance }
        }, to: onEvent)
    }

    /// Tells front ends of `change`: through its instance when it names one
    /// (`tell(_:of:drawnAt:for:)`), else as it is.
    func tell(_ change: ViewChange) {
        guard let (instance, revision) = change.drawn else {
            onEvent?(.presentationChanged(change.presentation))
            return
        }
        tell(change.presentation, of: instance, drawnAt: revision, for: change.entry)
    }

    /// Tells front ends of the interface of `entry` an opening drew as
    /// `presentation`, as the notification's delivery (`notification.delivered`)
    /// or as a change: when the opening made an instance (`drawn`: it, and
    /// the revision of its state drawn), before anything else of the
    /// instance's, and as it is now when the instance changed meanwhile.
    /// A change whose interface closed meanwhile is not told.
    func tellOpening(_ presentation: Presentation, of entry: DeliveredNotification,
                     drawn: (instance: InstanceRecord, revision: Int)?, asDelivery: Bool) {
        guard let drawn else {
            onEvent?(asDelivery ? .delivered(presentation) : .presentationChanged(presentation))
            return
        }
        drawn.instance.tellOpening(drawnAt: drawn.revision) { heldBack in
            let shown = heldBack ? currentPresentation(of: entry) : presentation
            if asDelivery {
                onEvent?(.delivered(shown))
            } else if !shown.expanded || state.withLock({ $0.interface(of: entry)?.instance === drawn.instance }) {
                onEvent?(.presentationChanged(shown))
            }
        }
    }

    /// Lets go of the hold a call took on `instance` (`ScreenState.claim`),
    /// destroying the instance when that was the last hold.
    func letGo(of instance: InstanceRecord?) {
        guard let instance else { return }
        state.withLock { $0.letGo(of: instance) }?.destroy()
    }

    /// Destroys the instances `removal` leaves and takes its delivery's
    /// attachments out of the store, but for those `kept` still carries (a
    /// new delivery of the same notification).
    func dispose(_ removal: ScreenState.Removal, keeping kept: UserNotification? = nil) {
        for instance in removal.ended { instance.destroy() }
        removeUnreferenced(removal.attachments, keeping: kept)
    }

    /// Disposes of what showing a delivery took off the screen (`showing`,
    /// see `ScreenState.show`) and tells front ends: the delivery it
    /// replaced, when `announcingReplaced`, and those that expired to make
    /// room. `kept` is the notification delivered, whose attachments stay
    /// while it shows. Returns why the oldest did not expire, when its
    /// dismissal could not be recorded.
    func finishShowing(_ showing: ScreenState.Showing, keeping kept: UserNotification, announcingReplaced: Bool)
        -> Diagnostic? {
        // Replaced at once by a later delivery, it keeps no attachments.
        dispose(showing.replaced, keeping: showing.shown ? kept : nil)
        if showing.shown && announcingReplaced { announce(showing.replaced, because: .replaced) }
        for expired in showing.expired { dismissed(expired, because: .expired) }
        return showing.refusal
    }

    /// Tells front ends that the delivery `removal` took off the screen, if any, left it for `reason`.
    func announce(_ removal: ScreenState.Removal, because reason: DismissReason) {
        guard let entry = removal.entry else { return }
        onEvent?(.dismissed(identifier: entry.identifier, app: entry.app, reason: reason))
    }

    /// Takes `attachments` out of the store, but for those `kept` or a
    /// notification still shown carries.
    func removeUnreferenced(_ attachments: [NotificationAttachment], keeping kept: UserNotification? = nil) {
        guard !attachments.isEmpty, let store = self.attachments else { return }
        let kept = Set(kept?.attachments.map(\.path) ?? [])
        let unused = state.withLock { state in
            attachments.filter { !kept.contains($0.path) && !state.delivered.isInUse(attachmentAt: $0.path) }
        }
        store.remove(unused)
    }

    /// Disposes of what taking a delivery off the screen left, and tells
    /// front ends it left for `reason`.
    func dismissed(_ removal: ScreenState.Removal, because reason: DismissReason) {
        dispose(removal)
        announce(removal, because: reason)
    }

    /// Removes `entry` (unless a newer delivery replaced it), destroying
    /// its instance when no other presentation uses it, and tells front
    /// ends; returns why it stays shown when its dismissal could not be recorded.
    func retire(_ entry: DeliveredNotification, because reason: DismissReason) -> Diagnostic? {
        switch takeOff(entry) {
        case .success(let removal):
            dismissed(removal, because: reason)
            return nil
        case .failure(let refusal):
            return refusal
        }
    }

    /// Takes `entry` off the screen once its dismissal is recorded (unless
    /// a newer delivery replaced it): what it leaves to dispose of, or why
    /// it stays shown.
    private func takeOff(_ entry: DeliveredNotification) -> Result<ScreenState.Removal, Diagnostic> {
        state.withLock { state in
            guard state.delivered.isShowing(entry) else { return .success(ScreenState.Removal()) }
            if let refusal = onDismissal(entry.key) { return .failure(refusal) }
            return .success(state.hide(entry))
        }
    }

    /// `takeOff(_:)` for `entry`, closing as `presentation` (marked
    /// dismissed) was drawn: what it leaves, for `dismissed(_:because:)`.
    /// When its dismissal cannot be recorded, it stays shown, `presentation`
    /// is no longer marked dismissed, and `diagnostics` says why.
    func takeOff(_ entry: DeliveredNotification, drawnAs presentation: inout Presentation,
                 diagnostics: inout [Diagnostic]) -> ScreenState.Removal {
        switch takeOff(entry) {
        case .success(let removal):
            // Its interface closed with it; the view shows as it was last.
            presentation.expanded = false
            return removal
        case .failure(let refusal):
            presentation.dismissed = false
            diagnostics.append(refusal)
            return ScreenState.Removal()
        }
    }

    /// The presentation of `entry` (whose registered category has
    /// `categoryActions`) as it is now, marked dismissed and taken off the
    /// screen (a response closed it) — unless its dismissal could not be
    /// recorded, which goes to `diagnostics`.
    func close(_ entry: DeliveredNotification, categoryActions: [NotificationAction]?,
               diagnostics: inout [Diagnostic]) -> Presentation {
        var presentation = presentation(entry, categoryActions: categoryActions, dismissed: true)
        dismissed(takeOff(entry, drawnAs: &presentation, diagnostics: &diagnostics), because: .response)
        return presentation
    }
}

/// What a call changed of an open interface, for front ends to hear once
/// the call is done (`Screen.tell(_:)`).
struct ViewChange {
    /// What the notification shows now.
    var presentation: Presentation
    /// The notification.
    var entry: DeliveredNotification
    /// The instance whose view it shows, and the revision of its state it
    /// was drawn from; nil for a banner whose instance ended.
    var drawn: (instance: InstanceRecord, revision: Int)?
}
