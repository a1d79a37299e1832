import TidingsBase

/// Tidings as a UnifiedPush connector, for the front end: on a session-bus
/// connection of its own (the notification server may come and go; pushes
/// do not wait for it), it owns `busName`, exports the connector's object
/// (`UnifiedPushConnectorObject`), finds a distributor (a name beginning with
/// `org.unifiedpush.Distributor.`), registers each token the server gave out
/// with it (`Register`, Distributor2 and else Distributor1), unregisters
/// those the server dropped, and hands the front end what the distributor
/// calls. A distributor that leaves the bus is looked for again; one that
/// comes back, or another that appears while there is none, is registered
/// with again.
///
/// Calls are made one after another, never from inside sd-bus's dispatch:
/// what the bus answers is queued during `service` and handled after it
/// (as `LocationFollower` does). The one exception is the owner of the
/// distributor's name, followed inside dispatch, so that a call from a
/// restarted distributor is believed from its first.
package final class PushConnector {
    /// The bus name distributors know Tidings by: the service given to `Register`.
    package static let busName = "org.tidings.Push"

    /// A registration the server gave out, to register with the distributor.
    package struct Registration: Sendable, Equatable {
        /// Its token: the connection token of the specification.
        package var token: String
        /// Its app, for the log.
        package var app: String
        /// The description the distributor may show (at most 100 bytes).
        package var description: String

        /// A registration of `app` under `token`, described by `description` (cut to 100 bytes).
        package init(token: String, app: String, description: String) {
            self.token = token
            self.app = app
            self.description = description.cut(toUTF8Bytes: 100)
        }
    }

    /// What the connector did or was told, for the front end to log and pass on.
    package enum Report: Sendable {
        /// The connection is up: `busName` owned, the object exported.
        case ready
        /// The distributor registered with, with the interface it speaks; nil: none is on the bus.
        case distributor(name: String?, version: UnifiedPushDistributorClient.Version?)
        /// `Register` of `registration` succeeded: its endpoint comes in `NewEndpoint`.
        case registered(Registration, distributor: String)
        /// `Register` of `registration` failed with `reason` (the distributor's, or why the call failed).
        case registrationFailed(Registration, reason: String)
        /// `Unregister` of `token` was sent to `distributor`.
        case unregisterSent(token: String, distributor: String)
        /// The distributor called the connector.
        case call(UnifiedPushConnectorObject.Call, interface: String)
        /// The distributor confirmed an `Unregister` the connector sent.
        case confirmed(token: String)
        /// The distributor `name` left the bus (it quit or crashed).
        case distributorLeft(name: String)
        /// The distributor `name` is owned by another connection now (it restarted).
        case distributorRestarted(name: String, owner: String)
        /// A call to the connector was refused: who made it and why.
        case refused(String)
        /// Something failed; the connector tries again at the next `synchronise`.
        case failed(BusError)
    }

    /// A step towards what is wanted, made one at a time.
    private enum Job: Equatable {
        /// Find the distributor.
        case discover
        /// `Register` the token.
        case register(String)
        /// `Unregister` the token with the distributor `name` in `version`'s form.
        case unregister(String, name: String, version: UnifiedPushDistributorClient.Version)
    }

    /// The distributor chosen.
    private struct Chosen {
        var client: UnifiedPushDistributorClient
        /// The unique name owning it now; nil while none does.
        var owner: String?
        var version: UnifiedPushDistributorClient.Version = .two
    }

    /// The connection, the object, and what dispatch queued.
    private final class Bus {
        let connection: BusConnection
        let object: UnifiedPushConnectorObject
        /// What the answers and signals met in `processPending` left to do, in order.
        var arrivals: [() -> Void] = []
        /// The distributor's name and owner, followed inside dispatch.
        var followed: (name: String, owner: String?)?

        init(_ connection: consuming BusConnection, _ object: UnifiedPushConnectorObject) {
            self.connection = connection
            self.object = object
        }
    }

    /// The session bus's address.
    private let address: String
    private let library: SDBusLibrary
    /// The distributor the person chose (`--push-distributor`), taken when on the bus.
    package let preferred: String?
    /// The distributor the server remembers (`push.list`'s): taken next.
    private var remembered: String?
    private var bus: Bus?
    private var chosen: Chosen?
    /// The registrations wanted, by token, in the order the server listed them.
    private var wanted: [String: Registration] = [:]
    private var order: [String] = []
    /// Tokens unregistered here: the distributor's Unregistered for one is a confirmation.
    private var unregistering: Set<String> = []
    private var jobs: [Job] = []
    /// The job under way: the next waits for its answer.
    private var current: Job?
    private var reports: [Report] = []

    /// A connector on the bus at `address`, preferring the distributor `preferred` (a full bus name or what follows the prefix).
    package init(address: String, preferred: String? = nil, library: SDBusLibrary) {
        self.address = address
        self.library = library
        self.preferred = preferred.map { UnifiedPushDistributorClient.isDistributorName($0) ? $0 : UnifiedPushDistributorClient.namePrefix + $0 }
    }

    /// The connection's descriptor, the events to poll it for and sd-bus's
    /// own deadline (microseconds, monotonic); nil while there is none.
    package var polled: (descriptor: Int32, events: Int16, timeout: UInt64?)? {
        bus.map { ($0.connection.descriptor, $0.connection.events, $0.connection.timeout) }
    }

    /// The distributor registered with, while there is one.
    package var distributor: String? { chosen?.client.name }

    /// The registrations the server lists now (`push.list`), and the
    /// distributor it remembers: registers each with the distributor (found
    /// first when none is yet), and reports the distributor.
    package func synchronise(_ registrations: [Registration], remembered: String?) {
        self.remembered = remembered
        wanted = [:]
        order = []
        for registration in registrations where wanted[registration.token] == nil {
            wanted[registration.token] = registration
            order.append(registration.token)
        }
        guard connect() else { return }
        if let chosen {
            reports.append(.distributor(name: chosen.client.name, version: chosen.version))
            for token in order { enqueue(.register(token)) }
        } else {
            enqueue(.discover)
        }
        step()
    }

    /// The server dropped the registration `token`: `Unregister` with the distributor.
    package func unregister(_ token: String) {
        if wanted.removeValue(forKey: token) != nil { order.removeAll { $0 == token } }
        jobs.removeAll { $0 == .register(token) }
        guard let chosen, bus != nil else { return }
        unregistering.insert(token)
        enqueue(.unregister(token, name: chosen.client.name, version: chosen.version))
        step()
    }

    /// Reads what the bus sent and handles it; what happened since the last call.
    package func service() -> [Report] {
        if let bus {
            do throws(BusError) {
                _ = try bus.connection.processPending()
                let arrivals = bus.arrivals
                bus.arrivals = []
                for refusal in bus.object.takeRefusals() { reports.append(.refused(refusal)) }
                for (call, interface) in bus.object.takeCalls() { take(call, interface) }
                for arrival in arrivals { arrival() }
            } catch {
                lose(error)
            }
        }
        step()
        defer { reports = [] }
        return reports
    }

    // MARK: The connection

    /// The connection, made when first needed: the name owned, the object
    /// exported, the distributors' names followed. False when it failed (reported).
    private func connect() -> Bool {
        if bus != nil { return true }
        do throws(BusError) {
            let connection = try BusConnection(address: address, description: "tidings-desktop-push", library: library)
            do throws(BusError) {
                try connection.requestName(Self.busName)
            } catch {
                guard error.code == BusError.nameTaken else { throw error }
                throw BusError(BusError.nameTaken, "another connection owns \(Self.busName) on the session bus: "
                               + "another tidings desktop receives the pushes")
            }
            let object = try UnifiedPushConnectorObject(on: connection)
            let made = Bus(connection, object)
            try BusDaemonClient.followOwners(prefix: UnifiedPushDistributorClient.namePrefix, on: made.connection) {
                [unowned self, weak made] name, old, new in
                // Weak: the handler lives in the connection `made` owns.
                guard let made else { return }
                // The owner is believed at once: the new one's first call may follow in this very dispatch.
                if made.followed?.name == name {
                    made.followed?.owner = new.isEmpty ? nil : new
                    made.object.allowedSender = new.isEmpty ? nil : new
                }
                made.arrivals.append { [unowned self] in ownerChanged(name, old: old, new: new) }
            }
            bus = made
            reports.append(.ready)
            return true
        } catch {
            reports.append(.failed(error))
            return false
        }
    }

    /// Forgets the connection after `error`: made again at the next `synchronise`.
    private func lose(_ error: BusError) {
        reports.append(.failed(error))
        guard error.closedConnection else { return }
        bus = nil
        chosen = nil
        jobs = []
        current = nil
    }

    // MARK: The jobs

    /// Queues `job` unless it is queued or under way.
    private func enqueue(_ job: Job) {
        guard current != job, !jobs.contains(job) else { return }
        jobs.append(job)
    }

    /// Starts the next job, unless one is under way.
    private func step() {
        while current == nil, !jobs.isEmpty, let bus {
            let job = jobs.removeFirst()
            do throws(BusError) {
                switch job {
                case .discover:
                    current = job
                    try discover(on: bus)
                case .register(let token):
                    guard let registration = wanted[token], let chosen else { continue }
                    current = job
                    try register(registration, with: chosen, on: bus)
                case .unregister(let token, let name, let version):
                    current = job
                    try UnifiedPushDistributorClient(name: name).unregister(token: token, version: version, on: bus.connection) {
                        [unowned self, bus] _, result in
                        bus.arrivals.append { [unowned self] in
                            current = nil
                            switch result {
                            case .success: reports.append(.unregisterSent(token: token, distributor: name))
                            case .failure(let error):
                                unregistering.remove(token)
                                reports.append(.failed(error))
                            }
                        }
                    }
                }
            } catch {
                current = nil
                lose(error)
            }
        }
    }

    /// Lists the distributors, chooses one (the preferred, the server's, the
    /// first by name), follows its owner, then registers every token with it.
    /// With none running, one D-Bus activation can start is chosen: the
    /// first `Register` starts it.
    private func discover(on bus: Bus) throws(BusError) {
        try UnifiedPushDistributorClient.list(on: bus.connection) { [unowned self, bus] _, result in
            bus.arrivals.append { [unowned self] in
                switch result {
                case .failure(let error):
                    current = nil
                    lose(error)
                case .success(let names):
                    guard let name = pick(names) else { return discoverActivatable(on: bus) }
                    followOwner(of: name, on: bus)
                }
            }
        }
    }

    /// The distributor to take of `names`: the preferred, the server's, the current, else the first.
    private func pick(_ names: [String]) -> String? {
        [preferred, remembered, chosen?.client.name].compactMap { $0 }.first(where: names.contains) ?? names.first
    }

    /// Chooses a distributor D-Bus activation can start (`ListActivatableNames`), or none.
    private func discoverActivatable(on bus: Bus) {
        do throws(BusError) {
            try BusDaemonClient.activatableNames(on: bus.connection) { [unowned self, bus] _, result in
                bus.arrivals.append { [unowned self] in
                    current = nil
                    let names = ((try? result.get()) ?? []).filter(UnifiedPushDistributorClient.isDistributorName).sorted()
                    choose(pick(names), owner: nil, activatable: true, on: bus)
                }
            }
        } catch {
            current = nil
            lose(error)
        }
    }

    /// Asks who owns `name` now, then chooses it.
    private func followOwner(of name: String, on bus: Bus) {
        do throws(BusError) {
            try BusDaemonClient.nameOwner(name, on: bus.connection) { [unowned self, bus] _, owner in
                bus.arrivals.append { [unowned self] in
                    current = nil
                    // Gone meanwhile (no owner): none, looked for again when a distributor appears.
                    let owner = try? owner.get()
                    choose(owner == nil ? nil : name, owner: owner, on: bus)
                }
            }
        } catch {
            current = nil
            lose(error)
        }
    }

    /// Takes the distributor `name` owned by `owner` (none: nil), and registers every token with it.
    /// An `activatable` distributor has no owner yet: it gets one when the first `Register` starts it.
    private func choose(_ name: String?, owner: String?, activatable: Bool = false, on bus: Bus) {
        guard let name, owner != nil || activatable else {
            chosen = nil
            bus.followed = nil
            bus.object.allowedSender = nil
            reports.append(.distributor(name: nil, version: nil))
            return
        }
        let version = chosen?.client.name == name ? chosen?.version ?? .two : .two
        chosen = Chosen(client: UnifiedPushDistributorClient(name: name), owner: owner, version: version)
        bus.followed = (name, owner)
        bus.object.allowedSender = owner
        reports.append(.distributor(name: name, version: version))
        for token in order { enqueue(.register(token)) }
    }

    /// `Register` of `registration` with the distributor; again in
    /// Distributor1's form when it has no Distributor2.
    private func register(_ registration: Registration, with chosen: Chosen, on bus: Bus) throws(BusError) {
        try chosen.client.register(service: Self.busName, token: registration.token, description: registration.description,
                                   version: chosen.version, on: bus.connection) { [unowned self, bus] _, result in
            bus.arrivals.append { [unowned self] in
                current = nil
                // Chosen another meanwhile: registered with that one in its turn.
                guard self.chosen?.client.name == chosen.client.name else { return }
                switch result {
                case .success(.succeeded):
                    reports.append(.registered(registration, distributor: chosen.client.name))
                case .success(.failed(let reason)):
                    reports.append(.registrationFailed(registration, reason: reason))
                case .failure(let error) where chosen.version == .two && UnifiedPushDistributorClient.lacksVersion2(error):
                    self.chosen?.version = .one
                    reports.append(.distributor(name: chosen.client.name, version: .one))
                    jobs.insert(.register(registration.token), at: 0)
                case .failure(let error):
                    reports.append(.registrationFailed(registration, reason: error.diagnostic.message))
                    if error.closedConnection { lose(error) }
                }
            }
        }
    }

    // MARK: What the bus says

    /// A call of the distributor, taken by the object.
    private func take(_ call: UnifiedPushConnectorObject.Call, _ interface: String) {
        if case .unregistered(let token) = call {
            if unregistering.remove(token) != nil { return reports.append(.confirmed(token: token)) }
            if wanted.removeValue(forKey: token) != nil { order.removeAll { $0 == token } }
        }
        reports.append(.call(call, interface: interface))
    }

    /// `name` changed owner from `old` to `new` ("" for none).
    private func ownerChanged(_ name: String, old: String, new: String) {
        guard let bus else { return }
        guard let chosen, chosen.client.name == name else {
            // A distributor appeared while there was none: looked for (the preferred one wins).
            if self.chosen == nil, !new.isEmpty { enqueue(.discover) }
            return
        }
        if new.isEmpty {
            self.chosen?.owner = nil
            reports.append(.distributorLeft(name: name))
            self.chosen = nil
            bus.followed = nil
            enqueue(.discover)
            return
        }
        let restarted = chosen.owner != nil && chosen.owner != new
        self.chosen?.owner = new
        // Started by a Register under way (D-Bus activation): that call's answer is awaited, nothing more.
        if !restarted, case .register? = current { return }
        if restarted { reports.append(.distributorRestarted(name: name, owner: new)) }
        for token in order { enqueue(.register(token)) }
    }
}
