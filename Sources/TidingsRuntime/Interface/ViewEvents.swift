import TidingsABI
import TidingsBase
import TidingsProtocol

/// What the user does to an open interface's view other than respond: taps
/// the media play/pause button, or touches an element (a button's tap, a
/// text field's submission, the answer to a text-input request).
struct ViewEvents: Sendable {
    /// The screen the interfaces are on.
    let screen: Screen
    /// How a call's reports are collected.
    let reports: CallReports
    /// Told of the wait for each media tap and element event.
    var onWait: ExtensionWaitObserver? = nil

    /// The user tapped the media play/pause button of `key`'s open
    /// interface: plays when paused, pauses when playing.
    /// - Throws: for a notification not presented, or whose interface is
    ///   not open or shows no media button.
    func tapMediaButton(of key: NotificationKey) throws(Diagnostic) -> MediaTapOutcome {
        guard let (entry, registered, held) = screen.state.withLock({ $0.claim(key) }) else {
            throw Screen.notPresented(key)
        }
        defer { screen.letGo(of: held) }
        guard let instance = held else {
            throw .error(.mediaNoButton, "The notification \"\(key.identifier)\"'s interface is not open, so it shows no media button; open it first.")
        }
        guard let button = instance.context.snapshot().mediaButton, button.type != 0 else {
            throw .error(.mediaNoButton, "The notification \"\(key.identifier)\" shows no media button.")
        }
        let playing = instance.context.update { state in
            state.mediaPlaying.toggle()
            state.revision += 1
            return state.mediaPlaying
        }
        let waited = onWait?(ExtensionWait(extensionIdentifier: instance.manifest.bundleIdentifier,
                                           call: playing ? "mediaPlay" : "mediaPause"))
        defer { waited?() }
        try instance.call { (extensionInstance: any ExtensionInstance) throws(Diagnostic) in
            if playing { try extensionInstance.mediaPlay() } else { try extensionInstance.mediaPause() }
        }
        var result = CallResult()
        let (presentation, revision) = reports.collect(from: instance, for: entry,
                                                       categoryActions: registered?.category.actions,
                                                       closing: false, into: &result)
        // The button shows playing (or paused) now, and the view as the extension left it.
        screen.tell(presentation, of: instance, drawnAt: revision, for: entry)
        return MediaTapOutcome(presentation: presentation, diagnostics: result.diagnostics, log: result.log)
    }

    /// A front end's `event` on `key`'s view, passed to its
    /// extension when the manifest lets the user interact, the extension
    /// takes element events and the view takes the event.
    /// - Throws: for a notification not presented, an event refused (with a
    ///   code saying why); nothing then reaches the extension.
    func interact(with key: NotificationKey, _ event: ElementEvent) throws(Diagnostic) -> InteractionOutcome {
        if let violation = event.violation { throw .error(.elementInvalid, violation) }
        guard let (entry, registered, held) = screen.state.withLock({ $0.claim(key) }) else {
            throw Screen.notPresented(key)
        }
        defer { screen.letGo(of: held) }
        guard let instance = held else {
            throw .error(.elementInterfaceClosed,
                         "The notification \"\(key.identifier)\"'s interface is not open, so its elements cannot be touched; open it first.")
        }
        let name = instance.manifest.bundleIdentifier
        guard instance.manifest.userInteractionEnabled else {
            throw .error(.elementInteractionDisabled,
                         "\(name)'s manifest does not set UNNotificationExtensionUserInteractionEnabled to true, so touches and text never reach its view.")
        }
        guard instance.started.provider.handlesElementEvents else {
            throw .error(.elementEventsNotHandled,
                         "\(name) offers no \(TIDINGS_ELEMENT_EVENTS_INTERFACE) interface, so its view's events cannot reach it.")
        }
        try instance.context.admit(event)
        var result = CallResult()
        let waited = onWait?(ExtensionWait(extensionIdentifier: name, call: "the element event \(event.name)" + (event.element.map { " on \"\($0)\"" } ?? "")))
        do throws(Diagnostic) {
            try instance.call { (extensionInstance: any ExtensionInstance) throws(Diagnostic) in try extensionInstance.handle(event) }
        } catch {
            result.diagnostics.append(error)
        }
        waited?()
        let (presentation, revision) = reports.collect(from: instance, for: entry,
                                                       categoryActions: registered?.category.actions,
                                                       closing: false, into: &result)
        // The event changed the view (a field's text, the text input asked for) and so may the extension.
        screen.tell(presentation, of: instance, drawnAt: revision, for: entry)
        screen.announce(forwarded: result.forwarded)
        return InteractionOutcome(event: event, presentation: presentation, forwarded: result.forwarded,
                                  diagnostics: result.diagnostics, log: result.log)
    }
}

extension Diagnostic.Code {
    /// The media button was tapped on a notification that shows none.
    package static let mediaNoButton = Self("media.no-button")
}
