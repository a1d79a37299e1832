import TidingsABI
import TidingsBase
import TidingsProtocol

/// Reads the ABI's `tidings_action` into the Swift model, and back.
enum ActionConversion {
    /// The action an extension passed at `pointer`, read within its size;
    /// nil when it is smaller than version 1's, lacks an identifier or title,
    /// or is not UTF-8.
    static func action(from pointer: UnsafeRawPointer?) -> NotificationAction? {
        guard let action = tidings_action.read(from: pointer),
              let identifier = HostLimits.text(action.identifier, limit: HostLimits.identifierBytes).value,
              !identifier.isEmpty,
              let title = HostLimits.text(action.title, limit: HostLimits.titleBytes).value
        else { return nil }
        var textInput: NotificationAction.TextInput?
        if action.text_input_button_title != nil {
            guard let buttonTitle = HostLimits.text(action.text_input_button_title, limit: HostLimits.titleBytes).value
            else { return nil }
            let placeholder = HostLimits.text(action.text_input_placeholder, limit: HostLimits.titleBytes).value ?? ""
            textInput = .init(buttonTitle: buttonTitle, placeholder: placeholder)
        }
        return NotificationAction(identifier: identifier, title: title,
                                  options: .init(rawValue: action.options & 0b111), textInput: textInput)
    }
}

extension NotificationAction {
    /// The action as the ABI's `tidings_action` carries it (what `get_actions` hands out).
    var cFields: CActionFields {
        CActionFields(identifier: identifier, title: title, options: options.rawValue,
                      textInput: textInput.map { ($0.buttonTitle, $0.placeholder) })
    }
}
