/// The center's connection: opening it, reading what the host sends
/// (answers, events, the server's own requests), and reconnecting when the
/// host restarts.
extension UserNotificationCenter {
    /// The connection, opened when there is none (subscribed and declared
    /// again first, when the app follows its events or is in the foreground).
    func connected() async throws -> HostConnection {
        if let connection { return connection }
        let connection = try open()
        if delegate != nil || isForeground { try await restore() }
        return connection
    }

    /// Opens a connection and starts handing its lines to the center.
    func open() throws(UserNotificationError) -> HostConnection {
        let connection = try HostConnection(path: socketPath)
        self.connection = connection
        closing = false
        Task { [weak self] in
            for await line in connection.lines { await self?.receive(line) }
            await self?.ended(connection)
        }
        return connection
    }

    /// Subscribes to the app's events (what its inbox kept replayed first)
    /// when there is a delegate, and declares the foreground.
    func restore() async throws {
        if delegate != nil {
            _ = try await call("events.subscribe", ["apps": [.string(app)], "replay": true])
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
            _ = try await call("apps.foreground", ["app": .string(app), "foreground": .bool(isForeground),
                                                   "delegate": .bool(delegate != nil)])
        } catch let error as UserNotificationError where error.protocolCode == -32601 {
            return
        }
    }

    /// One line from the host: an answer, an event or a request of the server's.
    func receive(_ line: [UInt8]) {
        guard let message = JSONValue.parse(line) else { return }
        if case .array(let answers) = message {
            for answer in answers { file(answer) }
        } else {
            file(message)
        }
    }

    private func file(_ message: JSONValue) {
        let id = message["id"]
        if let method = message["method"]?.stringValue {
            if let id, id != .null {
                Task { await answerServer(id: id, method: method, params: message["params"] ?? .null) }
            } else if let params = message["params"] {
                inboxEvent(method, params)
            }
        } else if let id = id?.integerValue, let continuation = waiting.removeValue(forKey: id) {
            if let error = message["error"] {
                continuation.resume(throwing: UserNotificationError(answer: error))
            } else {
                continuation.resume(returning: message["result"] ?? .null)
            }
        }
    }

    /// Answers a request of the server's: `app.willPresent` with the delegate's options.
    private func answerServer(id: JSONValue, method: String, params: JSONValue) async {
        var answer: [String: JSONValue] = ["jsonrpc": "2.0", "id": id]
        if method == "app.willPresent" {
            let notification = UserNotification(json: params["notification"] ?? .object([:]))
            let options = await delegate?.willPresent(notification) ?? []
            answer["result"] = ["options": options.json]
        } else {
            answer["error"] = ["code": -32601, "message": .string("The app answers no method \"\(method)\".")]
        }
        guard let line = try? JSONValue.object(answer).line() else { return }
        try? connection?.send(line)
    }

    /// The host closed `connection`: its calls fail, and the center reconnects
    /// when the app follows its events or declared its foreground.
    func ended(_ connection: HostConnection) {
        guard self.connection === connection else { return }
        self.connection = nil
        let lost = waiting
        waiting = [:]
        for continuation in lost.values {
            continuation.resume(throwing: UserNotificationError(
                code: .hostUnavailable, message: "The connection to the host ended before its answer."))
        }
        guard (delegate != nil || isForeground) && !closing && reconnecting == nil else { return }
        reconnecting = Task { [weak self] in
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
