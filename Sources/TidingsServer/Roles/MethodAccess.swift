import TidingsProtocol

/// Who may call a method: the one table of every method's access level,
/// which `HostService.answer` confines app connections by and the protocol
/// reference marks each method with.
///
/// The levels follow iOS: an app delivers, lists and removes its own
/// notifications, schedules its own requests, sets its own badge,
/// registers its own categories, names itself, asks for authorization and
/// reads its own settings, takes its own inbox and hears its own events;
/// only the person (a front end) decides authorization, responds to a
/// notification, opens, closes or works its expanded interface, and tells
/// where the device is.
package enum MethodAccess: String, Sendable {
    /// Any connection.
    case everyone
    /// An app connection for its own app only (its `app` filled in when
    /// absent, refused when another); a front end for any app.
    case ownApp
    /// Front ends only.
    case frontEnd

    /// Every method's level, by name.
    package static let table: [MethodName: MethodAccess] = [
        .serverHello: .everyone,
        .serverDescribe: .everyone,
        .serverPing: .everyone,
        .serverProtocol: .everyone,
        .extensionsList: .frontEnd,
        .categoriesRegister: .ownApp,
        .categoriesList: .ownApp,
        .appsRegister: .ownApp,
        .appsList: .ownApp,
        .authorizationRequest: .ownApp,
        .authorizationDecide: .frontEnd,
        .authorizationSettings: .ownApp,
        .badgeSet: .ownApp,
        .appsForeground: .ownApp,
        .notificationsDeliver: .ownApp,
        .notificationsRespond: .frontEnd,
        .notificationsPresentation: .frontEnd,
        .notificationsList: .ownApp,
        .notificationsRemove: .ownApp,
        .notificationsOpen: .frontEnd,
        .notificationsClose: .frontEnd,
        .notificationsInteract: .frontEnd,
        .notificationsInput: .frontEnd,
        .notificationsTapMediaButton: .frontEnd,
        .requestsAdd: .ownApp,
        .requestsPending: .ownApp,
        .requestsRemove: .ownApp,
        .locationUpdate: .frontEnd,
        .inboxList: .ownApp,
        .inboxTake: .ownApp,
        .eventsSubscribe: .ownApp,
        .eventsUnsubscribe: .everyone,
        .pushRegister: .ownApp,
        .pushUnregister: .ownApp,
        .pushList: .ownApp,
        .pushDistributor: .frontEnd,
        .pushEndpoint: .frontEnd,
        .pushRegistrationFailed: .frontEnd,
        .pushUnregistered: .frontEnd,
        .pushReceive: .frontEnd,
    ]

    /// The level of method `name`; a method the table misses is a front
    /// end's (fail closed: a method added without a level confines apps).
    package static func of(_ name: String) -> MethodAccess {
        table[MethodName(name)] ?? .frontEnd
    }

    /// The level as the protocol reference says it, for the role column.
    package var described: String {
        switch self {
        case .everyone: "everyone"
        case .ownApp: "own app (an app connection: its own app only)"
        case .frontEnd: "front end only"
        }
    }
}
