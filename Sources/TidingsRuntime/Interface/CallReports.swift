import TidingsBase
import TidingsProtocol

/// What an extension reported during a call (or outside one) about the
/// notification whose interface it serves — diagnostics, log lines, the
/// default action, a request to close its interface — collected into a
/// result, and what it asked carried out on the screen.
struct CallReports: Sendable {
    /// The screen whose notifications the reports are about.
    let screen: Screen

    /// What a call's reports ask of the notification it was about.
    struct Requested {
        /// Take the notification off the screen: a response closed it, or
        /// the extension performed the default action (which opens the app).
        var takeOff = false
        /// Why, when it is taken off.
        var reason = DismissReason.extension
        /// Close its interface only (dismissNotificationContentExtension).
        var closeInterface = false
        /// The revision of the instance's state the presentation was drawn
        /// from (`InstanceContext.State.revision`), for telling front ends in order.
        var revision = 0
    }

    /// Moves what `instance` reported during a call for `entry` (whose
    /// registered category has `categoryActions`) into the result, and the
    /// default action it asked for into `forwarded`, and carries out what
    /// it asked; returns the presentation as it is then: marked dismissed
    /// and taken off the screen when `closing` (a response's answer closes
    /// it) or when the extension performed the default action, a banner
    /// when the extension closed its interface; and the revision of the
    /// state it was drawn from.
    func collect(from instance: InstanceRecord, for entry: DeliveredNotification,
                 categoryActions: [NotificationAction]?, closing: Bool,
                 into result: inout CallResult) -> (presentation: Presentation, revision: Int) {
        let (requested, drawn) = drain(from: instance, for: entry, categoryActions: categoryActions,
                                       closing: closing, into: &result)
        var current = drawn
        _ = carryOut(requested, for: entry, servedBy: instance, drawnAs: &current, diagnostics: &result.diagnostics)
        return (current, requested.revision)
    }

    /// `collect` without carrying out what the extension asked: what it
    /// asked, and the presentation as it is then.
    func drain(from instance: InstanceRecord, for entry: DeliveredNotification,
               categoryActions: [NotificationAction]?, closing: Bool,
               into result: inout CallResult) -> (Requested, Presentation) {
        let settings = screen.state.withLock { $0.settings(for: entry) }
        return instance.context.drainReports {
            (reports: InstanceContext.Reports, state: borrowing InstanceContext.State) -> (Requested, Presentation) in
            // Appending an empty array would still make a new buffer.
            if !reports.diagnostics.isEmpty { result.diagnostics += reports.diagnostics }
            if !reports.log.isEmpty { result.log += reports.log }
            if reports.defaultAction {
                result.forwarded.append(ForwardedResponse(app: entry.app, notification: entry.notification,
                                                          actionIdentifier: ActionIdentifier.default, userText: nil))
            }
            let requested = Requested(takeOff: closing || reports.defaultAction,
                                      reason: closing ? .response : .extension, closeInterface: reports.dismiss,
                                      revision: state.revision)
            return (requested, screen.presentation(entry, of: instance, state: state, categoryActions: categoryActions,
                                                   settings: settings, dismissed: requested.takeOff))
        }
    }

    /// Carries out what `requested` asks of `entry`, whose interface
    /// `instance` serves, leaving `presentation` as it is then; returns
    /// whether the notification or its interface closed.
    func carryOut(_ requested: Requested, for entry: DeliveredNotification, servedBy instance: InstanceRecord,
                  drawnAs presentation: inout Presentation, diagnostics: inout [Diagnostic]) -> Bool {
        if requested.takeOff {
            screen.dismissed(screen.takeOff(entry, drawnAs: &presentation, diagnostics: &diagnostics),
                             because: requested.reason)
            return presentation.dismissed
        }
        guard requested.closeInterface else { return false }
        let (closed, ended) = screen.state.withLock { $0.closeInterface(of: entry, servedBy: instance) }
        ended?.destroy()
        // The view shows as it was when the interface closed, as when a response closes the notification.
        if closed { presentation.expanded = false }
        return closed
    }
}

/// What calls into extensions left for their caller's result: diagnostics,
/// the extensions' log lines, and the responses forwarded to the app.
struct CallResult {
    /// What went wrong or is worth knowing.
    var diagnostics: [Diagnostic] = []
    /// What the extensions logged.
    var log: [LogLine] = []
    /// The responses that go to the app.
    var forwarded: [ForwardedResponse] = []
}
