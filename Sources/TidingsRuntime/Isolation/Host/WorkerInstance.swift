import Glibc
import TidingsBase

/// An instance of an extension that lives in a worker process: each call is
/// a message to the worker and its answer. A call throws when the worker
/// failed; the instance is gone then, as the worker took it along.
final class WorkerInstance: ExtensionInstance {
    private let connection: WorkerConnection
    private let id: UInt64

    init(connection: WorkerConnection, id: UInt64) {
        self.connection = connection
        self.id = id
    }

    func didReceive(_ notification: UserNotification) throws(Diagnostic) {
        try withAttachments(of: notification) { (sent, files) throws(Diagnostic) in
            try connection.call("did_receive_notification", files: files) {
                .receiveNotification(call: $0, instance: id, notification: sent)
            }
        }
    }

    func didReceive(_ response: ResponseRequest, to notification: UserNotification, token: UInt64) throws(Diagnostic) {
        connection.allow(token)
        try withAttachments(of: notification) { (sent, files) throws(Diagnostic) in
            try connection.call("did_receive_response", files: files) {
                .receiveResponse(call: $0, instance: id, notification: sent, response: response, token: token)
            }
        }
    }

    func didReceive(request: UserNotification, token: UInt64) throws(Diagnostic) {
        connection.allow(token)
        try withAttachments(of: request) { (sent, files) throws(Diagnostic) in
            try connection.call("did_receive_request", files: files) {
                .receiveRequest(call: $0, instance: id, request: sent, token: token)
            }
        }
    }

    func serviceExtensionTimeWillExpire() throws(Diagnostic) {
        try connection.call("service_extension_time_will_expire") { .timeWillExpire(call: $0, instance: id) }
    }

    func mediaPlay() throws(Diagnostic) {
        try connection.call("media_play") { .mediaPlay(call: $0, instance: id) }
    }

    func mediaPause() throws(Diagnostic) {
        try connection.call("media_pause") { .mediaPause(call: $0, instance: id) }
    }

    func destroy() {
        try? connection.call("destroy") { .destroy(call: $0, instance: id) }
        connection.forget(instance: id)
    }

    /// Opens `notification`'s attachment files (read-only, never through a
    /// link) and calls `body` with the notification as the worker gets it,
    /// each opened attachment's path replaced by its descriptor's index
    /// among `files` and the others' by "", then closes them: the worker has
    /// its own copies. The worker never learns where the store is.
    private func withAttachments(of notification: UserNotification,
                                 _ body: (UserNotification, [Int32]) throws(Diagnostic) -> Void) throws(Diagnostic) {
        guard !notification.attachments.isEmpty else { return try body(notification, []) }
        var sent = notification
        var files: [Int32] = []
        defer { for file in files { close(file) } }
        sent.content.attachments = notification.attachments.map { attachment in
            var attachment = attachment
            let file = files.count < WorkerChannel.maximumFileCount
                ? open(attachment.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1
            attachment.path = file >= 0 ? String(files.count) : ""
            if file >= 0 { files.append(file) }
            return attachment
        }
        try body(sent, files)
    }
}
