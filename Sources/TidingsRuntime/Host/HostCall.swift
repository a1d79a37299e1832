import TidingsABI
import TidingsBase
import TidingsManifest
import TidingsProtocol

/// A host function an extension called that changes what shows or reports
/// something, with its arguments already read from C: what the ABI's
/// `tidings_host` functions do, as a value, handed to the `HostCallSink`
/// the context handle names. A value can travel: a sink may apply it here
/// and forward it to be applied alike elsewhere.
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
    /// `tidings.elements/1`'s set_enabled.
    case setEnabled(element: String, enabled: Bool)
    /// `tidings.text-input/1`'s request_text_input.
    case requestTextInput(TextInputRequest)
    /// `tidings.text-input/1`'s end_text_input.
    case endTextInput
    /// A call whose arguments could not be read (NULL, not UTF-8, out of
    /// range): refused with TIDINGS_STATUS_INVALID_ARGUMENT and this sentence.
    case invalid(String)

    /// Why the call's arguments are refused for their size, in one sentence;
    /// nil when they fit `HostLimits`. (From this process, the C functions
    /// refuse them before; from an extension run elsewhere, they come as they were sent.)
    package var violation: String? {
        func tooLong(_ text: String, _ limit: Int, _ what: String) -> String? {
            text.utf8.count > limit ? "\(what) is longer than \(limit) bytes." : nil
        }
        switch self {
        case .log, .setPreferredContentHeight, .mediaPlayingStarted, .mediaPlayingPaused, .performDefaultAction, .dismiss,
             .setMediaButton, .endTextInput:
            return nil
        case let .setText(element, text):
            return tooLong(element, HostLimits.identifierBytes, "An element identifier")
                ?? tooLong(text, HostLimits.textBytes, "set_text's text")
        case let .setTextColor(element, _), let .setHidden(element, _), let .setEnabled(element, _):
            return tooLong(element, HostLimits.identifierBytes, "An element identifier")
        case let .setImage(element, attachment):
            return tooLong(element, HostLimits.identifierBytes, "An element identifier")
                ?? attachment.flatMap { tooLong($0, HostLimits.identifierBytes, "An attachment identifier") }
        case .setTitle(let title):
            return title.flatMap { tooLong($0, HostLimits.titleBytes, "set_title's title") }
        case .requestTextInput(let request):
            return tooLong(request.buttonTitle, HostLimits.titleBytes, "A text-input button title")
                ?? tooLong(request.placeholder, HostLimits.titleBytes, "A text-input placeholder")
        case .setActions(let actions):
            if actions.count > HostLimits.actions { return "set_actions takes at most \(HostLimits.actions) actions." }
            for action in actions {
                if let problem = tooLong(action.identifier, HostLimits.identifierBytes, "An action identifier")
                    ?? tooLong(action.title, HostLimits.titleBytes, "An action title")
                    ?? action.textInput.flatMap({ input in
                        tooLong(input.buttonTitle, HostLimits.titleBytes, "A text-input button title")
                            ?? tooLong(input.placeholder, HostLimits.titleBytes, "A text-input placeholder")
                    }) {
                    return problem
                }
            }
            return nil
        case .invalid(let sentence):
            return tooLong(sentence, HostLimits.logBytes, "A refusal's sentence")
        }
    }

    /// True when the call may change what shows (the runtime is told after it).
    package var changesPresentation: Bool {
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
    /// may have changed, or when the call made a flood of changes (so that
    /// its report goes out). A closed context answers TIDINGS_STATUS_INVALID_CONTEXT.
    package func perform(_ call: HostCall) -> tidings_status {
        let (status, flooded) = update { state -> (tidings_status, Bool) in
            if let refusal = admit(in: &state) { return (refusal, false) }
            if let violation = call.violation {
                return (refuse(TIDINGS_STATUS_INVALID_ARGUMENT, .hostCallInvalidArgument, violation, in: &state), false)
            }
            if call.changesPresentation, let refusal = chargeViewChange(in: &state) { return (refusal, true) }
            let status = apply(call, to: &state)
            if call.changesPresentation && status == TIDINGS_STATUS_OK { state.revision += 1 }
            return (status, false)
        }
        if (call.changesPresentation && status == TIDINGS_STATUS_OK) || flooded { announceChange() }
        return status
    }

    /// Charges a change of what shows to the instance's bucket of them
    /// (`viewChangeRate`); nil when it goes on, else — the change that makes
    /// a flood — the status refusing it: the instance is abusive from now on
    /// (an extension run elsewhere has its worker ended, fault `abuse`), and reported so.
    private func chargeViewChange(in state: inout State) -> tidings_status? {
        guard let rate = viewChangeRate, var allowance = state.viewChanges else { return nil }
        let allowed = allowance.takeOnCredit(rate, now: MonotonicClock.now())
        state.viewChanges = allowance
        if allowed { return nil }
        state.abusive = true
        state.diagnostics.append(.error(.viewFlood,
                                        "\(extensionIdentifier) changed what it shows faster than \(Int(rate.perSecond)) times a second until it was \(Int(rate.burst)) changes beyond that (a flood: fault abuse); front ends heard at most \(OutOfCallChanges.framesPerSecond) a second of them, and it takes no more calls."))
        return TIDINGS_STATUS_RATE_LIMITED
    }

    /// Lets a host call in, or refuses it with the status to answer: a
    /// closed or abusive context takes none, and one over its rate is refused.
    func admit(in state: inout State) -> tidings_status? {
        guard !state.closed, !state.abusive else { return TIDINGS_STATUS_INVALID_CONTEXT }
        if let rate = callRate, var allowance = state.allowance {
            // Read under the lock, so that the calls of all threads take from the bucket in time order.
            let allowed = allowance.take(rate, now: MonotonicClock.now())
            state.allowance = allowance
            guard allowed else { return refuseOverRate(allowance.refusedRecently, rate, in: &state) }
        }
        return nil
    }

    /// Charges one host call that comes as a message from elsewhere (an
    /// attachment request relayed for an extension run elsewhere) to this context's budget, as a
    /// call made here would be: nil when it may go on, else the status to
    /// answer (a closed or abusive context, a call over the rate).
    package func admitRelayedCall() -> tidings_status? {
        update { admit(in: &$0) }
    }

    /// A call refused for coming too fast, the `refused`th within a second:
    /// the first is reported; once they reach the burst, the extension is
    /// abusive and reported so.
    private func refuseOverRate(_ refused: Int, _ rate: CallRate, in state: inout State) -> tidings_status {
        if refused == 1 {
            state.diagnostics.append(.warning(.hostCallRateLimited,
                                              "\(extensionIdentifier) called host functions faster than \(NumberText.short(rate.perSecond)) a second; calls are refused until it slows down."))
        }
        if Double(refused) >= rate.burst {
            state.abusive = true
            state.diagnostics.append(.error(.hostCallStorm,
                                            "\(extensionIdentifier) went on calling host functions through \(refused) refusals within a second; it takes no more calls."))
        }
        return TIDINGS_STATUS_RATE_LIMITED
    }

    /// `call` applied to `state`.
    private func apply(_ call: HostCall, to state: inout State) -> tidings_status {
        switch call {
        case let .log(level, message):
            state.log.append(LogLine(extensionIdentifier: extensionIdentifier, level: level,
                                     message: HostLimits.cut(message, to: HostLimits.logBytes)))
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
        case let .setEnabled(element, enabled):
            return view(&state) { (view: inout ViewState) throws(ViewState.UpdateError) in try view.setEnabled(enabled, of: element) }
        case .requestTextInput(let request):
            guard mayInteract else {
                return refuse(TIDINGS_STATUS_NOT_PERMITTED, .textInputNotPermitted,
                              "asked for text input, but its manifest does not set UNNotificationExtensionUserInteractionEnabled, so the user cannot type.",
                              in: &state)
            }
            state.textInput = request
        case .endTextInput:
            state.textInput = nil
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
