/// A name of the protocol as the wire carries it: a method's (`family.verb`,
/// ``MethodName``) or an event's (``EventName``). The server's method and
/// event tables and every client take their names from the constants below,
/// so that a name is written once.
package struct ProtocolName<Kind: ProtocolNameKind>: Hashable, Sendable, CustomStringConvertible {
    /// The name as the wire carries it.
    package let rawValue: String

    /// A name; for those the constants do not hold (an app's own call of a
    /// newer method, a test of an unknown one).
    package init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// The name as the wire carries it.
    package var description: String { rawValue }
}

/// What a ``ProtocolName`` names.
package protocol ProtocolNameKind: Sendable {}
/// Methods: what a client calls, and the server's own requests.
package enum MethodKind: ProtocolNameKind {}
/// Events: what the server pushes (JSON-RPC notifications).
package enum EventKind: ProtocolNameKind {}

/// The name of a method (`family.verb`).
package typealias MethodName = ProtocolName<MethodKind>
/// The name of an event (a JSON-RPC notification's `method`).
package typealias EventName = ProtocolName<EventKind>

extension ProtocolName where Kind == MethodKind {
    /// `apps.foreground`.
    package static let appsForeground = Self("apps.foreground")
    /// `apps.list`.
    package static let appsList = Self("apps.list")
    /// `apps.register`.
    package static let appsRegister = Self("apps.register")
    /// `authorization.decide`.
    package static let authorizationDecide = Self("authorization.decide")
    /// `authorization.request`.
    package static let authorizationRequest = Self("authorization.request")
    /// `authorization.settings`.
    package static let authorizationSettings = Self("authorization.settings")
    /// `badge.set`.
    package static let badgeSet = Self("badge.set")
    /// `categories.list`.
    package static let categoriesList = Self("categories.list")
    /// `categories.register`.
    package static let categoriesRegister = Self("categories.register")
    /// `events.subscribe`.
    package static let eventsSubscribe = Self("events.subscribe")
    /// `events.unsubscribe`.
    package static let eventsUnsubscribe = Self("events.unsubscribe")
    /// `extensions.list`.
    package static let extensionsList = Self("extensions.list")
    /// `inbox.list`.
    package static let inboxList = Self("inbox.list")
    /// `inbox.take`.
    package static let inboxTake = Self("inbox.take")
    /// `location.update`.
    package static let locationUpdate = Self("location.update")
    /// `notifications.close`.
    package static let notificationsClose = Self("notifications.close")
    /// `notifications.deliver`.
    package static let notificationsDeliver = Self("notifications.deliver")
    /// `notifications.input`.
    package static let notificationsInput = Self("notifications.input")
    /// `notifications.interact`.
    package static let notificationsInteract = Self("notifications.interact")
    /// `notifications.list`.
    package static let notificationsList = Self("notifications.list")
    /// `notifications.open`.
    package static let notificationsOpen = Self("notifications.open")
    /// `notifications.presentation`.
    package static let notificationsPresentation = Self("notifications.presentation")
    /// `notifications.remove`.
    package static let notificationsRemove = Self("notifications.remove")
    /// `notifications.respond`.
    package static let notificationsRespond = Self("notifications.respond")
    /// `notifications.tap-media-button`.
    package static let notificationsTapMediaButton = Self("notifications.tap-media-button")
    /// `push.distributor`.
    package static let pushDistributor = Self("push.distributor")
    /// `push.endpoint`.
    package static let pushEndpoint = Self("push.endpoint")
    /// `push.list`.
    package static let pushList = Self("push.list")
    /// `push.receive`.
    package static let pushReceive = Self("push.receive")
    /// `push.register`.
    package static let pushRegister = Self("push.register")
    /// `push.registration-failed`.
    package static let pushRegistrationFailed = Self("push.registration-failed")
    /// `push.unregister`.
    package static let pushUnregister = Self("push.unregister")
    /// `push.unregistered`.
    package static let pushUnregistered = Self("push.unregistered")
    /// `requests.add`.
    package static let requestsAdd = Self("requests.add")
    /// `requests.pending`.
    package static let requestsPending = Self("requests.pending")
    /// `requests.remove`.
    package static let requestsRemove = Self("requests.remove")
    /// `server.hello`: a connection says what it is (an app, or a front end).
    package static let serverHello = Self("server.hello")
    /// `server.describe`.
    package static let serverDescribe = Self("server.describe")
    /// `server.ping`.
    package static let serverPing = Self("server.ping")
    /// `server.protocol`.
    package static let serverProtocol = Self("server.protocol")

    /// The server's own request to the connection an app is in the foreground
    /// on: how to present a notification.
    package static let appWillPresent = Self("app.willPresent")
}

extension ProtocolName where Kind == EventKind {
    /// `notification.delivered`.
    package static let notificationDelivered = Self("notification.delivered")
    /// `presentation.changed`.
    package static let presentationChanged = Self("presentation.changed")
    /// `notification.dismissed`.
    package static let notificationDismissed = Self("notification.dismissed")
    /// `response.forwarded`.
    package static let responseForwarded = Self("response.forwarded")
    /// `notification.background`.
    package static let notificationBackground = Self("notification.background")
    /// `inbox.taken`.
    package static let inboxTaken = Self("inbox.taken")
    /// `inbox.dropped`.
    package static let inboxDropped = Self("inbox.dropped")
    /// `app.badge-changed`.
    package static let appBadgeChanged = Self("app.badge-changed")
    /// `authorization.requested`.
    package static let authorizationRequested = Self("authorization.requested")
    /// `authorization.changed`.
    package static let authorizationChanged = Self("authorization.changed")
    /// `extension.failed`.
    package static let extensionFailed = Self("extension.failed")
    /// `extension.late-completion`.
    package static let extensionLateCompletion = Self("extension.late-completion")
    /// `request.scheduled`.
    package static let requestScheduled = Self("request.scheduled")
    /// `request.fired`.
    package static let requestFired = Self("request.fired")
    /// `request.removed`.
    package static let requestRemoved = Self("request.removed")
    /// `state.degraded`.
    package static let stateDegraded = Self("state.degraded")
    /// `state.recovered`.
    package static let stateRecovered = Self("state.recovered")
    /// `state.repaired`.
    package static let stateRepaired = Self("state.repaired")
    /// `events.lagging`.
    package static let eventsLagging = Self("events.lagging")
    /// `push.registration-requested`.
    package static let pushRegistrationRequested = Self("push.registration-requested")
    /// `push.unregistering`.
    package static let pushUnregistering = Self("push.unregistering")
    /// `push.new-endpoint`.
    package static let pushNewEndpoint = Self("push.new-endpoint")
    /// `push.unregistered`.
    package static let pushUnregistered = Self("push.unregistered")
    /// `push.registration-failed`.
    package static let pushRegistrationFailed = Self("push.registration-failed")
    /// `push.rate-limited`.
    package static let pushRateLimited = Self("push.rate-limited")
}

extension ProtocolName where Kind == MethodKind {
    /// Every method (the server's own requests among them) the constants above name, in their order.
    package static let all: [Self] = [
        .appsForeground,
        .appsList,
        .appsRegister,
        .authorizationDecide,
        .authorizationRequest,
        .authorizationSettings,
        .badgeSet,
        .categoriesList,
        .categoriesRegister,
        .eventsSubscribe,
        .eventsUnsubscribe,
        .extensionsList,
        .inboxList,
        .inboxTake,
        .locationUpdate,
        .notificationsClose,
        .notificationsDeliver,
        .notificationsInput,
        .notificationsInteract,
        .notificationsList,
        .notificationsOpen,
        .notificationsPresentation,
        .notificationsRemove,
        .notificationsRespond,
        .notificationsTapMediaButton,
        .pushDistributor,
        .pushEndpoint,
        .pushList,
        .pushReceive,
        .pushRegister,
        .pushRegistrationFailed,
        .pushUnregister,
        .pushUnregistered,
        .requestsAdd,
        .requestsPending,
        .requestsRemove,
        .serverHello,
        .serverDescribe,
        .serverPing,
        .serverProtocol,
        .appWillPresent,
    ]
}

extension ProtocolName where Kind == EventKind {
    /// Every event the constants above name, in their order.
    package static let all: [Self] = [
        .notificationDelivered,
        .presentationChanged,
        .notificationDismissed,
        .responseForwarded,
        .notificationBackground,
        .inboxTaken,
        .inboxDropped,
        .appBadgeChanged,
        .authorizationRequested,
        .authorizationChanged,
        .extensionFailed,
        .extensionLateCompletion,
        .requestScheduled,
        .requestFired,
        .requestRemoved,
        .stateDegraded,
        .stateRecovered,
        .stateRepaired,
        .eventsLagging,
        .pushRegistrationRequested,
        .pushUnregistering,
        .pushNewEndpoint,
        .pushUnregistered,
        .pushRegistrationFailed,
        .pushRateLimited,
    ]
}
