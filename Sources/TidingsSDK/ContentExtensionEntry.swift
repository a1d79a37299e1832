import Synchronization
internal import TidingsABI

/// Exports a Swift content extension through the C ABI.
///
/// A library holds one extension. Its author exports the entry function the
/// host looks for, and hands it the extension's type:
///
///     @c(tidings_extension_entry)
///     public func tidingsExtensionEntry(_ hostVersion: UInt32, _ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
///         ContentExtensionEntry.descriptor(for: EventInviteViewController.self, hostVersion: hostVersion, host: host)
///     }
public enum ContentExtensionEntry {
    /// The descriptor the entry function returns for extensions of type `type`;
    /// nil (declining) when the host speaks no ABI version this SDK implements.
    /// The descriptor offers a response handler only when `type` adopts
    /// `NotificationResponseHandling`, and media calls only when it adopts
    /// `NotificationMediaHandling`.
    public static func descriptor<Extension: NotificationContentExtension>(
        for type: Extension.Type, hostVersion: UInt32, host: UnsafeRawPointer?
    ) -> UnsafeRawPointer? {
        guard hostVersion >= 1, let host else { return nil }
        let table = host.assumingMemoryBound(to: tidings_host.self)
        // A host table smaller than version 1's lacks functions the SDK calls.
        guard table.pointee.struct_size >= UInt32(MemoryLayout<tidings_host>.size) else { return nil }
        return Registration.shared.register(type, host: table)
    }
}

/// The one extension type of this library, its host table and its descriptor.
private final class Registration: Sendable {
    static let shared = Registration()

    private struct Registered: @unchecked Sendable {
        let type: any NotificationContentExtension.Type
        let host: UnsafePointer<tidings_host>
        let descriptor: UnsafeRawPointer
    }

    private let registered = Mutex<Registered?>(nil)

    func register(_ type: any NotificationContentExtension.Type, host: UnsafePointer<tidings_host>) -> UnsafeRawPointer {
        let result: Registered = registered.withLock { registered in
            if let registered { return registered }
            // Lives as long as the process, as the ABI requires of a descriptor.
            let descriptor = UnsafeMutablePointer<tidings_extension>.allocate(capacity: 1)
            descriptor.initialize(to: tidings_extension(
                struct_size: UInt32(MemoryLayout<tidings_extension>.size), abi_version: 1,
                create: Trampolines.create, destroy: Trampolines.destroy,
                did_receive_notification: Trampolines.didReceiveNotification,
                did_receive_response: type is any NotificationResponseHandling.Type ? Trampolines.didReceiveResponse : nil,
                media_play: type is any NotificationMediaHandling.Type ? Trampolines.mediaPlay : nil,
                media_pause: type is any NotificationMediaHandling.Type ? Trampolines.mediaPause : nil))
            let made = Registered(type: type, host: host, descriptor: UnsafeRawPointer(descriptor))
            registered = made
            return made
        }
        return result.descriptor
    }

    var current: (type: any NotificationContentExtension.Type, host: UnsafePointer<tidings_host>)? {
        let found: Registered? = registered.withLock { $0 }
        return found.map { ($0.type, $0.host) }
    }
}

/// The C functions of the descriptor; the instance pointer is a retained box
/// holding the Swift object.
private enum Trampolines {
    final class Box {
        let instance: any NotificationContentExtension
        init(_ instance: any NotificationContentExtension) { self.instance = instance }
    }

    static func box(_ pointer: UnsafeMutableRawPointer?) -> any NotificationContentExtension {
        Unmanaged<Box>.fromOpaque(pointer!).takeUnretainedValue().instance
    }

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
        guard let notification else { return }
        box(pointer).didReceive(DeliveredNotification(notification))
    }

    static let didReceiveResponse: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<tidings_response>?, tidings_completion) -> Void = {
        pointer, response, token in
        guard let response, let handler = box(pointer) as? any NotificationResponseHandling,
              let host = Registration.shared.current?.host
        else { return }
        let table = HostTable(pointer: host)
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

    /// The host table, which is valid and unchanged for the life of the process.
    struct HostTable: @unchecked Sendable {
        let pointer: UnsafePointer<tidings_host>
    }
}
