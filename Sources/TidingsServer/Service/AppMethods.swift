import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// `categories.*` and `apps.*`: what an app registers — its categories and
/// actions, its name, icon and previews setting — and what it has.
extension HostService {
    /// The `categories.*` methods.
    static let categoryMethods: [Method] = [
        Method(ProtocolMethod(
            .categoriesRegister,
            summary: "Set an app's categories and their actions, replacing those it had (setNotificationCategories).",
            parameters: [
                ProtocolField("app", .name, required: true, "The app's identifier (reverse DNS, as its bundle identifier)."),
                ProtocolField("categories", .array(.named("Category")), required: true,
                              "The categories, as in a category file: each an `identifier`, its ordered `actions` (each `identifier`, `title`, `options` (`authenticationRequired`, `destructive`, `foreground`), `icon`, and for a text-input action `textInput` (`buttonTitle`, `placeholder`)), `options` (`customDismissAction`, …), `intentIdentifiers`, `hiddenPreviewsBodyPlaceholder`, `categorySummaryFormat`."),
            ],
            result: "`app`, `categories` (the identifiers registered) and `diagnostics` (warnings about the categories). Kept across restarts.",
            returns: .object([appMember, ProtocolField("categories", .strings, required: true, "The identifiers registered."),
                              ProtocolField("diagnostics", .diagnostics, required: true, "Warnings about the categories.")]),
            errors: [-32602, -32000, -32010]),
               scope: RequestScope(writing: [.categories])) { service, params, _ throws(RPCError) in
            try service.registerCategories(&params)
        },
        Method(ProtocolMethod(
            .categoriesList,
            summary: "The registered categories, of one app or of all.",
            parameters: [ProtocolField("app", .name, "Only this app's; every app's when absent.")],
            result: "`apps`: each app (sorted by identifier) with its `categories`, as registered.",
            returns: .object([ProtocolField("apps", .array(.object([
                appMember, ProtocolField("categories", .array(.named("Category")), required: true, "Its categories, as registered."),
            ])), required: true, "Each app, sorted by identifier.")]),
            errors: [-32602]),
               scope: RequestScope(reading: [.categories])) { service, params, _ throws(RPCError) in
            try HostService.perApp(&params, service.host.registeredCategories()) { [("categories", .array($0.map(\.json)))] }
        },
    ]

    /// The `apps.*` methods.
    static let appMethods: [Method] = [
        Method(ProtocolMethod(
            .appsRegister,
            summary: "Set an app's display name and icon (shown in the header instead of its bundle identifier) and whether its notifications show previews (always, or never: the category's hidden-previews placeholder).",
            parameters: [
                ProtocolField("app", .name, required: true, "The app's identifier."),
                ProtocolField("name", .string, "The name a front end shows for the app."),
                ProtocolField("icon", .string, "The path of the app's icon."),
                ProtocolField("showPreviews", .choice(ShowPreviews.allCases.map(\.rawValue)), "`\"always\"` (the default) or `\"never\"`: its notifications then show the category's hidden-previews placeholder."),
            ],
            result: "The app's registration: `app`, `name` and `icon` when set, `showPreviews`. Replaces what it had; kept across restarts like categories.",
            returns: .object([appMember] + registrationMembers),
            errors: [-32602, -32000, -32010]),
               scope: RequestScope(writing: [.categories])) { service, params, _ throws(RPCError) in
            try service.registerApp(&params)
        },
        Method(ProtocolMethod(
            .appsList,
            summary: "The apps' names, icons and show-previews settings (as registered), badges (as notifications and `badge.set` set them) and authorizations, of one app or of all.",
            parameters: [ProtocolField("app", .name, "Only this app; every app registered, with a badge or with an authorization decided when absent.")],
            result: "`apps`: each app (sorted by identifier) with its `name` and `icon` when registered, `showPreviews`, `badge` (0: none), `badgeShown` (false when the app is denied or not granted `badge`: the count is kept, not shown), `authorizationStatus` (as `authorization.settings` says it) and `providesAppNotificationSettings` (it asked for it: its notifications offer \"Settings\").",
            returns: .object([ProtocolField("apps", .array(.object([appMember] + registrationMembers + [
                ProtocolField("badge", .integer(atLeast: 0), required: true, "Its badge; 0: none."),
                ProtocolField("badgeShown", .boolean, required: true, "Whether the badge shows."),
                ProtocolField("authorizationStatus", .named("AuthorizationStatus"), required: true, "Its authorization."),
                ProtocolField("providesAppNotificationSettings", .boolean, required: true,
                              "Whether it asked for `providesAppNotificationSettings`: a front end offers \"Settings\" (the response `tidings.settings`) on its notifications."),
            ])), required: true, "Each app, sorted by identifier.")]),
            errors: [-32602]),
               scope: RequestScope(reading: [.categories, .inbox])) { service, params, _ throws(RPCError) in
            try service.listApps(&params)
        },
    ]

    /// The `app` an answer is about.
    static let appMember = ProtocolField("app", .string, required: true, "The app.")

    /// The members of an app's registration, as `apps.register` and `apps.list` answer it.
    private static let registrationMembers = [
        ProtocolField("name", .string, "The name a front end shows for the app, when set."),
        ProtocolField("icon", .string, "The path of the app's icon, when set."),
        ProtocolField("showPreviews", .choice(ShowPreviews.allCases.map(\.rawValue)), required: true, "When its notifications show previews."),
    ]

    private func registerCategories(_ params: inout Params) throws(RPCError) -> JSON {
        _ = params.string("app")
        _ = params.objects("categories")
        try params.check()
        let reading = CategoryFile.read(params.json)
        guard let file = reading.file else { throw .invalidInput(reading.diagnostics) }
        try register(recording: { () throws(Diagnostic) in try state?.recordCategories(file.categories, of: file.app) },
                     then: { host.register(file.categories, for: file.app) })
        return .object([
            ("app", .string(file.app)),
            ("categories", .array(file.categories.map { .string($0.identifier) })),
            ("diagnostics", .array(reading.diagnostics.map(\.json))),
        ])
    }

    /// `apps.register`: records and sets an app's name, icon and show-previews setting.
    private func registerApp(_ params: inout Params) throws(RPCError) -> JSON {
        // Types are the parameters' (-32602); what the values mean, the registration's.
        for name in ["app", "name", "icon"] { _ = params.string(name) }
        let _: ShowPreviews? = params.choice("showPreviews")
        try params.check()
        let reading = AppRegistration.read(params.json)
        guard let (app, registration) = reading.registration else { throw .invalidInput(reading.diagnostics) }
        try register(recording: { () throws(Diagnostic) in try state?.recordRegistration(registration, of: app) },
                     then: { host.register(registration, for: app) })
        return .object([("app", .string(app))] + (registration.json.objectMembers ?? []))
    }

    /// `apps.list`: the apps registered, with a badge or with an
    /// authorization decided, or the one named; each with its registration,
    /// its badge (0: none), whether the badge shows, and its authorization.
    private func listApps(_ params: inout Params) throws(RPCError) -> JSON {
        typealias Listed = (registration: AppRegistration, badge: Int64, authorization: AppAuthorization)
        var apps: [String: Listed] = host.registeredApps().mapValues { ($0, 0, .notDetermined) }
        for (app, count) in badges.all { apps[app, default: (AppRegistration(), 0, .notDetermined)].badge = count }
        for (app, authorization) in authorizations.all {
            apps[app, default: (AppRegistration(), 0, .notDetermined)].authorization = authorization
        }
        let unasked = authorizations.unasked
        return try HostService.perApp(&params, apps) { listed in
            (listed.registration.json.objectMembers ?? []) + [
                ("badge", .integer(listed.badge)), ("badgeShown", .bool(listed.authorization.showsBadge(unasked: unasked))),
                ("authorizationStatus", .string(listed.authorization.status.rawValue)),
                ("providesAppNotificationSettings",
                 .bool(listed.authorization.options.contains(.providesAppNotificationSettings))),
            ]
        }
    }

    /// The answer of a `….list` method: `apps`, each app of `registered`
    /// (only the one the parameter `app` names, when it names one) with the
    /// `members` of what it registered.
    private static func perApp<Value>(_ params: inout Params, _ registered: [String: Value],
                                      members: (Value) -> [(String, JSON)]) throws(RPCError) -> JSON {
        let app = params.string("app")
        try params.check()
        let chosen = registered.filter { app == nil || $0.key == app }
        return .object([("apps", .array(chosen.keys.sorted().map { name in
            .object([("app", .string(name))] + members(chosen[name]!))
        }))])
    }

    /// Writes a registration's record with `record`, then makes it with
    /// `apply`, under the lock that keeps registrations in the order they
    /// were recorded; nothing is made when the record cannot be written.
    private func register(recording record: () throws(Diagnostic) -> Void, then apply: () -> Void) throws(RPCError) {
        try registrations.withLock { _ throws(RPCError) in
            do throws(Diagnostic) {
                try record()
            } catch {
                throw .stateNotWritten(error)
            }
            apply()
        }
    }
}
