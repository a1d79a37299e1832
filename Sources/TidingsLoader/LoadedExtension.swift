import TidingsABI

/// An extension library that is loaded and has answered the entry call:
/// its descriptor's functions, read within the size the descriptor gave.
///
/// It lives as long as the process (the library is never unloaded); the
/// pointers in it stay valid that long. Immutable, so it may be shared
/// between threads; the functions themselves have the ABI's thread rules.
package final class LoadedExtension: @unchecked Sendable {
    /// The library file it came from.
    package let path: String
    /// The ABI version the extension implements.
    package let abiVersion: UInt32
    /// `struct_size` of its descriptor.
    package let descriptorSize: Int
    package let create: @convention(c) (tidings_context?) -> UnsafeMutableRawPointer?
    package let destroy: @convention(c) (UnsafeMutableRawPointer?) -> Void
    /// A content extension's `didReceive(_:)`; nil in a service-only extension.
    package let didReceiveNotification: (@convention(c) (UnsafeMutableRawPointer?, UnsafePointer<tidings_notification>?) -> Void)?
    /// Nil when the extension does not handle responses (they go straight to the app).
    package let didReceiveResponse: (@convention(c) (UnsafeMutableRawPointer?, UnsafePointer<tidings_response>?, tidings_completion) -> Void)?
    package let mediaPlay: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?
    package let mediaPause: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?
    /// v2: a service extension's `didReceive(_:withContentHandler:)`.
    package let didReceiveRequest: (@convention(c) (UnsafeMutableRawPointer?, UnsafePointer<tidings_notification>?, tidings_completion) -> Void)?
    /// v2: `serviceExtensionTimeWillExpire()`.
    package let timeWillExpire: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?
    private let library: DynamicLibrary

    init(path: String, library: consuming DynamicLibrary, descriptor: UnsafePointer<tidings_extension>,
         create: @escaping @convention(c) (tidings_context?) -> UnsafeMutableRawPointer?,
         destroy: @escaping @convention(c) (UnsafeMutableRawPointer?) -> Void) {
        self.path = path
        self.library = library
        let size = Int(descriptor.pointee.struct_size)
        abiVersion = descriptor.pointee.abi_version
        descriptorSize = size
        self.create = create
        self.destroy = destroy
        // Every other function counts only when it lies within the size given.
        func within(_ field: PartialKeyPath<tidings_extension>) -> Bool {
            guard let offset = MemoryLayout<tidings_extension>.offset(of: field) else { return false }
            return offset + MemoryLayout<UnsafeRawPointer>.size <= size
        }
        didReceiveNotification = within(\.did_receive_notification) ? descriptor.pointee.did_receive_notification : nil
        didReceiveResponse = within(\.did_receive_response) ? descriptor.pointee.did_receive_response : nil
        mediaPlay = within(\.media_play) ? descriptor.pointee.media_play : nil
        mediaPause = within(\.media_pause) ? descriptor.pointee.media_pause : nil
        didReceiveRequest = within(\.did_receive_request) ? descriptor.pointee.did_receive_request : nil
        timeWillExpire = within(\.service_extension_time_will_expire)
            ? descriptor.pointee.service_extension_time_will_expire : nil
    }
}
