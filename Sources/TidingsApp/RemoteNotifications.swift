import TidingsProtocol

/// Remote notifications: registering with the user's UnifiedPush distributor
/// through the host (UIApplication's `registerForRemoteNotifications()`,
/// here on the center: a Linux process has no application object), and the
/// `push.…` events that tell the delegate where its server pushes to.
extension UserNotificationCenter {
    /// Registers the app for remote notifications (`registerForRemoteNotifications()`,
    /// `push.register`). The host makes the app's registration once — a
    /// token, and the key pair and secret pushes are encrypted for, kept
    /// across restarts — and a front end (`tidings desktop`) registers it with
    /// the user's UnifiedPush distributor. The outcome goes to the delegate:
    /// ``UserNotificationCenterDelegate/didRegisterForRemoteNotifications(withDeviceToken:)``
    /// at once when the endpoint is known, else when it arrives;
    /// ``UserNotificationCenterDelegate/didFailToRegisterForRemoteNotifications(withError:)``
    /// when no distributor is on the bus, no front end runs, or the
    /// distributor refused. Call it at every launch, as on iOS (the same
    /// registration and keys every time), after ``setDelegate(_:)``: the
    /// delegate hears the host's events only while it is set.
    /// - Throws: ``UserNotificationError``: the host could not be reached or refused the call.
    public func registerForRemoteNotifications() async throws {
        let remote = remoteRegistration()
        remote.unregistered = false
        let answer = try await call(.pushRegister, ["app": .string(app)])
        remote.token = answer["token"]?.stringValue
        let message = answer["message"]?.stringValue ?? ""
        // An endpoint known is the device token, whatever the front end's state: the app's server needs it.
        if let deviceToken = DeviceToken(registration: answer) {
            remote.queue(.registered(deviceToken))
            return
        }
        switch answer["status"]?.stringValue {
        case "noDistributor"?:
            remote.queue(.failed(UserNotificationError(code: .noPushDistributor, message: message.isEmpty
                ? "No UnifiedPush distributor is on the session bus: install one, such as KUnifiedPush or ntfy's." : message)))
        case "noFrontEnd"?:
            remote.queue(.failed(UserNotificationError(code: .noPushFrontEnd, message: message.isEmpty
                ? "No front end connects the host to the session bus: start tidings desktop." : message)))
        default:
            // pending: the endpoint comes as push.new-endpoint.
            return
        }
    }

    /// Unregisters the app from remote notifications (`unregisterForRemoteNotifications()`,
    /// `push.unregister`): the host deletes the registration and its keys at
    /// once (a push for it is refused from then on) and a front end tells the
    /// distributor. A later ``registerForRemoteNotifications()`` makes a new
    /// registration, with a new endpoint and keys. Unregistering an app that
    /// is not registered is no error.
    /// - Throws: ``UserNotificationError``: the host could not be reached or refused the call.
    public func unregisterForRemoteNotifications() async throws {
        let remote = remoteRegistration()
        remote.unregistered = true
        _ = try await call(.pushUnregister, ["app": .string(app)])
        remote.token = nil
        remote.handed = nil
    }

    /// Whether the app is registered for remote notifications with its
    /// endpoint known (`isRegisteredForRemoteNotifications`), as the host
    /// says (`push.list`): false before registering, after unregistering,
    /// and while no distributor has given the registration an endpoint.
    public var isRegisteredForRemoteNotifications: Bool {
        get async throws {
            let answer = try await call(.pushList, ["app": .string(app)])
            let mine = (answer["registrations"]?.arrayValue ?? []).first { $0["app"]?.stringValue == app }
            return mine.flatMap(DeviceToken.init(registration:)) != nil
        }
    }

    /// The app's registration as the center follows it, made on first use.
    func remoteRegistration() -> RemoteRegistration {
        if let remote { return remote }
        let made = RemoteRegistration(center: self)
        remote = made
        return made
    }

    /// A `push.…` event of the app's: a new endpoint, a refusal or the end
    /// of its registration goes to the delegate; one of a registration the
    /// app has since unregistered, or of another token than its own, does not.
    func remoteNotificationEvent(_ method: String, _ params: JSONValue) {
        guard params["app"]?.stringValue == app else { return }
        let remote = remoteRegistration()
        guard !remote.unregistered else { return }
        if let token = remote.token, let named = params["token"]?.stringValue, named != token { return }
        switch EventName(method) {
        case .pushNewEndpoint:
            guard let deviceToken = DeviceToken(registration: params), deviceToken != remote.handed else { return }
            remote.queue(.registered(deviceToken))
        case .pushRegistrationFailed:
            let reason = params["reason"]?.stringValue ?? ""
            remote.queue(.failed(UserNotificationError(code: .pushRegistrationFailed, message: reason.isEmpty
                ? "The UnifiedPush distributor refused the registration." : "The UnifiedPush distributor refused the registration: \(reason)")))
        case .pushUnregistered:
            remote.token = nil
            remote.queue(.failed(UserNotificationError(code: .pushUnregistered,
                message: "The UnifiedPush distributor ended the registration: register again for pushes to arrive.")))
        default:
            return
        }
    }

    /// After reconnecting: an endpoint that changed while the center was
    /// away (its `push.new-endpoint` went with the connection) is handed now,
    /// from `push.list`. Only for an app that registered in this center.
    func catchUpRemoteRegistration() async {
        guard let remote, remote.token != nil, !remote.unregistered, delegate != nil,
              let answer = try? await call(.pushList, ["app": .string(app)]),
              let mine = (answer["registrations"]?.arrayValue ?? []).first(where: { $0["app"]?.stringValue == app }),
              let deviceToken = DeviceToken(registration: mine), deviceToken != remote.handed
        else { return }
        remote.queue(.registered(deviceToken))
    }

    /// Hands an outcome of the registration to the delegate.
    func hand(_ outcome: RemoteRegistration.Outcome) async {
        guard let delegate else { return }
        switch outcome {
        case .registered(let deviceToken):
            await delegate.didRegisterForRemoteNotifications(withDeviceToken: deviceToken)
        case .failed(let error):
            await delegate.didFailToRegisterForRemoteNotifications(withError: error)
        }
    }
}
