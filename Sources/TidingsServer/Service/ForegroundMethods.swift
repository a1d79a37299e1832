import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// `apps.foreground`, and the request the server sends an app in the
/// foreground before presenting its notification (`app.willPresent`).
extension HostService {
    /// The family's methods.
    static let foregroundMethods: [Method] = [
        Method(ProtocolMethod(
            .appsForeground,
            summary: "Say that an app is in the foreground (or no longer is) on this connection, and whether it has a presentation delegate. Its notifications are then presented as the delegate answers `app.willPresent` (see [Server requests](#server-requests)); without a delegate, or without an answer in time, they are not presented (`display: \"foreground\"`). Forgotten when the connection ends; the last connection to say an app is in the foreground holds it.",
            parameters: [
                ProtocolField("app", .name, required: true, "The app's identifier."),
                ProtocolField("foreground", .boolean, required: true, "`true`: the app is in the foreground on this connection; `false`: it is not (from another connection than the one it is on, nothing changes)."),
                ProtocolField("delegate", .boolean, "`true`: the connection answers `app.willPresent` for the app; `false` by default."),
            ],
            result: "`app`, `foreground` (whether it is in the foreground now), `delegate`.",
            returns: .object([appMember, ProtocolField("foreground", .boolean, required: true, "Whether it is in the foreground now."),
                              ProtocolField("delegate", .boolean, required: true, "Whether this connection answers `app.willPresent` for it.")]),
            errors: [-32602]),
               // Ordered with the connection's deliveries, which read it (as they read its subscription).
               scope: RequestScope(writing: [.subscription])) { service, params, client throws(RPCError) in
            try service.setForeground(&params, client: client)
        },
    ]

    /// The requests the server sends a client (which answers them as any
    /// JSON-RPC request is answered), as the protocol reference lists them.
    package static let serverRequests: [ProtocolMethod] = [
        ProtocolMethod(
            .appWillPresent,
            summary: "Sent to the connection an app is in the foreground on, with a delegate (`apps.foreground`), when a notification for it is about to be presented — after its service extension, before anything shows (`userNotificationCenter(_:willPresent:withCompletionHandler:)`). The delivery waits for the answer, up to the deadline (`limits.willPresentDeadline`, 1 second by default, `tidings serve --will-present-deadline`); an error or no answer in time: not presented. An app in the background is not asked: its notifications have every option.",
            parameters: [
                ProtocolField("app", .name, required: true, "The app."),
                ProtocolField("notification", .named("Notification"), required: true, "The notification, as in the answer to `notifications.deliver`."),
            ],
            result: "`options`: an array of `\"banner\"` (shown as a banner), `\"list\"` (kept in the list of delivered notifications), `\"sound\"` (its sound plays), `\"badge\"` (its badge is set; without it the badge is not); `\"alert\"` stands for banner and list. Neither banner nor list: not presented (`display: \"foreground\"`, nothing kept). The options reach the presentation (`presentationOptions`) and `notification.delivered`.",
            returns: .object([ProtocolField("options", .array(.choice(PresentationOptions.names.map(\.0) + ["alert"])), required: true,
                                            "How the notification is presented; `alert` stands for banner and list.")]),
            errors: []),
    ]

    /// `apps.foreground`: records the app's state on `client`'s connection.
    private func setForeground(_ params: inout Params, client: any EventReceiver) throws(RPCError) -> JSON {
        let app = params.string("app")
        let foreground = params.bool("foreground")
        let delegate = params.bool("delegate") ?? false
        try params.check()
        guard let app, !app.isEmpty else { throw .invalidParams("The parameter \"app\" is required.") }
        guard let foreground else { throw .invalidParams("The parameter \"foreground\" is required.") }
        if foreground && delegate && !(client is any RequestReceiver) {
            throw .invalidParams("This client cannot be asked app.willPresent; declare the app without a delegate.")
        }
        guard self.foreground.set(app, foreground: foreground, delegate: delegate, on: client) else {
            throw .invalidParams("This connection has \(ForegroundApps.appsPerConnection) apps in the foreground already; put one in the background first.")
        }
        return .object([("app", .string(app)), ("foreground", .bool(self.foreground.isForeground(app))),
                        ("delegate", .bool(foreground && delegate))])
    }
}
