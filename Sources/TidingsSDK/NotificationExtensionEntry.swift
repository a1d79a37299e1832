import Synchronization
internal import TidingsABI

/// Exports a Swift notification extension through the C ABI.
///
/// A library holds one extension. Its author exports the entry function the
/// host looks for, and hands it the extension's type:
///
///     @c(tidings_extension_entry)
///     public func tidingsExtensionEntry(_ hostVersion: UInt32, _ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
///         NotificationExtensionEntry.descriptor(for: EventInviteViewController.self, hostVersion: hostVersion, host: host)
///     }
public enum NotificationExtensionEntry {
    /// The descriptor the entry function returns for extensions of type
    /// `type`; nil (declining) when the host cannot serve it.
    ///
    /// The descriptor offers what `type` adopts: the content calls for a
    /// `NotificationContentExtension` (a response handler only with
    /// `NotificationResponseHandling`, media calls only with
    /// `NotificationMediaHandling`), the service calls for a
    /// `NotificationServiceExtension`. A version 1 host gets a version 1
    /// descriptor; it cannot run service extensions.
    public static func descriptor<Extension: NotificationExtension>(
        for type: Extension.Type, hostVersion: UInt32, host: UnsafeRawPointer?
    ) -> UnsafeRawPointer? {
        guard hostVersion >= 1, let host else { return nil }
        let table = host.assumingMemoryBound(to: tidings_host.self)
        let version: UInt32 = hostVersion >= 2 ? 2 : 1
        // The host table must hold every function of the version spoken.
        let needed = version == 2 ? MemoryLayout<tidings_host>.size : MemoryLayout<tidings_host>.offset(of: \.complete_request)!
        guard Int(table.pointee.struct_size) >= needed else { return nil }
        if version == 1 && type is any NotificationServiceExtension.Type { return nil }
        return Registration.shared.register(type, host: table, version: version)
    }
}

/// The one extension type of this library, its host table and its descriptor.
private final class Registration: Sendable {
    static let shared = Registration()

    private struct Registered: @unchecked Sendable {
        let type: any NotificationExtension.Type
        let host: UnsafePointer<tidings_host>
        let descriptor: UnsafeRawPointer
    }

    private let registered = Mutex<Registered?>(nil)

    func register(_ type: any NotificationExtension.Type, host: UnsafePointer<tidings_host>, version: UInt32)
        -> UnsafeRawPointer
    {
        let result: Registered = registered.withLock { registered in
            if let registered { return registered }
            let content = type is any NotificationContentExtension.Type
            let responses = type is any NotificationResponseHandling.Type
            let media = type is any NotificationMediaHandling.Type
            let service = type is any NotificationServiceExtension.Type
            let size = version == 2
                ? MemoryLayout<tidings_extension>.size : MemoryLayout<tidings_extension>.offset(of: \.did_receive_request)!
            // Lives as long as the process, as the ABI requires of a descriptor.
            let descriptor = UnsafeMutablePointer<tidings_extension>.allocate(capacity: 1)
            descriptor.initialize(to: tidings_extension(
                struct_size: UInt32(size), abi_version: version,
                create: Trampolines.create, destroy: Trampolines.destroy,
                did_receive_notification: content ? Trampolines.didReceiveNotification : nil,
                did_receive_response: responses ? Trampolines.didReceiveResponse : nil,
                media_play: media ? Trampolines.mediaPlay : nil,
                media_pause: media ? Trampolines.mediaPause : nil,
                did_receive_request: service ? Trampolines.didReceiveRequest : nil,
                service_extension_time_will_expire: service ? Trampolines.timeWillExpire : nil, get_interface: nil))
            let made = Registered(type: type, host: host, descriptor: UnsafeRawPointer(descriptor))
            registered = made
            return made
        }
        return result.descriptor
    }

    var current: (type: any NotificationExtension.Type, host: UnsafePointer<tidings_host>)? {
        let found: Registered? = registered.withLock { $0 }
        return found.map { ($0.type, $0.host) }
    }
}

/// The C functions of the descriptor; the instance pointer is a retained box
/// holding the Swift object.
private enum Trampolines {
    final class Box {
        let instance: any NotificationExtension
        init(_ instance: any NotificationExtension) { self.instance = instance }
    }

    static func box(_ pointer: UnsafeMutableRawPointer?) -> any NotificationExtension {
        Unmanaged<Box>.fromOpaque(pointer!).takeUnretainedValue().instance
    }

    /// The host table, which is valid and unchanged for the life of the process.
    struct HostTable: @unchecked Sendable {
        let pointer: UnsafePointer<tidings_host>
    }

    static var host: HostTable? { Registration.shared.current.map { HostTable(pointer: $0.host) } }

    static let create: @convention(c) (tidings_context?) -> UnsafeMutableRawPointer? = { handle in
        guard let (type, host) = Registration.shared.current else { return nil }
        let instance = type.init(context: NotificationExtensionContext(host: host, handle: handle))
        return Unmanaged.passRetained(Box(instance)).toOpaque()
    }

    static let destroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
        guard let pointer else { return }
        Unmanaged<Box>.fromOpaque(pointer).release()
    }

    static let didReceiveNotification: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<tidings_notification>?) -> Void = {
        pointer, notification in
        guard let notification, let content = box(pointer) as? any NotificationContentExtension else { return }
        content.didReceive(DeliveredNotification(notification))
    }

    static let didReceiveResponse: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<tidings_response>?, tidings_completion) -> Void = {
        pointer, response, token in
        guard let response, let handler = box(pointer) as? any NotificationResponseHandling, let table = host else { return }
        handler.didReceive(NotificationResponse(response)) { option in
            _ = table.pointer.pointee.complete_response(token, option.rawValue)
        }
    }

    static let mediaPlay: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
        (box(pointer) as? any NotificationMediaHandling)?.mediaPlay()
    }

    static let mediaPause: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
        (box(pointer) as? any NotificationMediaHandling)?.mediaPause()
    }

    static let didReceiveRequest: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<tidings_notification>?, tidings_completion) -> Void = {
        pointer, request, token in
        guard let request, let service = box(pointer) as? any NotificationServiceExtension, let table = host else { return }
        service.didReceive(DeliveredNotification(request)) { content in
            _ = content.withCContent { table.pointer.pointee.complete_request(token, $0) }
        }
    }

    static let timeWillExpire: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
        (box(pointer) as? any NotificationServiceExtension)?.serviceExtensionTimeWillExpire()
    }
}
