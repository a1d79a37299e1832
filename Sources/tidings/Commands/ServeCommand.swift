import Glibc
import Synchronization
import TidingsBase
import TidingsRegistry
import TidingsIsolation
import TidingsRuntime
import TidingsServer

/// `tidings serve`: one long-running host for front ends, over JSON-RPC 2.0.
enum ServeCommand: Command {
    static let startsWorkers = true

    static let spec = CommandSpec(
        name: "serve",
        summary: "Run a host that front ends drive over JSON-RPC 2.0 (one message per line) on a Unix socket or standard input and output.",
        usage: "[--socket PATH | --stdio] [--isolation MODE] [--extensions DIR]... [--keep COUNT] [--keep-per-app COUNT] [--inbox-limit COUNT] [--inbox-total COUNT] [--pending-limit COUNT] [--pending-total COUNT] [--unasked-apps deliver|deny] [--push-burst COUNT] [--push-rate PER-SECOND] [--deadline SECONDS] [--service-deadline SECONDS] [--will-present-deadline SECONDS] [--warm-workers COUNT] [--warm-workers-per-bundle COUNT] [--warm-idle SECONDS] [--spin MICROSECONDS] [--max-connections COUNT] [--max-connections-per-process COUNT] [--connection-reserve COUNT] [--partial-request-timeout SECONDS]",
        options: [
            .init(name: "socket", value: "PATH",
                  help: "Listen on this Unix socket (default $XDG_RUNTIME_DIR/tidings/tidings.sock; its directory 0700, the socket 0600)."),
            .init(name: "stdio", value: nil, help: "Answer one client on standard input and output instead; end when input ends."),
            .init(name: "state", value: "DIR",
                  help: "Keep registered categories and delivered notifications here across restarts (default $XDG_STATE_HOME/tidings)."),
            .init(name: "keep", value: "COUNT",
                  help: "Keep at most this many delivered notifications in all (default \(HostService.Configuration.defaultKept)); a delivery beyond it expires the oldest of the app keeping the most (notification.dismissed, reason expired)."),
            .init(name: "keep-per-app", value: "COUNT",
                  help: "Keep at most this many delivered notifications of each app (default \(HostService.Configuration.defaultKeptPerApp)); a delivery beyond it expires the oldest of its own app, never another app's."),
            .init(name: "inbox-limit", value: "COUNT",
                  help: "Keep at most this many entries in each app's inbox (default \(AppInbox.defaultLimit)); one more drops the oldest, with a warning logged and an inbox.dropped event."),
            .init(name: "inbox-total", value: "COUNT",
                  help: "Keep at most this many inbox entries in all apps (default \(AppInbox.defaultTotalLimit)); one more drops the oldest of the app keeping the most (an inbox.dropped event)."),
            .init(name: "pending-limit", value: "COUNT",
                  help: "Keep at most this many pending requests per app, 1 – 1000000 (default \(PendingScheduler.defaultLimit), as iOS); one more drops the app's latest-firing (requests.add answers it in \"dropped\"; a request.removed event, reason limit)."),
            .init(name: "pending-total", value: "COUNT",
                  help: "Keep at most this many pending requests in all apps, 1 – 1000000 (default \(PendingScheduler.defaultTotalLimit)); requests.add beyond it is refused (error -32012, limit pendingRequests)."),
            .init(name: "unasked-apps", value: "deliver|deny",
                  help: "How the notifications of an app that never asked for authorization (authorization.request) are handled: deliver (the default, as authorized: Linux apps predate the prompt) or deny (as denied: not presented, badge not shown, background notifications still reach it)."),
            .init(name: "push-burst", value: "COUNT",
                  help: "Take at most this many push messages for one app at once (default 60, at most 1000000); beyond it they are refused (push.rate-limited) until the bucket refills at --push-rate."),
            .init(name: "push-rate", value: "PER-SECOND",
                  help: "Refill each app's push bucket at this many messages a second, sustained (default 1; \"2\" or \"2/s\"; 0.5 is one every two seconds)."),
            IsolationOption.option,
            SearchPathOption.option,
            SearchPathOption.noCacheOption,
        ] + DeadlineOption.options + WarmWorkersOption.options + [
            .init(name: "will-present-deadline", value: "SECONDS",
                  help: "How long an app in the foreground has to answer app.willPresent (default 1, at most 60); without an answer in time its notification is not presented."),
            .init(name: "max-payload-size", value: "BYTES", help: "The largest APNs payload accepted (default 4096)."),
            .init(name: "max-message-size", value: "BYTES",
                  help: "The longest JSON-RPC message accepted (default 1048576); a longer one gets an error."),
            .init(name: "max-connections", value: "COUNT",
                  help: "Take at most this many clients at once (default 1024, and never more than the limit of open files less 128 kept for attachments, the journal and workers); one more gets error -32012 and is closed."),
            .init(name: "max-connections-per-process", value: "COUNT",
                  help: "Take at most this many clients at once from one process (its pid, SO_PEERCRED; default 128)."),
            .init(name: "connection-reserve", value: "COUNT",
                  help: "Of --max-connections, keep this many for processes that have no connection yet (default 16): one process that opens all it may still leaves room for a new front end."),
            .init(name: "partial-request-timeout", value: "SECONDS",
                  help: "Close a client that begins a request and does not finish its line within this many seconds (default 10), after an error -32012."),
            .init(name: "spin", value: "MICROSECONDS",
                  help: "Poll this long for a client's next request before sleeping, while requests come back that quickly (default 0: never poll; also TIDINGS_SERVE_SPIN). Saves a thread's wake-up per request of a client that sends its next as soon as answered, at the cost of a core spinning: worth it with cores to spare."),
        ],
        discussion: [
            "Every method, its parameters, result and errors, and every event: tidings manual --protocol markdown (or openrpc: an OpenRPC document with JSON Schema for each), Docs/reference/protocol.md and openrpc.json in the source tree, and the server.protocol method of a running server (the OpenRPC document).",
            "Methods: \(HostService.protocolMethods.map(\.name).joined(separator: ", ")).",
            "Events: \(HostService.events.map(\.name).joined(separator: ", ")). Each carries seq, its sequence number; events.subscribe with after resumes after the last one heard.",
            "State: each change is written to the journal before it is made and answered (it survives kill -9), a notification expiring to make room (--keep) included; the journal is flushed to disk every second and folded into a snapshot on a thread of its own. A change whose record cannot be written (a full disk) is refused with error -32010 and the state reported degraded until writing works again.",
            "Threads: one event loop accepts clients and reads and writes every connection; calls are answered on a pool of 2 threads per core and 4 more. Neither grows with the number of clients, nor with the requests waiting for their turn or for an extension, nor with a client that stops reading: no write waits for a client (standard output included), what it leaves unread waits, up to 8 MiB, then it is cut off, and SIGTERM still stops the server. The soft limit of open files is raised to the hard one at the start (each client is a descriptor); a client that cannot be accepted for want of one waits in the backlog, and the log says so once.",
            "Pending requests (requests.add): kept in the state and armed again at the start — a one-shot request whose time passed while the server was down is delivered once, marked late; a repeating one fires its next time only. One thread sleeps until the earliest is due: time intervals count real time (CLOCK_BOOTTIME, a suspend included), dates follow the wall clock and the user's time zone (TZ, else /etc/localtime; setting the clock or changing the zone arms them again).",
            "Remote notifications: push.register gives an app a token and Web Push keys, kept in STATE/push/registrations.json (0600, its directory 0700); the desktop front end (tidings desktop) registers each token with the user's UnifiedPush distributor and hands the server what arrives (push.receive), which is checked (4,096 bytes at most, a known token, not a replay of the last 1,024 ids, within --push-burst and --push-rate, decrypting, an APNs payload), refused with error -32013 and a log line otherwise, and delivered as notifications.deliver delivers.",
            "Only processes of the user running the server may connect (SO_PEERCRED). Attachments go to $XDG_STATE_HOME/tidings/attachments.",
            "Roles: a client that says server.hello as an app is held to that app (its own notifications, requests, badge, categories, inbox and events; never an authorization decision, a response or the expanded interface); one that says nothing, or hello as a front end, acts for the person. A Flatpak or Snap peer is an app connection of its sandbox's app id, read at accept from /proc (pinned by a pidfd), and cannot claim another; a peer that cannot be inspected is no front end. Refusals are error -32011. Connections are bounded (--max-connections, --max-connections-per-process, --connection-reserve, --partial-request-timeout): one over a limit gets error -32012 and is closed.",
            "Files: the state, cache, fault ledger, attachment store, configuration and socket, and their directories, must be the user's own and writable by no one else; a link, a FIFO or another kind in their place is refused, never followed or waited on (exit status 77). Directories it makes are 0700.",
            "Stopping: SIGTERM or SIGINT (and SIGHUP, unless ignored) stops reading requests, lets the calls under way answer (every connection stays open until all have, so that subscribers hear each of their events; what a connection is owed then gets up to a second), removes the socket file and exits 0.",
            "Live reload: the extension directories are watched (inotify); a bundle added, removed, renamed or replaced, or a manifest edited, is served within tens of milliseconds, without a restart and without disturbing notifications shown. A manifest that stops validating keeps its last good version serving (an extension.failed event says so). A library already loaded keeps its code until the server restarts: code cannot be unloaded from a process.",
            SearchPathOption.discussion,
            IsolationOption.discussion,
            WarmWorkersOption.discussion,
            DeadlineOption.discussion,
        ],
        examples: [
            "tidings serve",
            "tidings serve --socket ./run/tidings.sock --extensions ./extensions",
            "echo '{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"server.describe\"}' | tidings serve --stdio",
        ])

    static func run(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> ExitCode {
        // Before any thread starts, so that every thread leaves them to the one that waits for them.
        let stopSignals = StopSignals.block()
        guard arguments.positionals.isEmpty else { throw .usage("tidings serve takes no arguments (see tidings serve --help).") }
        if arguments.flag("stdio") && arguments.value("socket") != nil {
            throw .usage("--stdio and --socket exclude each other.")
        }
        // Before the state is read: memory that removed notifications free goes back to the system.
        MemoryReturn.configureAllocator()
        var configuration = HostService.Configuration()
        try DeadlineOption.apply(arguments, to: &configuration.host)
        configuration.host.attachmentDirectory = AttachmentStore.defaultDirectory(in: environment)
        configuration.payloadSizeLimit = try arguments.wholeNumber("max-payload-size") ?? configuration.payloadSizeLimit
        configuration.host.deliveredLimit = try arguments.wholeNumber("keep") ?? configuration.host.deliveredLimit
        configuration.host.deliveredLimitPerApp = try arguments.wholeNumber("keep-per-app")
            ?? configuration.host.deliveredLimitPerApp
        configuration.inboxLimit = try arguments.wholeNumber("inbox-limit") ?? configuration.inboxLimit
        configuration.inboxTotalLimit = try arguments.wholeNumber("inbox-total") ?? configuration.inboxTotalLimit
        if let total = try arguments.wholeNumber("pending-total") {
            guard total <= 1_000_000 else { throw .usage("--pending-total takes at most 1000000 requests; it is \(total).") }
            configuration.pendingTotalLimit = total
        }
        if let deadline = try arguments.positiveNumber("will-present-deadline") {
            guard deadline <= 60 else {
                throw .usage("--will-present-deadline must be at most 60 seconds; it is \(NumberText.short(deadline)).")
            }
            configuration.willPresentDeadline = deadline
        }
        if let limit = try arguments.wholeNumber("pending-limit") {
            guard limit <= 1_000_000 else { throw .usage("--pending-limit takes at most 1000000 requests per app; it is \(limit).") }
            configuration.pendingLimit = limit
        }
        if let unasked = arguments.value("unasked-apps") {
            guard let setting = UnaskedApps(rawValue: unasked) else {
                throw .usage("--unasked-apps takes deliver or deny; it is \"\(unasked)\".")
            }
            configuration.unaskedApps = setting
        }
        if let burst = try arguments.wholeNumber("push-burst") {
            guard burst >= 1 && burst <= 1_000_000 else { throw .usage("--push-burst takes 1 to 1000000 messages; it is \(burst).") }
            configuration.push.burst = burst
        }
        if let given = arguments.value("push-rate") {
            let text = given.hasSuffix("/s") ? String(given.dropLast(2)) : given
            guard let rate = Double(text), rate.isFinite, rate > 0, rate <= 1_000_000 else {
                throw .usage("--push-rate takes a number of messages a second above 0, at most 1000000 (\"2\" or \"2/s\"); it is \"\(given)\".")
            }
            configuration.push.rate = rate
        }
        // Calendar triggers are matched in the user's zone: TZ, else /etc/localtime.
        configuration.scheduleClock = SystemScheduleClock(environment: environment)
        var limits = Server.Limits()
        limits.messageSize = try arguments.wholeNumber("max-message-size") ?? limits.messageSize
        limits.spinBeforeWaiting = try spin(arguments, environment: environment)
        limits.connections = try arguments.wholeNumber("max-connections") ?? limits.connections
        limits.connectionsPerProcess = try arguments.wholeNumber("max-connections-per-process") ?? limits.connectionsPerProcess
        limits.connectionReserve = try arguments.wholeNumber("connection-reserve") ?? limits.connectionReserve
        limits.partialRequestTimeout = try arguments.positiveNumber("partial-request-timeout") ?? limits.partialRequestTimeout
        raiseDescriptorLimit()
        let index = try SearchPathOption.index(arguments, environment: environment, cached: true)
        let cache = arguments.flag(SearchPathOption.noCacheOption.name)
            ? nil : IndexCache.standard(in: environment, version: HostFunctions.version)
        let policy = try IsolationOption.policy(arguments, environment: environment)
        let pool = try WarmWorkersOption.settings(arguments)
        configuration.host.attachmentQuota = policy.attachmentQuota
        try IsolationOption.checkLedger(environment: environment)
        try checkAttachments(configuration.host.attachmentDirectory)
        // The socket before the state: "a server already listens here" says more than "its state is taken".
        let path = arguments.flag("stdio") ? nil : try socketPath(arguments, environment: environment)
        var listener: FileDescriptor? = nil
        var answers: FileDescriptor? = nil
        if let path { listener = try listen(at: path) } else { answers = try divertStandardOutput() }
        // The socket file goes with the server, however it ends but killed outright.
        defer { if let path { unlink(path) } }
        let (state, stateDirectory) = try openState(arguments, environment: environment)
        // Push registrations (their private keys) beside the state, in a directory of their own, 0700.
        configuration.push.directory = Path.join(stateDirectory, "push")
        do throws(Diagnostic) {
            try configuration.push.directory.map(PushStore.check)
        } catch {
            throw .ownFile(error, otherwise: .cannotCreate)
        }
        // A client gone while we write must not kill the server. A file grown
        // past the size limit (RLIMIT_FSIZE) is a write that fails (EFBIG) and
        // a change refused, not the end of the server.
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)
        let terminal = Terminal(descriptor: 2, environment: environment)
        // What workers report outside calls (faults, restarts, quarantines, their output) is an
        // event for subscribers and a line of the server's log.
        let sandboxSettings = IsolationOption.workers(policy, environment: environment, onFault: { _ in })
        configuration.sandbox = { sandboxSettings.sandboxLayers.map(\.json) }
        configuration.log = { diagnostic in printError("tidings serve: " + terminal.line(for: diagnostic)) }
        // The launcher the host makes, kept for its warm workers' report.
        let launcher = Mutex<IsolatingLauncher?>(nil)
        configuration.workers = { launcher.withLock { $0 }.map { WarmWorkersOption.json($0.workers.idleWorkers) } ?? .null }
        let service = HostService(index: index, configuration: configuration, state: state) { publish in
            let made = IsolationOption.launcher(policy, environment: environment, pool: pool) { diagnostic in
                publish(diagnostic)
                printError("tidings serve: " + terminal.line(for: diagnostic))
            }
            launcher.withLock { $0 = made }
            return made
        }
        // What reading the state left free (its records' JSON, a restart's pending requests read
        // back) goes back to the system before serving: the allocator would otherwise keep it.
        MemoryReturn.trim()
        let server: Server
        do throws(Diagnostic) {
            server = try Server(service: service, limits: limits)
        } catch {
            throw CommandFailure(.cannotCreate, [error])
        }
        // Bundles added, removed or edited are served without a restart.
        let watcher = BundleWatcher(directories: index.searchPath.directories) { [searchPath = index.searchPath] in
            let reloaded = Discovery.scan(searchPath, cache: cache)
            for warning in service.reload(reloaded) { printError("tidings serve: " + terminal.line(for: warning)) }
            printError("tidings serve: the search path changed; \(reloaded.bundles.filter(\.isUsable).count) bundles serve")
        }
        defer { watcher?.stop() }
        // The last event's number, so that a front end that heard it resumes across a restart.
        defer { service.subscribers.settle() }
        stopSignals.wait { signal in
            printError("tidings serve: \(StopSignals.name(of: signal)): answering the calls under way, then stopping")
            server.finish()
            // Requests waiting for the user would hold the stop up to their bound: they end now.
            service.authorizations.endWaits()
        }
        guard let path, let listener = listener.take() else {
            if let answers = answers.take() { server.serveStandardIO(answeringOn: answers) }
            return .success
        }
        printError("tidings serve: listening on \(path) (\(index.bundles.count) bundles on the search path; "
            + "\(state.kept.delivered.count) delivered notifications and the categories of \(state.kept.categories.count) apps kept in \(stateDirectory); \(service.schedule.count) requests pending)")
        server.serve(listener)
        return .success
    }

    /// How long the server polls for a request before sleeping, in
    /// nanoseconds: `--spin`, else `TIDINGS_SERVE_SPIN`, in microseconds; 0 by default.
    private static func spin(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> UInt64 {
        if let given = try arguments.count("spin", atMost: 1_000_000) { return UInt64(given) * 1_000 }
        guard let text = environment["TIDINGS_SERVE_SPIN"] else { return 0 }
        guard let microseconds = UInt64(text), microseconds <= 1_000_000 else {
            throw .usage("TIDINGS_SERVE_SPIN takes a whole number of microseconds up to 1000000; it is \"\(text)\".")
        }
        return microseconds * 1_000
    }

    /// Raises the soft limit of open files to the hard one: each client is
    /// a descriptor. A change to the whole process, made here at the start.
    /// The corresponding C functions are `getrlimit` and `setrlimit`.
    private static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// The socket `--socket` (or the default) names.
    private static func socketPath(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> String {
        guard let path = arguments.value("socket") ?? UnixSocket.defaultPath(in: environment) else {
            throw .usage("XDG_RUNTIME_DIR is not set, so there is no default socket: give one with --socket PATH.")
        }
        return path
    }

    /// Makes standard output the JSON-RPC stream's alone, at the start of
    /// `--stdio`: answers go to the private copy of standard output this
    /// returns (close-on-exec), and standard output itself becomes standard
    /// error, so that what an extension prints (one run in this process)
    /// never lands in the middle of the stream. A change to the whole
    /// process, made here and nowhere else.
    /// The corresponding C functions are `fcntl(F_DUPFD_CLOEXEC)` and `dup2`.
    private static func divertStandardOutput() throws(CommandFailure) -> FileDescriptor {
        /// The failure to divert, for `error`.
        func failure(_ error: SystemError) -> CommandFailure {
            CommandFailure(.cannotCreate, [.error(.socketUnavailable,
                                                  "Standard output cannot be kept for the answers alone: \(error).")])
        }
        let copy = SystemCall.retrying { fcntl(1, F_DUPFD_CLOEXEC, 3) }
        guard copy >= 0 else { throw failure(SystemError.current()) }
        let answers = FileDescriptor(adopting: copy)
        guard SystemCall.retrying({ dup2(2, 1) }) >= 0 else { throw failure(SystemError.current()) }
        return answers
    }

    /// Listens at `path`.
    private static func listen(at path: String) throws(CommandFailure) -> FileDescriptor {
        do throws(Diagnostic) {
            return try UnixSocket.listen(at: path)
        } catch {
            throw .ownFile(error, otherwise: .cannotCreate)
        }
    }

    /// Checks the attachment store at `directory` (`AttachmentStore.check()`),
    /// so that one the server cannot use stops it before it listens.
    private static func checkAttachments(_ directory: String?) throws(CommandFailure) {
        do throws(Diagnostic) {
            try directory.map { AttachmentStore(directory: $0) }?.check()
        } catch {
            throw .ownFile(error, otherwise: .cannotCreate)
        }
    }

    /// The state `--state` (or the default) names, opened, with what it kept reported.
    private static func openState(_ arguments: ParsedArguments,
                                  environment: [String: String]) throws(CommandFailure) -> (JournaledState, String) {
        guard let directory = arguments.value("state")
            ?? BaseDirectory.state.path(in: environment).map({ Path.join($0, "tidings") })
        else {
            throw .usage("Neither XDG_STATE_HOME nor HOME is set, so there is no default state directory: give one with --state DIR.")
        }
        let terminal = Terminal(descriptor: 2, environment: environment)
        let state: JournaledState
        do throws(Diagnostic) {
            state = try JournaledState(directory: directory)
        } catch {
            throw .ownFile(error, otherwise: .cannotCreate)
        }
        for diagnostic in state.kept.diagnostics { printError("tidings serve: " + terminal.line(for: diagnostic)) }
        state.observe { health in
            if let cause = health.cause {
                printError("tidings serve: the state is degraded, changes are refused: " + terminal.line(for: cause))
            } else {
                printError("tidings serve: the state is written again")
            }
        }
        return (state, directory)
    }
}
