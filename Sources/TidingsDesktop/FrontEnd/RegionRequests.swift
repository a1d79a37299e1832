import TidingsBase

/// The region requests pending on the server, by app and identifier, as the
/// front end learns them: all at once from `requests.pending` (on each
/// synchronisation), then one change at a time from the events
/// `request.scheduled` (a region trigger adds, another trigger under the
/// identifier removes), `request.removed` and `request.fired`. The front end
/// follows the device's position only while this is not empty.
package struct RegionRequests: Sendable {
    /// The identifiers of each app's pending region requests.
    package private(set) var byApp: [String: Set<String>] = [:]

    /// None pending.
    package init() {}

    /// True when no region request is pending.
    package var isEmpty: Bool { byApp.isEmpty }

    /// How many region requests are pending.
    package var count: Int { byApp.values.reduce(0) { $0 + $1.count } }

    /// The apps with a region request pending, sorted.
    package var apps: [String] { byApp.keys.sorted() }

    /// Whether `trigger` (as `requests.add` takes it) is a region's.
    package static func isRegion(_ trigger: JSON?) -> Bool {
        if case .object? = trigger?["region"] { return true }
        return false
    }

    /// Replaces what is known by the answer of `requests.pending`.
    package mutating func replace(with answer: JSON) {
        byApp = [:]
        for request in answer["requests"]?.arrayValue ?? [] {
            guard let app = request["app"]?.stringValue, let identifier = request["identifier"]?.stringValue,
                  Self.isRegion(request["trigger"]) else { continue }
            byApp[app, default: []].insert(identifier)
        }
    }

    /// Takes in the server's event `method` with `params`; true when it changed what is pending.
    @discardableResult
    package mutating func handle(_ method: String, _ params: JSON) -> Bool {
        guard let app = params["app"]?.stringValue else { return false }
        let before = byApp
        switch method {
        case "request.scheduled":
            guard let identifier = params["identifier"]?.stringValue else { return false }
            if Self.isRegion(params["trigger"]) {
                byApp[app, default: []].insert(identifier)
            } else {
                remove(app, [identifier])
            }
        case "request.removed":
            remove(app, (params["identifiers"]?.arrayValue ?? []).compactMap(\.stringValue))
        case "request.fired":
            // A one-shot region request is then removed (its `request.removed` says so too); a repeating one stays.
            guard let identifier = params["identifier"]?.stringValue, Self.isRegion(params["trigger"]),
                  params["trigger"]?["repeats"]?.boolValue != true else { return false }
            remove(app, [identifier])
        default:
            return false
        }
        return byApp != before
    }

    /// Forgets `identifiers` of `app`.
    private mutating func remove(_ app: String, _ identifiers: [String]) {
        guard var identifiersOfApp = byApp[app] else { return }
        identifiersOfApp.subtract(identifiers)
        byApp[app] = identifiersOfApp.isEmpty ? nil : identifiersOfApp
    }
}
