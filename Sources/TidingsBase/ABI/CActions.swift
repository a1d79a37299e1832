import TidingsABI

/// An action button as the ABI's `tidings_action` carries it, before it is
/// laid out for a call.
package struct CActionFields: Sendable {
    /// The identifier a response carries.
    package var identifier: String
    /// The button's title.
    package var title: String
    /// `tidings_action_options`.
    package var options: UInt32
    /// For a text-input action: the send button's title and the placeholder.
    package var textInput: (buttonTitle: String, placeholder: String)?

    package init(identifier: String, title: String, options: UInt32,
                 textInput: (buttonTitle: String, placeholder: String)?) {
        self.identifier = identifier
        self.title = title
        self.options = options
        self.textInput = textInput
    }
}

/// Lays actions out as the ABI's array of `tidings_action` pointers for one
/// call: what an extension hands `set_actions`, and what the host hands the
/// receiver of `get_actions`.
package enum CActions {
    /// Calls `body` with `actions` as `const tidings_action *const *`, each
    /// of this header's size; valid only inside `body`.
    /// Thread: the caller's. Ownership: everything is freed when `body` returns.
    package static func with<Result>(_ actions: [CActionFields],
                                     _ body: (UnsafePointer<UnsafePointer<tidings_action>?>?) -> Result) -> Result {
        var copies = CStrings()
        let cActions = UnsafeMutablePointer<tidings_action>.allocate(capacity: max(1, actions.count))
        let pointers = UnsafeMutablePointer<UnsafePointer<tidings_action>?>.allocate(capacity: max(1, actions.count))
        defer {
            copies.free()
            cActions.deinitialize(count: actions.count)
            cActions.deallocate()
            pointers.deallocate()
        }
        for (position, action) in actions.enumerated() {
            (cActions + position).initialize(to: tidings_action(
                struct_size: UInt32(MemoryLayout<tidings_action>.size), options: action.options,
                identifier: copies.copy(action.identifier), title: copies.copy(action.title),
                text_input_button_title: copies.copy(action.textInput?.buttonTitle),
                text_input_placeholder: copies.copy(action.textInput?.placeholder)))
            (pointers + position).initialize(to: UnsafePointer(cActions + position))
        }
        return body(UnsafePointer(pointers))
    }
}
