import Glibc
import TidingsBase
import TidingsProtocol

/// An app's notification center (`UNUserNotificationCenter`): the app's side
/// of the Tidings host, over its JSON-RPC socket. One connection, owned by
/// this actor; it reconnects when the host restarts, subscribing again and
/// declaring the foreground again, and receives what the app's inbox kept meanwhile.
public actor UserNotificationCenter {
    /// The app's identifier (its bundle identifier).
    public nonisolated let app: String
    /// The host's socket.
    public nonisolated let socketPath: String

    /// Whether the device runs notification content extensions
    /// (`supportsContentExtensions`): true, as a Tidings host runs them; a
    /// front end shows their view where it can draw one (the desktop front
    /// end in its window), and their default content elsewhere.
    public nonisolated var supportsContentExtensions: Bool { true }

    /// The connection, while there is one.
    var connection: AsyncRPCConnection?
    /// The app's delegate (`delegate`), set with ``setDelegate(_:)``: setting
    /// it subscribes to the app's events over the socket, which can fail, and
    /// an actor's property is not set from outside it. Held strongly (Apple's is weak).
    public internal(set) var delegate: (any UserNotificationCenterDelegate)?
    /// Whether the app said it is in the foreground.
    var isForeground = false
    /// Reconnecting after the host went away, while it does.
    var reconnecting: Task<Void, Never>?
    /// Inbox entries handed to the delegate one at a time, in order.
    var inbox: InboxDispatch?
    /// The app's registration for remote notifications, once the center has dealt with one.
    var remote: RemoteRegistration?
    /// Set by ``disconnect()``: the end of the connection is no loss to recover from.
    var closing = false
    /// Where the tasks the center starts itself run (its connection's loop,
    /// its inbox's queue, its answers and reconnecting): nil for the global
    /// concurrent executor, as in an app. An unstructured task does not
    /// inherit its creator's preference, so the center passes it on.
    nonisolated let executor: (any TaskExecutor)?
    /// The zone calendar triggers without one of their own are sent in, set
    /// with ``sendTimeZone(_:)``; nil: the process's, read at each ``add(_:)``.
    var sentTimeZone: String?

    /// The center of `app`, talking to the host at `socketPath`, by default
    /// `$XDG_RUNTIME_DIR/tidings/tidings.sock` as `tidings serve` listens
    /// (`/run/user/UID/…` without XDG_RUNTIME_DIR). It connects on its first call.
    public init(app: String, socketPath: String? = nil) {
        self.init(app: app, socketPath: socketPath, executor: nil)
    }

    /// The center of `app` whose own tasks run on `executor` (the tests'
    /// threads, which the run's other tests do not hold).
    package init(app: String, socketPath: String?, executor: (any TaskExecutor)?) {
        self.app = app
        self.socketPath = socketPath ?? Self.defaultSocketPath()
        self.executor = executor
    }

    deinit {
        // The connection's reading thread holds it until its end: end it.
        reconnecting?.cancel()
        connection?.shutDown()
    }

    /// Where `tidings serve` listens by default.
    static func defaultSocketPath() -> String {
        let runtime = getenv("XDG_RUNTIME_DIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        return (runtime ?? "/run/user/\(getuid())") + "/tidings/tidings.sock"
    }

    // MARK: Authorization

    /// Asks the user to allow the app's notifications (`requestAuthorization(options:)`):
    /// answers once the user has (the host asks through its front ends, and gives
    /// up after its bound: not granted), at once when decided already or when
    /// `options` holds ``AuthorizationOptions/provisional``.
    /// - Returns: whether notifications are allowed (provisionally included).
    public func requestAuthorization(options: AuthorizationOptions) async throws -> Bool {
        let answer = try await call(.authorizationRequest, ["app": .string(app), "options": options.json])
        return answer["granted"]?.boolValue ?? false
    }

    /// The app's notification settings (`notificationSettings()`).
    public func notificationSettings() async throws -> NotificationSettings {
        NotificationSettings(json: try await call(.authorizationSettings, ["app": .string(app)]))
    }

    // MARK: Requests

    /// Delivers a request now (no trigger: its attachment files are moved
    /// into the host's store, as iOS moves them) or schedules it (`add(_:)`);
    /// a calendar trigger whose components name no zone is sent in the app's,
    /// the process's (`TZ`, else `/etc/localtime`'s name), and matched there.
    public func add(_ request: NotificationRequest) async throws {
        if request.trigger != nil {
            let sent = request.sent(inZone: sentTimeZone ?? TriggerTimeZone.processZone())
            _ = try await call(.requestsAdd, ["app": .string(app), "request": sent.json])
        } else {
            _ = try await call(.notificationsDeliver, [
                "app": .string(app), "identifier": .string(request.identifier), "payload": request.json,
                "attachments": "move", "answer": "presentation",
            ])
        }
    }

    /// Sends calendar triggers whose components name no zone in `zone`
    /// instead of the process's (the tests' app in a zone of its own, without
    /// changing the test process's `TZ`); nil: the process's again.
    package func sendTimeZone(_ zone: String?) {
        sentTimeZone = zone
    }

    /// The app's requests waiting for their trigger, soonest first (`pendingNotificationRequests()`).
    public func pendingNotificationRequests() async throws -> [NotificationRequest] {
        let answer = try await call(.requestsPending, ["app": .string(app)])
        return (answer["requests"]?.arrayValue ?? []).map { entry in
            let payload = entry["request"] ?? .object([:])
            var request = NotificationRequest(
                identifier: entry["identifier"]?.stringValue ?? payload["identifier"]?.stringValue ?? "",
                content: NotificationContent(json: payload["content"] ?? .object([:])),
                trigger: (entry["trigger"] ?? payload["trigger"]).flatMap(decodeTrigger))
            request.nextTriggerDate = entry["nextTriggerDate"]?.stringValue.flatMap(parseDate)
            return request
        }
    }

    /// Removes pending requests before they fire (`removePendingNotificationRequests(withIdentifiers:)`).
    public func removePendingNotificationRequests(withIdentifiers identifiers: [String]) async throws {
        guard !identifiers.isEmpty else { return }
        _ = try await call(.requestsRemove,
                           ["app": .string(app), "identifiers": .array(identifiers.map(JSONValue.string))])
    }

    /// Removes every pending request of the app (`removeAllPendingNotificationRequests()`).
    public func removeAllPendingNotificationRequests() async throws {
        _ = try await call(.requestsRemove, ["app": .string(app)])
    }

    // MARK: Delivered notifications

    /// The app's delivered notifications still kept, oldest first (`deliveredNotifications()`).
    public func deliveredNotifications() async throws -> [UserNotification] {
        var notifications: [UserNotification] = []
        var cursor = JSONValue.null
        repeat {
            let page = try await call(.notificationsList, ["app": .string(app), "cursor": cursor, "limit": 1000])
            notifications += (page["notifications"]?.arrayValue ?? []).compactMap { $0["notification"] }
                .map(UserNotification.init(json:))
            cursor = page["next"] ?? .null
        } while cursor != .null
        return notifications
    }

    /// Removes delivered notifications (`removeDeliveredNotifications(withIdentifiers:)`).
    public func removeDeliveredNotifications(withIdentifiers identifiers: [String]) async throws {
        guard !identifiers.isEmpty else { return }
        // Its own only: another app may have delivered one of the same identifier.
        _ = try await call(.notificationsRemove,
                           ["app": .string(app), "identifiers": .array(identifiers.map(JSONValue.string))])
    }

    /// Removes every delivered notification of the app (`removeAllDeliveredNotifications()`).
    public func removeAllDeliveredNotifications() async throws {
        _ = try await call(.notificationsRemove, ["app": .string(app)])
    }

    // MARK: Categories and badge

    /// Sets the app's categories, replacing those it had (`setNotificationCategories(_:)`).
    public func setNotificationCategories(_ categories: Set<NotificationCategory>) async throws {
        let sorted = categories.sorted { $0.identifier < $1.identifier }
        _ = try await call(.categoriesRegister, ["app": .string(app), "categories": .array(sorted.map(\.json))])
    }

    /// The app's categories as registered (`notificationCategories()`).
    public func notificationCategories() async throws -> Set<NotificationCategory> {
        let answer = try await call(.categoriesList, ["app": .string(app)])
        let mine = (answer["apps"]?.arrayValue ?? []).first { $0["app"]?.stringValue == app }
        return Set((mine?["categories"]?.arrayValue ?? []).compactMap(NotificationCategory.init(json:)))
    }

    /// Sets the app's badge (`setBadgeCount(_:)`); 0 clears it, a negative
    /// count is refused (``UserNotificationError/Code/badgeInputInvalid``).
    public func setBadgeCount(_ count: Int) async throws {
        _ = try await call(.badgeSet, ["app": .string(app), "count": .integer(Int64(count))])
    }

    // MARK: The app's state

    /// Sets the delegate that presents notifications in the foreground and
    /// receives responses and background notifications (`delegate`): follows
    /// the app's events (what its inbox kept comes first) and declares it to
    /// the host (`apps.foreground`). nil stops both.
    public func setDelegate(_ delegate: (any UserNotificationCenterDelegate)?) async throws {
        self.delegate = delegate
        if delegate != nil && inbox == nil { inbox = InboxDispatch(center: self) }
        if delegate == nil, connection != nil {
            _ = try await call(.eventsUnsubscribe, nil)
        }
        try await restore()
    }

    /// Says whether the app is in the foreground: a notification for it is then
    /// presented as the delegate's
    /// ``UserNotificationCenterDelegate/userNotificationCenter(_:willPresent:withCompletionHandler:)``
    /// chooses, and not at all without a delegate. The host forgets it when the connection ends;
    /// the center declares it again when it reconnects.
    public func setForeground(_ foreground: Bool) async throws {
        isForeground = foreground
        try await declareForeground()
    }

    /// Sets the name and icon front ends show for the app instead of its
    /// identifier, in the authorization prompt too (what iOS takes from the
    /// bundle's `CFBundleDisplayName` and icons), with `apps.register`; kept
    /// by the host across restarts. The app's show-previews setting stays as it is.
    /// - Parameters:
    ///   - name: the display name ("Pillbox"); nil for none (the identifier is shown).
    ///   - icon: the absolute path of the icon's image file; nil for none.
    public func setDisplayName(_ name: String?, icon: String? = nil) async throws {
        let apps = try await call(.appsList, ["app": .string(app)])
        let mine = (apps["apps"]?.arrayValue ?? []).first { $0["app"]?.stringValue == app }
        var params: [String: JSONValue] = ["app": .string(app)]
        if let name { params["name"] = .string(name) }
        if let icon { params["icon"] = .string(icon) }
        if let previews = mine?["showPreviews"]?.stringValue { params["showPreviews"] = .string(previews) }
        _ = try await call(.appsRegister, .object(params))
    }

    /// Ends the connection and stops reconnecting; a later call connects again.
    public func disconnect() {
        closing = true
        reconnecting?.cancel()
        reconnecting = nil
        connection?.shutDown()
    }

    // MARK: The protocol

    /// Calls any method of the host's protocol (Docs/reference/protocol.md)
    /// with `params` and returns its result: for what this API does not cover,
    /// such as a front end's `authorization.decide`.
    /// - Throws: ``UserNotificationError``: the host's error, or ``UserNotificationError/Code/hostUnavailable``.
    public func call(_ method: String, _ params: JSONValue?) async throws -> JSONValue {
        try await call(MethodName(method), params)
    }

    /// Calls `method` with `params` and returns its result.
    func call(_ method: MethodName, _ params: JSONValue?) async throws -> JSONValue {
        JSONValue(try await call(method, wire: params?.wire))
    }

    /// Calls `method` with the wire JSON `params` and returns its result.
    func call(_ method: MethodName, wire params: JSON?) async throws -> JSON {
        let connection = try await connected()
        do {
            return try await connection.call(method, params)
        } catch RPCCallFailure.answered(let error) {
            throw UserNotificationError(answer: JSONValue(error.json))
        } catch {
            throw UserNotificationError(code: .hostUnavailable, message: "The connection to the host ended before its answer.")
        }
    }
}
