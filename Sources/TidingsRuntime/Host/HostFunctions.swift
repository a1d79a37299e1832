import Glibc
import TidingsABI
import TidingsBase
import TidingsManifest

/// The ABI's `tidings_host`: the functions every extension calls, built once
/// and valid for the life of the process.
///
/// Each function turns its context handle back into an `InstanceContext`
/// (a stale handle gives TIDINGS_STATUS_INVALID_CONTEXT), copies what it is
/// given, and changes the context under its lock; none calls back into an
/// extension, so an extension may call them from inside its own functions.
package enum HostFunctions {
    /// The host's name and version as extensions see them.
    package static let name = "tidings"
    package static let version = "0.1.0"
    /// The highest ABI version the host speaks.
    package static let abiVersion = TIDINGS_ABI_VERSION

    /// The table passed to every extension's entry function in this process.
    package static var table: UnsafePointer<tidings_host> { standard.pointer }

    /// The host function table of this process, made once.
    package static let standard = makeTable(completeResponse: completeResponse, completeRequest: completeRequest)

    /// The signature of `complete_response`.
    package typealias CompleteResponse = @convention(c) (tidings_completion, tidings_response_option) -> tidings_status
    /// The signature of `complete_request`.
    package typealias CompleteRequest = @convention(c) (tidings_completion, UnsafePointer<tidings_content>?) -> tidings_status

    /// A table like `standard` but for its completion functions: for a
    /// process whose completion tokens are issued and kept by another (a
    /// worker process, whose host holds them). The table lives as long as
    /// the process.
    package static func makeTable(completeResponse: CompleteResponse, completeRequest: CompleteRequest) -> HostTable {
        let table = UnsafeMutablePointer<tidings_host>.allocate(capacity: 1)
        table.initialize(to: tidings_host(
            struct_size: UInt32(MemoryLayout<tidings_host>.size),
            abi_version: TIDINGS_ABI_VERSION,
            name: permanentCString(name),
            version: permanentCString(version),
            log: log,
            set_text: setText,
            set_text_color: setTextColor,
            set_image: setImage,
            set_hidden: setHidden,
            set_preferred_content_height: setPreferredContentHeight,
            set_title: setTitle,
            set_actions: setActions,
            set_media_button: setMediaButton,
            media_playing_started: mediaPlayingStarted,
            media_playing_paused: mediaPlayingPaused,
            perform_default_action: performDefaultAction,
            dismiss: dismiss,
            complete_response: completeResponse,
            complete_request: completeRequest,
            create_attachment: createAttachment,
            open_attachment: openAttachment))
        return HostTable(pointer: UnsafePointer(table))
    }

    /// A C string that lives as long as the process (for the table's static strings).
    private static func permanentCString(_ text: String) -> UnsafePointer<CChar> {
        let bytes = Array(text.utf8CString)
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
        copy.initialize(from: bytes, count: bytes.count)
        return UnsafePointer(copy)
    }

    // MARK: Shared steps

    /// The sink `handle` names, if its context is still open.
    private static func sink(_ handle: tidings_context?) -> (any HostCallSink)? {
        handle.flatMap { ContextRegistry.shared.sink(UInt64(UInt(bitPattern: $0))) }
    }

    /// Performs the call `make` reads from the C arguments on the sink
    /// `handle` names; TIDINGS_STATUS_INVALID_CONTEXT when there is none.
    private static func perform(_ handle: tidings_context?, _ make: () -> HostCall) -> tidings_status {
        guard let sink = sink(handle) else { return TIDINGS_STATUS_INVALID_CONTEXT }
        return sink.perform(make())
    }

    /// The UTF-8 text at `pointer`, at most `limit` bytes; nil for NULL,
    /// invalid UTF-8 or a longer string (never read past its cap).
    private static func text(_ pointer: UnsafePointer<CChar>?, limit: Int = HostLimits.identifierBytes) -> String? {
        HostLimits.text(pointer, limit: limit).value
    }

    // MARK: The functions

    private static let log: @convention(c) (tidings_context?, tidings_log_level, UnsafePointer<CChar>?) -> Void = {
        handle, level, message in
        _ = perform(handle) {
            let line: String = switch HostLimits.text(message, limit: HostLimits.logBytes) {
            case .text(let text): text
            case .tooLong: HostLimits.cut(String(decoding: UnsafeRawBufferPointer(start: message, count: HostLimits.logBytes),
                                                 as: UTF8.self), to: HostLimits.logBytes)
            case .absent, .invalid: "(a message that is not UTF-8)"
            }
            return .log(LogLine.Level(rawValue: level) ?? .info, line)
        }
    }

    private static let setText: @convention(c) (tidings_context?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> tidings_status = {
        handle, element, value in
        perform(handle) {
            guard let element = text(element), let value = text(value, limit: HostLimits.textBytes) else {
                return .invalid("set_text needs an element (at most \(HostLimits.identifierBytes) bytes) and a UTF-8 text (at most \(HostLimits.textBytes) bytes).")
            }
            return .setText(element: element, text: value)
        }
    }

    private static let setTextColor: @convention(c) (tidings_context?, UnsafePointer<CChar>?, tidings_rgba) -> tidings_status = {
        handle, element, color in
        perform(handle) { text(element).map { .setTextColor(element: $0, color: color) } ?? .invalid("set_text_color needs an element.") }
    }

    private static let setImage: @convention(c) (tidings_context?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> tidings_status = {
        handle, element, attachment in
        perform(handle) {
            guard let element = text(element) else { return .invalid("set_image needs an element.") }
            let identifier = text(attachment)
            if attachment != nil && identifier == nil {
                return .invalid("set_image was given an attachment identifier that is not UTF-8.")
            }
            return .setImage(element: element, attachment: identifier)
        }
    }

    private static let setHidden: @convention(c) (tidings_context?, UnsafePointer<CChar>?, Bool) -> tidings_status = {
        handle, element, hidden in
        perform(handle) { text(element).map { .setHidden(element: $0, hidden: hidden) } ?? .invalid("set_hidden needs an element.") }
    }

    private static let setPreferredContentHeight: @convention(c) (tidings_context?, Double) -> tidings_status = {
        handle, height in
        perform(handle) { .setPreferredContentHeight(height) }
    }

    private static let setTitle: @convention(c) (tidings_context?, UnsafePointer<CChar>?) -> tidings_status = {
        handle, title in
        perform(handle) {
            let value = text(title, limit: HostLimits.titleBytes)
            return title != nil && value == nil
                ? .invalid("set_title was given a title that is not UTF-8 or longer than \(HostLimits.titleBytes) bytes.")
                : .setTitle(value)
        }
    }

    private static let setActions: @convention(c) (tidings_context?, UnsafePointer<UnsafePointer<tidings_action>?>?, Int) -> tidings_status = {
        handle, list, count in
        perform(handle) {
            guard count >= 0, count <= 64, count == 0 || list != nil else {
                return .invalid("set_actions needs an array of at most 64 actions.")
            }
            var actions: [NotificationAction] = []
            for position in 0..<count {
                guard let action = list![position], let converted = ActionConversion.action(from: action),
                      !actions.contains(where: { $0.identifier == converted.identifier })
                else { return .invalid("set_actions was given an invalid or repeated action at position \(position).") }
                actions.append(converted)
            }
            return .setActions(actions)
        }
    }

    private static let setMediaButton: @convention(c) (tidings_context?, UnsafePointer<tidings_media_button>?) -> tidings_status = {
        handle, button in
        perform(handle) {
            guard let button, button.pointee.struct_size >= UInt32(MemoryLayout<tidings_media_button>.size),
                  (TIDINGS_MEDIA_BUTTON_NONE...TIDINGS_MEDIA_BUTTON_OVERLAY).contains(button.pointee.type)
            else { return .invalid("set_media_button needs a button of type none, default or overlay.") }
            let frame = button.pointee.frame
            let tint = button.pointee.tint_color
            return .setMediaButton(InstanceContext.MediaButton(
                type: button.pointee.type,
                frame: frame.width > 0 && frame.height > 0 ? (frame.x, frame.y, frame.width, frame.height) : nil,
                tint: tint & 0xFF == 0 ? nil : Color(rgba: tint)))
        }
    }

    private static let mediaPlayingStarted: @convention(c) (tidings_context?) -> tidings_status = { handle in
        perform(handle) { .mediaPlayingStarted }
    }

    private static let mediaPlayingPaused: @convention(c) (tidings_context?) -> tidings_status = { handle in
        perform(handle) { .mediaPlayingPaused }
    }

    private static let performDefaultAction: @convention(c) (tidings_context?) -> tidings_status = { handle in
        perform(handle) { .performDefaultAction }
    }

    private static let dismiss: @convention(c) (tidings_context?) -> tidings_status = { handle in
        perform(handle) { .dismiss }
    }

    private static let completeResponse: CompleteResponse = {
        token, option in
        CompletionCenter.shared.complete(token, option: option)
    }

    private static let completeRequest: CompleteRequest = {
        token, content in
        CompletionCenter.shared.complete(token, content: content.map(ServiceAnswer.init))
    }

    private static let createAttachment: @convention(c) (
        tidings_context?, UnsafePointer<tidings_attachment_request>?, UnsafeMutablePointer<tidings_attachment_result>?
    ) -> tidings_status = { handle, request, result in
        let result = result.flatMap { Int($0.pointee.struct_size) >= MemoryLayout<tidings_attachment_result>.size ? $0 : nil }
        // Whatever happens, the caller reads a result that says nothing was made, unless something was.
        if let result { fill(result, error: 0, identifier: "", type: nil, size: 0) }
        guard let sink = sink(handle) else { return TIDINGS_STATUS_INVALID_CONTEXT }
        let creation = sink.createAttachment(attachmentRequest(from: request))
        if let result {
            switch creation {
            case .made(let admission):
                fill(result, error: 0, identifier: admission.attachment.identifier,
                     type: typeNames.pointer(for: admission.mediaType), size: admission.attachment.size)
            case .failed(let failure):
                fill(result, error: failure.appleCode, identifier: "", type: nil, size: 0)
            case .refused:
                break
            }
        }
        return creation.status
    }

    /// The request an extension passed to `create_attachment`, copied and checked.
    private static func attachmentRequest(
        from request: UnsafePointer<tidings_attachment_request>?
    ) -> Result<AttachmentRequest, InstanceContext.RequestProblem> {
        guard let request, Int(request.pointee.struct_size) >= MemoryLayout<tidings_attachment_request>.size,
              let url = text(request.pointee.url, limit: HostLimits.urlBytes)
        else {
            return .failure(InstanceContext.RequestProblem(message: "create_attachment needs a request with a UTF-8 url."))
        }
        let options = request.pointee
        if options.identifier != nil && text(options.identifier) == nil {
            return .failure(InstanceContext.RequestProblem(message: "create_attachment was given an identifier that is not UTF-8."))
        }
        if options.type_hint != nil && text(options.type_hint) == nil {
            return .failure(InstanceContext.RequestProblem(message: "create_attachment was given a type hint that is not UTF-8."))
        }
        let rect = options.thumbnail_clipping_rect
        let clipping = rect.width != 0 || rect.height != 0
            ? ThumbnailOptions.ClippingRect(x: rect.x, y: rect.y, width: rect.width, height: rect.height) : nil
        if let clipping, !clipping.isNormalized {
            return .failure(InstanceContext.RequestProblem(message: "create_attachment was given a thumbnail clipping rectangle outside 0…1."))
        }
        let time = options.thumbnail_time
        let thumbnail = ThumbnailOptions(hidden: options.thumbnail_hidden, clippingRect: clipping,
                                         time: time >= 0 && time.isFinite ? time : nil)
        return .success(AttachmentRequest(identifier: text(options.identifier) ?? "", url: url,
                                          typeHint: text(options.type_hint), thumbnail: thumbnail))
    }

    /// Fills the caller's result (whose size was checked), writing no more
    /// of the identifier than its buffer holds.
    private static func fill(_ result: UnsafeMutablePointer<tidings_attachment_result>, error: Int32,
                             identifier: String, type: UnsafePointer<CChar>?, size: UInt64) {
        result.pointee.error = error
        result.pointee.type = type ?? typeNames.empty
        result.pointee.size = size
        copy(identifier, into: result.pointee.identifier, capacity: result.pointee.identifier_capacity)
    }

    /// Writes `text` NUL-terminated into the caller's `buffer` of `capacity`
    /// bytes, cut to fit (never inside a UTF-8 sequence); nothing when there is no room.
    private static func copy(_ text: String, into buffer: UnsafeMutablePointer<CChar>?, capacity: Int) {
        guard let buffer, capacity > 0 else { return }
        let utf8 = Array(text.utf8)
        var count = min(utf8.count, capacity - 1)
        // A cut inside a character drops the whole character: back up to the
        // start of the sequence the first byte left out continues.
        if count < utf8.count {
            while count > 0 && utf8[count] & 0xC0 == 0x80 { count -= 1 }
        }
        for position in 0..<count { buffer[position] = CChar(bitPattern: utf8[position]) }
        buffer[count] = 0
    }

    /// The uniform type identifiers as C strings that live as long as the
    /// process, as `tidings_attachment_result.type` promises.
    private struct TypeNames: @unchecked Sendable {
        let pointers: [MediaType: UnsafePointer<CChar>]
        let empty: UnsafePointer<CChar>

        func pointer(for type: MediaType) -> UnsafePointer<CChar> { pointers[type] ?? empty }
    }

    private static let typeNames = TypeNames(
        pointers: Dictionary(uniqueKeysWithValues: MediaType.allCases.map { ($0, permanentCString($0.identifier)) }),
        empty: permanentCString(""))

    private static let openAttachment: @convention(c) (tidings_context?, UnsafePointer<CChar>?) -> Int32 = {
        handle, identifier in
        guard let sink = sink(handle), let identifier = text(identifier), let file = sink.openAttachment(identifier)
        else { return -1 }
        return file.take()
    }
}

extension Diagnostic.Code {
    /// A view call named an element the interface does not declare.
    package static let viewNoSuchElement = Self("view.no-such-element")
    /// A view call addressed an element of another kind (text on an image).
    package static let viewWrongElementKind = Self("view.wrong-element-kind")
    /// set_image named an attachment the notification does not have.
    package static let viewNoSuchAttachment = Self("view.no-such-attachment")
    /// The extension set a title without UNNotificationExtensionOverridesDefaultTitle.
    package static let titleNotPermitted = Self("extension.title-not-permitted")
    /// create_attachment was called outside a service request.
    package static let attachmentNotSupported = Self("extension.attachment-not-supported")
    /// A host function got NULL, non-UTF-8 text or an out-of-range number.
    package static let hostCallInvalidArgument = Self("extension.invalid-argument")
    /// An extension called host functions faster than its rate limit.
    package static let hostCallRateLimited = Self("extension.rate-limited")
    /// An extension went on calling through its rate limit's refusals (a call storm).
    package static let hostCallStorm = Self("extension.call-storm")
}

/// A `tidings_host` table that lives as long as the process.
package struct HostTable: @unchecked Sendable {
    /// The table, never freed.
    package let pointer: UnsafePointer<tidings_host>
}
