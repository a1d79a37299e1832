import TidingsBase

/// What an extension changes outside any call (from a thread of its own,
/// say): looked at in order, off the extension's thread, its reports drained
/// and what it asked carried out, and front ends told of the interface as it
/// is then.
final class OutOfCallChanges: Sendable {
    /// The screen the open interfaces are on.
    private let screen: Screen
    /// How reports are drained and carried out.
    private let reports: CallReports
    /// Where changes are looked at, in order.
    private let queue = SerialQueue()

    /// Looks at the changes of interfaces on `screen` through `reports`.
    init(reports: CallReports) {
        screen = reports.screen
        self.reports = reports
    }

    /// Has `instance` tell the host when the extension changes what shows
    /// outside a call.
    func watch(_ instance: InstanceRecord) {
        instance.context.observe { [weak self, weak instance] in
            guard let self, let instance, !instance.isInCall,
                  instance.changedOutsideCall.exchange(true, ordering: .acquiringAndReleasing) == false
            else { return }
            // Never from the extension's own call: closing may destroy the
            // instance, which must not happen under its feet.
            self.queue.async { [weak self, weak instance] in
                guard let self, let instance else { return }
                instance.changedOutsideCall.store(false, ordering: .releasing)
                self.instanceChanged(instance)
            }
        }
    }

    /// The extension of `instance` changed what shows outside any call:
    /// the open interface it serves goes to front ends as it is now, and a
    /// request to close it (or to open the app) is carried out. When a call
    /// is under way by now, the call collects the change instead.
    private func instanceChanged(_ instance: InstanceRecord) {
        var result = CallResult()
        // Between calls only: a call starting meanwhile waits, so what it reports stays its own.
        let drained = instance.whileIdle { () -> (DeliveredNotification, CallReports.Requested, Presentation)? in
            let served = screen.state.withLock { state in
                state.open.flatMap { open in
                    open.instance === instance ? (open.delivered, state.routes.registered(for: open.delivered)) : nil
                }
            }
            return served.map { entry, registered in
                let (requested, presentation) = reports.drain(from: instance, for: entry,
                                                              categoryActions: registered?.category.actions,
                                                              closing: false, into: &result)
                return (entry, requested, presentation)
            }
        } ?? nil
        if let (entry, requested, drawn) = drained {
            var presentation = drawn
            // Front ends hear of the change before the notification leaves, if it does.
            if requested.takeOff { screen.onEvent?(.presentationChanged(presentation)) }
            _ = reports.carryOut(requested, for: entry, servedBy: instance, drawnAs: &presentation,
                                 diagnostics: &result.diagnostics)
            if !requested.takeOff { screen.onEvent?(.presentationChanged(presentation)) }
        }
        for diagnostic in result.diagnostics {
            screen.onEvent?(.diagnostic(diagnostic, app: instance.manifest.appIdentifier))
        }
        screen.announce(forwarded: result.forwarded)
    }
}
