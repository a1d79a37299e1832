import TidingsBase
import TidingsProtocol

/// `server.hello`: a connection says what it is, an app or a front end.
extension HostService {
    /// The family's method.
    static let helloMethods: [Method] = [
        Method(ProtocolMethod(
            .serverHello,
            summary: "Say what the connection is: an `app` (every call then confined to that app: it cannot decide authorization, not even its own, nor respond, nor work the expanded interface, and hears only its own events) or a `frontEnd` (acts for the person: today's rights). A connection that calls anything else first is an unsandboxed front end; a sandboxed peer (Flatpak, Snap) is an app connection of its sandbox's app id from the start. The role is fixed by the first call: saying hello again the same way is fine, another role or app is refused (-32011), and so is a sandboxed peer claiming another app or a front end.",
            parameters: [
                ProtocolField("role", .choice(ClientRole.allCases.map(\.rawValue)), required: true, "`\"app\"` or `\"frontEnd\"`."),
                ProtocolField("app", .name, "The app's identifier; required when `role` is `\"app\"`, refused for a front end."),
                ProtocolField("client", .string, "What the client is (`\"tidings desktop 0.4\"`), for the server's log."),
            ],
            result: "`role`, `app` (null for a front end) and `sandbox`: null, or `{kind, app, instance}` (`kind` `\"flatpak\"` or `\"snap\"`) when the peer runs in one.",
            returns: .object([
                ProtocolField("role", .choice(ClientRole.allCases.map(\.rawValue)), required: true, "The connection's role."),
                ProtocolField("app", .nullable(.string), required: true, "The app of an app connection; null for a front end."),
                ProtocolField("sandbox", .nullable(.object([
                    ProtocolField("kind", .choice("flatpak", "snap"), required: true, "Which sandbox."),
                    ProtocolField("app", .string, required: true, "The app id the sandbox gives."),
                    ProtocolField("instance", .nullable(.string), required: true, "The sandbox's instance."),
                ])), required: true, "The sandbox the peer runs in, or null."),
            ]),
            errors: [-32602, -32011]),
               scope: RequestScope(writing: [.identity])) { service, params, client throws(RPCError) in
            try service.hello(&params, client: client)
        },
    ]

    /// `server.hello` from `client`: records its role (refused as
    /// `ConnectionIdentity.hello` says) and logs it.
    private func hello(_ params: inout Params, client: any EventReceiver) throws(RPCError) -> JSON {
        let role: ClientRole? = params.choice("role")
        let app = params.string("app")
        let name = params.string("client")
        try params.check()
        guard let role else { throw .invalidParams("The parameter \"role\" is required.") }
        if role == .app && app == nil { throw .invalidParams("An app's hello names it: \"app\" is required with role \"app\".") }
        if role == .frontEnd && app != nil { throw .invalidParams("A front end acts for every app: \"app\" is only for role \"app\".") }
        guard let connection = client as? any IdentifiedClient else {
            return ClientIdentity(role: role, app: app).helloJSON
        }
        let made: ClientIdentity
        do throws(RPCError) {
            made = try connection.identity.hello(role: role, app: app, client: name)
        } catch {
            configuration.log(.warning(.clientHello, "A hello as \(role == .app ? "app \(app ?? "")" : "a front end") was refused (client \(name ?? "unnamed"), pid \(connection.identity.current.peer.map { "\($0.pid)" } ?? "none")): \(error.message)"))
            throw error
        }
        let sandbox = made.sandbox.map { ", \($0.kind.rawValue) sandbox" } ?? ""
        configuration.log(.note(.clientHello, "Hello: \(role == .app ? "app \(made.app ?? "")" : "a front end")\(sandbox), client \(name ?? "unnamed"), pid \(made.peer.map { "\($0.pid)" } ?? "none")."))
        return made.helloJSON
    }
}

extension Diagnostic.Code {
    /// A connection said hello (role, app, client, pid), or its hello was refused.
    package static let clientHello = Self("serve.hello")
}
