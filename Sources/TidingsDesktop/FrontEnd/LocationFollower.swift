import TidingsBase
import TidingsProtocol

/// Follows the device's position from GeoClue2 for the front end, while it
/// is wanted (`want`: while a region request is pending). On a D-Bus
/// connection of its own (GeoClue is on the system bus; a test's double on
/// a private one), made when first wanted: `GetClient`, `DesktopId` (the
/// front end's: it asks for the person, for every app; see Docs/desktop.md),
/// `RequestedAccuracyLevel`, `DistanceThreshold`, `Start`; `Stop` when no
/// longer wanted. Each `LocationUpdated` names a Location object, whose
/// `Latitude`, `Longitude` and `Accuracy` are read from GeoClue itself and
/// checked (`LocationUpdate`) before they are reported.
///
/// Calls are made one after another, never from inside sd-bus's dispatch:
/// what the bus answers is queued during `service` and handled after it.
package final class LocationFollower {
    /// What the follower did, for the front end to log and act on.
    package enum Report: Sendable {
        /// GeoClue runs the client at `client` for the front end.
        case started(client: String)
        /// The client was stopped.
        case stopped
        /// The device is at `location`.
        case location(LocationUpdate)
        /// Something failed (`error`); the follower tries again the next time it is wanted.
        case failed(BusError)
    }

    /// The connection to GeoClue's bus, and what its dispatch queued.
    private final class Bus {
        /// The connection, owned here.
        let connection: BusConnection
        /// What the answers and signals met in `processPending` left to do, in order.
        var arrivals: [() -> Void] = []
        /// Owns `connection`.
        init(_ connection: consuming BusConnection) { self.connection = connection }
    }

    /// The D-Bus address of GeoClue's bus.
    private let address: String
    /// libsystemd, for the connection.
    private let library: SDBusLibrary
    /// GeoClue's calls.
    private let geoclue: GeoClueClient
    /// The id GeoClue is told the client is (`DesktopId`).
    package let desktopID: String
    /// The accuracy asked for.
    package let accuracy: GeoClueClient.AccuracyLevel
    /// How far, in metres, the device moves before GeoClue says so again.
    package let distanceThreshold: UInt32
    /// The connection, once made; nil again when it is lost.
    private var bus: Bus?
    /// The client's path, once GetClient answered (and its signal subscribed to).
    private var client: String?
    /// Whether the client runs (Start answered, no Stop since).
    package private(set) var running = false
    /// Whether the front end wants positions.
    package private(set) var wanted = false
    /// True while a call is under way: the next waits for its answer.
    private var busy = false
    /// Reports waiting to be taken.
    private var reports: [Report] = []

    /// A follower of GeoClue at `destination` on the bus at `address`, as `desktopID`.
    package init(address: String, destination: String = "org.freedesktop.GeoClue2", desktopID: String,
                 accuracy: GeoClueClient.AccuracyLevel = .exact, distanceThreshold: UInt32 = 0, library: SDBusLibrary) {
        self.address = address
        self.library = library
        self.geoclue = GeoClueClient(destination: destination)
        self.desktopID = desktopID
        self.accuracy = accuracy
        self.distanceThreshold = distanceThreshold
    }

    /// The connection's descriptor, the events to poll it for and sd-bus's
    /// own deadline (microseconds, monotonic); nil while there is none.
    package var polled: (descriptor: Int32, events: Int16, timeout: UInt64?)? {
        bus.map { ($0.connection.descriptor, $0.connection.events, $0.connection.timeout) }
    }

    /// Asks for positions (`yes`) or for none any more: starts or stops the client.
    package func want(_ yes: Bool) {
        wanted = yes
        step()
    }

    /// Reads what the bus sent and handles it; what happened since the last call.
    package func service() -> [Report] {
        if let bus {
            do throws(BusError) {
                _ = try bus.connection.processPending()
                let arrivals = bus.arrivals
                bus.arrivals = []
                for arrival in arrivals { arrival() }
            } catch {
                lose(error)
            }
        }
        defer { reports = [] }
        return reports
    }

    /// Makes the next call towards what is wanted, unless one is under way.
    private func step() {
        guard !busy, wanted != running else { return }
        do throws(BusError) {
            let bus = try connected()
            guard let client else { return try getClient(on: bus) }
            if wanted {
                try configureAndStart(client, on: bus)
            } else {
                busy = true
                try geoclue.run(false, client: client, on: bus.connection) { [unowned self, bus] _, result in
                    bus.arrivals.append { [unowned self] in
                        busy = false
                        switch result {
                        case .success:
                            running = false
                            reports.append(.stopped)
                            step()
                        case .failure(let error): lose(error)
                        }
                    }
                }
            }
        } catch {
            busy = false
            lose(error)
        }
    }

    /// The connection, made when first needed.
    private func connected() throws(BusError) -> Bus {
        if let bus { return bus }
        let made = Bus(try BusConnection(address: address, description: "tidings-desktop-location", library: library))
        bus = made
        return made
    }

    /// `GetClient`, then the client's `LocationUpdated` subscribed to.
    private func getClient(on bus: Bus) throws(BusError) {
        busy = true
        try geoclue.getClient(on: bus.connection) { [unowned self, bus] _, result in
            bus.arrivals.append { [unowned self] in
                busy = false
                switch result {
                case .success(let path):
                    do throws(BusError) {
                        try geoclue.subscribe(client: path, on: bus.connection) { [unowned self, bus] location, _ in
                            bus.arrivals.append { [unowned self] in read(location) }
                        }
                        client = path
                    } catch {
                        return lose(error)
                    }
                    step()
                case .failure(let error): lose(error)
                }
            }
        }
    }

    /// Sets the client's properties, then `Start`.
    private func configureAndStart(_ client: String, on bus: Bus) throws(BusError) {
        busy = true
        let settings: [(String, BusValue)] = [("DesktopId", .string(desktopID)),
                                              ("RequestedAccuracyLevel", .uint32(accuracy.rawValue)),
                                              ("DistanceThreshold", .uint32(distanceThreshold))]
        func next(_ index: Int) {
            do throws(BusError) {
                guard index < settings.count else {
                    return try geoclue.run(true, client: client, on: bus.connection) { [unowned self, bus] _, result in
                        bus.arrivals.append { [unowned self] in
                            busy = false
                            switch result {
                            case .success:
                                running = true
                                reports.append(.started(client: client))
                                // Unwanted meanwhile: stopped at once.
                                step()
                            case .failure(let error): lose(error)
                            }
                        }
                    }
                }
                try geoclue.set(settings[index].0, to: settings[index].1, client: client, on: bus.connection) {
                    [unowned self, bus] _, result in
                    bus.arrivals.append { [unowned self] in
                        if case .failure(let error) = result {
                            busy = false
                            return lose(error)
                        }
                        next(index + 1)
                    }
                }
            } catch {
                busy = false
                lose(error)
            }
        }
        next(0)
    }

    /// Reads the Location at `path` from GeoClue and reports it, while positions are wanted.
    private func read(_ path: String) {
        guard wanted, let bus else { return }
        do throws(BusError) {
            try geoclue.location(at: path, on: bus.connection) { [unowned self, bus] _, result in
                bus.arrivals.append { [unowned self] in
                    switch result {
                    case .success(let location): if wanted { reports.append(.location(location)) }
                    case .failure(let error): reports.append(.failed(error))
                    }
                }
            }
        } catch {
            lose(error)
        }
    }

    /// Reports `error`; a connection that is gone, or a GeoClue that refused, is
    /// forgotten with its client: made again the next time positions are wanted
    /// (`want`), never retried in a loop.
    private func lose(_ error: BusError) {
        reports.append(.failed(error))
        if error.closedConnection || error.code == BusError.callFailed {
            bus = nil
            client = nil
            running = false
            busy = false
        }
    }
}
