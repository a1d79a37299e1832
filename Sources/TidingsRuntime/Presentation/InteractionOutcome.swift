import TidingsBase

/// The result of an element event (a tap, a submitted text field, a
/// text-input answer) the extension received.
package struct InteractionOutcome: Sendable {
    /// The event, as the extension received it.
    package var event: ElementEvent
    /// The presentation after the extension handled it.
    package var presentation: Presentation
    /// Responses sent to the app meanwhile (the extension performed the default action).
    package var forwarded: [ForwardedResponse]
    /// What the extension did wrong, or why the call failed.
    package var diagnostics: [Diagnostic]
    /// What the extension logged.
    package var log: [LogLine]

    /// The outcome as JSON: the event, and the presentation after it.
    package var json: JSON {
        .object([
            ("event", .string(event.name)),
            ("element", event.element.map(JSON.string) ?? .null),
            ("text", event.text.map(JSON.string) ?? .null),
            ("dismissed", .bool(presentation.dismissed)),
            ("forwarded", .array(forwarded.map(\.json))),
            ("presentation", presentation.json),
            ("log", .array(log.map(\.json))),
            ("diagnostics", .array(diagnostics.map(\.json))),
        ])
    }
}
