/// The pending requests of every app, by app and identifier, and how an
/// app's are ranked when its pending limit drops some.
///
/// Ranking (what `requests.pending` lists first, and the pending limit keeps
/// first): requests with a date to fire, soonest first; then calendar
/// requests that match no date to come, which never fire; then location
/// requests, whose time cannot be known. The limit drops a request that
/// never fires first, then the latest-firing, then location requests, the
/// last added first: iOS keeps an app's soonest-firing 64, and a location
/// request may fire any time.
struct PendingRequests {
    /// Each app's requests, by identifier.
    private(set) var apps: [String: [String: PendingRequest]] = [:]
    /// How many requests are pending, across apps.
    private(set) var count = 0
    /// The name of each app numbered (`number(of:)`), by number: what the heaps' entries name an app by.
    private var appNames: [String] = []
    /// The number of each app numbered, by name. An app keeps its number
    /// while the server runs (a few bytes for each app that ever had a request pending).
    private var appNumbers: [String: UInt32] = [:]

    /// The request `key` names, if pending.
    subscript(key: PendingKey) -> PendingRequest? {
        get { apps[key.app]?[key.identifier] }
        set {
            let old = apps[key.app]?[key.identifier]
            count += (newValue == nil ? 0 : 1) - (old == nil ? 0 : 1)
            if let newValue {
                apps[key.app, default: [:]][key.identifier] = newValue
            } else if old != nil {
                apps[key.app]?[key.identifier] = nil
                if apps[key.app]?.isEmpty == true { apps[key.app] = nil }
            }
        }
    }

    /// `app`, sharing the storage of the app's name already pending, if
    /// any: one copy of a long name for all of an app's requests, not one each.
    func interned(_ app: String) -> String {
        apps.index(forKey: app).map { apps.keys[$0] } ?? app
    }

    /// The number of `app`, which the heaps' entries name it by; given on first sight.
    mutating func number(of app: String) -> UInt32 {
        if let number = appNumbers[app] { return number }
        let number = UInt32(appNames.count)
        appNames.append(app)
        appNumbers[app] = number
        return number
    }

    /// The key of the request a heap's `entry` names.
    func key(of entry: FireHeap.Entry) -> PendingKey {
        PendingKey(app: appNames[Int(entry.app)], identifier: entry.identifier)
    }

    /// The request a heap's `entry` names, if pending.
    subscript(entry entry: FireHeap.Entry) -> PendingRequest? {
        apps[appNames[Int(entry.app)]]?[entry.identifier]
    }

    /// Every request, with its key.
    var all: [(key: PendingKey, request: PendingRequest)] {
        apps.flatMap { app, requests in requests.map { (PendingKey(app: app, identifier: $0.key), $0.value) } }
    }

    /// The requests of `app`, with their keys.
    func requests(of app: String) -> [(key: PendingKey, request: PendingRequest)] {
        (apps[app] ?? [:]).map { (PendingKey(app: app, identifier: $0.key), $0.value) }
    }

    /// Where a request ranks (see the type's summary): smaller first.
    /// - Parameter wallDate: the wall date it fires next, when it has one.
    static func rank(_ request: PendingRequest, firingAt wallDate: Double?) -> (Int, Double, UInt32) {
        if let wallDate { return (0, wallDate, request.number) }
        if case .boxed(let box) = request.trigger, case .location = box.trigger { return (2, 0, request.number) }
        return (1, 0, request.number)
    }

    /// When each class of rank is dropped (by the rank's first member): a
    /// request that never fires first, then one with a date, then a location request.
    private static let dropOrder = [1, 0, 2]

    /// The requests of `app` beyond the first `limit` by rank, the
    /// lowest-ranked first (see the type's summary for the order).
    func excess(of app: String, limit: Int, wallDate: (PendingRequest) -> Double?) -> [String] {
        guard let requests = apps[app], requests.count > limit else { return [] }
        let ranked = requests.map { (identifier: $0.key, rank: Self.rank($0.value, firingAt: wallDate($0.value))) }
        let dropping = ranked.sorted { first, second in
            let (a, b) = (Self.dropOrder[first.rank.0], Self.dropOrder[second.rank.0])
            if a != b { return a < b }
            return (first.rank.1, first.rank.2) > (second.rank.1, second.rank.2)
        }
        return dropping.prefix(requests.count - limit).map(\.identifier)
    }
}
