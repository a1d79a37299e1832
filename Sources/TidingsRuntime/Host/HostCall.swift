import TidingsABI
import TidingsBase
import TidingsManifest

/// A host function an extension called that changes what shows or reports
/// something, with its arguments already read from C: what the ABI's
/// `tidings_host` functions do, as a value. In this process the C functions
/// apply it to the instance's context at once; from a worker process it
/// travels to the host, which applies it to its own context alike (see
/// `InstanceContext.relay`).
package enum HostCall: Sendable, Equatable {
    case log(LogLine.Level, String)
    case setText(element: String, text: String)
    case setTextColor(element: String, color: UInt32)
    /// `attachment` nil clears the image.
    case setImage(element: String, attachment: String?)
    case setHidden(element: String, hidden: Bool)
    case setPreferredContentHeight(Double)
    /// nil restores the app's name.
    case setTitle(String?)
    case setActions([NotificationAction])
    case setMediaButton(InstanceContext.MediaButton)
    case mediaPlayingStarted
    case mediaPlayingPaused
    case performDefaultAction
    case dismiss
    /// A call whose arguments could not be read (NULL, not UTF-8, out of
    /// range): refused with TIDINGS_STATUS_INVALID_ARGUMENT and this sentence.
    case invalid(String)

    /// True when the call may change what shows (the runtime is told after it).
    var changesPresentation: Bool {
        switch self {
        case .log, .invalid: false
        default: true
        }
    }
}

extension InstanceContext {
    /// Applies `call` to the state under its lock (refusing it, with a
    /// diagnostic, when it does not fit) and returns the status the ABI
    /// answers; once the lock is released, tells the runtime when what shows
    /// may have changed. A closed context answers TIDINGS_STATUS_INVALID_CONTEXT.
    package func perform(_ call: HostCall) -> tidings_status {
        let status = update { state in
            guard !state.closed else { return TIDINGS_STATUS_INVALID_CONTEXT }
            let status = apply(call, to: &state)
            if relay != nil {
                // The host collects what the call reports, from the relayed call.
                state.diagnostics = []
                state.log = []
                state.dismissRequested = false
                state.defaultActionRequested = false
            }
            return status
        }
        if let relay {
            if status != TIDINGS_STATUS_INVALID_CONTEXT { relay(call) }
        } else if call.changesPresentation && status == TIDINGS_STATUS_OK {
            announceChange()
        }
        return status
    }

    /// `call` applied to `state`.
    private func apply(_ call: HostCall, to state: inout State) -> tidings_status {
        switch call {
        case let .log(level, message):
            state.log.append(LogLine(extensionIdentifier: extensionIdentifier, level: level, message: message))
        case let .setText(element, text):
            return view(&state) { (view: inout ViewState) throws(ViewState.UpdateError) in try view.setText(text, of: element) }
        case let .setTextColor(element, color):
            return view(&state) { (view: inout ViewState) throws(ViewState.UpdateError) in try view.setTextColor(Color(rgba: color), of: element) }
        case let .setImage(element, attachment):
            if let attachment, !state.attachments.contains(where: { $0.identifier == attachment }) {
                return refuse(TIDINGS_STATUS_NO_SUCH_ATTACHMENT, .viewNoSuchAttachment,
                              "the notification has no attachment \"\(attachment)\".", in: &state)
            }
            return view(&state) { (view: inout ViewState) throws(ViewState.UpdateError) in try view.setImage(attachment, of: element) }
        case let .setHidden(element, hidden):
            return view(&state) { (view: inout ViewState) throws(ViewState.UpdateError) in try view.setHidden(hidden, of: element) }
        case .setPreferredContentHeight(let height):
            guard height.isFinite, height > 0, height <= 100_000 else {
                return refuse(TIDINGS_STATUS_INVALID_ARGUMENT, .hostCallInvalidArgument,
                              "set_preferred_content_height needs a height above 0 and at most 100000; it got \(height).",
                              in: &state)
            }
            state.preferredContentHeight = height
        case .setTitle(let title):
            guard mayOverrideTitle else {
                return refuse(TIDINGS_STATUS_NOT_PERMITTED, .titleNotPermitted,
                              "set a title, but its manifest does not set UNNotificationExtensionOverridesDefaultTitle, so the app's name stays.",
                              in: &state)
            }
            state.title = title
        case .setActions(let actions):
            state.actions = actions
        case .setMediaButton(let button):
            state.mediaButton = button
        case .mediaPlayingStarted:
            state.mediaPlaying = true
        case .mediaPlayingPaused:
            state.mediaPlaying = false
        case .performDefaultAction:
            state.defaultActionRequested = true
        case .dismiss:
            state.dismissRequested = true
        case .invalid(let sentence):
            return refuse(TIDINGS_STATUS_INVALID_ARGUMENT, .hostCallInvalidArgument, sentence, in: &state)
        }
        return TIDINGS_STATUS_OK
    }

    /// Changes the view with `change`, mapping its refusal to the ABI's status.
    private func view(_ state: inout State,
                      _ change: (inout ViewState) throws(ViewState.UpdateError) -> Void) -> tidings_status {
        do throws(ViewState.UpdateError) {
            try change(&state.view)
            return TIDINGS_STATUS_OK
        } catch {
            switch error {
            case .noSuchElement(let element):
                return refuse(TIDINGS_STATUS_NO_SUCH_ELEMENT, .viewNoSuchElement,
                              "the interface has no element \"\(element)\".", in: &state)
            case let .wrongKind(element, kind, needed):
                return refuse(TIDINGS_STATUS_WRONG_ELEMENT_KIND, .viewWrongElementKind,
                              "\"\(element)\" is \(kind == "image" ? "an" : "a") \(kind), not \(needed == "image" ? "an" : "a") \(needed).",
                              in: &state)
            }
        }
    }
}
