import TidingsBase

/// The result of opening (or closing) a notification's expanded interface.
package struct InterfaceOutcome: Sendable {
    /// The notification's presentation now: expanded while its interface is open.
    package var presentation: Presentation
    /// Why the extension's view is missing (it failed to load or to make an
    /// instance), and what the extension did wrong.
    package var diagnostics: [Diagnostic]
    /// What the extension logged.
    package var log: [LogLine]
    /// Responses sent to the app meanwhile (the extension performed the default action).
    package var forwarded: [ForwardedResponse]

    package init(presentation: Presentation, diagnostics: [Diagnostic] = [], log: [LogLine] = [],
                 forwarded: [ForwardedResponse] = []) {
        self.presentation = presentation
        self.diagnostics = diagnostics
        self.log = log
        self.forwarded = forwarded
    }
}
