import Glibc
import TidingsDesktopShims

/// A connection to a D-Bus bus through sd-bus: its only owner, which closes
/// it (`sd_bus_flush_close_unref`) when it goes away.
///
/// Threading: sd-bus connections are not thread-safe. A connection is used
/// from one thread at a time (the type is not `Sendable`), and the signal and
/// method handlers it holds run on that thread, inside `process` and `run`.
package struct BusConnection: ~Copyable {
    let sd: SDBusLibrary
    let bus: OpaquePointer
    /// The match, object and pending-call slots, and the handlers they call back into.
    let registrations: Registrations
    /// False for the view of the connection a reply handler is given (see
    /// `callAsync`): only the owner closes the connection.
    private let ownsConnection: Bool

    /// Connects to the bus at `address` (a D-Bus address, `unix:path=…`) as
    /// a client, and says hello.
    /// - Throws: `dbus.no-session-bus` when the connection fails.
    package init(address: String, description: String = "tidings", library: SDBusLibrary) throws(BusError) {
        var created: OpaquePointer?
        let result = library.new(&created)
        guard result >= 0, let created else {
            throw BusError(BusError.operationFailed, errno: result, "cannot create a D-Bus connection")
        }
        let started: Int32 = address.withCString { address in
            description.withCString { description in
                var step = library.setAddress(created, address)
                if step >= 0 { step = library.setBusClient(created, 1) }
                if step >= 0 { step = library.setDescription(created, description) }
                if step >= 0 { step = library.start(created) }
                return step
            }
        }
        guard started >= 0 else {
            _ = library.flushCloseUnref(created)
            throw BusError(BusError.noSessionBus, errno: started, "cannot connect to the D-Bus bus at \(address)")
        }
        sd = library
        bus = created
        registrations = Registrations()
        ownsConnection = true
    }

    /// A view of the connection `bus`, for a handler running inside its
    /// owner's `processPending`: it shares the owner's registrations and
    /// never closes the connection.
    init(viewOf bus: OpaquePointer, _ sd: SDBusLibrary, _ registrations: Registrations) {
        self.sd = sd
        self.bus = bus
        self.registrations = registrations
        ownsConnection = false
    }

    /// Connects to the session bus the environment names.
    /// - Throws: `dbus.no-session-bus` when there is none (see `sessionAddress`) or connecting fails.
    package init(sessionBusWith library: SDBusLibrary,
                 environment: (String) -> String? = { getenv($0).map { String(cString: $0) } }) throws(BusError) {
        try self.init(address: try Self.sessionAddress(environment: environment), library: library)
    }

    /// The session bus's address: `DBUS_SESSION_BUS_ADDRESS`, else the socket
    /// `$XDG_RUNTIME_DIR/bus` when it exists (as sd-bus and libdbus look for it).
    /// - Throws: `dbus.no-session-bus` when neither names one.
    package static func sessionAddress(environment: (String) -> String?) throws(BusError) -> String {
        if let address = environment("DBUS_SESSION_BUS_ADDRESS"), !address.isEmpty { return address }
        if let runtime = environment("XDG_RUNTIME_DIR"), !runtime.isEmpty {
            var status = stat()
            let socketPath = runtime + "/bus"
            if stat(socketPath, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK {
                return "unix:path=" + socketPath
            }
        }
        throw BusError(BusError.noSessionBus,
                       "no session bus: DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus")
    }

    deinit {
        guard ownsConnection else { return }
        // Unreferencing a pending call's slot cancels it: its handler never runs.
        for slot in registrations.slots + registrations.calls.keys { _ = sd.slotUnref(slot) }
        registrations.calls.removeAll()
        _ = sd.flushCloseUnref(bus)
    }

    /// This connection's unique name on the bus (`:1.42`).
    package var uniqueName: String {
        get throws(BusError) {
            var name: UnsafePointer<CChar>?
            let result = sd.getUniqueName(bus, &name)
            guard result >= 0, let name else {
                throw BusError(BusError.operationFailed, errno: result, "cannot read the connection's unique name")
            }
            return String(cString: name)
        }
    }

    /// Takes the well-known `name` on the bus (no queueing, no replacement).
    package func requestName(_ name: String) throws(BusError) {
        let result = sd.requestName(bus, name, 0)
        if result == -EEXIST { throw BusError(BusError.nameTaken, "another connection owns the bus name \(name)") }
        if result < 0 { throw BusError(BusError.operationFailed, errno: result, "cannot own the bus name \(name)") }
    }

    /// Calls `member` of `interface` on the object `path` of `destination`,
    /// with the arguments `arguments` appends, and reads the reply with `reply`.
    /// - Parameter timeout: microseconds; 0 is sd-bus's default (25 s).
    /// - Throws: `dbus.call-failed` with the D-Bus error's name when the call
    ///   fails; `dbus.operation-failed` when the connection is closed.
    @_semantics("optimize.sil.specialize.generic.never")  // see BusConnection.callAsync
    package func call<Result>(
        _ destination: String, _ path: String, _ interface: String, _ member: String, timeout: UInt64 = 0,
        arguments: (borrowing MessageWriter) throws(BusError) -> Void = { (_: borrowing MessageWriter) in },
        reply: (borrowing MessageReader) throws(BusError) -> Result
    ) throws(BusError) -> Result {
        let message = try OwnedMessage.make("the call \(interface).\(member)", sd, {
            sd.newMethodCall(bus, &$0, destination, path, interface, member)
        }, body: arguments)
        var error = tidings_sd_bus_error()
        defer { sd.errorFree(&error) }
        var answered: OpaquePointer?
        let called = sd.call(bus, message.pointer, timeout, &error, &answered)
        guard called >= 0, let answered else {
            if [-ENOTCONN, -ECONNRESET, -EPIPE, -ESHUTDOWN].contains(called) {
                throw BusError(BusError.operationFailed, errno: called, "\(interface).\(member) on \(destination): the connection is closed")
            }
            let name = error.name.map { String(cString: $0) }
            let text = error.message.map { String(cString: $0) } ?? String(cString: strerror(-called))
            throw BusError(BusError.callFailed, name: name, "\(interface).\(member) on \(destination) failed: \(text)")
        }
        let answer = OwnedMessage(answered, sd)
        return try reply(MessageReader(message: answer.pointer, sd: sd))
    }

    /// Calls `handler` with each signal that matches, as long as the connection lives.
    /// Each nil filter matches anything. The match is in place when this returns.
    package func subscribe(sender: String? = nil, path: String? = nil, interface: String? = nil,
                           member: String? = nil,
                           handler: @escaping (borrowing MessageReader) -> Void) throws(BusError) {
        let box = Registrations.Handler { [sd] message, _ in
            handler(MessageReader(message: message, sd: sd))
            return 0
        }
        var slot: OpaquePointer?
        let result = sd.matchSignal(bus, &slot, sender, path, interface, member,
                                    { message, userdata, error in BusConnection.dispatch(message, userdata, error) },
                                    Unmanaged.passUnretained(box).toOpaque())
        guard result >= 0, let slot else {
            throw BusError(BusError.operationFailed, errno: result, "cannot subscribe to \(member ?? "signals")")
        }
        registrations.keep(slot, box)
    }

    /// Sends a signal from the object `path`, with the arguments `arguments` appends.
    package func emitSignal(_ path: String, _ interface: String, _ member: String,
                            arguments: (borrowing MessageWriter) throws(BusError) -> Void) throws(BusError) {
        let message = try OwnedMessage.make("the signal \(interface).\(member)", sd, {
            sd.newSignal(bus, &$0, path, interface, member)
        }, body: arguments)
        let sent = sd.send(bus, message.pointer, nil)
        if sent < 0 { throw BusError(BusError.operationFailed, errno: sent, "cannot send \(interface).\(member)") }
    }

    /// Routes a C callback to the Swift handler behind `userdata`.
    static func dispatch(_ message: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?,
                         _ error: UnsafeMutablePointer<tidings_sd_bus_error>?) -> Int32 {
        guard let message, let userdata else { return 0 }
        return Unmanaged<Registrations.Handler>.fromOpaque(userdata).takeUnretainedValue().body(message, error)
    }

    /// The slots (matches, objects) a connection holds and the handlers they
    /// call: kept alive as long as the connection, released after it closed.
    final class Registrations {
        /// A handler, passed to sd-bus as the callback's user data.
        final class Handler {
            /// Called with the message and the error sd-bus replies with when the handler sets it.
            let body: (OpaquePointer, UnsafeMutablePointer<tidings_sd_bus_error>?) -> Int32
            init(_ body: @escaping (OpaquePointer, UnsafeMutablePointer<tidings_sd_bus_error>?) -> Int32) {
                self.body = body
            }
        }

        private(set) var slots: [OpaquePointer] = []
        private var handlers: [Handler] = []
        /// The asynchronous calls waiting for their reply, by their slot (see `callAsync`).
        var calls: [OpaquePointer: PendingCall] = [:]

        func keep(_ slot: OpaquePointer, _ handler: Handler) {
            slots.append(slot)
            handlers.append(handler)
        }
    }
}

/// A message this side created or received: its one reference, dropped when the value goes away.
struct OwnedMessage: ~Copyable {
    let pointer: OpaquePointer
    private let sd: SDBusLibrary

    init(_ pointer: OpaquePointer, _ sd: SDBusLibrary) {
        self.pointer = pointer
        self.sd = sd
    }

    deinit { _ = sd.messageUnref(pointer) }

    /// The message `create` makes (one of sd-bus's `sd_bus_message_new…`),
    /// with the values `body` appends: a call, a signal or a reply to send.
    /// - Throws: `dbus.operation-failed`, naming `what`, when it cannot be built.
    @inline(never)  // inlined into callAsync, it crashed Swift 6.3.1's -O (see callAsync)
    static func make(_ what: String, _ sd: SDBusLibrary, _ create: (inout OpaquePointer?) -> Int32,
                     body: (borrowing MessageWriter) throws(BusError) -> Void) throws(BusError) -> OwnedMessage {
        var created: OpaquePointer?
        let result = create(&created)
        guard result >= 0, let created else { throw BusError(BusError.operationFailed, errno: result, "cannot build \(what)") }
        let message = OwnedMessage(created, sd)
        try body(MessageWriter(message: message.pointer, sd: sd))
        return message
    }
}
