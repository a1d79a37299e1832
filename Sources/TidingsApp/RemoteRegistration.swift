/// The app's registration for remote notifications as its center follows
/// it — the host's token for it, the device token last handed to the
/// delegate — and the queue that hands the delegate what becomes of it,
/// one outcome at a time, in the order the host said them.
final class RemoteRegistration {
    /// What the delegate is told.
    enum Outcome: Sendable {
        /// The endpoint is known: `didRegisterForRemoteNotifications(withDeviceToken:)`.
        case registered(DeviceToken)
        /// No endpoint, and why: `didFailToRegisterForRemoteNotifications(withError:)`.
        case failed(UserNotificationError)
    }

    /// The host's token for the app's registration, once `push.register` answered it.
    var token: String?
    /// The device token last handed to the delegate: an event that repeats it is passed over.
    var handed: DeviceToken?
    /// Set by `unregisterForRemoteNotifications()`, cleared by registering:
    /// events of the registration ended are passed over.
    var unregistered = false

    private let continuation: AsyncStream<Outcome>.Continuation

    /// A queue handing its outcomes to `center`'s delegate.
    init(center: UserNotificationCenter) {
        let (stream, continuation) = AsyncStream.makeStream(of: Outcome.self)
        self.continuation = continuation
        Task(executorPreference: center.executor) { [weak center] in
            for await outcome in stream { await center?.hand(outcome) }
        }
    }

    deinit {
        continuation.finish()
    }

    /// Queues `outcome` for the delegate.
    func queue(_ outcome: Outcome) {
        if case .registered(let deviceToken) = outcome { handed = deviceToken } else { handed = nil }
        continuation.yield(outcome)
    }
}
