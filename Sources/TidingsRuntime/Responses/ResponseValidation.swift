import TidingsBase
import TidingsProtocol

/// Whether a response fits the notification it answers: an action it
/// offers, with text exactly when the action takes text input; the default
/// and dismiss actions, and the settings action (`tidings.settings`), always
/// fit and carry no text.
package enum ResponseValidation {
    /// Checks `response` against the `actions` its notification offers,
    /// whose category is `category` (registered when `registered`).
    /// - Throws: a diagnostic saying what does not fit, with the nearest
    ///   action offered or why none is.
    package static func check(_ response: ResponseRequest, against actions: [NotificationAction],
                              category: String, registered: Bool) throws(Diagnostic) {
        let identifier = response.actionIdentifier
        if identifier == ActionIdentifier.default || identifier == ActionIdentifier.dismiss
            || (identifier == ActionIdentifier.settings && !actions.contains { $0.identifier == identifier }) {
            if response.userText != nil {
                throw .error(.responseTextUnexpected, "Only a text-input action carries text; \(identifier) does not.")
            }
            return
        }
        guard let action = actions.first(where: { $0.identifier == identifier }) else {
            let offered = actions.map { "\"\($0.identifier)\"" }.joined(separator: ", ")
            var message = "The notification offers no action \"\(identifier)\""
            if let near = Suggestion.closest(to: identifier, among: actions.map(\.identifier)) {
                message += "; did you mean \"\(near)\"?"
            } else if actions.isEmpty {
                if category.isEmpty {
                    message += "; it has no category, so it has no actions."
                } else if registered {
                    message += "; its category \"\(category)\" has no actions."
                } else {
                    message += "; its category \"\(category)\" is not registered, so it offers no actions (register the app's categories: --categories FILE on the command line, categories.register on the server)."
                }
            } else {
                message += "; it offers \(offered)."
            }
            throw .error(.responseUnknownAction, message)
        }
        if action.textInput != nil && response.userText == nil {
            throw .error(.responseTextRequired, "The action \"\(identifier)\" takes text input; give the user's text.")
        }
        if action.textInput == nil && response.userText != nil {
            throw .error(.responseTextUnexpected, "The action \"\(identifier)\" is not a text-input action and takes no text.")
        }
    }
}

extension Diagnostic.Code {
    /// A response named a notification that is not presented.
    package static let responseUnknownNotification = Self("response.unknown-notification")
    /// A response named an action the notification does not offer.
    package static let responseUnknownAction = Self("response.unknown-action")
    /// A text-input action was answered without text.
    package static let responseTextRequired = Self("response.text-required")
    /// Text was given for an action that takes none.
    package static let responseTextUnexpected = Self("response.text-unexpected")
}

extension Diagnostic.Code {
    /// A call named a notification by its identifier alone, which several apps have delivered.
    package static let responseAmbiguousNotification = Self("response.ambiguous-notification")
}
