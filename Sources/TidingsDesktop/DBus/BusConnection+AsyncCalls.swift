import TidingsDesktopShims

/// Asynchronous method calls: the call is sent at once and its reply handled
/// later, on the connection's thread, inside `processPending`/`run`, so that
/// a front end's loop never waits for a slow peer (an app that D-Bus
/// activation is starting, say).
extension BusConnection {
    /// Calls `member` of `interface` on the object `path` of `destination`
    /// with the arguments `arguments` appends, without waiting for the reply.
    ///
    /// `completion` runs exactly once, later (never before this returns), on
    /// the connection's thread inside `processPending`/`run`: with what
    /// `reply` read from the reply, or with why the call failed
    /// (`dbus.call-failed` with the D-Bus error's name). A call nobody answers
    /// fails after `timeout` with `org.freedesktop.DBus.Error.NoReply`, as
    /// long as the loop calls `processPending` by the connection's `timeout`;
    /// a connection that closes fails its pending calls the same way. A
    /// connection that goes away (its owner's deinit) cancels them: their
    /// completions never run. `completion` is handed a view of the
    /// connection, to make further calls with; it must not keep it.
    /// - Parameter timeout: microseconds; 0 is sd-bus's default (25 s).
    /// - Throws: `dbus.operation-failed` when the call cannot be built or
    ///   sent (the connection is closed); `completion` then never runs.
    // Never specialized, nor are the wrapper's other generic methods on its
    // ~Copyable types: Swift 6.3.1's generic specializer crashes in -O
    // ("Cannot initialize a nonCopyable type with a guaranteed value") when
    // it specializes one for a borrowed connection, message or reader.
    @_semantics("optimize.sil.specialize.generic.never")
    package func callAsync<Answer>(
        _ destination: String, _ path: String, _ interface: String, _ member: String, timeout: UInt64 = 0,
        arguments: (borrowing MessageWriter) throws(BusError) -> Void = { (_: borrowing MessageWriter) in },
        reply: @escaping (borrowing MessageReader) throws(BusError) -> Answer,
        completion: @escaping (borrowing BusConnection, Result<Answer, BusError>) -> Void
    ) throws(BusError) {
        let message = try OwnedMessage.make("the call \(interface).\(member)", sd, {
            sd.newMethodCall(bus, &$0, destination, path, interface, member)
        }, body: arguments)
        let what = "\(interface).\(member) on \(destination)"
        let pending = Registrations.PendingCall(sd: sd, registrations: registrations) { [sd, bus, registrations] answer in
            let outcome: Result<Answer, BusError>
            if let error = sd.getError(answer) {
                let name = error.pointee.name.map { String(cString: $0) }
                let text = error.pointee.message.map { String(cString: $0) } ?? name ?? "an error without a name"
                outcome = .failure(BusError(BusError.callFailed, name: name, "\(what) failed: \(text)"))
            } else {
                do throws(BusError) {
                    outcome = .success(try reply(MessageReader(message: answer, sd: sd)))
                } catch {
                    outcome = .failure(error)
                }
            }
            completion(BusConnection(viewOf: bus, sd, registrations), outcome)
        }
        var slot: OpaquePointer?
        let sent = sd.callAsync(bus, &slot, message.pointer, { message, userdata, _ in
            BusConnection.dispatchReply(message, userdata)
        }, Unmanaged.passUnretained(pending).toOpaque(), timeout)
        guard sent >= 0, let slot else {
            throw BusError(BusError.operationFailed, errno: sent, "cannot send \(what)")
        }
        pending.slot = slot
        registrations.calls[slot] = pending
    }

    /// Routes a reply (or an error sd-bus made up: timeout, connection
    /// closed) to the pending call behind `userdata`.
    static func dispatchReply(_ message: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?) -> Int32 {
        guard let message, let userdata else { return 0 }
        let pending = Unmanaged<Registrations.PendingCall>.fromOpaque(userdata).takeUnretainedValue()
        // The registrations let go of it in `finish`; this reference keeps it until it returns.
        withExtendedLifetime(pending) { pending.finish(message) }
        return 0
    }
}

extension BusConnection.Registrations {
    /// An asynchronous call waiting for its reply: its slot (the connection's
    /// registrations keep it until the reply comes) and what to do with the reply.
    final class PendingCall {
        private let sd: SDBusLibrary
        /// The connection's registrations, which outlive every reply (replies
        /// come inside the owner's `processPending`).
        private unowned let registrations: BusConnection.Registrations
        private let body: (OpaquePointer) -> Void
        /// Set once the call is sent.
        var slot: OpaquePointer?

        init(sd: SDBusLibrary, registrations: BusConnection.Registrations, body: @escaping (OpaquePointer) -> Void) {
            self.sd = sd
            self.registrations = registrations
            self.body = body
        }

        /// Forgets the call (sd-bus holds its own reference to the slot while
        /// the reply is dispatched), then handles `message`.
        func finish(_ message: OpaquePointer) {
            if let slot {
                registrations.calls[slot] = nil
                _ = sd.slotUnref(slot)
                self.slot = nil
            }
            body(message)
        }
    }
}
