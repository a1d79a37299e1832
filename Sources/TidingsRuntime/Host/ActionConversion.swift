import TidingsABI

/// Reads the ABI's `tidings_action` into the Swift model.
enum ActionConversion {
    /// The action, or nil when it is too small, lacks an identifier or title, or is not UTF-8.
    static func action(from pointer: UnsafePointer<tidings_action>) -> NotificationAction? {
        let action = pointer.pointee
        guard action.struct_size >= UInt32(MemoryLayout<tidings_action>.size),
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
