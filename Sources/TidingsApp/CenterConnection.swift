import TidingsBase
import TidingsProtocol

/// The center's connection: opening it, what the host sends besides answers
/// (events, the server's own requests), and reconnecting when the host restarts.
extension UserNotificationCenter {
    /// The connection, opened when there is none (subscribed and declared
    /// again first, when the app follows its events or is in the foreground).
    func connected() async throws -> AsyncRPCConnection {
        if let connection { return connection }
        let connection = try open()
        if delegate != nil || isForeground { try await restore() }
        return connection
    }

    /// Opens a connection and starts handing what the host sends to the center.
    func open() throws(UserNotificationError) -> AsyncRPCConnection {
        let connection: AsyncRPCConnection
        do throws(Diagnostic) {
            connection = try AsyncRPCConnection(path: socketPath)
        } catch {
            throw UserNotificationError(code: .hostUnavailable, message: "The host's socket cannot be reached: \(error.message)")
        }
        // First on every connection, reconnections too: the app says which it is, and is then held to it.
        connection.send(.serverHello, ClientHello.app(app, client: "TidingsApp"))
        self.connection = connection
        closing = false
        Task(executorPreference: executor) { [weak self] in
            for await message in connection.incoming { await self?.receive(message) }
            await self?.ended(connection)
        }
        return connection
    }

    /// Subscribes to the app's events (what its inbox kept replayed first)
    /// when there is a delegate, and declares the foreground.
    func restore() async throws {
        if delegate != nil {
            _ = try await call(.eventsSubscribe, wire: EventSubscription(apps: .array([.string(app)]), replay: true).params)
        }
        try await declareForeground()
    }

    /// Tells the host whether the app is in the foreground and has a delegate
    /// (`apps.foreground`). A host without the method (older than the app's
    /// side of the protocol) presents every notification, which is what a
    /// background app gets: nothing to declare then.
    func declareForeground() async throws {
        guard connection != nil || isForeground || delegate != nil else { return }
        do {
            _ = try await call(.appsForeground, wire: .object([
                ("app", .string(app)), ("foreground", .bool(isForeground)), ("delegate", .bool(delegate != nil)),
            ]))
        } catch let error as UserNotificationError where error.protocolCode == -32601 {
            return
        }
    }

    /// What the host sent that is not an answer: an event or a request of the server's.
    func receive(_ message: ServerMessage) {
        switch message {
        case .event(let method, _):
            let params = JSONValue(message.params ?? .object([]))
            if method.hasPrefix("push.") { remoteNotificationEvent(method, params) } else { inboxEvent(method, params) }
        case .request(let id, let method, _):
            Task(executorPreference: executor) { await self.answerServer(id: id, method: method, params: JSONValue(message.params ?? .object([]))) }
        case .answer:
            return
        }
    }

    /// Answers a request of the server's: `app.willPresent` with the delegate's options.
    private func answerServer(id: JSON, method: String, params: JSONValue) async {
        guard method == MethodName.appWillPresent.rawValue else {
            connection?.respond(to: id, error: RPCErrorReply(code: -32601, message: "The app answers no method \"\(method)\"."))
            return
        }
        let notification = UserNotification(json: params["notification"] ?? .object([:]))
        var options = PresentationOptions()
        if let delegate {
            options = await withCheckedContinuation { (continuation: CheckedContinuation<PresentationOptions, Never>) in
                let answer = CompletionWait(continuation, dropped: PresentationOptions())
                delegate.userNotificationCenter(self, willPresent: notification) { answer.finish($0) }
            }
        }
        connection?.respond(to: id, result: .object([("options", options.json.wire)]))
    }

    /// The host closed `connection` (its calls failed with it), and the center
    /// reconnects when the app follows its events or declared its foreground.
    func ended(_ connection: AsyncRPCConnection) {
        guard self.connection === connection else { return }
        self.connection = nil
        guard (delegate != nil || isForeground) && !closing && reconnecting == nil else { return }
        reconnecting = Task(executorPreference: executor) { [weak self] in
            // Backoff between attempts: 50 ms, doubling, at most 2 s.
            var pause: UInt64 = 50_000_000
            while !Task.isCancelled {
                guard let center = self else { return }
                if await center.reconnect() { break }
                try? await Task.sleep(nanoseconds: pause)
                pause = min(pause * 2, 2_000_000_000)
            }
            await self?.reconnected()
        }
    }

    /// One attempt: a connection, subscribed and declared again.
    private func reconnect() async -> Bool {
        do {
            if connection == nil { _ = try open() }
            try await restore()
            await catchUpRemoteRegistration()
            return true
        } catch {
            connection?.shutDown()
            return false
        }
    }

    private func reconnected() {
        reconnecting = nil
    }
}

