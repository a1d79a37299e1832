import TidingsBase

/// Tidings' backend of the notification portal
/// (`org.freedesktop.impl.portal.Notification`), on the front end's bus
/// connection: it owns `busName`, exports `path`, and hands each call it
/// takes to the front end as a `PortalCall` (inside `processPending`; the
/// front end does the server's part after it returns).
///
/// Only xdg-desktop-portal may call it: the connection that owns
/// `org.freedesktop.portal.Desktop` (followed as it changes). It is the
/// portal that vouches for the app id; any other caller could claim any app,
/// and is refused with AccessDenied.
package final class PortalBackend {
    /// The bus name the `.portal` file names.
    package static let busName = "org.freedesktop.impl.portal.desktop.tidings"
    /// The object every portal backend exports.
    package static let path = "/org/freedesktop/portal/desktop"
    /// The backend interface.
    package static let interface = "org.freedesktop.impl.portal.Notification"
    /// The portal's own name: its owner is the only caller believed.
    package static let portalName = "org.freedesktop.portal.Desktop"
    /// The interface version implemented (version 2's keys are read too).
    package static let version: UInt32 = 2

    /// A call taken: what the front end does next.
    package enum Call: Equatable, Sendable {
        /// AddNotification: the portal's app id, its id and the notification checked.
        case add(appID: String, id: String, PortalNotification)
        /// RemoveNotification.
        case remove(appID: String, id: String)
    }

    /// The calls taken and not handled yet, in order, and the portal's unique name.
    private final class State {
        var calls: [Call] = []
        /// The unique name that owns `portalName`, while one does.
        var portal: String?
        /// What was refused, for the log: each a sentence.
        var refused: [String] = []
    }
    private let state = State()

    /// Owns `busName` on `connection` and exports the backend.
    /// - Throws: `dbus.name-taken` when another backend owns the name; what the bus answered otherwise.
    init(on connection: borrowing BusConnection) throws(BusError) {
        try connection.requestName(Self.busName)
        try BusDaemonClient.followOwner(of: Self.portalName, on: connection) { [state] _, new in
            state.portal = new.isEmpty ? nil : new
        }
        try BusDaemonClient.nameOwner(Self.portalName, on: connection) { [state] _, owner in
            if case .success(let name) = owner, state.portal == nil { state.portal = name }
        }
        try connection.exportObject(at: Self.path) { [state] (call: borrowing MethodCall) throws(BusError) in
            try Self.answer(call, state)
        }
    }

    /// The calls taken since the last time, in order.
    package func takeCalls() -> [Call] {
        defer { state.calls = [] }
        return state.calls
    }

    /// The refusals since the last time, each a sentence for the log.
    package func takeRefusals() -> [String] {
        defer { state.refused = [] }
        return state.refused
    }

    /// Answers one method call to `path`.
    private static func answer(_ call: borrowing MethodCall, _ state: State) throws(BusError) {
        let interface = call.arguments.interface
        let member = call.arguments.member
        if interface == "org.freedesktop.DBus.Properties" {
            return try properties(call, member)
        }
        guard interface == Self.interface || interface == nil else { return }
        guard member == "AddNotification" || member == "RemoveNotification" else { return }
        guard let sender = call.arguments.sender, sender == state.portal else {
            let sentence = "\(member ?? "") from \(call.arguments.sender ?? "an unknown sender") refused: "
                + "only xdg-desktop-portal (the owner of \(portalName)) may call the backend"
            state.refused.append(sentence)
            throw BusError(BusError.callFailed, name: "org.freedesktop.DBus.Error.AccessDenied", sentence)
        }
        let appID = try call.arguments.readString()
        let id = try call.arguments.readString()
        guard appID.utf8.count <= PortalLimits.identifier, id.utf8.count <= PortalLimits.identifier, !id.isEmpty else {
            let refusal = PortalRefusal(sentence: "the app id or notification id is empty or longer than \(PortalLimits.identifier) bytes")
            state.refused.append(refusal.sentence)
            throw refusal.busError
        }
        if member == "RemoveNotification" {
            state.calls.append(.remove(appID: appID, id: id))
            return try call.reply()
        }
        let entries = try PortalNotification.readEntries(call.arguments)
        do throws(PortalRefusal) {
            let notification = try PortalNotification(entries: entries)
            state.calls.append(.add(appID: appID, id: id, notification))
        } catch {
            state.refused.append("AddNotification of \(appID.isEmpty ? "a host app" : appID)'s \(id) refused: \(error.sentence)")
            throw error.busError
        }
        try call.reply()
    }

    /// `org.freedesktop.DBus.Properties`: `version` and (version 2) `SupportedOptions`, read only.
    private static func properties(_ call: borrowing MethodCall, _ member: String?) throws(BusError) {
        let values: [String: BusValue] = ["version": .uint32(version), "SupportedOptions": .dictionary([:])]
        switch member {
        case "Get":
            let interface = try call.arguments.readString()
            let name = try call.arguments.readString()
            guard interface == Self.interface, let value = values[name] else {
                throw BusError(BusError.callFailed, name: "org.freedesktop.DBus.Error.UnknownProperty", "no property \(name)")
            }
            try call.reply { (writer: borrowing MessageWriter) throws(BusError) in try writer.append(variant: value) }
        case "GetAll":
            let interface = try call.arguments.readString()
            let all = interface == Self.interface ? values : [:]
            try call.reply { (writer: borrowing MessageWriter) throws(BusError) in try writer.append(dictionary: all) }
        case "Set":
            throw BusError(BusError.callFailed, name: "org.freedesktop.DBus.Error.PropertyReadOnly", "the properties are read only")
        default:
            return
        }
    }

    /// Sends ActionInvoked for `invocation`: xdg-desktop-portal passes it on
    /// to the app that added the notification.
    package static func invoke(_ invocation: PortalInvocation, on connection: borrowing BusConnection) throws(BusError) {
        try connection.emitSignal(path, interface, "ActionInvoked") { (writer: borrowing MessageWriter) throws(BusError) in
            try writer.append(invocation.appID)
            try writer.append(invocation.id)
            try writer.append(invocation.action)
            try writer.append(variants: invocation.target.map { [$0] } ?? [])
        }
    }
}
