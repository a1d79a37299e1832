import TidingsBase

/// What tapping the media play/pause button did: the presentation after the
/// extension's `media_play` or `media_pause`, and what it logged and did
/// wrong meanwhile.
package struct MediaTapOutcome: Sendable {
    /// The presentation after the call (`mediaPlaying` says which it was).
    package var presentation: Presentation
    /// What the extension did wrong during the call.
    package var diagnostics: [Diagnostic]
    /// What the extension logged during the call.
    package var log: [LogLine]
}

extension MediaTapOutcome {
    /// The presentation's JSON, with what the extension logged and did wrong during the call.
    package var json: JSON {
        .object((presentation.json.objectMembers ?? [])
            + [("log", .array(log.map(\.json))), ("diagnostics", .array(diagnostics.map(\.json)))])
    }
}
