import Glibc
import Synchronization
import TidingsABI
import TidingsBase
import TidingsManifest
import TidingsRegistry
import TidingsRuntime
import TidingsSystemShims

/// Starting a worker: its channel and output pipe, its sandbox, the host's
/// first message, and the wait until it has loaded the library (or a probe
/// of the sandbox's layers).
extension WorkerConnection {
    /// Starts a worker for `bundle` in its sandbox, serving `host`, and waits
    /// until it has loaded the library.
    /// - Parameters:
    ///   - network: the bundle's policy grants it the network.
    ///   - onEnd: told once when the worker ends, on the reader thread: its
    ///     fault, or nil when the host retired it.
    ///   - reports: the bundle's lines in the host's log, shared by its workers.
    ///   - onReport: what the worker reports outside any call (its output).
    /// - Throws: why it did not start: the library's own load failure, as in
    ///   this process, or the worker's end while loading.
    static func start(_ bundle: ExtensionBundle, for host: HostEndpoint, settings: WorkerSettings,
                      sandboxes: SandboxBuilder, network: Bool,
                      reports: BundleReports, onEnd: @escaping @Sendable (WorkerFault?) -> Void,
                      onReport: @escaping @Sendable (Diagnostic) -> Void) throws(Diagnostic) -> WorkerConnection {
        // The worker's working directory is its view's root: it knows the bundle by its absolute path.
        try start(bundlePath: FileSystem.absolutePath(bundle.path), manifest: bundle.manifest, interface: bundle.interface,
                  name: bundle.manifest?.bundleIdentifier ?? bundle.name,
                  location: Diagnostic.Location(file: bundle.path), host: host, settings: settings,
                  sandboxes: sandboxes, network: network,
                  reports: reports, onEnd: onEnd, onReport: onReport)
    }

    /// The layers of the sandbox a worker with `settings` gets on this
    /// machine: a worker started with no bundle puts itself in its sandbox,
    /// says what holds, and ends. A sandbox that cannot be made at all is one missing layer.
    static func probe(settings: WorkerSettings, sandboxes: SandboxBuilder) -> [SandboxLayer] {
        do throws(Diagnostic) {
            let connection = try start(bundlePath: "", manifest: nil, interface: nil, name: "the sandbox probe", location: Diagnostic.Location(),
                                       host: HostEndpoint(table: HostFunctions.table(callRate: nil)), settings: settings,
                                       sandboxes: sandboxes,
                                       network: false, reports: BundleReports(bundle: "the sandbox probe"),
                                       onEnd: { _ in }, onReport: { _ in })
            connection.retire()
            return connection.layers
        } catch {
            return [SandboxLayer("sandbox", .missing, error.message)]
        }
    }

    /// Starts a worker serving the bundle at `bundlePath` ("" for a probe)
    /// with `manifest` and `interface`, as the host validated them.
    static func start(bundlePath: String, manifest: Manifest?, interface: Interface?, name: String, location: Diagnostic.Location, host: HostEndpoint,
                              settings: WorkerSettings, sandboxes: SandboxBuilder, network: Bool, reports: BundleReports,
                              onEnd: @escaping @Sendable (WorkerFault?) -> Void,
                              onReport: @escaping @Sendable (Diagnostic) -> Void) throws(Diagnostic) -> WorkerConnection {
        func unmade(_ error: SystemError) -> Diagnostic {
            .error(.workerLaunchFailed, "No channel to a worker for \(name) could be made: \(error).", at: location)
        }
        let readers: ChannelReaders
        do throws(SystemError) {
            readers = try ChannelReaders()
        } catch {
            throw unmade(error)
        }
        var pipeEnds: [Int32] = [-1, -1]
        let made = tidings_pipe2(&pipeEnds, O_CLOEXEC)
        guard made == 0 else { throw unmade(SystemError(code: -made)) }
        let pair: WorkerChannel.Pair
        do throws(SystemError) {
            pair = try WorkerChannel.pair()
        } catch {
            close(pipeEnds[0])
            close(pipeEnds[1])
            throw unmade(error)
        }
        let channel = pair.host
        let sandbox: SandboxBuilder.Started
        do throws(SandboxedProcess.SpawnFailure) {
            sandbox = try sandboxes.start(
                SandboxBuilder.Plan(executable: FileSystem.absolutePath(settings.executable), bundle: bundlePath,
                                    network: network,
                                    settings: settings),
                channel: pair.worker.rawValue, output: pipeEnds[1])
        } catch {
            close(pipeEnds[0])
            close(pipeEnds[1])
            throw .error(.workerLaunchFailed, "The worker for \(name) (\(settings.executable) worker) did not start: \(error).",
                         at: location)
        }
        // The worker's ends are the worker's now: the host sees its end as the channel's and the pipe's.
        _ = consume pair
        close(pipeEnds[1])
        let output = FileDescriptor(adopting: pipeEnds[0])
        func failed(_ message: String) -> Diagnostic {
            sandbox.process.kill()
            let termination = sandbox.process.wait()
            sandbox.cleanUp()
            return .error(.workerLaunchFailed, "\(name)'s worker \(message) (it \(termination)).", at: location)
        }
        let hello = WorkerMessage.hello(
            version: WorkerMessage.version, bundle: sandbox.bundlePath, manifest: manifest, interface: interface,
            sandbox: sandbox.settings,
            host: WorkerHostTable(abiVersion: host.table.version, callRate: host.table.callRate))
        guard (try? channel.send(hello.encoded, timeout: settings.launchTimeout)) != nil else {
            throw failed("did not take the host's first message")
        }
        let deadline = MonotonicClock.deadline(after: settings.launchTimeout)
        while true {
            var entries = [pollfd(fd: channel.rawValue, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: sandbox.process.endDescriptor, events: Int16(POLLIN), revents: 0)]
            let now = MonotonicClock.now()
            guard now < deadline else { throw failed("did not load the library within \(settings.launchTimeout) s") }
            let ready = SystemCall.retrying { poll(&entries, 2, Int32(clamping: (deadline - now) / 1_000_000 + 1)) }
            if ready <= 0 { continue }
            let received: WorkerChannel.Received
            do throws(WorkerChannel.Failure) {
                received = try channel.receiveIfReady()
            } catch {
                throw failed("sent what the host cannot read")
            }
            switch received {
            case .none:
                if entries[1].revents != 0 { throw failed("ended while it loaded the library") }
                continue
            case .closed:
                throw failed("ended while it loaded the library")
            case .message(let message):
                switch try? WorkerMessage(decoding: message.bytes) {
                case let .ready(handlesResponses, handlesMedia, handlesElementEvents, layers)?:
                    let connection = WorkerConnection(
                        sandbox: sandbox, channel: channel, readers: readers, output: output, extensionName: name, settings: settings,
                        host: host, ready: (handlesResponses, handlesMedia, handlesElementEvents, layers),
                        reports: reports, onEnd: onEnd, onReport: onReport)
                    guard Threads.start({ connection.read() }) else { throw failed("got no reader thread in the host") }
                    return connection
                case .launchFailed(var diagnostic)?:
                    sandbox.process.kill()
                    _ = sandbox.process.wait()
                    sandbox.cleanUp()
                    if diagnostic.location.file == nil { diagnostic.location = location }
                    throw diagnostic
                case .report(let diagnostic)?:
                    if let line = reports.relay(diagnostic, now: MonotonicClock.now()) { onReport(line) }
                default:
                    throw failed("answered the host's first message out of turn")
                }
            }
        }
    }
}
