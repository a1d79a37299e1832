import Synchronization
import TidingsBase
import TidingsProtocol

/// What the attachment store holds for whom, counted against its
/// `AttachmentQuota`: each file's owner and size, and the sums per
/// notification, bundle and app.
///
/// A file's bytes are reserved before it is copied (the size its source
/// reports) and settled once the copy is made (the size copied), so that
/// files admitted at once cannot together pass a quota; a file leaves the
/// count when it leaves the store. It counts in memory what this host put
/// into the store, and what the notifications it restored carry (counted
/// for their app and notification: which bundle made a file is not kept).
package final class StoreLedger: Sendable {
    /// Whose a file is.
    package struct Owner: Sendable, Hashable {
        /// The app the notification is addressed to.
        package var app: String
        /// The notification's request identifier.
        package var notification: String
        /// The bundle whose service extension created the file; nil for a payload's file.
        package var bundle: String?

        package init(app: String, notification: String, bundle: String?) {
            self.app = app
            self.notification = notification
            self.bundle = bundle
        }
    }

    /// Why a file may not be kept: the sentence, and whether its bundle
    /// keeps trying (as many refusals within the window as the quota allows).
    struct Refusal: Error, Sendable {
        var sentence: String
        var abusive: Bool
    }

    /// Bytes and files.
    private struct Usage {
        var bytes: UInt64 = 0
        var files = 0
    }

    private struct NotificationKey: Hashable {
        var app: String
        var notification: String
    }

    private struct State {
        var files: [String: (owner: Owner, size: UInt64)] = [:]
        var notifications: [NotificationKey: Usage] = [:]
        var bundles: [String: Usage] = [:]
        var apps: [String: Usage] = [:]
        /// Each bundle's recent refusals (monotonic nanoseconds).
        var refusals: [String: [UInt64]] = [:]
    }

    let quota: AttachmentQuota
    private let state = Mutex(State())

    init(quota: AttachmentQuota) {
        self.quota = quota
    }

    /// Counts `size` bytes and one file named `name` for `owner`, unless a
    /// quota would be passed.
    func reserve(_ size: UInt64, as name: String, for owner: Owner) throws(Refusal) {
        let refusal: Refusal? = state.withLock { state in
            if let sentence = excess(adding: size, files: 1, for: owner, in: state) {
                return refused(sentence, for: owner, in: &state)
            }
            state.files[name] = (owner, size)
            change(owner, bytes: Int64(clamping: size), files: 1, in: &state)
            return nil
        }
        if let refusal { throw refusal }
    }

    /// Settles the file `name` at `size` bytes (the copy's), unless the
    /// difference passes a quota; the file stays counted either way, until released.
    func settle(_ name: String, at size: UInt64) throws(Refusal) {
        let refusal: Refusal? = state.withLock { state in
            guard let (owner, reserved) = state.files[name] else { return nil }
            if size > reserved, let sentence = excess(adding: size - reserved, files: 0, for: owner, in: state) {
                return refused(sentence, for: owner, in: &state)
            }
            state.files[name] = (owner, size)
            change(owner, bytes: Int64(clamping: size) - Int64(clamping: reserved), files: 0, in: &state)
            return nil
        }
        if let refusal { throw refusal }
    }

    /// Counts the file `name` of `size` bytes, already in the store (a kept
    /// notification's, put back after a restart), for `owner`, whatever the
    /// quota says: it is there. Nothing when it is counted already.
    func adopt(_ name: String, size: UInt64, for owner: Owner) {
        state.withLock { state in
            guard state.files[name] == nil else { return }
            state.files[name] = (owner, size)
            change(owner, bytes: Int64(clamping: size), files: 1, in: &state)
        }
    }

    /// Takes the file `name` out of the count; nothing when it is not counted.
    func release(_ name: String) {
        state.withLock { state in
            guard let (owner, size) = state.files.removeValue(forKey: name) else { return }
            change(owner, bytes: -Int64(clamping: size), files: -1, in: &state)
        }
    }

    /// The bytes and files counted for `app`'s notification `notification`.
    func usage(ofNotification notification: String, app: String) -> (bytes: UInt64, files: Int) {
        state.withLock { state in
            let usage = state.notifications[NotificationKey(app: app, notification: notification)] ?? Usage()
            return (usage.bytes, usage.files)
        }
    }

    // MARK: Counting

    /// The sentence saying which quota `size` more bytes and `files` more
    /// files for `owner` would pass; nil when none.
    private func excess(adding size: UInt64, files: Int, for owner: Owner, in state: State) -> String? {
        func passes(_ usage: Usage?, _ bytes: UInt64, _ count: Int) -> Bool {
            let usage = usage ?? Usage()
            return usage.files + files > count || usage.bytes > bytes || size > bytes - usage.bytes
        }
        let key = NotificationKey(app: owner.app, notification: owner.notification)
        if passes(state.notifications[key], quota.notificationBytes, quota.notificationFiles) {
            return "notification \"\(owner.notification)\" of \(owner.app) may keep at most "
                + "\(quota.notificationFiles) files and \(NumberText.bytesExactly(quota.notificationBytes)) in the attachment store"
        }
        if let bundle = owner.bundle, passes(state.bundles[bundle], quota.bundleBytes, quota.bundleFiles) {
            return "\(bundle) may keep at most \(quota.bundleFiles) files and "
                + "\(NumberText.bytesExactly(quota.bundleBytes)) it created in the attachment store"
        }
        if passes(state.apps[owner.app], quota.appBytes, quota.appFiles) {
            return "the notifications of \(owner.app) may keep at most \(quota.appFiles) files and "
                + "\(NumberText.bytesExactly(quota.appBytes)) in the attachment store"
        }
        return nil
    }

    /// A refusal saying `sentence`; abusive when `owner`'s bundle has now
    /// been refused `quota.abuseRefusals` times within the window (its count
    /// then starts again).
    private func refused(_ sentence: String, for owner: Owner, in state: inout State) -> Refusal {
        guard let bundle = owner.bundle else { return Refusal(sentence: sentence, abusive: false) }
        let now = MonotonicClock.now()
        let window = CheckedNumbers.nanoseconds(quota.abuseWindow)
        var recent = state.refusals[bundle, default: []].filter { now &- $0 <= window }
        recent.append(now)
        let abusive = recent.count >= quota.abuseRefusals
        state.refusals[bundle] = abusive ? nil : recent
        return Refusal(sentence: sentence, abusive: abusive)
    }

    /// Adds `bytes` and `files` (either may be negative) to `owner`'s sums.
    private func change(_ owner: Owner, bytes: Int64, files: Int, in state: inout State) {
        func apply(_ usage: inout Usage) {
            usage.bytes = UInt64(max(0, Int64(clamping: usage.bytes) + bytes))
            usage.files = max(0, usage.files + files)
        }
        let key = NotificationKey(app: owner.app, notification: owner.notification)
        apply(&state.notifications[key, default: Usage()])
        if state.notifications[key]?.files == 0 { state.notifications[key] = nil }
        if let bundle = owner.bundle {
            apply(&state.bundles[bundle, default: Usage()])
            if state.bundles[bundle]?.files == 0 { state.bundles[bundle] = nil }
        }
        apply(&state.apps[owner.app, default: Usage()])
        if state.apps[owner.app]?.files == 0 { state.apps[owner.app] = nil }
    }
}
