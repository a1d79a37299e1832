import Synchronization
internal import TidingsABI
internal import TidingsBase

/// Exports a Swift notification extension through the C ABI.
///
/// A library holds one extension. Its author exports the entry functions
/// the host looks for, and hands them the extension's type: the version 3
/// entry, which hosts of version 3 and later call (and which tells the
/// extension its bundle's directory), and the first one, for older hosts:
///
///     @c(tidings_extension_entry_v3)
///     public func tidingsExtensionEntryV3(_ info: UnsafeRawPointer?) -> UnsafeRawPointer? {
///         NotificationExtensionEntry.descriptor(for: InviteService.self, entryInfo: info)
///     }
///
///     @c(tidings_extension_entry)
///     public func tidingsExtensionEntry(_ hostVersion: UInt32, _ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
///         NotificationExtensionEntry.descriptor(for: InviteService.self, hostVersion: hostVersion, host: host)
///     }
public enum NotificationExtensionEntry {
    /// The descriptor the first entry function (`tidings_extension_entry`)
    /// returns for extensions of type `type`; nil (declining) when the host
    /// cannot serve it.
    ///
    /// The descriptor offers what `type` adopts: the content calls for a
    /// `NotificationContentExtension` (a response handler only with
    /// `NotificationResponseHandling`, media calls only with
    /// `NotificationMediaHandling`), the service calls for a
    /// `NotificationServiceExtension`, interfaces for a
    /// `NotificationInterfaceProviding`, and `tidings.element-events/1` for a
    /// `NotificationElementHandling`. It is of the host's version, at
    /// most 3: a version 1 host gets a version 1 descriptor and cannot run
    /// service extensions; a version 2 host completes without naming the instance.
    /// Thread: the host's loading thread. Ownership: the descriptor lives as
    /// long as the process.
    public static func descriptor<Extension: NotificationExtension>(
        for type: Extension.Type, hostVersion: UInt32, host: UnsafeRawPointer?
    ) -> UnsafeRawPointer? {
        guard let table = host?.assumingMemoryBound(to: tidings_host.self) else { return nil }
        return Registration.shared.register(type, host: table, hostVersion: hostVersion, bundlePath: nil)
    }

    /// The descriptor the version 3 entry function
    /// (`tidings_extension_entry_v3`) returns for extensions of type `type`,
    /// given the host's `tidings_entry_info`; nil when the host cannot serve it.
    /// Thread: the host's loading thread. Ownership: the descriptor lives as
    /// long as the process.
    public static func descriptor<Extension: NotificationExtension>(
        for type: Extension.Type, entryInfo: UnsafeRawPointer?
    ) -> UnsafeRawPointer? {
        guard let info = tidings_entry_info.read(from: entryInfo), let table = info.host else { return nil }
        return Registration.shared.register(type, host: table, hostVersion: info.host_abi_version,
                                            bundlePath: info.bundle_path.map { String(cString: $0) })
    }
}

/// The host as this library's extension knows it: its functions (read
/// within the size its table gave), the table itself, the version spoken,
/// and the bundle's directory when the host said it.
final class HostConnection: @unchecked Sendable {
    /// The host's functions; NULL beyond the size its table gave.
    let functions: tidings_host
    /// The host's table, valid for the life of the process.
    let table: UnsafePointer<tidings_host>
    /// The ABI version spoken with the host: the host's, at most 3.
    let version: UInt32
    /// The bundle's directory, from a host of version 3 or later.
    let bundlePath: String?

    init(functions: tidings_host, table: UnsafePointer<tidings_host>, version: UInt32, bundlePath: String?) {
        self.functions = functions
        self.table = table
        self.version = version
        self.bundlePath = bundlePath
    }

    /// The response `token` given to the instance `context`, completed with
    /// `option`: naming the instance from version 3 on.
    func completeResponse(_ token: tidings_completion, option: Int32, context: tidings_context?) {
        if version >= 3 {
            _ = functions.complete_response_for?(context, token, option)
        } else {
            _ = functions.complete_response?(token, option)
        }
    }

    /// The details of the host's content at `content` (its
    /// `tidings.content/1` interface); nil from a host that offers none, or
    /// when the host does not know the content.
    func contentDetails(of content: UnsafePointer<tidings_content>) -> tidings_content_details? {
        guard version >= 3, let getInterface = functions.get_interface else { return nil }
        let found = TIDINGS_CONTENT_INTERFACE.withCString { getInterface(table, $0) }
        guard let interface = tidings_content_interface.read(from: found), let getDetails = interface.get_details
        else { return nil }
        return tidings_content_details.read(from: getDetails(content))
    }

    /// The trigger of the host's notification at `notification` (its
    /// `tidings.trigger/1` interface); nil from a host that offers none, for
    /// a notification without a trigger, or when the host does not know the notification.
    func trigger(of notification: UnsafePointer<tidings_notification>) -> tidings_trigger? {
        guard version >= 3, let getInterface = functions.get_interface else { return nil }
        let found = TIDINGS_TRIGGER_INTERFACE.withCString { getInterface(table, $0) }
        guard let interface = tidings_trigger_interface.read(from: found), let getTrigger = interface.get_trigger
        else { return nil }
        return tidings_trigger.read(from: getTrigger(notification))
    }

    /// The request `token` given to the instance `context`, completed with
    /// `content`: naming the instance from version 3 on.
    func completeRequest(_ token: tidings_completion, content: NotificationContent, context: tidings_context?) {
        _ = content.withCContent { content in
            version >= 3
                ? functions.complete_request_for?(context, token, content)
                : functions.complete_request?(token, content)
        }
    }
}

/// The one extension type of this library, its host and its descriptor.
private final class Registration: Sendable {
    /// The library's registration. Process-wide on purpose: a library
    /// exports one C entry function, which is process-wide itself, and the
    /// C callbacks it hands the host (`did_receive`, …) carry no Swift
    /// context to find anything narrower by; so one extension type and one
    /// host per loaded library, as on iOS one extension per process.
    static let shared = Registration()

    private struct Registered: @unchecked Sendable {
        let type: any NotificationExtension.Type
        let host: HostConnection
        let descriptor: UnsafeRawPointer
    }

    private let registered = Mutex<Registered?>(nil)

    /// The descriptor for `type` and the host whose table is `table`, made
    /// on the first call (a host loads a library once; another host in the
    /// process gets the same descriptor, and its handles still lead to it).
    func register(_ type: any NotificationExtension.Type, host table: UnsafePointer<tidings_host>, hostVersion: UInt32,
                  bundlePath: String?) -> UnsafeRawPointer? {
        guard let functions = tidings_host.read(from: table) else { return nil }
        // The version spoken: the host's, at most this SDK's, and no more than its table holds.
        var version = min(hostVersion, 3)
        let size = Int(functions.struct_size)
        if version >= 3 && size < MemoryLayout<tidings_host>.size { version = 2 }
        if version >= 2 && size < tidings_host.size(through: \.open_attachment) { version = 1 }
        let service = type is any NotificationServiceExtension.Type
        guard version >= 1, !(service && version < 2) else { return nil }
        let made: Registered = registered.withLock { registered in
            if let registered { return registered }
            let host = HostConnection(functions: functions, table: table, version: version, bundlePath: bundlePath)
            let made = Registered(type: type, host: host, descriptor: Self.descriptor(for: type, version: version))
            registered = made
            return made
        }
        return made.descriptor
    }

    /// A descriptor of `version` offering what `type` adopts; it lives as
    /// long as the process, as the ABI requires.
    private static func descriptor(for type: any NotificationExtension.Type, version: UInt32) -> UnsafeRawPointer {
        let content = type is any NotificationContentExtension.Type
        let responses = type is any NotificationResponseHandling.Type
        let media = type is any NotificationMediaHandling.Type
        let service = type is any NotificationServiceExtension.Type
        let interfaces = type is any NotificationInterfaceProviding.Type || type is any NotificationElementHandling.Type
        var fields = tidings_extension(
            struct_size: UInt32(MemoryLayout<tidings_extension>.size), abi_version: version,
            create: Trampolines.create, destroy: Trampolines.destroy,
            did_receive_notification: content ? Trampolines.didReceiveNotification : nil,
            did_receive_response: responses ? Trampolines.didReceiveResponse : nil,
            media_play: media ? Trampolines.mediaPlay : nil,
            media_pause: media ? Trampolines.mediaPause : nil,
            did_receive_request: service ? Trampolines.didReceiveRequest : nil,
            service_extension_time_will_expire: service ? Trampolines.timeWillExpire : nil,
            get_interface: interfaces ? Trampolines.getInterface : nil)
        // An older version's descriptor ends where that version's did.
        if version < 3 {
            fields.struct_size = UInt32(version < 2
                ? tidings_extension.size(through: \.media_pause)
                : tidings_extension.size(through: \.service_extension_time_will_expire))
            fields.get_interface = nil
        }
        if version < 2 {
            fields.did_receive_request = nil
            fields.service_extension_time_will_expire = nil
        }
        let descriptor = UnsafeMutablePointer<tidings_extension>.allocate(capacity: 1)
        descriptor.initialize(to: fields)
        return UnsafeRawPointer(descriptor)
    }

    var current: (type: any NotificationExtension.Type, host: HostConnection)? {
        let found: Registered? = registered.withLock { $0 }
        return found.map { ($0.type, $0.host) }
    }
}

/// The C functions of the descriptor; the instance pointer is a retained box
/// holding the Swift object and the context handle that names it.
private enum Trampolines {
    final class Box {
        let instance: any NotificationExtension
        let context: tidings_context?

        init(_ instance: any NotificationExtension, context: tidings_context?) {
            self.instance = instance
            self.context = context
        }
    }

    static func box(_ pointer: UnsafeMutableRawPointer?) -> Box {
        Unmanaged<Box>.fromOpaque(pointer!).takeUnretainedValue()
    }

    static let create: @convention(c) (tidings_context?) -> UnsafeMutableRawPointer? = { handle in
        guard let (type, host) = Registration.shared.current else { return nil }
        let instance = type.init(context: NotificationExtensionContext(host: host, handle: handle))
        return Unmanaged.passRetained(Box(instance, context: handle)).toOpaque()
    }

    static let destroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
        guard let pointer else { return }
        Unmanaged<Box>.fromOpaque(pointer).release()
    }

    static let didReceiveNotification: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<tidings_notification>?) -> Void = {
        pointer, notification in
        guard let notification, let content = box(pointer).instance as? any NotificationContentExtension else { return }
        content.didReceive(DeliveredNotification(notification, host: Registration.shared.current?.host))
    }

    static let didReceiveResponse: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<tidings_response>?, tidings_completion) -> Void = {
        pointer, response, token in
        let box = box(pointer)
        guard let response, let handler = box.instance as? any NotificationResponseHandling,
              let host = Registration.shared.current?.host
        else { return }
        let context = ContextHandle(value: box.context)
        handler.didReceive(NotificationResponse(response, host: host)) { option in
            host.completeResponse(token, option: option.rawValue, context: context.value)
        }
    }

    static let mediaPlay: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
        (box(pointer).instance as? any NotificationMediaHandling)?.mediaPlay()
    }

    static let mediaPause: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
        (box(pointer).instance as? any NotificationMediaHandling)?.mediaPause()
    }

    static let didReceiveRequest: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<tidings_notification>?, tidings_completion) -> Void = {
        pointer, request, token in
        let box = box(pointer)
        guard let request, let service = box.instance as? any NotificationServiceExtension,
              let host = Registration.shared.current?.host
        else { return }
        let context = ContextHandle(value: box.context)
        service.didReceive(DeliveredNotification(request, host: host)) { content in
            host.completeRequest(token, content: content, context: context.value)
        }
    }

    static let timeWillExpire: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
        (box(pointer).instance as? any NotificationServiceExtension)?.serviceExtensionTimeWillExpire()
    }

    static let getInterface: @convention(c) (UnsafePointer<CChar>?) -> UnsafeRawPointer? = { id in
        guard let id, let type = Registration.shared.current?.type else { return nil }
        let name = String(cString: id)
        if name == TIDINGS_ELEMENT_EVENTS_INTERFACE && type is any NotificationElementHandling.Type {
            return UnsafeRawPointer(elementEvents)
        }
        return (type as? any NotificationInterfaceProviding.Type)?.interface(name)
    }

    /// The `tidings.element-events/1` a `NotificationElementHandling` offers,
    /// made once and never freed, as the ABI requires.
    nonisolated(unsafe) static let elementEvents: UnsafePointer<tidings_element_events_interface> = {
        let made = UnsafeMutablePointer<tidings_element_events_interface>.allocate(capacity: 1)
        made.initialize(to: tidings_element_events_interface(
            struct_size: UInt32(MemoryLayout<tidings_element_events_interface>.size), handle_event: handleEvent))
        return UnsafePointer(made)
    }()

    static let handleEvent: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<tidings_element_event>?) -> Void = {
        pointer, given in
        guard let event = tidings_element_event.read(from: given),
              let handler = box(pointer).instance as? any NotificationElementHandling
        else { return }
        let element = event.element.map { String(cString: $0) }
        let text = event.text.map { String(cString: $0) }
        switch (event.kind, element, text) {
        case (TIDINGS_ELEMENT_EVENT_TAP, let element?, _): handler.didTapButton(element)
        case (TIDINGS_ELEMENT_EVENT_SUBMIT, let element?, let text?): handler.didSubmitText(text, in: element)
        case (TIDINGS_ELEMENT_EVENT_TEXT_INPUT, _, let text?): handler.didReceiveTextInput(text)
        default: break  // a kind a later host added
        }
    }

    /// A context handle, a number that may cross threads.
    struct ContextHandle: @unchecked Sendable {
        let value: tidings_context?
    }
}
