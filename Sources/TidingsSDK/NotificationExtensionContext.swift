import Glibc
internal import TidingsABI
internal import TidingsBase

/// What an extension instance changes the presented notification through:
/// its view elements, height, title, actions and media state (the
/// extension context and view controller of iOS).
///
/// Every method copies what it is given and may be called from any thread.
/// Each returns false when the host refused (an unknown element, say); the
/// host reports the reason itself. What a host of an older version lacks
/// answers false, nil or nothing.
public final class NotificationExtensionContext: @unchecked Sendable {
    // Immutable: the host's functions and a number naming the instance.
    private let host: HostConnection
    private let handle: tidings_context?

    /// The functions of the host's table, as far as its size reaches.
    private var functions: tidings_host { host.functions }

    init(host: HostConnection, handle: tidings_context?) {
        self.host = host
        self.handle = handle
    }

    /// The extension's bundle directory (NAME.appex), for reading its own
    /// resources; in a sandboxed worker, the path the bundle has there. Nil
    /// from a host before version 3.
    public var bundlePath: String? { host.bundlePath }

    /// The action buttons shown with the notification (notificationActions):
    /// those set last, else the category's. Reading asks the host (version
    /// 3 and later; [] from an older host, and for a service extension);
    /// setting replaces them, as `setNotificationActions(_:)` does.
    public var notificationActions: [NotificationAction] {
        get {
            guard let getActions = functions.get_actions else { return [] }
            var actions: [NotificationAction] = []
            _ = withUnsafeMutablePointer(to: &actions) { actions in
                getActions(handle, { actions, list, count in
                    actions?.assumingMemoryBound(to: [NotificationAction].self).pointee =
                        (0..<count).compactMap { list?[$0].flatMap(NotificationAction.init) }
                }, actions)
            }
            return actions
        }
        set {
            setNotificationActions(newValue)
        }
    }

    /// The host's interface named `id` ("name/major", see tidings.h), copied
    /// within its `struct_size` over `defaults` (a value of its C struct
    /// with each field at its documented default); nil when the host (of
    /// version 3 or later) offers none by that id, or one smaller than
    /// `introducedSize`, the interface's size in the version that introduced it.
    public func hostInterface<Interface>(_ id: String, introducedSize: Int, defaults: Interface) -> Interface? {
        guard let getInterface = functions.get_interface else { return nil }
        let interface = id.withCString { getInterface(host.table, $0) }
        return SizedStructReader.read(from: interface, introducedSize: introducedSize, defaults: defaults)
    }

    /// The limits the host applies (its `tidings.limits/1` interface); nil
    /// from a host before version 3.
    public var hostLimits: HostLimits? {
        hostInterface(TIDINGS_LIMITS_INTERFACE, introducedSize: tidings_limits_interface.introducedSize,
                      defaults: tidings_limits_interface.defaults).map(HostLimits.init)
    }

    /// Sets the text of the label `element`.
    @discardableResult
    public func setText(_ text: String, of element: String) -> Bool {
        element.withCString { element in text.withCString { functions.set_text?(handle, element, $0) } } == 0
    }

    /// Sets the text colour of the label `element`.
    @discardableResult
    public func setTextColor(_ color: Color, of element: String) -> Bool {
        element.withCString { functions.set_text_color?(handle, $0, color.rgba) } == 0
    }

    /// Shows the notification's attachment `attachment` in the image `element`; nil clears it.
    @discardableResult
    public func setImage(attachment: String?, of element: String) -> Bool {
        element.withCString { element -> tidings_status? in
            guard let attachment else { return functions.set_image?(handle, element, nil) }
            return attachment.withCString { functions.set_image?(handle, element, $0) }
        } == 0
    }

    /// Hides or shows `element`.
    @discardableResult
    public func setHidden(_ hidden: Bool, of element: String) -> Bool {
        element.withCString { functions.set_hidden?(handle, $0, hidden) } == 0
    }

    /// Lets the button or text field `element` take input, or not (from a
    /// host offering `tidings.elements/1`; false from others).
    @discardableResult
    public func setEnabled(_ enabled: Bool, of element: String) -> Bool {
        guard let setEnabled = elements?.set_enabled else { return false }
        return element.withCString { setEnabled(handle, $0, enabled) } == 0
    }

    /// Asks the front end for text with the extension's own send button
    /// title and placeholder, as becoming first responder with a custom
    /// input view does on iOS; the answer arrives in
    /// `NotificationElementHandling.didReceiveTextInput(_:)`. False when the
    /// host refused (without UNNotificationExtensionUserInteractionEnabled,
    /// or a host without `tidings.text-input/1`).
    @discardableResult
    public func requestTextInput(buttonTitle: String, placeholder: String? = nil) -> Bool {
        guard let request = textInput?.request_text_input else { return false }
        return buttonTitle.withCString { title in
            guard let placeholder else { return request(handle, title, nil) }
            return placeholder.withCString { request(handle, title, $0) }
        } == 0
    }

    /// Withdraws the text-input request (resignFirstResponder).
    @discardableResult
    public func endTextInput() -> Bool {
        textInput?.end_text_input?(handle) == 0
    }

    /// The host's `tidings.elements/1`; nil from a host without it.
    private var elements: tidings_elements_interface? {
        hostInterface(TIDINGS_ELEMENTS_INTERFACE, introducedSize: tidings_elements_interface.introducedSize,
                      defaults: tidings_elements_interface.defaults)
    }

    /// The host's `tidings.text-input/1`; nil from a host without it.
    private var textInput: tidings_text_input_interface? {
        hostInterface(TIDINGS_TEXT_INPUT_INTERFACE, introducedSize: tidings_text_input_interface.introducedSize,
                      defaults: tidings_text_input_interface.defaults)
    }

    /// Sets the height the view prefers, in points (preferredContentSize.height).
    @discardableResult
    public func setPreferredContentHeight(_ height: Double) -> Bool {
        functions.set_preferred_content_height?(handle, height) == 0
    }

    /// Sets the header title; honoured only with UNNotificationExtensionOverridesDefaultTitle.
    @discardableResult
    public func setTitle(_ title: String?) -> Bool {
        guard let title else { return functions.set_title?(handle, nil) == 0 }
        return title.withCString { functions.set_title?(handle, $0) } == 0
    }

    /// Replaces the action buttons shown (notificationActions).
    @discardableResult
    public func setNotificationActions(_ actions: [NotificationAction]) -> Bool {
        CActions.with(actions.map(\.cFields)) { functions.set_actions?(handle, $0, actions.count) } == 0
    }

    /// Shows the media play/pause button (type, frame in points, tint). Without
    /// a frame, or with an empty one, no button shows, as iOS draws none for an
    /// empty `mediaPlayPauseButtonFrame`.
    @discardableResult
    public func setMediaPlayPauseButton(type: MediaPlayPauseButtonType,
                                        frame: (x: Double, y: Double, width: Double, height: Double)? = nil,
                                        tintColor: Color? = nil) -> Bool {
        var button = tidings_media_button()
        button.struct_size = UInt32(MemoryLayout<tidings_media_button>.size)
        button.type = type.rawValue
        if let frame { button.frame = tidings_rect(x: frame.x, y: frame.y, width: frame.width, height: frame.height) }
        button.tint_color = tintColor?.rgba ?? 0
        return functions.set_media_button?(handle, &button) == 0
    }

    /// Tells the host media started on the extension's initiative (mediaPlayingStarted()).
    public func mediaPlayingStarted() { _ = functions.media_playing_started?(handle) }

    /// Tells the host media paused on the extension's initiative (mediaPlayingPaused()).
    public func mediaPlayingPaused() { _ = functions.media_playing_paused?(handle) }

    /// Opens the app as for the default action, and closes the notification.
    public func performNotificationDefaultAction() { _ = functions.perform_default_action?(handle) }

    /// Closes the notification's custom view (dismissNotificationContentExtension()).
    public func dismissNotificationContentExtension() { _ = functions.dismiss?(handle) }

    /// Makes an attachment from a file this process can read (UNNotificationAttachment's
    /// initializer): the host checks its type by content and its size, and
    /// moves it into its store, so the file leaves its place. Only a service
    /// extension serving a request may do this.
    /// - Parameters:
    ///   - identifier: the attachment's identifier; "" for a generated one.
    ///   - url: an absolute path or a file:// URL.
    ///   - typeHint: a uniform type identifier the content must match ("public.png", "public.image").
    ///   - thumbnail: how the attachment's thumbnail shows: hidden, clipped, or taken at a time of a movie (UNNotificationAttachmentOptions).
    /// - Returns: the attachment, with the identifier, the type recognised and
    ///   the size; its `url` is empty, since the file is the host's now (open
    ///   it with `openAttachment(_:)`).
    /// - Throws: `AttachmentError` with Apple's code.
    public func createAttachment(identifier: String = "", url: String, typeHint: String? = nil,
                                 thumbnail: ThumbnailOptions = ThumbnailOptions()) throws(AttachmentError)
        -> NotificationAttachment
    {
        var copies = CStrings()
        defer { copies.free() }
        var request = tidings_attachment_request.defaults
        request.struct_size = UInt32(MemoryLayout<tidings_attachment_request>.size)
        request.thumbnail_hidden = thumbnail.hidden
        request.identifier = copies.copy(identifier)
        request.url = copies.copy(url)
        request.type_hint = copies.copy(typeHint)
        if let rect = thumbnail.clippingRect {
            request.thumbnail_clipping_rect = tidings_rect(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
        }
        request.thumbnail_time = thumbnail.time ?? -1
        var made = [CChar](repeating: 0, count: 256)
        var result = tidings_attachment_result()
        result.struct_size = UInt32(MemoryLayout<tidings_attachment_result>.size)
        let status = made.withUnsafeMutableBufferPointer { buffer in
            result.identifier = buffer.baseAddress
            result.identifier_capacity = buffer.count
            defer { result.identifier = nil }
            return functions.create_attachment?(handle, &request, &result) ?? TIDINGS_STATUS_NOT_SUPPORTED
        }
        guard status == TIDINGS_STATUS_OK else {
            throw AttachmentError(code: status == TIDINGS_STATUS_INVALID_ATTACHMENT ? result.error : 0, status: status)
        }
        // The identifier asked for is the one made; only a generated one is read back.
        let madeIdentifier = identifier.isEmpty
            ? String(decoding: made.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : identifier
        let type = result.type.map { String(cString: $0) } ?? ""
        return NotificationAttachment(identifier: madeIdentifier, type: type, url: "", size: result.size,
                                      thumbnail: thumbnail)
    }

    /// Opens attachment `identifier` of the notification shown (or the request
    /// served) for reading; nil when there is none. The caller closes the descriptor.
    public func openAttachment(_ identifier: String) -> Int32? {
        let descriptor = identifier.withCString { functions.open_attachment?(handle, $0) } ?? -1
        return descriptor >= 0 ? descriptor : nil
    }

    /// Writes a line to the host's log.
    public func log(_ message: String, level: LogLevel = .info) {
        message.withCString { functions.log?(handle, level.rawValue, $0) }
    }

    /// A log line's severity.
    public enum LogLevel: Int32, Sendable {
        /// Detail for whoever debugs the extension.
        case debug = 0
        /// What happened, in the ordinary course.
        case info = 1
        /// Something unexpected that the extension got over.
        case warning = 2
        /// Something that failed.
        case error = 3
    }
}
