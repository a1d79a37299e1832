import Glibc
import TidingsBase

/// Why a D-Bus operation failed: a stable code, and for a failed call the
/// D-Bus error's name (`org.freedesktop.DBus.Error.ServiceUnknown`).
package struct BusError: Error, Hashable, Sendable, CustomStringConvertible {
    /// libsystemd (sd-bus) could not be opened, or lacks a function.
    package static let noLibrary = Diagnostic.Code("dbus.no-library")
    /// There is no session bus to connect to, or connecting to it failed.
    package static let noSessionBus = Diagnostic.Code("dbus.no-session-bus")
    /// A method call failed: the peer answered with an error, or none came.
    package static let callFailed = Diagnostic.Code("dbus.call-failed")
    /// Another connection owns the bus name asked for.
    package static let nameTaken = Diagnostic.Code("dbus.name-taken")
    /// A message did not have the signature the caller expected.
    package static let unexpectedReply = Diagnostic.Code("dbus.unexpected-reply")
    /// Anything else sd-bus refused (building a message, matching, processing).
    package static let operationFailed = Diagnostic.Code("dbus.operation-failed")

    /// One of the codes above.
    package var code: Diagnostic.Code
    /// The D-Bus error name, for a call the peer (or the bus) answered with an error.
    package var name: String?
    /// One plain sentence.
    package var message: String

    /// An error with `code`, the D-Bus error `name` when there is one, and `message`.
    package init(_ code: Diagnostic.Code, name: String? = nil, _ message: String) {
        self.code = code
        self.name = name
        self.message = message
    }

    /// An error for what sd-bus reported as the negative errno `result` while doing `what`.
    init(_ code: Diagnostic.Code, errno result: Int32, _ what: String) {
        self.init(code, "\(what): \(String(cString: strerror(-result)))")
    }

    /// True when the connection itself is gone (or could not be used): a
    /// call the peer answered with a D-Bus error (`dbus.call-failed`) leaves
    /// the connection as it was.
    package var closedConnection: Bool { code == Self.operationFailed || code == Self.noSessionBus }

    /// The same error as a diagnostic, for surfaces that print or send diagnostics.
    package var diagnostic: Diagnostic {
        Diagnostic(.error, code, name.map { "\(message) (\($0))" } ?? message)
    }

    /// The code, the message and the D-Bus error name, for logs.
    package var description: String { "\(code): \(diagnostic.message)" }
}
