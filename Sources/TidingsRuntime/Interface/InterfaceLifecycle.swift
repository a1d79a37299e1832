import TidingsBase
import TidingsProtocol

/// Opening and closing expanded interfaces: an instance is made for the
/// notification's extension and given it (`didReceive`), one interface is
/// open at a time, a thread-mate delivered while it is open reaches the same
/// instance, and an instance whose calls fail closes its interface.
struct InterfaceLifecycle: Sendable {
    /// The screen the interfaces open on.
    let screen: Screen
    /// How a call's reports are collected.
    let reports: CallReports
    /// Where changes outside calls are watched.
    let changes: OutOfCallChanges
    /// Where extensions are started, each bundle once.
    let providers: ProviderCache
    /// How extensions are started.
    let launcher: any ExtensionLauncher
    /// What instances reach through the ABI: their contexts' handles.
    let endpoint: HostEndpoint
    /// How fast each instance may call host functions; nil for no limit.
    let callRate: CallRate?
    /// How fast what each instance shows may change before it is a flood; nil for no limit.
    let viewChangeRate: CallRate?
    /// Told of the wait for each didReceive.
    var onWait: ExtensionWaitObserver? = nil

    /// What opening an interface did, left for its caller to tell front ends.
    struct Opening {
        /// What the caller returns.
        var outcome: InterfaceOutcome
        /// The presentation of the notification whose interface closed for
        /// it, as a banner now, if one did.
        var closed: Presentation?
        /// False when the interface was open already.
        var changed = true
        /// The instance made, held for the caller when it asked to hold it
        /// (who then lets go of it), even if another interface opened since.
        var held: InstanceRecord?
        /// The instance whose view the presentation shows, and the revision
        /// of its state it was drawn from; nil when no instance serves it.
        var drawn: (instance: InstanceRecord, revision: Int)?
    }

    /// Tells front ends what `opening` the interface of `entry` did: the
    /// interface it closed, as a banner, then the one it opened, in order
    /// with what the extension changes on its own (`Screen.tellOpening`).
    func announce(_ opening: inout Opening, of entry: DeliveredNotification) {
        if let closed = opening.closed.take() { screen.onEvent?(.presentationChanged(closed)) }
        guard opening.changed else { return }
        screen.tellOpening(opening.outcome.presentation, of: entry, drawn: opening.drawn, asDelivery: false)
    }

    /// Opens the interface of `entry`, whose registered category has
    /// `categoryActions`, without telling front ends; when `holding`, its
    /// instance stays held for the caller (`Opening.held`). When the open
    /// interface's instance was given `entry` last, as a thread-mate
    /// delivered while it was open, the interface moves to `entry`, served
    /// on by that instance, which shows it already (`follow`).
    func open(_ entry: DeliveredNotification, categoryActions: [NotificationAction]?,
              holding: Bool = false) -> Opening {
        let (alreadyOpen, followed) = screen.state.withLock {
            state -> (InterfaceSession?, (left: DeliveredNotification, instance: InstanceRecord)?) in
            if let open = state.interface(of: entry) {
                if holding { open.instance?.holds.add(1, ordering: .relaxed) }
                return (open, nil)
            }
            return (nil, state.follow(to: entry, holding: holding))
        }
        if let alreadyOpen {
            return Opening(outcome: InterfaceOutcome(presentation: screen.currentPresentation(of: entry)),
                           changed: false, held: holding ? alreadyOpen.instance : nil)
        }
        if let (left, instance) = followed {
            // The instance shows `entry` already: no call; `left` is a banner now.
            instance.context.update { state in state.categoryActions = categoryActions ?? [] }
            return opened(entry, by: instance, categoryActions: categoryActions,
                          closed: screen.currentPresentation(of: left), holding: holding, after: CallResult())
        }
        var result = CallResult()
        var instance: InstanceRecord?
        if let target = entry.target {
            do throws(Diagnostic) {
                let provider = try target.provider(from: providers, launcher: launcher)
                instance = InstanceRecord(target: target, provider: provider, callRate: callRate,
                                          viewChangeRate: viewChangeRate, in: endpoint.contexts)
            } catch {
                result.diagnostics.append(error)
            }
        }
        guard let (closedEntry, ended) = screen.state.withLock({ $0.open(entry, with: instance) }) else {
            // Taken off meanwhile: nothing to open.
            instance?.destroy()
            return Opening(outcome: InterfaceOutcome(presentation: screen.currentPresentation(of: entry, dismissed: true),
                                                     diagnostics: result.diagnostics), changed: false)
        }
        ended?.destroy()
        let closed = closedEntry.map { screen.currentPresentation(of: $0) }
        guard let instance else {
            return Opening(outcome: InterfaceOutcome(presentation: screen.currentPresentation(of: entry),
                                                     diagnostics: result.diagnostics), closed: closed)
        }
        var keepsHold = holding
        defer { if !keepsHold { screen.letGo(of: instance) } }
        changes.watch(instance)
        instance.context.update { state in
            state.attachments = entry.notification.attachments
            state.categoryActions = categoryActions ?? []
        }
        let waited = onWait?(ExtensionWait(extensionIdentifier: instance.manifest.bundleIdentifier, call: "didReceive"))
        defer { waited?() }
        do throws(Diagnostic) {
            try instance.receive(entry)
        } catch {
            result.diagnostics.append(error)
            keepsHold = false
            _ = failed(instance)
            return Opening(outcome: InterfaceOutcome(presentation: screen.currentPresentation(of: entry),
                                                     diagnostics: result.diagnostics), closed: closed)
        }
        return opened(entry, by: instance, categoryActions: categoryActions, closed: closed, holding: holding,
                      after: result)
    }

    /// The interface of `entry`, open and served by `instance`, as it draws
    /// it now (what it reported collected after `result`), replacing
    /// `closed`; held for the caller when `holding`.
    private func opened(_ entry: DeliveredNotification, by instance: InstanceRecord,
                        categoryActions: [NotificationAction]?, closed: Presentation?, holding: Bool,
                        after result: CallResult) -> Opening {
        var result = result
        let (presentation, revision) = reports.collect(from: instance, for: entry, categoryActions: categoryActions,
                                                       closing: false, into: &result)
        return Opening(outcome: InterfaceOutcome(presentation: presentation, diagnostics: result.diagnostics,
                                                 log: result.log, forwarded: result.forwarded),
                       closed: closed, held: holding ? instance : nil, drawn: (instance, revision))
    }

    /// Closes the interface of `entry`, releasing its instance; returns
    /// whether it was open, and the presentation as it is then.
    func close(_ entry: DeliveredNotification) -> (closed: Bool, presentation: Presentation) {
        let (closed, ended) = screen.state.withLock { $0.closeInterface(of: entry) }
        ended?.destroy()
        return (closed, screen.currentPresentation(of: entry))
    }

    /// Passes `entry`'s notification to `instance`, the open interface's
    /// (held for this call, let go of here), as a thread-mate delivered
    /// while it is open; returns the open presentation as it changed, if it
    /// did, for front ends to hear (`Screen.tell`).
    func passToThreadMate(_ entry: DeliveredNotification, instance: InstanceRecord,
                          into result: inout CallResult) -> [ViewChange] {
        defer { screen.letGo(of: instance) }
        let revision = instance.context.update { state in
            state.attachments = entry.notification.attachments
            return state.revision
        }
        do throws(Diagnostic) {
            try instance.receive(entry)
        } catch {
            result.diagnostics.append(error)
            return failed(instance)
        }
        guard let open = screen.state.withLock({ $0.open }), open.instance === instance else { return [] }
        let categoryActions = screen.categoryActions(of: open.delivered)
        let changed = instance.context.read(\.revision) != revision
        let (requested, drawn) = reports.drain(from: instance, for: open.delivered, categoryActions: categoryActions,
                                               closing: false, into: &result)
        var presentation = drawn
        let closes = reports.carryOut(requested, for: open.delivered, servedBy: instance, drawnAs: &presentation,
                                      diagnostics: &result.diagnostics)
        guard changed || closes else { return [] }
        return [ViewChange(presentation: presentation, entry: open.delivered,
                           drawn: (instance, requested.revision))]
    }

    /// The call into `instance`, the open interface's, failed (its extension
    /// ended): the instance is gone, and the interface closes. Returns the
    /// presentation of the notification whose interface closed, if it did.
    private func failed(_ instance: InstanceRecord) -> [ViewChange] {
        instance.context.close()
        guard let open = screen.state.withLock({ $0.open }), open.instance === instance else { return [] }
        let (closed, ended) = screen.state.withLock { $0.closeInterface(of: open.delivered, servedBy: instance) }
        ended?.destroy()
        return closed ? [ViewChange(presentation: screen.currentPresentation(of: open.delivered), entry: open.delivered)] : []
    }
}
