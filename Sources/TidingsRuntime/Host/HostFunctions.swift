import Glibc
import Synchronization
import TidingsABI
import TidingsBase
import TidingsManifest
import TidingsProtocol

/// The ABI's `tidings_host`: the functions every extension calls. Tables
/// are made once per (call rate, version) and kept for the life of the
/// process, as the ABI promises; their functions are the same.
///
/// Each function finds its context handle's issuer in the `HandleDirectory`
/// (a stale handle gives TIDINGS_STATUS_INVALID_CONTEXT), copies what it is
/// given (reading each struct within its `struct_size`), and changes the
/// context under its lock; none calls back into an extension while it holds
/// a lock, so an extension may call them from inside its own functions.
package enum HostFunctions {
    /// The host's name and version as extensions see them.
    package static let name = "tidings"
    package static let version = "0.1.0"
    /// The highest ABI version the host speaks.
    package static let abiVersion = TIDINGS_ABI_VERSION

    /// The table of a host whose instances may call at `callRate`, speaking
    /// ABI `version`: this header's by default; an older one (1 or 2) is that
    /// version's table, of its size, for seeing how an extension fares with
    /// an older host. Made on first use and never freed.
    /// Thread: any.
    package static func table(callRate: CallRate?, version: UInt32 = TIDINGS_ABI_VERSION) -> HostTable {
        tables.withLock { tables in
            if let made = tables.first(where: { $0.callRate == callRate && $0.version == version }) { return made }
            let made = makeTable(callRate: callRate, version: min(max(version, 1), TIDINGS_ABI_VERSION))
            tables.append(made)
            return made
        }
    }

    /// Every table made, so that `get_interface` knows the one it is given.
    private static let tables = Mutex<[HostTable]>([])

    /// A new table for `callRate` and `version`, with its limits interface.
    private static func makeTable(callRate: CallRate?, version: UInt32) -> HostTable {
        let limits = UnsafeMutablePointer<tidings_limits_interface>.allocate(capacity: 1)
        limits.initialize(to: tidings_limits_interface(
            struct_size: UInt32(MemoryLayout<tidings_limits_interface>.size),
            max_identifier_bytes: UInt32(HostLimits.identifierBytes), max_text_bytes: UInt32(HostLimits.textBytes),
            max_title_bytes: UInt32(HostLimits.titleBytes), max_log_bytes: UInt32(HostLimits.logBytes),
            max_url_bytes: UInt32(HostLimits.urlBytes), max_user_info_value_bytes: UInt32(HostLimits.userInfoValueBytes),
            max_entries: UInt32(HostLimits.entries), max_actions: UInt32(HostLimits.actions),
            calls_per_second: callRate?.perSecond ?? .infinity, call_burst: callRate?.burst ?? .infinity))
        var functions = tidings_host(
            struct_size: UInt32(MemoryLayout<tidings_host>.size),
            abi_version: version,
            name: PermanentStrings.cString(name),
            version: PermanentStrings.cString(Self.version),
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
            open_attachment: openAttachment,
            get_interface: getInterface,
            complete_response_for: completeResponseFor,
            complete_request_for: completeRequestFor,
            get_actions: getActions)
        // An older version's table ends where that version's did.
        if version < 3 {
            let size = version < 2
                ? tidings_host.size(through: \.complete_response) : tidings_host.size(through: \.open_attachment)
            functions.struct_size = UInt32(size)
            functions.get_interface = nil
            functions.complete_response_for = nil
            functions.complete_request_for = nil
            functions.get_actions = nil
        }
        if version < 2 {
            functions.complete_request = nil
            functions.create_attachment = nil
            functions.open_attachment = nil
        }
        let table = UnsafeMutablePointer<tidings_host>.allocate(capacity: 1)
        table.initialize(to: functions)
        return HostTable(pointer: UnsafePointer(table), limits: UnsafePointer(limits), callRate: callRate, version: version)
    }

    // MARK: Shared steps

    /// The sink `handle` names, if its context is still open.
    private static func sink(_ handle: tidings_context?) -> (any HostCallSink)? {
        guard let handle else { return nil }
        let number = UInt64(UInt(bitPattern: handle))
        return HandleDirectory.shared.owner(of: number)?.contexts.sink(number)
    }

    /// Performs the call `make` reads from the C arguments on the sink
    /// `handle` names; TIDINGS_STATUS_INVALID_CONTEXT when there is none.
    static func perform(_ handle: tidings_context?, _ make: () -> HostCall) -> tidings_status {
        guard let sink = sink(handle) else { return TIDINGS_STATUS_INVALID_CONTEXT }
        return sink.perform(make())
    }

    /// The UTF-8 text at `pointer`, at most `limit` bytes; nil for NULL,
    /// invalid UTF-8 or a longer string (never read past its cap).
    static func text(_ pointer: UnsafePointer<CChar>?, limit: Int = HostLimits.identifierBytes) -> String? {
        HostLimits.text(pointer, limit: limit).value
    }

    /// A completion call without a context (`complete_response`,
    /// `complete_request`): to whoever issued `token`.
    private static func complete(_ token: tidings_completion, with given: CompletionGiven) -> tidings_status {
        HandleDirectory.shared.owner(of: token)?.complete(token, with: given, by: nil)
            ?? TIDINGS_STATUS_INVALID_COMPLETION
    }

    /// A completion call naming the instance `handle` (`complete_response_for`,
    /// `complete_request_for`): refused unless `token` and `handle` have one
    /// issuer, which refuses it unless `token` was given to that instance.
    private static func complete(_ token: tidings_completion, with given: CompletionGiven,
                                 naming handle: tidings_context?) -> tidings_status {
        guard let handle else { return TIDINGS_STATUS_INVALID_COMPLETION }
        let context = UInt64(UInt(bitPattern: handle))
        guard HandleDirectory.slot(of: context) == HandleDirectory.slot(of: token),
              let owner = HandleDirectory.shared.owner(of: context)
        else { return TIDINGS_STATUS_INVALID_COMPLETION }
        return owner.complete(token, with: given, by: context)
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
            guard count >= 0, count <= HostLimits.actions, count == 0 || list != nil else {
                return .invalid("set_actions needs an array of at most \(HostLimits.actions) actions.")
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
            guard let button = tidings_media_button.read(from: button),
                  (TIDINGS_MEDIA_BUTTON_NONE...TIDINGS_MEDIA_BUTTON_OVERLAY).contains(button.type)
            else { return .invalid("set_media_button needs a button of type none, default or overlay, of at least version 1's size.") }
            let frame = button.frame
            let tint = button.tint_color
            // No button is drawn for an empty frame, as iOS draws none for an empty mediaPlayPauseButtonFrame.
            guard frame.width > 0 && frame.height > 0 else {
                return .setMediaButton(InstanceContext.MediaButton(type: TIDINGS_MEDIA_BUTTON_NONE, frame: nil, tint: nil))
            }
            return .setMediaButton(InstanceContext.MediaButton(
                type: button.type, frame: (frame.x, frame.y, frame.width, frame.height),
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

    private static let completeResponse: @convention(c) (tidings_completion, tidings_response_option) -> tidings_status = {
        token, option in
        complete(token, with: .option(option))
    }

    private static let completeRequest: @convention(c) (tidings_completion, UnsafePointer<tidings_content>?) -> tidings_status = {
        token, content in
        guard let answer = answer(content) else { return TIDINGS_STATUS_INVALID_ARGUMENT }
        return complete(token, with: .content(answer))
    }

    private static let completeResponseFor: @convention(c) (tidings_context?, tidings_completion, tidings_response_option)
        -> tidings_status = { handle, token, option in
        complete(token, with: .option(option), naming: handle)
    }

    private static let completeRequestFor: @convention(c) (tidings_context?, tidings_completion, UnsafePointer<tidings_content>?)
        -> tidings_status = { handle, token, content in
        guard let answer = answer(content) else { return TIDINGS_STATUS_INVALID_ARGUMENT }
        return complete(token, with: .content(answer), naming: handle)
    }

    /// The content `complete_request` was given, copied: `.some(nil)` for
    /// NULL (show the original), nil when it is refused — smaller than
    /// version 1's `tidings_content`, or holding such an entry or attachment,
    /// as every undersized struct an extension passes is refused, before the
    /// token is looked at. The call then completes nothing: the token stays
    /// the extension's to use.
    private static func answer(_ content: UnsafePointer<tidings_content>?) -> ServiceAnswer?? {
        guard let content else { return .some(nil) }
        return ServiceAnswer(content).map { .some($0) }
    }

    private static let getInterface: @convention(c) (UnsafePointer<tidings_host>?, UnsafePointer<CChar>?) -> UnsafeRawPointer? = {
        host, id in
        guard let host, let id = text(id) else { return nil }
        return tables.withLock { $0.first { $0.pointer == host } }?.interface(id)
    }

    private static let getActions: @convention(c) (tidings_context?, tidings_actions_receiver?, UnsafeMutableRawPointer?)
        -> tidings_status = { handle, receive, userData in
        guard let sink = sink(handle) else { return TIDINGS_STATUS_INVALID_CONTEXT }
        guard let receive else { return sink.perform(.invalid("get_actions needs a receiver.")) }
        let presented = sink.presentedActions()
        guard presented.status == TIDINGS_STATUS_OK else { return presented.status }
        // No lock is held here: the receiver may call host functions.
        CActions.with(presented.actions.map(\.cFields)) { receive(userData, $0, presented.actions.count) }
        return TIDINGS_STATUS_OK
    }

    private static let createAttachment: @convention(c) (
        tidings_context?, UnsafePointer<tidings_attachment_request>?, UnsafeMutablePointer<tidings_attachment_result>?
    ) -> tidings_status = { handle, request, result in
        // Whatever happens, the caller reads a result that says nothing was made, unless something was.
        fill(result, error: 0, identifier: "", type: "", size: 0)
        guard let sink = sink(handle) else { return TIDINGS_STATUS_INVALID_CONTEXT }
        let creation = sink.createAttachment(attachmentRequest(from: request))
        switch creation {
        case .made(let admission):
            fill(result, error: 0, identifier: admission.attachment.identifier,
                 type: admission.mediaType.identifier, size: admission.attachment.size)
        case .failed(let failure):
            fill(result, error: failure.appleCode, identifier: "", type: "", size: 0)
        case .refused:
            break
        }
        return creation.status
    }

    /// The request an extension passed to `create_attachment`, copied and checked.
    private static func attachmentRequest(
        from request: UnsafePointer<tidings_attachment_request>?
    ) -> Result<AttachmentRequest, InstanceContext.RequestProblem> {
        guard let options = tidings_attachment_request.read(from: request),
              let url = text(options.url, limit: HostLimits.urlBytes)
        else {
            return .failure(InstanceContext.RequestProblem(
                message: "create_attachment needs a request of at least version 2's size with a UTF-8 url."))
        }
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

    /// Fills the caller's result within its `struct_size` (nothing when it
    /// is NULL or smaller than version 2's), writing no more of the
    /// identifier than its buffer holds; `type` as a string that lives as
    /// long as the process, as the ABI promises.
    private static func fill(_ result: UnsafeMutablePointer<tidings_attachment_result>?, error: Int32,
                             identifier: String, type: String, size: UInt64) {
        tidings_attachment_result.update(at: result) { result in
            result.error = error
            result.type = PermanentStrings.cString(type)
            result.size = size
            copy(identifier, into: result.identifier, capacity: result.identifier_capacity)
        }
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
    /// The extension asked for text input without UNNotificationExtensionUserInteractionEnabled.
    package static let textInputNotPermitted = Self("extension.text-input-not-permitted")
    /// create_attachment was called outside a service request.
    package static let attachmentNotSupported = Self("extension.attachment-not-supported")
    /// get_actions was called by a service extension, which shows no actions.
    package static let actionsNotSupported = Self("extension.actions-not-supported")
    /// A host function got NULL, non-UTF-8 text or an out-of-range number.
    package static let hostCallInvalidArgument = Self("extension.invalid-argument")
    /// An extension called host functions faster than its rate limit.
    package static let hostCallRateLimited = Self("extension.rate-limited")
    /// An extension went on calling through its rate limit's refusals (a call storm).
    package static let hostCallStorm = Self("extension.call-storm")
    /// An extension changed what it shows far faster than front ends can draw it, for long (`CallRate.viewChanges`).
    package static let viewFlood = Self("extension.view-flood")
}

/// A `tidings_host` table and the interfaces its host offers, made once and
/// never freed, as the ABI promises.
package struct HostTable: @unchecked Sendable {
    /// The table.
    package let pointer: UnsafePointer<tidings_host>
    /// `tidings.limits/1` as its host applies them.
    let limits: UnsafePointer<tidings_limits_interface>
    /// How fast its host lets each instance call; nil for no limit.
    package let callRate: CallRate?
    /// The ABI version it speaks.
    package let version: UInt32

    /// The host's interface named `id`, or nil when it offers none by that id.
    func interface(_ id: String) -> UnsafeRawPointer? {
        switch id {
        case TIDINGS_LIMITS_INTERFACE: UnsafeRawPointer(limits)
        case TIDINGS_CONTENT_INTERFACE: UnsafeRawPointer(ContentInterface.interface)
        case TIDINGS_TRIGGER_INTERFACE: UnsafeRawPointer(TriggerInterface.interface)
        case TIDINGS_ELEMENTS_INTERFACE: UnsafeRawPointer(ElementInterfaces.elements)
        case TIDINGS_TEXT_INPUT_INTERFACE: UnsafeRawPointer(ElementInterfaces.textInput)
        default: nil
        }
    }
}
