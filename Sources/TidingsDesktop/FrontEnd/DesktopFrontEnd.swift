import Glibc
import TidingsBase
import TidingsProtocol

/// `tidings desktop`: shows what a running `tidings serve` presents on the
/// session's notification server (`org.freedesktop.Notifications`) and
/// answers the server with what the user does there. A client of the
/// server's public protocol only.
///
/// One thread, one `poll` loop over: the server's socket (non-blocking
/// JSON-RPC, every call answered through a callback), the bus, GeoClue's
/// bus while a region request is pending (`DesktopFrontEnd+Location`), the stop
/// pipe (SIGTERM/SIGINT), the inotify watch of the socket's directory, and
/// the reconnection timers. Either connection may go away and come back: the
/// server's events resume after the last `seq` handled (else everything is
/// listed again and reconciled with the screen), and a new bus shows again
/// what the server still shows. What is on screen, and the last `seq`, are
/// kept in `desktop.json` so that a restarted front end doubles nothing.
package final class DesktopFrontEnd {
    let options: FrontEndOptions
    let library: SDBusLibrary
    let log: FrontEndLog
    let stopPipe: StopPipe
    let watch: SocketWatch
    let activation = AppActivation()

    /// The server's connection, while there is one.
    var server: PolledRPCConnection?
    /// The bus and its notification server, while there is one.
    var desktop: DesktopBus?
    /// What is on screen and the last `seq` handled.
    var shown: ShownNotifications
    /// The apps' names and icons, as `apps.list` answers them.
    var apps: [String: AppDisplay] = [:]
    /// Each notification's `notification` object as its delivery or a re-list
    /// gave it (its attachments: the banner's image); forgotten when it is closed.
    /// Everything the front end keeps of a notification is by app and
    /// identifier (`NotificationKey`): two apps may use one identifier.
    var notifications: [NotificationKey: JSON] = [:]

    /// The parameters naming the notification `key` in a call: its identifier,
    /// and its app (every call names it; an entry an older `desktop.json` kept without one names none).
    func naming(_ key: NotificationKey) -> [(String, JSON)] {
        [("identifier", .string(key.identifier))] + (key.app.isEmpty ? [] : [("app", JSON.string(key.app))])
    }
    /// Apps asked about once (`apps.list` for an app not known).
    var appsAsked: Set<String> = []
    /// The inbox entries handed to their apps, by id: each once.
    var forwarded: Set<Int64> = []
    /// The inbox entries being handed to their apps: forgotten when the bus
    /// goes away (their calls go with it), and tried again when it is back.
    var forwarding: Set<Int64> = []
    /// The authorization requests waiting for the user, by app: shown again
    /// when the bus comes back (the server publishes each only once).
    var authorizationRequests: [String: JSON] = [:]
    /// The authorization prompts on screen: desktop id → app.
    var prompts: [UInt32: String] = [:]
    /// What the action keys of each prompt on screen mean.
    var promptActions: [UInt32: [String: DesktopAction]] = [:]
    /// The user's answers waiting for the server (it is away), oldest first.
    var answersWaiting: [Answer] = []
    /// The user's answers sent on the current connection and not answered yet, by the order they were sent.
    var answersInFlight: [Int: Answer] = [:]
    /// The number of the last answer sent.
    var nextAnswer = 0
    /// Desktop ids whose action was invoked: their close that follows is no dismissal.
    var invoked: Set<UInt32> = []
    /// Notifications dismissed as `replaced` whose new delivery has not come
    /// yet, by app and identifier, with the instant (monotonic) they are closed by if
    /// it does not: the new one then replaces it on screen (`replaces_id`).
    var awaitingReplacement: [NotificationKey: UInt64] = [:]
    /// Notifications on screen shown from another bus connection (a previous
    /// run's, or one that went away): the notification server sends their
    /// close and click there, so the next re-list shows each again from this
    /// connection (Notify replacing its desktop id), which takes them over.
    var takeOver: Set<NotificationKey> = []
    /// The calls on the notification server not answered yet, by number.
    var desktopCalls: [Int: DesktopCall] = [:]
    /// The number of the last call on the notification server.
    var lastDesktopCall = 0
    /// True once a late call was said to people, until the notification server answers again.
    var saidLate = false
    /// The notifications whose Notify is not answered yet, and what waits for its answer.
    var notifying: [NotificationKey: Notifying] = [:]
    /// How long a replaced notification waits for its replacement, in seconds.
    static let replacementWait = 1.0
    /// A re-list under way: the identifiers shown before it that it has not seen listed yet.
    var relisting: Relisting?
    /// The last re-list's generation.
    var relistGeneration = 0
    /// True once subscribed (and re-listed when needed) on the current connection.
    var synchronised = false
    /// True when a re-list is owed as soon as both connections are up (the bus came back).
    var relistOwed = false
    var serverRetry = Retry()
    var busRetry = Retry()
    /// Whether the front end said it waits for the server (said once per wait).
    var saidWaiting = false
    /// Whether the server connection was ever up (a reconnection is logged as such).
    var everConnected = false
    /// Set when the front end must stop with an error.
    var failure: FrontEndError?
    /// The portal's calls waiting for the server, oldest first (`DesktopFrontEnd+Portal`).
    var portalCalls: [PortalBackend.Call] = []
    /// True while a portal call's requests to the server are under way: the next waits for it.
    var portalBusy = false
    /// The region requests pending on the server: while there is one, the device's position is followed.
    var regions = RegionRequests()
    /// The follower of GeoClue2 (`DesktopFrontEnd+Location`); nil when `--geoclue-bus off`.
    lazy var location: LocationFollower? = options.geoclueAddress.map {
        LocationFollower(address: $0, destination: options.geoclueName, desktopID: Self.locationDesktopID, library: library)
    }
    /// Tidings' UnifiedPush connector (`DesktopFrontEnd+Push`); nil when `--push-bus off`.
    lazy var push: PushConnector? = options.pushAddress.map {
        PushConnector(address: $0, preferred: options.pushDistributor, library: library)
    }
    /// Whether the server has the push methods (`server.describe` lists `push.list`).
    var pushOffered = false
    /// The push events the server has, of those the front end hears.
    var pushEventsOffered: [EventName] = []
    /// The connector's calls waiting for the server, oldest first.
    var pushWaiting: [PushForward] = []
    /// The connector's calls sent on the current connection and not answered yet, by the order they were sent.
    var pushInFlight: [Int: PushForward] = [:]
    /// The number of the last connector's call sent.
    var nextPushForward = 0
    /// The expanded-interface windows open ("Show More"), each a `tidings show` process.
    lazy var windows = WindowProcesses(socketPath: options.socketPath)

    /// A call on the notification server not answered yet.
    struct DesktopCall {
        /// Its method, and the notification (or app) it is about, for the log.
        var method: String
        var subject: String
        /// When it is said to be late (monotonic); nil once it was.
        var due: UInt64?
        /// When it was sent (monotonic).
        var sent: UInt64
    }

    /// What waits for the answer to a notification's Notify.
    struct Notifying {
        /// The last show asked for meanwhile: made once the id is known.
        var next: (presentation: JSON, fromRelist: Bool)?
        /// Why it is to be closed once shown (Tidings closed it meanwhile).
        var closeAfter: String?
    }

    /// A re-list's progress.
    struct Relisting {
        /// Which re-list it is: the answers of one another replaced are dropped.
        var generation: Int
        /// Shown before the re-list and not listed (yet): closed at its end.
        var unseen: Set<NotificationKey>
        /// Presentations asked for and not answered yet.
        var outstanding = 0
        /// True once the last page is in.
        var listed = false
    }

    /// A front end for `options`, its bus reached through `library`, logging to `log`, stopped through `stop`.
    /// - Throws: `.system` when inotify cannot be used.
    package init(options: FrontEndOptions, library: SDBusLibrary, log: FrontEndLog, stop: StopPipe) throws(FrontEndError) {
        self.options = options
        self.library = library
        self.log = log
        self.stopPipe = stop
        do throws(SystemError) {
            watch = try SocketWatch(socketPath: options.socketPath)
        } catch {
            throw FrontEndError(.system, .error(.desktopSystem, "Cannot watch the socket's directory (inotify): \(error)."))
        }
        shown = ShownNotifications(path: options.statePath)
        if let directory = options.statePath.map(Path.directory(of:)) {
            _ = try? FileDescriptor(openingPrivateDirectory: directory)
        }
    }

    /// Connects to the bus (which must be there) and to the server (waited
    /// for, unless `waitForServer` is false), then serves until `stop()`.
    /// - Throws: why it could not start, or had to stop.
    package func run() throws(FrontEndError) {
        do throws(BusError) {
            try connectDesktop()
        } catch {
            // No bus at all at the start is an error; a bus without a notification server yet is waited for.
            guard error.code == BusError.callFailed else { throw FrontEndError(error) }
            log.record("waiting", [("for", .string("notifications"))],
                       "no notification server answers on the bus yet (\(error.message)); waiting for one")
            busRetry.schedule()
        }
        connectServer()
        while failure == nil {
            let going = turn()
            shown.persist()
            if !going { break }
        }
        if let failure { throw failure }
    }

    /// One round of the loop: waits for something to do and does it; false once asked to stop.
    private func turn() -> Bool {
        var descriptors = [pollfd(fd: stopPipe.descriptor, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: watch.descriptor, events: Int16(POLLIN), revents: 0)]
        let serverIndex = server.map { server in
            descriptors.append(pollfd(fd: server.descriptor,
                                      events: Int16(POLLIN) | (server.wantsToWrite ? Int16(POLLOUT) : 0), revents: 0))
            return descriptors.count - 1
        }
        let busIndex = desktop.map { desktop in
            descriptors.append(pollfd(fd: desktop.connection.descriptor, events: desktop.connection.events, revents: 0))
            return descriptors.count - 1
        }
        let locationIndex = location?.polled.map { polled in
            descriptors.append(pollfd(fd: polled.descriptor, events: polled.events, revents: 0))
            return descriptors.count - 1
        }
        let pushIndex = push?.polled.map { polled in
            descriptors.append(pollfd(fd: polled.descriptor, events: polled.events, revents: 0))
            return descriptors.count - 1
        }
        let windowsFrom = descriptors.count
        descriptors += windows.descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let count = descriptors.count
        _ = descriptors.withUnsafeMutableBufferPointer { buffer in
            SystemCall.retrying { poll(buffer.baseAddress, nfds_t(count), timeout()) }
        }
        if descriptors[0].revents != 0 { return false }
        if descriptors[1].revents != 0, watch.drain(), server == nil { serverRetry.now() }
        if let serverIndex, descriptors[serverIndex].revents != 0 { serviceServer(descriptors[serverIndex].revents) }
        if let busIndex, desktop != nil { serviceDesktop(descriptors[busIndex].revents) }
        // Serviced on every round: its queued answers and sd-bus's own timers need no readiness.
        if locationIndex != nil || location?.polled != nil { serviceLocation() }
        if pushIndex != nil || push?.polled != nil { servicePush() }
        for window in descriptors[windowsFrom...] where window.revents != 0 { serviceWindow(window.fd) }
        let now = MonotonicClock.now()
        for (key, due) in awaitingReplacement where due <= now { closeReplaced(key) }
        for (number, call) in desktopCalls.sorted(by: { $0.key < $1.key }) { if let due = call.due, due <= now { late(number) } }
        if serverRetry.isDue(at: now) { connectServer() }
        if busRetry.isDue(at: now) { retryDesktop() }
        if let server, server.wantsToWrite { flush(server) }
        return true
    }

    /// Milliseconds until the next timer (a retry, the bus's own), -1 for none.
    private func timeout() -> Int32 {
        if desktop?.busy == true { return 0 }
        let now = MonotonicClock.now()
        var next: UInt64? = ([serverRetry.due, busRetry.due].compactMap { $0 } + awaitingReplacement.values
                             + desktopCalls.values.compactMap(\.due)).min()
        for busDue in [desktop?.connection.timeout, location?.polled?.timeout, push?.polled?.timeout].compactMap({ $0 }) {
            let due = busDue * 1_000
            next = min(next ?? due, due)
        }
        guard let next else { return -1 }
        return next <= now ? 0 : Int32(min((next - now) / 1_000_000 + 1, 60_000))
    }

    // MARK: The server's connection

    /// Connects to the server, or plans the next try.
    func connectServer() {
        let connection: PolledRPCConnection
        do throws(Diagnostic) {
            connection = try PolledRPCConnection(path: options.socketPath)
        } catch {
            if error.code.refusesPath {
                failure = FrontEndError(.unsafeSocket, error)
                return
            }
            guard options.waitForServer || everConnected else {
                failure = FrontEndError(.noServer, .error(.desktopNoServer,
                    "No server listens at \(options.socketPath); start one with `tidings serve`."))
                return
            }
            if !saidWaiting {
                saidWaiting = true
                log.record("waiting", [("for", .string("server")), ("socket", .string(options.socketPath))],
                           "no server listens at \(options.socketPath) yet; waiting for it")
            }
            watch.arm()
            serverRetry.schedule()
            return
        }
        saidWaiting = false
        serverRetry.reset()
        server = connection
        synchronised = false
        describe(connection)
    }

    /// The server's connection ended: forget it, plan a reconnection.
    func serverGone(_ why: String) {
        guard server != nil else { return }
        server = nil
        synchronised = false
        relisting = nil
        // The portal call under way lost its answers with the connection.
        portalBusy = false
        // Positions cannot reach it meanwhile: GeoClue is asked again once the regions are listed again.
        location?.want(false)
        keepUnansweredAnswers()
        keepUnansweredPushes()
        log.record("disconnected", [("reason", .string(why))], "the server went away (\(why)); reconnecting")
        watch.arm()
        serverRetry.schedule()
    }

    private func serviceServer(_ events: Int16) {
        guard let server else { return }
        if events & Int16(POLLOUT) != 0 { flush(server) }
        guard events & (Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR)) != 0 else { return }
        do throws(Diagnostic) {
            let closed = try server.receive { [unowned self] message in
                // A message read after the connection was given up (a failure met in a callback) is not handled.
                guard self.server === server else { return }
                switch message {
                case .event(let method, let event): handleEvent(method, event["params"] ?? .object([]))
                case .request(let id, let method, _):
                    server.refuse(id, code: -32601, message: "tidings desktop answers no \(method): it puts no app in the foreground.")
                case .answer: return
                }
            }
            if closed { serverGone("the server closed the connection") }
        } catch {
            serverGone(error.message)
        }
    }

    private func flush(_ connection: PolledRPCConnection) {
        do throws(SystemError) {
            try connection.flush()
        } catch {
            serverGone("\(error)")
        }
    }

    // MARK: The bus

    /// Connects to the bus and its notification server.
    func connectDesktop() throws(BusError) {
        let bus = try DesktopBus(address: options.busAddress, notificationsName: options.notificationsName,
                                 deadline: UInt64(min(max(options.callDeadline, 0.001), 86_400) * 1_000_000), library: library)
        desktop = bus
        busRetry.reset()
        // Ids kept from another bus or notification server (the last login's) mean nothing to this one.
        if shown.showing(onBus: bus.busID, server: bus.owner) {
            log.detail("the notification server is \(bus.owner) on bus \(bus.busID): the desktop ids kept are forgotten")
        }
        takeOver = Set(shown.entries.filter { $0.value.desktopID != 0 }.keys)
        if let problem = bus.portalProblem {
            log.record("portal", [("available", .bool(false)), ("reason", .string(problem))],
                       "the notification portal's backend is off: \(problem)")
        } else {
            log.record("portal", [("available", .bool(true)), ("name", .string(PortalBackend.busName))],
                       "serving the notification portal's backend as \(PortalBackend.busName)", detailed: true)
        }
        let capabilities = bus.capabilities.names.sorted()
        log.record("desktop", [("server", .string(bus.information.name)), ("version", .string(bus.information.version)),
                               ("capabilities", .array(capabilities.map(JSON.string)))],
                   "showing notifications on \(bus.information.name) \(bus.information.version) (\(capabilities.joined(separator: ", ")))")
    }

    private func retryDesktop() {
        do throws(BusError) {
            // What the screen showed before is forgotten when it belongs to a notification server that is gone.
            try connectDesktop()
            prompts = [:]
            promptActions = [:]
            invoked = []
            if synchronised { relist() } else { relistOwed = true }
            for request in authorizationRequests.values { prompt(request) }
            // The responses that came, or were being handed over, while it was away (without a
            // server synchronised, its subscription's replay of the inboxes hands them over).
            forwardInbox()
        } catch {
            // Another front end took the session while the bus was away: it shows the notifications now.
            if error.code == BusError.nameTaken { return failure = FrontEndError(error) }
            log.detail("the bus or its notification server is still away: \(error)")
            busRetry.schedule()
        }
    }

    private func serviceDesktop(_ events: Int16) {
        guard let bus = desktop else { return }
        do throws(BusError) {
            try bus.processPending()
        } catch {
            desktopGone(error.message)
            return
        }
        for arrival in bus.takeArrivals() {
            // An answer or signal handled may have lost the bus: the rest went with it.
            guard desktop === bus else { break }
            switch arrival {
            case .signal(let signal): handleSignal(signal)
            case .answer(let handle): handle()
            }
        }
        if desktop === bus { takePortalCalls(from: bus) }
        if events & (Int16(POLLHUP) | Int16(POLLERR)) != 0 {
            desktopGone("the bus closed the connection")
        } else if bus.ownerChanged {
            // Connected again at once: the notification server that shows them now has none of them.
            desktopGone("the notification server left the bus or was replaced")
            busRetry.now()
        }
    }

    /// The bus (or a call on it) failed: forget it, plan a reconnection.
    func desktopGone(_ why: String) {
        guard desktop != nil else { return }
        desktop = nil
        // Their calls went with the bus (their completion never runs): tried again when it is back.
        forwarding = []
        desktopCalls = [:]
        notifying = [:]
        saidLate = false
        log.record("disconnected", [("from", .string("bus")), ("reason", .string(why))],
                   "the bus or the notification server went away (\(why)); reconnecting")
        busRetry.schedule()
    }
}
