import TidingsBase

/// Whose completion came after its deadline: the response's app, its
/// notification and the extension that completed it (`HostEvent.lateCompletion`);
/// a service extension's request too.
package struct LateCompletion: Sendable, Equatable {
    /// The app the notification was delivered to.
    package var app: String
    /// The request identifier of the notification responded to.
    package var notificationIdentifier: String
    /// The content extension's bundle identifier.
    package var extensionIdentifier: String

    /// The response to `notificationIdentifier` of `app`, answered late by `extensionIdentifier`.
    package init(app: String, notificationIdentifier: String, extensionIdentifier: String) {
        self.app = app
        self.notificationIdentifier = notificationIdentifier
        self.extensionIdentifier = extensionIdentifier
    }

    /// The event that reports `problem`, a completion problem of this
    /// response or request after its waiter was done: a late completion is
    /// one of its own, anything else (a misuse) an extension's diagnostic.
    package func event(reporting problem: Diagnostic) -> HostEvent {
        problem.code == .completionLate ? .lateCompletion(self, problem) : .diagnostic(problem, app: app)
    }
}
