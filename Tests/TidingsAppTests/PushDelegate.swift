import TidingsApp

/// A delegate that records what becomes of the app's registration for
/// remote notifications: each device token and each failure, in order, on
/// one stream; and the identifiers of the responses it receives, which a
/// test sends after events that must be passed over (the center handles its
/// events in the order they came, so that once the response is here, so
/// were they).
final class PushDelegate: UserNotificationCenterDelegate {
    /// What the delegate was told.
    enum Told: Sendable, Equatable {
        case registered(DeviceToken)
        case failed(UserNotificationError)
        /// A response to the notification of this identifier.
        case response(String)
    }

    let told: AsyncStream<Told>
    private let telling: AsyncStream<Told>.Continuation

    init() {
        (told, telling) = AsyncStream.makeStream(of: Told.self)
    }

    func didRegisterForRemoteNotifications(withDeviceToken deviceToken: DeviceToken) async {
        telling.yield(.registered(deviceToken))
    }

    func didFailToRegisterForRemoteNotifications(withError error: UserNotificationError) async {
        telling.yield(.failed(error))
    }

    func userNotificationCenter(_ center: UserNotificationCenter, didReceive response: NotificationResponse) async {
        telling.yield(.response(response.notification.request.identifier))
    }
}

extension PushDelegate.Told {
    /// The device token, when it is one.
    var deviceToken: DeviceToken? {
        if case .registered(let deviceToken) = self { return deviceToken }
        return nil
    }

    /// The error, when it is one.
    var error: UserNotificationError? {
        if case .failed(let error) = self { return error }
        return nil
    }
}
