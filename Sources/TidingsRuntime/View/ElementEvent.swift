import TidingsABI
import TidingsBase

/// What the user did to an element of an extension's view, or the text the
/// user gave for the extension's text-input request: what a front end sends
/// and the extension receives through its `tidings.element-events/1`.
package enum ElementEvent: Sendable, Equatable {
    /// The user tapped the button `element`.
    case tap(element: String)
    /// The user submitted `text` in the text field `element`.
    case submit(element: String, text: String)
    /// The user answered the extension's text-input request with `text`.
    case textInput(text: String)

    /// The ABI's `tidings_element_event_kind`.
    package var kind: Int32 {
        switch self {
        case .tap: TIDINGS_ELEMENT_EVENT_TAP
        case .submit: TIDINGS_ELEMENT_EVENT_SUBMIT
        case .textInput: TIDINGS_ELEMENT_EVENT_TEXT_INPUT
        }
    }

    /// The element it concerns; nil for a text-input answer.
    package var element: String? {
        switch self {
        case .tap(let element), .submit(let element, _): element
        case .textInput: nil
        }
    }

    /// The user's text; nil for a tap.
    package var text: String? {
        switch self {
        case .tap: nil
        case .submit(_, let text), .textInput(let text): text
        }
    }

    /// `tap`, `submit` or `input`, as front ends name it.
    package var name: String {
        switch self {
        case .tap: "tap"
        case .submit: "submit"
        case .textInput: "input"
        }
    }

    /// Why the event cannot be handed to an extension as it is (an element
    /// identifier or a text too long for the ABI's limits, or holding a NUL
    /// byte, which a C string cannot carry); nil when it can.
    package var violation: String? {
        if let element {
            if element.isEmpty { return "An element identifier is empty." }
            if element.utf8.count > HostLimits.identifierBytes {
                return "An element identifier is longer than \(HostLimits.identifierBytes) bytes."
            }
            if element.utf8.contains(0) { return "An element identifier holds a NUL byte." }
        }
        if let text {
            if text.utf8.count > HostLimits.textBytes { return "The text is longer than \(HostLimits.textBytes) bytes." }
            if text.utf8.contains(0) { return "The text holds a NUL byte." }
        }
        return nil
    }
}

/// What the extension asked the front end for with `request_text_input`
/// (the guide's custom input view: becoming first responder with its own
/// input view): a text entry with its own send button title and placeholder.
package struct TextInputRequest: Sendable, Equatable {
    /// The send button's title.
    package var buttonTitle: String
    /// What the empty entry shows.
    package var placeholder: String

    package init(buttonTitle: String, placeholder: String) {
        self.buttonTitle = buttonTitle
        self.placeholder = placeholder
    }
}

extension Diagnostic.Code {
    /// An element event for an extension whose manifest does not set UNNotificationExtensionUserInteractionEnabled.
    package static let elementInteractionDisabled = Self("element.interaction-disabled")
    /// An element event for an extension that offers no `tidings.element-events/1`.
    package static let elementEventsNotHandled = Self("element.events-not-handled")
    /// An element event naming no element of the view.
    package static let elementNoSuchElement = Self("element.no-such-element")
    /// A tap on something not a button, a submission to something not a text field.
    package static let elementWrongKind = Self("element.wrong-kind")
    /// An event for an element that is disabled or hidden.
    package static let elementDisabled = Self("element.disabled")
    /// A text-input answer while the extension asks for none.
    package static let elementInputNotRequested = Self("element.input-not-requested")
    /// An event whose identifier or text is too long or holds a NUL byte.
    package static let elementInvalid = Self("element.invalid")
    /// An element event for a notification whose expanded interface is not open (or whose extension failed).
    package static let elementInterfaceClosed = Self("element.interface-closed")
}

extension InstanceContext {
    /// Admits `event` into the view as the user made it, or throws why it is
    /// refused: the element must exist, be of the kind the event needs, be
    /// shown and enabled; a submitted text field then holds the text; a
    /// text-input answer needs a request, which it clears. Under the lock,
    /// so that the view the extension is told of is the one checked.
    package func admit(_ event: ElementEvent) throws(Diagnostic) {
        let refusal: Diagnostic? = update { state in
            switch event {
            case .tap(let element), .submit(let element, _):
                let needed = event.name == "tap" ? "button" : "textField"
                guard let node = state.view.node(element) else {
                    let near = Suggestion.closest(to: element, among: state.view.nodes.compactMap(\.identifier))
                    return .error(.elementNoSuchElement,
                                  "The view has no element \"\(element)\"" + (near.map { "; did you mean \"\($0)\"?" } ?? "."))
                }
                guard node.kindName == needed else {
                    return .error(.elementWrongKind, "\"\(element)\" is a \(node.kindName); only a \(needed) takes a \(event.name).")
                }
                guard node.enabled == true, !node.hidden else {
                    return .error(.elementDisabled, "The \(needed) \"\(element)\" is \(node.hidden ? "hidden" : "disabled"); it takes no \(event.name).")
                }
                if case .submit(_, let text) = event { try? state.view.setText(text, of: element) }
            case .textInput:
                guard state.textInput != nil else {
                    return .error(.elementInputNotRequested, "The extension asks for no text input now.")
                }
                state.textInput = nil
            }
            state.revision += 1
            return nil
        }
        if let refusal { throw refusal }
    }
}
