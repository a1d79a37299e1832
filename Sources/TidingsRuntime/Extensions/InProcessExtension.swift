import TidingsABI
import TidingsBase
import TidingsLoader
import TidingsRegistry

/// Runs extensions in this process: `dlopen`, the entry call, and direct
/// calls through the descriptor's function pointers.
///
/// Fastest, but an extension that crashes takes the host with it.
package struct InProcessLauncher: ExtensionLauncher {
    /// A launcher.
    package init() {}

    package func launch(_ bundle: ExtensionBundle, for host: HostEndpoint) throws(Diagnostic) -> any ExtensionProvider {
        try launch(bundle, table: host.table)
    }

    /// Loads the bundle's library, giving it `table`: a host's, or, where the
    /// extension is run for a host elsewhere, the table that relays to it.
    package func launch(_ bundle: ExtensionBundle, table: HostTable) throws(Diagnostic) -> any ExtensionProvider {
        guard let path = bundle.libraryPath, let manifest = bundle.manifest else {
            throw .error(.bundleManifestMissing, "\(bundle.name) has no valid manifest.", at: .init(file: bundle.path))
        }
        let library = try ExtensionLoader.load(path, bundle: bundle.path, host: table.pointer)
        // The manifest's extension point says which function must be there.
        switch manifest.point {
        case .content where library.didReceiveNotification == nil:
            throw .error(.descriptorIncomplete,
                         "\(manifest.bundleIdentifier) is a content extension but its descriptor lacks did_receive_notification.",
                         at: .init(file: path))
        case .service where library.didReceiveRequest == nil:
            throw .error(.descriptorIncomplete,
                         "\(manifest.bundleIdentifier) is a service extension but its descriptor lacks did_receive_request (ABI version 2).",
                         at: .init(file: path))
        default:
            return InProcessProvider(library: library)
        }
    }
}

/// A loaded extension library, making instances in this process.
struct InProcessProvider: ExtensionProvider {
    let library: LoadedExtension

    var handlesResponses: Bool { library.didReceiveResponse != nil }
    var handlesMedia: Bool { library.mediaPlay != nil || library.mediaPause != nil }
    var handlesElementEvents: Bool { library.elementEvents != nil }

    func makeInstance(context: InstanceContext) throws(Diagnostic) -> any ExtensionInstance {
        guard let instance = library.create(context.cHandle) else {
            throw .error(.instanceCreateFailed,
                         "\(context.extensionIdentifier)'s create function returned NULL, so it made no instance.",
                         at: .init(file: library.path))
        }
        return InProcessInstance(library: library, instance: instance)
    }
}

/// An instance pointer with the functions that take it.
///
/// The runtime serialises calls to an instance, which is what makes sharing
/// the raw pointer between threads sound.
final class InProcessInstance: ExtensionInstance, @unchecked Sendable {
    private let library: LoadedExtension
    private let instance: UnsafeMutableRawPointer

    init(library: LoadedExtension, instance: UnsafeMutableRawPointer) {
        self.library = library
        self.instance = instance
    }

    func didReceive(_ notification: UserNotification) {
        guard let handler = library.didReceiveNotification else { return }
        CNotification.with(notification) { handler(instance, $0) }
    }

    func didReceive(_ response: ResponseRequest, to notification: UserNotification, token: UInt64, deadline: UInt64) {
        guard let handler = library.didReceiveResponse else { return }
        CNotification.with(notification, response: response) { _, response in
            handler(instance, response, token)
        }
    }

    func didReceive(request: UserNotification, token: UInt64, deadline: UInt64) {
        guard let handler = library.didReceiveRequest else { return }
        CNotification.with(request) { handler(instance, $0, token) }
    }

    func serviceExtensionTimeWillExpire() { library.timeWillExpire?(instance) }

    func mediaPlay() { library.mediaPlay?(instance) }

    func mediaPause() { library.mediaPause?(instance) }

    func handle(_ event: ElementEvent) {
        guard let handler = library.elementEvents?.handle_event else { return }
        Self.withCString(event.element) { element in
            Self.withCString(event.text) { text in
                var given = tidings_element_event(struct_size: UInt32(MemoryLayout<tidings_element_event>.size),
                                                  kind: event.kind, element: element, text: text)
                handler(instance, &given)
            }
        }
    }

    /// Calls `body` with `string` as a C string borrowed for the call, NULL for nil.
    private static func withCString(_ string: String?, _ body: (UnsafePointer<CChar>?) -> Void) {
        guard let string else { return body(nil) }
        string.withCString(body)
    }

    func destroy() { library.destroy(instance) }
}
