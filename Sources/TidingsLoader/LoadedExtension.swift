import Synchronization
import TidingsABI
import TidingsBase

/// An extension library that is loaded and has answered the entry call:
/// its descriptor's functions, read within the size the descriptor gave and
/// as of the version it declares (a function of a later version than it
/// declares counts as absent), and the interfaces it offers.
///
/// It lives as long as the process (the library is never unloaded); the
/// pointers in it stay valid that long. May be shared between threads; the
/// functions themselves have the ABI's thread rules.
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
    /// Its `tidings.element-events/1`, copied within its size; nil when it
    /// offers none (or one without handle_event).
    package var elementEvents: tidings_element_events_interface? {
        interface(TIDINGS_ELEMENT_EVENTS_INTERFACE, as: tidings_element_events_interface.self)
            .flatMap { $0.handle_event == nil ? nil : $0 }
    }
    /// v3: the extension's `get_interface`; nil when it offers none.
    private let getInterface: (@convention(c) (UnsafePointer<CChar>?) -> UnsafeRawPointer?)?
    /// What `get_interface` answered for each id asked, nil included. Its
    /// lock is held while the extension is asked, so that it is never asked
    /// twice at once, as the ABI promises.
    private let interfaces = Mutex<[String: Interface]>([:])
    private let library: DynamicLibrary

    /// An interface the extension offered (or NULL), kept for the life of the process.
    private struct Interface: @unchecked Sendable {
        let pointer: UnsafeRawPointer?
    }

    init(path: String, library: consuming DynamicLibrary, descriptor: tidings_extension,
         create: @escaping @convention(c) (tidings_context?) -> UnsafeMutableRawPointer?,
         destroy: @escaping @convention(c) (UnsafeMutableRawPointer?) -> Void) {
        self.path = path
        self.library = library
        let version = descriptor.abi_version
        abiVersion = version
        descriptorSize = Int(descriptor.struct_size)
        self.create = create
        self.destroy = destroy
        // The copy holds NULL beyond the size given; a later version's functions count only when declared.
        didReceiveNotification = descriptor.did_receive_notification
        didReceiveResponse = descriptor.did_receive_response
        mediaPlay = descriptor.media_play
        mediaPause = descriptor.media_pause
        didReceiveRequest = version >= 2 ? descriptor.did_receive_request : nil
        timeWillExpire = version >= 2 ? descriptor.service_extension_time_will_expire : nil
        getInterface = version >= 3 ? descriptor.get_interface : nil
    }

    /// The extension's interface named `id` ("name/major"), or nil when it
    /// offers none by that id (or no interfaces at all). The extension is
    /// asked once per id; its answer is kept.
    /// Thread: any. Ownership: the interface is the extension's, valid for
    /// the life of the process.
    package func interface(_ id: String) -> UnsafeRawPointer? {
        guard let getInterface else { return nil }
        return interfaces.withLock { interfaces in
            if let known = interfaces[id] { return known }
            let asked = Interface(pointer: id.withCString { getInterface($0) })
            interfaces[id] = asked
            return asked
        }.pointer
    }

    /// The extension's interface named `id`, copied within its
    /// `struct_size` as `Interface` (its fields beyond at their defaults);
    /// nil when it offers none by that id or one smaller than the version
    /// of the interface that introduced it.
    package func interface<Interface: SizedStruct>(_ id: String, as type: Interface.Type) -> Interface? {
        Interface.read(from: interface(id))
    }
}
