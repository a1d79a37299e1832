import Synchronization
import TidingsABI

/// The host's `tidings.content/1` interface: the details of a content the
/// host laid out (`CNotificationLayout`) that `tidings_content` does not
/// carry, found by the content's address among the layouts alive.
enum ContentInterface {
    /// The address of each laid-out content alive, with its details' address.
    private static let laidOut = Mutex<[UInt: UInt]>([:])

    /// The interface, made once and never freed, as the ABI promises; never
    /// changed after it is made, so it may be read from any thread.
    nonisolated(unsafe) static let interface: UnsafePointer<tidings_content_interface> = {
        let made = UnsafeMutablePointer<tidings_content_interface>.allocate(capacity: 1)
        made.initialize(to: tidings_content_interface(
            struct_size: UInt32(MemoryLayout<tidings_content_interface>.size), get_details: getDetails))
        return UnsafePointer(made)
    }()

    /// Makes the details at `details` those of the content at `content`, until `forget`.
    /// Thread: any.
    static func remember(content: UnsafeRawPointer, details: UnsafeRawPointer) {
        laidOut.withLock { $0[UInt(bitPattern: content)] = UInt(bitPattern: details) }
    }

    /// Forgets the content at `content`, when its details are still those at `details`.
    /// Thread: any.
    static func forget(content: UnsafeRawPointer, details: UnsafeRawPointer) {
        laidOut.withLock { laidOut in
            let key = UInt(bitPattern: content)
            if laidOut[key] == UInt(bitPattern: details) { laidOut[key] = nil }
        }
    }

    /// `get_details`: the details of a content the host passed; NULL for any other pointer.
    private static let getDetails: @convention(c) (UnsafePointer<tidings_content>?) -> UnsafePointer<tidings_content_details>? = {
        content in
        guard let content else { return nil }
        let details = laidOut.withLock { $0[UInt(bitPattern: UnsafeRawPointer(content))] }
        return details.flatMap { UnsafeRawPointer(bitPattern: $0)?.assumingMemoryBound(to: tidings_content_details.self) }
    }
}
