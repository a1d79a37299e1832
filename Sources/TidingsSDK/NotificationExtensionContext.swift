import Glibc
internal import TidingsABI

/// What an extension instance changes the presented notification through:
/// its view elements, height, title, actions and media state (the
/// extension context and view controller of iOS).
///
/// Every method copies what it is given and may be called from any thread.
/// Each returns false when the host refused (an unknown element, say); the
/// host reports the reason itself.
public final class NotificationExtensionContext: @unchecked Sendable {
    // Immutable: a process-lifetime table and a number naming the instance.
    private let host: UnsafePointer<tidings_host>
    private let handle: tidings_context?

    init(host: UnsafePointer<tidings_host>, handle: tidings_context?) {
        self.host = host
        self.handle = handle
    }

    /// Sets the text of the label `element`.
    @discardableResult
    public func setText(_ text: String, of element: String) -> Bool {
        element.withCString { element in text.withCString { host.pointee.set_text(handle, element, $0) } } == 0
    }

    /// Sets the text colour of the label `element`.
    @discardableResult
    public func setTextColor(_ color: Color, of element: String) -> Bool {
        element.withCString { host.pointee.set_text_color(handle, $0, color.rgba) } == 0
    }

    /// Shows the notification's attachment `attachment` in the image `element`; nil clears it.
    @discardableResult
    public func setImage(attachment: String?, of element: String) -> Bool {
        element.withCString { element in
            guard let attachment else { return host.pointee.set_image(handle, element, nil) }
            return attachment.withCString { host.pointee.set_image(handle, element, $0) }
        } == 0
    }

    /// Hides or shows `element`.
    @discardableResult
    public func setHidden(_ hidden: Bool, of element: String) -> Bool {
        element.withCString { host.pointee.set_hidden(handle, $0, hidden) } == 0
    }

    /// Sets the height the view prefers, in points (preferredContentSize.height).
    @discardableResult
    public func setPreferredContentHeight(_ height: Double) -> Bool {
        host.pointee.set_preferred_content_height(handle, height) == 0
    }

    /// Sets the header title; honoured only with UNNotificationExtensionOverridesDefaultTitle.
    @discardableResult
    public func setTitle(_ title: String?) -> Bool {
        guard let title else { return host.pointee.set_title(handle, nil) == 0 }
        return title.withCString { host.pointee.set_title(handle, $0) } == 0
    }

    /// Replaces the action buttons shown (notificationActions).
    @discardableResult
    public func setNotificationActions(_ actions: [NotificationAction]) -> Bool {
        CActions.with(actions) { host.pointee.set_actions(handle, $0, actions.count) } == 0
    }

    /// Shows the media play/pause button (type, frame in points, tint).
    @discardableResult
    public func setMediaPlayPauseButton(type: MediaPlayPauseButtonType,
                                        frame: (x: Double, y: Double, width: Double, height: Double)? = nil,
                                        tintColor: Color? = nil) -> Bool {
        var button = tidings_media_button()
        button.struct_size = UInt32(MemoryLayout<tidings_media_button>.size)
        button.type = type.rawValue
        if let frame { button.frame = tidings_rect(x: frame.x, y: frame.y, width: frame.width, height: frame.height) }
        button.tint_color = tintColor?.rgba ?? 0
        return host.pointee.set_media_button(handle, &button) == 0
    }

    /// Tells the host media started on the extension's initiative (mediaPlayingStarted()).
    public func mediaPlayingStarted() { _ = host.pointee.media_playing_started(handle) }

    /// Tells the host media paused on the extension's initiative (mediaPlayingPaused()).
    public func mediaPlayingPaused() { _ = host.pointee.media_playing_paused(handle) }

    /// Opens the app as for the default action, and closes the notification.
    public func performNotificationDefaultAction() { _ = host.pointee.perform_default_action(handle) }

    /// Closes the notification's custom view (dismissNotificationContentExtension()).
    public func dismissNotificationContentExtension() { _ = host.pointee.dismiss(handle) }

    /// Makes an attachment from a file this process can read (UNNotificationAttachment's
    /// initializer): the host checks its type by content and its size, and
    /// moves it into its store, so the file leaves its place. Only a service
    /// extension serving a request may do this.
    /// - Parameters:
    ///   - identifier: the attachment's identifier; "" for a generated one.
    ///   - url: an absolute path or a file:// URL.
    ///   - typeHint: a uniform type identifier the content must match ("public.png", "public.image").
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
        var request = tidings_attachment_request()
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
            return host.pointee.create_attachment(handle, &request, &result)
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
        let descriptor = identifier.withCString { host.pointee.open_attachment(handle, $0) }
        return descriptor >= 0 ? descriptor : nil
    }

    /// Writes a line to the host's log.
    public func log(_ message: String, level: LogLevel = .info) {
        message.withCString { host.pointee.log(handle, level.rawValue, $0) }
    }

    /// A log line's severity.
    public enum LogLevel: Int32, Sendable {
        case debug = 0
        case info = 1
        case warning = 2
        case error = 3
    }
}

/// Lays actions out as the ABI's `tidings_action` array for one call.
enum CActions {
    static func with<Result>(_ actions: [NotificationAction],
                             _ body: (UnsafePointer<UnsafePointer<tidings_action>?>?) -> Result) -> Result {
        var copies = CStrings()
        let cActions = UnsafeMutablePointer<tidings_action>.allocate(capacity: max(1, actions.count))
        let pointers = UnsafeMutablePointer<UnsafePointer<tidings_action>?>.allocate(capacity: max(1, actions.count))
        defer {
            copies.free()
            cActions.deallocate()
            pointers.deallocate()
        }
        for (position, action) in actions.enumerated() {
            (cActions + position).initialize(to: tidings_action(
                struct_size: UInt32(MemoryLayout<tidings_action>.size), options: action.options.rawValue,
                identifier: copies.copy(action.identifier), title: copies.copy(action.title),
                text_input_button_title: copies.copy(action.textInput?.buttonTitle),
                text_input_placeholder: copies.copy(action.textInput?.placeholder)))
            pointers[position] = UnsafePointer(cActions + position)
        }
        return body(UnsafePointer(pointers))
    }
}
