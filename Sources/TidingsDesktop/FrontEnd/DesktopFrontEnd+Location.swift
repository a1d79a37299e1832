import TidingsBase
import TidingsProtocol

/// The device's position from GeoClue2, fed to the server's region requests
/// (`location.update`). The front end follows it, not the server: the
/// position is the person's, known to their session (GeoClue's agent asks
/// them, per desktop id), and the front end is the server's client that
/// acts for the person; the server stays a process without a bus. It asks
/// GeoClue only while a region request is pending: it learns them from
/// `requests.pending` on each synchronisation, then from the events
/// `request.scheduled`, `request.removed` and `request.fired`.
extension DesktopFrontEnd {
    /// The desktop id GeoClue is told (`DesktopId`): the front end's own, for
    /// every app. One client serves the region requests of all apps, and the
    /// position goes to the server, never to an app: an app learns only
    /// that its region was entered or left, as on iOS.
    static let locationDesktopID = DesktopBus.busName

    /// Lists the pending region requests (`requests.pending`) and follows the position while one is.
    func listRegions() {
        guard let server, location != nil else { return }
        server.call(.requestsPending) { [unowned self] answer in
            guard case .success(let pending) = answer else { return }
            regions.replace(with: pending)
            followLocation()
        }
    }

    /// Starts or stops following the position: while a region request is pending and the server is there.
    func followLocation() {
        guard let location else { return }
        let wanted = !regions.isEmpty && synchronised
        if wanted != location.wanted || (wanted && !location.running) {
            log.record("location", [("wanted", .bool(wanted)), ("regions", .integer(Int64(regions.count))),
                                    ("apps", .array(regions.apps.map(JSON.string)))],
                       wanted ? "\(regions.count) region requests are pending: asking GeoClue for the device's position"
                              : "no region request is pending: GeoClue is no longer asked", detailed: true)
        }
        location.want(wanted)
    }

    /// Handles what the follower did: each position goes to the server.
    func serviceLocation() {
        guard let location else { return }
        for happened in location.service() {
            switch happened {
            case .started(let client):
                log.record("location", [("geoclue", .string("started")), ("client", .string(client)),
                                        ("desktopID", .string(location.desktopID))],
                           "GeoClue follows the device's position (client \(client), as \(location.desktopID))")
            case .stopped:
                log.record("location", [("geoclue", .string("stopped"))], "GeoClue no longer follows the device's position")
            case .failed(let error):
                log.record("location", [("geoclue", .string("failed")), ("code", .string(error.code.rawValue)),
                                        ("message", .string(error.diagnostic.message))],
                           "GeoClue cannot give the device's position: \(error.diagnostic.message)")
            case .location(let update):
                tellServer(update)
            }
        }
    }

    /// `location.update` with `update`; a position that comes while the server
    /// is away is not kept (the next one tells where the device is then).
    private func tellServer(_ update: LocationUpdate) {
        guard let server, synchronised else { return }
        server.call(.locationUpdate, update.params) { [unowned self] answer in
            switch answer {
            case .success(let result):
                let fired = LocationUpdate.fired(result)
                log.record("located", [("latitude", .double(update.latitude)), ("longitude", .double(update.longitude)),
                                       ("accuracy", update.accuracy.map(JSON.double) ?? .null),
                                       ("fired", .array(fired.map { JSON.object([("app", .string($0.app)),
                                                                                 ("identifier", .string($0.identifier)),
                                                                                 ("crossing", .string($0.crossing))]) }))],
                           "the device is at \(update.latitude), \(update.longitude)"
                           + (fired.isEmpty ? "" : ": fired " + fired.map { "\($0.identifier) of \($0.app)" }.joined(separator: ", ")),
                           detailed: fired.isEmpty)
            case .failure(let error):
                log.record("refused", [("method", .string("location.update")), ("code", .integer(error.code)),
                                       ("message", .string(error.message))],
                           "the server refused the device's position: \(error.message)")
            }
        }
    }
}
