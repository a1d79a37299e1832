/// The UnifiedPush connector's object, `/org/unifiedpush/Connector`, with
/// `org.unifiedpush.Connector2` (variant dictionaries) and
/// `org.unifiedpush.Connector1` (positional arguments, no reply) on a
/// connection the caller owns: the distributor calls it with each new
/// endpoint, each message, each registration it dropped.
///
/// Every argument is hostile input: any connection on the session bus can
/// call the object. Only the connection that owns the distributor the
/// connector registered with is believed (`allowedSender`, kept current by
/// the caller as the name changes owner); the types and sizes are checked
/// (`UnifiedPushLimits`), a message's bytes before they are copied. A call
/// refused is answered with a D-Bus error and said in `takeRefusals`; one
/// taken is answered at once (the distributor must not wait for more) and
/// queued for the caller, who acts on it after `processPending` returns.
package final class UnifiedPushConnectorObject {
    /// The object's path, which every distributor calls.
    package static let path = "/org/unifiedpush/Connector"
    /// The current interface.
    package static let interface2 = "org.unifiedpush.Connector2"
    /// The older interface, which Distributor1 distributors call.
    package static let interface1 = "org.unifiedpush.Connector1"

    /// A call taken, checked.
    package enum Call: Sendable, Equatable {
        /// `NewEndpoint`: the registration `token`'s endpoint is (now) `endpoint`.
        case newEndpoint(token: String, endpoint: String)
        /// `Message`: `message`, the raw body the push server received for `token`, with its id when the distributor gave one.
        case message(token: String, message: [UInt8], id: String?)
        /// `Unregistered`: the distributor dropped (or confirms dropping) `token`.
        case unregistered(token: String)

        /// The registration the call is about.
        package var token: String {
            switch self {
            case .newEndpoint(let token, _), .message(let token, _, _), .unregistered(let token): token
            }
        }
    }

    /// What the object keeps between `processPending` and the caller.
    private final class State {
        /// The calls taken, in order, with the interface they came through.
        var calls: [(Call, String)] = []
        /// The refusals, each a sentence.
        var refused: [String] = []
        /// The unique name of the connection believed; nil: none is.
        var allowedSender: String?
    }
    private let state = State()

    /// The unique name (`:1.42`) of the only connection whose calls are
    /// taken: the distributor's owner; nil refuses every call.
    package var allowedSender: String? {
        get { state.allowedSender }
        set { state.allowedSender = newValue }
    }

    /// Exports the object on `connection`.
    package init(on connection: borrowing BusConnection) throws(BusError) {
        try connection.exportObject(at: Self.path) { [state] (call: borrowing MethodCall) throws(BusError) in
            try Self.answer(call, state)
        }
    }

    /// The calls taken since the last time, in order, each with the interface it came through.
    package func takeCalls() -> [(call: Call, interface: String)] {
        defer { state.calls = [] }
        return state.calls.map { ($0.0, $0.1) }
    }

    /// The refusals since the last time, each a sentence for the log.
    package func takeRefusals() -> [String] {
        defer { state.refused = [] }
        return state.refused
    }

    /// Answers one method call to `path`.
    private static func answer(_ call: borrowing MethodCall, _ state: State) throws(BusError) {
        let interface = call.arguments.interface
        let member = call.arguments.member ?? ""
        if interface == "org.freedesktop.DBus.Introspectable", member == "Introspect" {
            return try call.reply { (writer: borrowing MessageWriter) throws(BusError) in try writer.append(introspection) }
        }
        guard interface == interface2 || interface == interface1,
              ["NewEndpoint", "Message", "Unregistered"].contains(member), let interface else { return }
        let sender = call.arguments.sender
        guard let sender, sender == state.allowedSender else {
            let sentence = "\(member) from \(sender ?? "an unknown sender") refused: only the distributor registered with "
                + "(\(state.allowedSender.map { "its owner \($0)" } ?? "none yet")) may call the connector"
            state.refused.append(sentence)
            throw BusError(BusError.callFailed, name: "org.freedesktop.DBus.Error.AccessDenied", sentence)
        }
        let taken: Call
        let id: String?
        do throws(UnifiedPushRefusal) {
            (taken, id) = interface == interface2 ? try read2(member, call.arguments) : try read1(member, call.arguments)
        } catch {
            let sentence = "\(member) (\(interface)) from \(sender) refused: \(error.sentence)"
            state.refused.append(sentence)
            throw BusError(BusError.callFailed, name: "org.freedesktop.DBus.Error.InvalidArgs", sentence)
        }
        state.calls.append((taken, interface))
        if interface == interface2 {
            // Message answers the id it was given ("If key was send"); the others an empty dictionary.
            let answer: [String: BusValue] = id.map { ["id": .string($0)] } ?? [:]
            try call.reply { (writer: borrowing MessageWriter) throws(BusError) in try writer.append(dictionary: answer) }
        } else {
            try call.reply()
        }
    }

    /// Connector2's call `member`: one `a{sv}`. Returns the call and, for
    /// Message, the `id` key exactly as sent (to answer it).
    private static func read2(_ member: String, _ reader: borrowing MessageReader) throws(UnifiedPushRefusal) -> (Call, String?) {
        let fields = try UnifiedPushArguments.read(reader)
        let token = try UnifiedPushLimits.token(fields.strings["token"])
        switch member {
        case "NewEndpoint":
            return (.newEndpoint(token: token, endpoint: try UnifiedPushLimits.endpoint(fields.strings["endpoint"])), nil)
        case "Message":
            let sentID = fields.strings["id"]
            let message = try UnifiedPushLimits.message(fields.message)
            return (.message(token: token, message: message, id: try UnifiedPushLimits.messageID(sentID)), sentID)
        default:
            return (.unregistered(token: token), nil)
        }
    }

    /// Connector1's call `member`: positional strings, and Message's bytes.
    private static func read1(_ member: String, _ reader: borrowing MessageReader) throws(UnifiedPushRefusal) -> (Call, String?) {
        let token: String
        var second: String?
        var bytes: [UInt8]?
        do throws(BusError) {
            token = try reader.readString()
            switch member {
            case "NewEndpoint": second = try reader.readString()
            case "Message":
                bytes = try reader.readBytes(atMost: UnifiedPushLimits.busMessage)
                second = try reader.readString()
            default: break
            }
        } catch {
            throw UnifiedPushRefusal(sentence: "the arguments are not Connector1's (\(error.message))")
        }
        let checked = try UnifiedPushLimits.token(token)
        switch member {
        case "NewEndpoint":
            return (.newEndpoint(token: checked, endpoint: try UnifiedPushLimits.endpoint(second)), nil)
        case "Message":
            return (.message(token: checked, message: try UnifiedPushLimits.message(bytes),
                             id: try UnifiedPushLimits.messageID(second)), nil)
        default:
            return (.unregistered(token: checked), nil)
        }
    }

    /// What `Introspect` answers: both interfaces, as the specification's XML files give them.
    static let introspection = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
          <interface name="org.unifiedpush.Connector2">
            <method name="Message"><arg name="args" type="a{sv}" direction="in"/><arg name="res" type="a{sv}" direction="out"/></method>
            <method name="NewEndpoint"><arg name="args" type="a{sv}" direction="in"/><arg name="res" type="a{sv}" direction="out"/></method>
            <method name="Unregistered"><arg name="args" type="a{sv}" direction="in"/><arg name="res" type="a{sv}" direction="out"/></method>
          </interface>
          <interface name="org.unifiedpush.Connector1">
            <method name="Message"><arg name="token" type="s" direction="in"/><arg name="message" type="ay" direction="in"/><arg name="messageIdentifier" type="s" direction="in"/><annotation name="org.freedesktop.DBus.Method.NoReply" value="true"/></method>
            <method name="NewEndpoint"><arg name="token" type="s" direction="in"/><arg name="endpoint" type="s" direction="in"/><annotation name="org.freedesktop.DBus.Method.NoReply" value="true"/></method>
            <method name="Unregistered"><arg name="token" type="s" direction="in"/><annotation name="org.freedesktop.DBus.Method.NoReply" value="true"/></method>
          </interface>
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect"><arg name="xml_data" type="s" direction="out"/></method>
          </interface>
        </node>
        """
}
