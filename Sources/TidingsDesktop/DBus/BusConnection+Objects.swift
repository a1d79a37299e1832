
/// Exporting objects: a handler for every method call to one object path
/// (`sd_bus_add_object`), without vtables or introspection. Enough for a
/// small service (a test's notification server, an app's Activate).
extension BusConnection {
    /// Calls `handler` with each method call to the object `path`, on the
    /// connection's thread (inside `processPending`/`run`). A call the
    /// handler does not reply to gets sd-bus's UnknownMethod error; one it
    /// throws for gets an error reply with the error's D-Bus name
    /// (`org.freedesktop.DBus.Error.Failed` when it has none) and message.
    package func exportObject(at path: String,
                              handler: @escaping (borrowing MethodCall) throws(BusError) -> Void) throws(BusError) {
        let box = Registrations.Handler { [sd] message, replyError in
            let call = MethodCall(arguments: MessageReader(message: message, sd: sd))
            do throws(BusError) {
                try handler(call)
            } catch {
                // sd-bus replies with the error it was given (copying both strings).
                let name = error.name ?? "org.freedesktop.DBus.Error.Failed"
                return sd.errorSet(replyError, name, error.message)
            }
            return call.replied.value ? 1 : 0
        }
        var slot: OpaquePointer?
        let result = sd.addObject(bus, &slot, path, { message, userdata, error in BusConnection.dispatch(message, userdata, error) },
                                  Unmanaged.passUnretained(box).toOpaque())
        guard result >= 0, let slot else {
            throw BusError(BusError.operationFailed, errno: result, "cannot export an object at \(path)")
        }
        registrations.keep(slot, box)
    }
}

/// A method call to an exported object, valid only inside the handler.
package struct MethodCall: ~Copyable {
    /// The call's arguments, its member and interface.
    package let arguments: MessageReader
    /// Set when the handler replied.
    let replied = Flag()

    /// Whether the caller waits for a reply: a call sent with
    /// NO_REPLY_EXPECTED (UnifiedPush's Connector1, say) gets none.
    package var expectsReply: Bool { arguments.sd.getExpectReply(arguments.message) > 0 }

    /// Replies with the values `body` appends; a call that expects no
    /// reply (`expectsReply`) is answered with nothing, and counts as handled.
    package func reply(_ body: (borrowing MessageWriter) throws(BusError) -> Void = { (_: borrowing MessageWriter) in })
        throws(BusError) {
        let sd = arguments.sd
        guard expectsReply else {
            replied.value = true
            return
        }
        let message = try OwnedMessage.make("a reply", sd, { sd.newMethodReturn(arguments.message, &$0) }, body: body)
        // With no bus given, sd-bus sends on the bus the message belongs to.
        let sent = sd.send(nil, message.pointer, nil)
        if sent < 0 { throw BusError(BusError.operationFailed, errno: sent, "cannot send a reply") }
        replied.value = true
    }

    /// A boolean the handler sets and its caller reads.
    final class Flag {
        var value = false
    }
}
