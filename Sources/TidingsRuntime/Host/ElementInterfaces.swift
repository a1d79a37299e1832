import TidingsABI
import TidingsBase

/// The host's `tidings.elements/1` and `tidings.text-input/1`: what an
/// extension changes of its buttons and text fields, and its requests for
/// text input. Each function reads its arguments and hands the call to the
/// sink its context names, as the table's functions do.
enum ElementInterfaces {
    /// `tidings.elements/1`, made once and never freed, as the ABI promises.
    nonisolated(unsafe) static let elements: UnsafePointer<tidings_elements_interface> = {
        let made = UnsafeMutablePointer<tidings_elements_interface>.allocate(capacity: 1)
        made.initialize(to: tidings_elements_interface(
            struct_size: UInt32(MemoryLayout<tidings_elements_interface>.size), set_enabled: setEnabled))
        return UnsafePointer(made)
    }()

    /// `tidings.text-input/1`, made once and never freed, as the ABI promises.
    nonisolated(unsafe) static let textInput: UnsafePointer<tidings_text_input_interface> = {
        let made = UnsafeMutablePointer<tidings_text_input_interface>.allocate(capacity: 1)
        made.initialize(to: tidings_text_input_interface(
            struct_size: UInt32(MemoryLayout<tidings_text_input_interface>.size),
            request_text_input: requestTextInput, end_text_input: endTextInput))
        return UnsafePointer(made)
    }()

    private static let setEnabled: @convention(c) (tidings_context?, UnsafePointer<CChar>?, Bool) -> tidings_status = {
        handle, element, enabled in
        HostFunctions.perform(handle) {
            HostFunctions.text(element).map { .setEnabled(element: $0, enabled: enabled) } ?? .invalid("set_enabled needs an element.")
        }
    }

    private static let requestTextInput: @convention(c) (tidings_context?, UnsafePointer<CChar>?, UnsafePointer<CChar>?)
        -> tidings_status = { handle, buttonTitle, placeholder in
        HostFunctions.perform(handle) {
            let title = HostFunctions.text(buttonTitle, limit: HostLimits.titleBytes)
            let hint = HostFunctions.text(placeholder, limit: HostLimits.titleBytes)
            guard let title, placeholder == nil || hint != nil else {
                return .invalid("request_text_input needs a UTF-8 button title and placeholder (NULL for none) of at most \(HostLimits.titleBytes) bytes.")
            }
            return .requestTextInput(TextInputRequest(buttonTitle: title, placeholder: hint ?? ""))
        }
    }

    private static let endTextInput: @convention(c) (tidings_context?) -> tidings_status = { handle in
        HostFunctions.perform(handle) { .endTextInput }
    }
}
