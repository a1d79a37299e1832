import Synchronization
import TidingsProtocol

/// The entries of the app's inbox (responses forwarded, background
/// notifications), queued for the delegate one at a time, in the order received.
final class InboxDispatch {
    private let continuation: AsyncStream<JSONValue>.Continuation
    /// Entries queued (false) or handed to the delegate and not yet taken (true), by id.
    var entries: [Int64: Bool] = [:]

    /// A queue handing its entries to `center`'s delegate.
    init(center: UserNotificationCenter) {
        let (stream, continuation) = AsyncStream.makeStream(of: JSONValue.self)
        self.continuation = continuation
        Task(executorPreference: center.executor) { [weak center] in
            for await entry in stream { await center?.hand(entry) }
        }
    }

    deinit {
        continuation.finish()
    }

    /// Queues `entry` for the delegate.
    func queue(_ entry: JSONValue) {
        continuation.yield(entry)
    }
}

extension UserNotificationCenter {
    /// An event of the app's: a response or a background notification, kept in
    /// its inbox, is queued for the delegate once (a replay of one queued is
    /// passed over; of one handed already, only taken).
    func inboxEvent(_ method: String, _ params: JSONValue) {
        guard method == EventName.responseForwarded.rawValue || method == EventName.notificationBackground.rawValue,
              params["app"]?.stringValue == app, let id = params["id"]?.integerValue, let inbox else { return }
        switch inbox.entries[id] {
        case nil:
            inbox.entries[id] = false
            inbox.queue(params)
        case false?:
            return
        case true?:
            Task(executorPreference: executor) { await self.take(id) }
        }
    }

    /// Hands an entry to the delegate, and takes it out of the inbox once the
    /// delegate is done with it: for a response, when it calls the completion
    /// handler. A handler dropped uncalled leaves the entry in the inbox (a
    /// later subscription, this center's or the next one's, hands it again)
    /// and lets the next entry through.
    func hand(_ entry: JSONValue) async {
        guard let id = entry["id"]?.integerValue else { return }
        guard let delegate else {
            inbox?.entries[id] = nil
            return
        }
        let notification = UserNotification(json: entry["notification"] ?? .object([:]))
        let handled: Bool
        if entry["kind"]?.stringValue == "response" {
            let response = NotificationResponse(
                notification: notification,
                actionIdentifier: entry["actionIdentifier"]?.stringValue ?? NotificationResponse.defaultActionIdentifier,
                userText: entry["userText"]?.stringValue, inboxIdentifier: id)
            if response.actionIdentifier == NotificationResponse.openSettingsActionIdentifier {
                await delegate.userNotificationCenter(self, openSettingsFor: notification)
                handled = true
            } else {
                handled = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                    let completion = CompletionWait(continuation, dropped: false)
                    delegate.userNotificationCenter(self, didReceive: response) { completion.finish(true) }
                }
            }
        } else {
            await delegate.didReceiveBackgroundNotification(notification)
            handled = true
        }
        guard handled else {
            inbox?.entries[id] = nil
            return
        }
        inbox?.entries[id] = true
        await take(id)
    }

    /// Takes a handled entry out of the inbox. When the connection is lost
    /// first, the entry stays, is replayed on reconnecting and taken then.
    private func take(_ id: Int64) async {
        do {
            _ = try await call(.inboxTake, ["app": .string(app), "ids": [.integer(id)]])
            inbox?.entries[id] = nil
        } catch {
            return
        }
    }
}

/// A delegate's completion handler: resumes the center's wait once, with
/// the value it was called with, or `dropped` when the handler is released
/// uncalled (a response then stays in the inbox; nothing is presented).
final class CompletionWait<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, Never>?>
    private let dropped: Value

    /// A wait resuming `continuation`, with `dropped` unless called first.
    init(_ continuation: CheckedContinuation<Value, Never>, dropped: Value) {
        self.continuation = Mutex(continuation)
        self.dropped = dropped
    }

    deinit {
        finish(dropped)
    }

    /// Resumes the wait with `value`, the first time only (a handler called twice counts once).
    func finish(_ value: Value) {
        continuation.withLock { waiting in
            defer { waiting = nil }
            return waiting
        }?.resume(returning: value)
    }
}
