import TidingsBase
import TidingsProtocol

/// Confinement: an app connection's call held to its app, in one place,
/// before the method reads its parameters (`HostService.answer`).
extension HostService {
    /// The parameters `method` runs with for `client`: as given for a front
    /// end; for an app connection, refused (-32011) when the method is a
    /// front end's or names another app, else with its `app` filled in (and
    /// `events.subscribe`'s `apps` made the app's own). Any call but hello
    /// fixes the connection's role.
    func confined(_ params: JSON?, of method: ProtocolMethod, for client: any EventReceiver) throws(RPCError) -> JSON? {
        guard method.name != MethodName.serverHello.rawValue, let connection = client as? any IdentifiedClient else {
            return params
        }
        let identity = connection.identity.settle()
        guard identity.role == .app else { return params }
        let refuse = { (why: String) -> RPCError in
            .notPermitted("\(identity.described): \(why)", role: identity.role.rawValue, app: identity.app, method: method.name)
        }
        let access = MethodAccess.of(method.name)
        switch access {
        case .everyone:
            return params
        case .frontEnd:
            throw refuse("\(method.name) is a front end's (it acts for the person), not an app's.")
        case .ownApp:
            break
        }
        guard let app = identity.app else {
            throw refuse("say server.hello as an app before calling \(method.name).")
        }
        guard case .object(var members) = params ?? .object([]) else { return params }
        // One member of each name, so that what is checked here is what the method reads.
        let naming = members.map(\.0).filter { $0 == "app" || $0 == "apps" }
        guard naming.count == Set(naming).count else {
            throw refuse("its call names \"app\" or \"apps\" twice.")
        }
        if method.name == MethodName.eventsSubscribe.rawValue {
            let position = members.firstIndex { $0.0 == "apps" }
            switch position.map({ members[$0].1 }) {
            case nil, .null?, .string("all")?:
                if let position { members.remove(at: position) }
                members.append(("apps", .array([.string(app)])))
            case .array(let names)? where !names.isEmpty && names.allSatisfy({ $0 == .string(app) }):
                break
            default:
                throw refuse("it hears only its own app's events; it cannot subscribe to other apps'.")
            }
            return .object(members)
        }
        // An app's method must name the app it acts on: one that cannot is a front end's.
        guard method.parameter("app") != nil else {
            throw refuse("\(method.name) cannot be confined to one app.")
        }
        if let position = members.firstIndex(where: { $0.0 == "app" }) {
            switch members[position].1 {
            case .null:
                members[position].1 = .string(app)
            case .string(let named) where named != app:
                throw refuse("it cannot call \(method.name) for app \(named).")
            default:
                // Its own app, or not a string, which the method reports.
                break
            }
        } else {
            members.append(("app", .string(app)))
        }
        return .object(members)
    }
}
