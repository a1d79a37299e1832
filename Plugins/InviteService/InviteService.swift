// InviteService: the events app's service extension, after Apple's guide
// "Modifying Content in Newly Delivered Notifications", written against
// TidingsSDK.
//
// For a remote notification with mutable-content, it fetches the image the
// payload's "my-attachment" key names (a name in its own bundle, a local path
// or a file:// URL; there is no network here), attaches it, and rewrites the
// title, naming who invites when the payload's summary argument
// (aps.alert.summary-arg) says. When time runs out first, it hands back its best attempt. In its
// sandbox (a worker process, the default) it reaches only its own bundle and
// its private /tmp: a name in the bundle is what works there. It exports the
// version 3 entry, which tells it where its bundle is.
import Glibc
import Synchronization
import TidingsSDK

final class InviteService: NotificationServiceExtension {
    private let context: NotificationExtensionContext
    /// The content handler and the best attempt so far; time-will-expire
    /// arrives on another thread, so both are behind a lock.
    private let pending = Mutex<(handler: (@Sendable (NotificationContent) -> Void)?, best: NotificationContent?)>((nil, nil))

    init(context: NotificationExtensionContext) {
        self.context = context
    }

    func didReceive(_ request: DeliveredNotification,
                    withContentHandler contentHandler: @escaping @Sendable (NotificationContent) -> Void) {
        var content = request.content
        // The payload's summary argument names who invites (aps.alert.summary-arg).
        content.title = content.summaryArgument.isEmpty
            ? "Invitation: \(content.title)" : "Invitation from \(content.summaryArgument): \(content.title)"
        pending.withLock { $0 = (contentHandler, content) }
        if let source = content.userInfoString("my-attachment") {
            do {
                // Fetch into a file of our own: the host moves what is attached.
                let fetched = try Fetch.copy(source, bundle: context.bundlePath)
                let attachment = try context.createAttachment(identifier: "event-image", url: fetched)
                content.attachments.insert(attachment, at: 0)
            } catch {
                context.log("could not attach \(source): \(error)", level: .warning)
            }
        }
        finish(with: content)
    }

    func serviceExtensionTimeWillExpire() {
        if let best = pending.withLock({ $0.best }) { finish(with: best) }
    }

    /// Calls the content handler once, whoever gets here first.
    private func finish(with content: NotificationContent) {
        let handler = pending.withLock { state in
            defer { state = (nil, nil) }
            return state.handler
        }
        handler?(content)
    }
}

/// Copies a local file (path or file:// URL) to a new temporary file.
enum Fetch {
    /// Why a fetch failed.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The path of a fresh private copy of `source`: a file:// URL, an
    /// absolute path, or a name in the bundle at `bundle`.
    static func copy(_ source: String, bundle: String?) throws(Failure) -> String {
        var path = source.hasPrefix("file://") ? String(source.dropFirst("file://".count)) : source
        if !path.hasPrefix("/"), let bundle { path = bundle + "/" + path }
        let input = open(path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw Failure(description: "cannot open \(path)") }
        defer { close(input) }
        // The copy keeps the source's filename extension: the host, like iOS,
        // refuses an attachment whose file has neither an extension nor a type hint.
        let name = path.split(separator: "/").last ?? ""
        let suffix = name.contains(".") ? "." + (name.split(separator: ".").last ?? "") : ""
        var template = Array("/tmp/invite-service-XXXXXX\(suffix)".utf8CString)
        let output = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, Int32(suffix.utf8.count)) }
        guard output >= 0 else { throw Failure(description: "cannot create a temporary file") }
        defer { close(output) }
        let copyPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count == 0 { return copyPath }
            guard count > 0, buffer.withUnsafeBytes({ write(output, $0.baseAddress, count) }) == count else {
                unlink(copyPath)
                throw Failure(description: "cannot copy \(path)")
            }
        }
    }
}

/// The entry function hosts of version 3 and later look up in this library.
@c(tidings_extension_entry_v3)
public func tidingsExtensionEntryV3(_ info: UnsafeRawPointer?) -> UnsafeRawPointer? {
    NotificationExtensionEntry.descriptor(for: InviteService.self, entryInfo: info)
}

/// The entry function older hosts look up in this library.
@c(tidings_extension_entry)
public func tidingsExtensionEntry(_ hostVersion: UInt32, _ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
    NotificationExtensionEntry.descriptor(for: InviteService.self, hostVersion: hostVersion, host: host)
}
