import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// How a method names one delivered notification: its `identifier`, and
/// the `app` it is of, which may be left out when exactly one app has a
/// notification of that identifier delivered.
extension HostService {
    /// The `app` parameter of a method naming a delivered notification.
    static let notificationApp = ProtocolField(
        "app", .name,
        "The notification's app; may be left out when exactly one app has a notification of that identifier delivered (-32602 naming the apps when several do).")

    /// The key of the notification `identifier` of `app`, or, without
    /// `app`, of the one app that has a notification `identifier` delivered.
    /// - Throws: -32602 naming the apps when several have one and no app is
    ///   named; -32001 when none has.
    func key(of identifier: String, app: String?) throws(RPCError) -> NotificationKey {
        do throws(Diagnostic) {
            return try host.key(of: identifier, app: app)
        } catch {
            guard error.code == .responseAmbiguousNotification else { throw .unknownNotification(identifier) }
            throw .ambiguousNotification(identifier, apps: host.apps(showing: identifier))
        }
    }
}
