import TidingsABI

/// Reads the ABI's `tidings_action` into the Swift model.
enum ActionConversion {
    /// The action, or nil when it is too small, lacks an identifier or title, or is not UTF-8.
    static func action(from pointer: UnsafePointer<tidings_action>) -> NotificationAction? {
        let action = pointer.pointee
        guard action.struct_size >= UInt32(MemoryLayout<tidings_action>.size),
              let identifierPointer = action.identifier, let identifier = String(validatingCString: identifierPointer),
              !identifier.isEmpty,
              let titlePointer = action.title, let title = String(validatingCString: titlePointer)
        else { return nil }
        var textInput: NotificationAction.TextInput?
        if let button = action.text_input_button_title {
            guard let buttonTitle = String(validatingCString: button) else { return nil }
            let placeholder = action.text_input_placeholder.flatMap { String(validatingCString: $0) } ?? ""
            textInput = .init(buttonTitle: buttonTitle, placeholder: placeholder)
        }
        return NotificationAction(identifier: identifier, title: title,
                                  options: .init(rawValue: action.options & 0b111), textInput: textInput)
    }
}
