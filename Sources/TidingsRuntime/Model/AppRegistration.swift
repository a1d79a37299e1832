import TidingsBase

/// What a front end registers of an app besides its categories: the name
/// and icon its notifications' header shows instead of its bundle
/// identifier (on iOS, the app's display name and icon), and whether its
/// notifications show previews (the user's Show Previews setting).
///
/// As JSON, what `apps.register` takes and the server keeps:
///
///     {"app": "com.example.events", "name": "Events", "icon": "/usr/share/icons/events.png",
///      "showPreviews": "never"}
package struct AppRegistration: Sendable, Equatable {
    /// The app's display name; nil shows its bundle identifier.
    package var name: String?
    /// The app's icon: a path or an icon name, for the front end to draw; nil for none.
    package var icon: String?
    /// Whether its notifications show their text.
    package var showPreviews: ShowPreviews

    /// A registration with `name`, `icon` and `showPreviews`.
    package init(name: String? = nil, icon: String? = nil, showPreviews: ShowPreviews = .always) {
        self.name = name
        self.icon = icon
        self.showPreviews = showPreviews
    }

    /// The registration as JSON, without its app.
    package var json: JSON {
        var members: [(String, JSON)] = []
        if let name { members.append(("name", .string(name))) }
        if let icon { members.append(("icon", .string(icon))) }
        members.append(("showPreviews", .string(showPreviews.rawValue)))
        return .object(members)
    }

    /// The outcome of reading a registration: the app and what it registers, and diagnostics either way.
    package struct Reading: Sendable {
        /// The app and its registration; nil when the JSON is not one.
        package var registration: (app: String, registration: AppRegistration)?
        /// What was wrong or unknown in the JSON.
        package var diagnostics: [Diagnostic]
    }

    /// Reads `{"app", "name", "icon", "showPreviews"}`.
    package static func read(_ json: JSON) -> Reading {
        var fields = JSONFieldReader(file: nil, invalidCode: .appsInvalid, unknownMemberCode: .appsUnknownKey)
        guard let members = fields.object(json, at: []) else { return Reading(registration: nil, diagnostics: fields.diagnostics) }
        fields.checkMembers(members, allowed: ["app", "name", "icon", "showPreviews"], at: [])
        let app = fields.string(json["app"], at: ["app"]) ?? ""
        if app.isEmpty {
            fields.report(.error, .appsInvalid, "An app registration must name its \"app\" (a bundle identifier).", at: ["app"])
        }
        var registration = AppRegistration(name: fields.string(json["name"], at: ["name"]),
                                           icon: fields.string(json["icon"], at: ["icon"]))
        if let setting = fields.string(json["showPreviews"], at: ["showPreviews"]) {
            if let known = ShowPreviews(rawValue: setting) {
                registration.showPreviews = known
            } else {
                fields.report(.error, .appsInvalid,
                              "\"showPreviews\" must be "
                                  + ShowPreviews.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")
                                  + "; it is \"\(setting)\".", at: ["showPreviews"])
            }
        }
        return Reading(registration: fields.failed ? nil : (app, registration), diagnostics: fields.diagnostics)
    }
}

extension Diagnostic.Code {
    /// An app registration member has the wrong type or value.
    package static let appsInvalid = Self("apps.invalid")
    /// A key the app registration format does not define.
    package static let appsUnknownKey = Self("apps.unknown-key")
}
