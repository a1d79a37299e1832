import Synchronization
import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// An instance of an extension that lives in a worker process: each call is
/// a message to the worker and its answer. A call throws when the worker
/// failed; the instance is gone then, as the worker took it along.
///
/// Attachments go without their paths: the worker never learns where the
/// store is, and its extension opens them through the host.
///
/// The worker is not waited for where the host needs no answer: the
/// instance's creation is answered with its first call, and its
/// destruction not at all (a worker that fails meanwhile fails the next call).
/// An instance that owns its worker (an opened interface, when the host
/// keeps no warm workers) ends it when it is destroyed: its globals go with
/// it. One whose worker returns to its bundle's pool (`returnsWorker(to:)`)
/// hands it back instead, with its `destroy` posted and what the host held
/// for it cleared.
final class WorkerInstance: ExtensionInstance {
    private let connection: WorkerConnection
    private let id: UInt64
    /// The host's context of the instance.
    private let context: InstanceContext
    /// The creation's call until its answer has been taken.
    private let creation: Mutex<WorkerConnection.PostedCall?>
    /// The worker serves this instance alone, and ends with it.
    private let ownsWorker: Bool
    /// Where the worker goes when the instance is destroyed, given its `destroy`; nil when it stays where it is.
    private let returning = Mutex<(@Sendable (WorkerConnection.PostedCall) -> Void)?>(nil)
    /// The completion tokens handed to the worker for this instance.
    private let tokens = Mutex<[UInt64]>([])

    init(connection: WorkerConnection, id: UInt64, context: InstanceContext, creation: WorkerConnection.PostedCall,
         ownsWorker: Bool) {
        self.connection = connection
        self.id = id
        self.context = context
        self.creation = Mutex(creation)
        self.ownsWorker = ownsWorker
    }

    /// Hands the worker to `giveBack` when the instance is destroyed, with
    /// the `destroy` posted (whose answer says whether it may serve again).
    func returnsWorker(to giveBack: @escaping @Sendable (WorkerConnection.PostedCall) -> Void) {
        returning.withLock { $0 = giveBack }
    }

    /// Lets the worker complete `token` for this instance.
    private func allow(_ token: UInt64) {
        tokens.withLock { $0.append(token) }
        connection.allow(token)
    }

    /// The actions of the category of what the instance serves, for the worker's `get_actions`.
    private var categoryActions: [NotificationAction] {
        context.read(\.categoryActions)
    }

    /// Sends the call `make` builds and waits for its answer; on the first
    /// call, that answer covers the creation's too (the worker answers in
    /// order, so one wake-up takes both), and a failed creation is what fails the call.
    private func call(_ name: String, timeout: Double? = nil,
                      _ make: (UInt64) -> WorkerMessage) throws(Diagnostic) {
        let posted = try connection.post(name, timeout: timeout, make)
        guard let creation = creation.withLock({ $0.take() }) else { return try connection.answer(to: posted) }
        var failure: Diagnostic?
        do throws(Diagnostic) {
            try connection.answer(to: posted.allowing(creation))
        } catch {
            failure = error
        }
        // Answered by now, before the call was (or with the worker's end).
        try connection.answer(to: creation)
        if let failure { throw failure }
    }

    func didReceive(_ notification: UserNotification) throws(Diagnostic) {
        let sent = Self.withoutPaths(notification)
        let actions = categoryActions
        try call("did_receive_notification") {
            .receiveNotification(call: $0, instance: id, notification: sent, categoryActions: actions)
        }
    }

    func didReceive(_ response: ResponseRequest, to notification: UserNotification, token: UInt64,
                    deadline: UInt64) throws(Diagnostic) {
        allow(token)
        let sent = Self.withoutPaths(notification)
        let actions = categoryActions
        try call("did_receive_response") {
            .receiveResponse(call: $0, instance: id, notification: sent, categoryActions: actions, response: response,
                             token: token, deadline: deadline)
        }
    }

    func didReceive(request: UserNotification, token: UInt64, deadline: UInt64) throws(Diagnostic) {
        allow(token)
        let sent = Self.withoutPaths(request)
        // It may run until its content handler's last moment; the call timeout counts from there.
        let now = MonotonicClock.now()
        let left = deadline > now ? Double(deadline - now) / 1e9 : 0
        try call("did_receive_request", timeout: left + connection.callTimeout) {
            .receiveRequest(call: $0, instance: id, request: sent, token: token, deadline: deadline)
        }
    }

    func serviceExtensionTimeWillExpire() throws(Diagnostic) {
        try call("service_extension_time_will_expire") { .timeWillExpire(call: $0, instance: id) }
    }

    func mediaPlay() throws(Diagnostic) {
        try call("media_play") { .mediaPlay(call: $0, instance: id) }
    }

    func mediaPause() throws(Diagnostic) {
        try call("media_pause") { .mediaPause(call: $0, instance: id) }
    }

    func handle(_ event: ElementEvent) throws(Diagnostic) {
        try call("handle_event") { .elementEvent(call: $0, instance: id, event: event) }
    }

    func destroy() {
        let posted = try? connection.post("destroy") { .destroy(call: $0, instance: id) }
        connection.forget(instance: id)
        if ownsWorker { return connection.retire() }
        guard let giveBack = returning.withLock({ $0.take() }) else { return }
        // A worker that took no destroy has ended, or is ending: never given back.
        guard let posted else { return connection.retire() }
        connection.clearInstance(tokens: tokens.withLock { $0 })
        giveBack(posted)
    }

    /// `notification` with its attachments' paths taken out.
    private static func withoutPaths(_ notification: UserNotification) -> UserNotification {
        guard !notification.attachments.isEmpty else { return notification }
        var sent = notification
        sent.content.attachments = notification.attachments.map { attachment in
            var attachment = attachment
            attachment.path = ""
            return attachment
        }
        return sent
    }
}
