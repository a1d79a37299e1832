import Glibc
import TidingsBase
import TidingsRegistry
import TidingsRuntime
import TidingsSystemShims

/// The worker process (`tidings worker`): serves one bundle's extension to
/// the host that started it, over the channel on descriptor 3.
///
/// The host started it in its sandbox (namespaces, view, cgroup); it reads
/// the host's `hello` (the bundle's path, manifest and interface, as the
/// host validated them), puts itself under the rest (`WorkerSandbox`: limits,
/// Landlock, the CPU watchdog, seccomp), loads the library with the
/// worker's host functions and answers `ready` with the layers it holds;
/// then it serves the host's messages until the host closes the channel.
package enum WorkerProcess {
    /// The descriptor the host's end of the channel arrives on.
    package static let channelDescriptor: Int32 = 3
    /// The descriptor the bundle's directory arrives on, when the worker
    /// cannot reach it by its path, and the path that names it then.
    package static let bundleDescriptor: Int32 = 4
    package static let bundleDescriptorPath = "/proc/self/fd/4"

    /// Serves the host until it closes the channel; the exit status (0 when
    /// the host closed it, 2 when the host spoke no protocol this worker knows).
    package static func run() -> Int32 {
        // Not inherited by what the extension starts: the host must see the channel end with the worker.
        _ = fcntl(channelDescriptor, F_SETFD, FD_CLOEXEC)
        let channel = WorkerChannel(adopting: channelDescriptor)
        guard let first = try? channel.receive(), let hello = try? WorkerMessage(decoding: first.bytes),
              case let .hello(version, bundlePath, manifest, interface, settings, host) = hello
        else { return 2 }
        guard version == WorkerMessage.version else {
            let refusal = Diagnostic.error(
                .workerProtocol,
                "The worker speaks protocol version \(WorkerMessage.version), not the host's \(version): the tidings binary changed under the host.")
            channel.sendQuietly(.launchFailed(refusal))
            return 2
        }
        let entered: WorkerSandbox.Entered
        do throws(WorkerSandbox.Failure) {
            let bundleKept = bundlePath == bundleDescriptorPath ? bundleDescriptor : nil
            entered = try WorkerSandbox.enter(settings, channel: channelDescriptor, keeping: bundleKept, reports: (
                overflow: WorkerMessage.report(.error(.workerStackOverflow, "The extension overflowed its stack.")).encoded,
                outOfMemory: WorkerMessage.report(.error(.workerOutOfMemory, "The extension reached its memory limit.")).encoded,
                cpuTime: WorkerMessage.report(.error(.workerCPUTime, "The extension used up its CPU time.")).encoded))
        } catch {
            channel.sendQuietly(.launchFailed(.error(.workerLaunchFailed, error.sentence)))
            return 1
        }
        if bundlePath.isEmpty {
            // A probe of the sandbox: its layers, and nothing loaded.
            channel.sendQuietly(.ready(handlesResponses: false, handlesMedia: false, handlesElementEvents: false,
                                       sandbox: entered.layers))
            while (try? channel.receive()) != nil {}
            return 0
        }
        let server: WorkerServer
        do throws(Diagnostic) {
            // The bundle as the host validated it: its manifest and interface are the host's, never read here.
            server = try WorkerServer(bundle: ExtensionBundle(path: bundlePath, manifest: manifest, interface: interface),
                                      host: host, channel: channel, watchdog: entered.watchdog,
                                      memoryLimit: settings.memoryLimit)
        } catch {
            channel.sendQuietly(.launchFailed(error))
            return 1
        }
        channel.sendQuietly(.ready(handlesResponses: server.provider.handlesResponses,
                                   handlesMedia: server.provider.handlesMedia,
                                   handlesElementEvents: server.provider.handlesElementEvents, sandbox: entered.layers))
        var spin = AdaptiveSpin()
        while true {
            let received: WorkerChannel.Message?
            do throws(WorkerChannel.Failure) {
                received = try spin.receive(from: channel)
            } catch {
                continue  // a message too large to be ours: the host notices the missing answer
            }
            guard let received else { return 0 }
            guard let message = try? WorkerMessage(decoding: received.bytes) else {
                server.report(.error(.workerProtocol, "The worker received a message it cannot read."))
                continue
            }
            // The host sends a creation and its instance's first call as one batch.
            if case .batch(let messages) = message {
                for (index, part) in messages.enumerated() { server.serve(part, moreFollows: index < messages.count - 1) }
            } else {
                server.serve(message)
            }
        }
    }
}

/// How long the worker's main thread keeps looking for the host's next
/// message before it sleeps: waking a sleeping thread costs tens of
/// microseconds on a virtual machine, more than a call itself. The spin
/// grows while the next message keeps coming within it (a burst of calls)
/// and shrinks to nothing while it does not (an idle worker uses no CPU).
/// A worker that may run on one CPU alone never spins: the host it waits
/// for needs that CPU to send the message (looked at again every 100 ms,
/// as affinity can change).
struct AdaptiveSpin {
    /// The longest spin, in nanoseconds.
    static let longest: UInt64 = 200_000
    /// The spin now, in nanoseconds.
    private(set) var length: UInt64 = 50_000
    /// Whether the worker may run on more than one CPU, and when that was last looked at.
    private var severalCPUs = true
    private var cpusCheckedAt: UInt64 = 0

    /// The next message of `channel`: spinning for a while, then waiting; nil once it is closed.
    mutating func receive(from channel: WorkerChannel) throws(WorkerChannel.Failure) -> WorkerChannel.Message? {
        let now = MonotonicClock.now()
        if now - cpusCheckedAt >= 100_000_000 {
            cpusCheckedAt = now
            severalCPUs = tidings_allowed_cpus() != 1
        }
        guard severalCPUs else { return try channel.receive() }
        if length > 0 {
            let end = MonotonicClock.now() + length
            repeat {
                guard channel.hasInput else { continue }
                switch try channel.receiveIfReady() {
                case .message(let message):
                    length = min(max(length * 2, 20_000), Self.longest)
                    return message
                case .closed:
                    return nil
                case .none:
                    break
                }
            } while MonotonicClock.now() < end
            length = length < 10_000 ? 0 : length / 2
        } else {
            length = 20_000
        }
        return try channel.receive()
    }
}

extension Diagnostic.Code {
    /// The worker process could not start, or could not load the extension.
    package static let workerLaunchFailed = Self("worker.launch-failed")
    /// A message between host and worker could not be read, or came out of turn.
    package static let workerProtocol = WorkerFault.Kind.protocol.code
    /// The worker's extension overflowed its stack.
    package static let workerStackOverflow = WorkerFault.Kind.stackOverflow.code
    /// The worker's extension reached its memory limit before it died.
    package static let workerOutOfMemory = WorkerFault.Kind.memory.code
    /// The worker's extension used up its CPU-time budget.
    package static let workerCPUTime = WorkerFault.Kind.cpuTime.code
    /// The worker's extension wrote to standard output or standard error.
    package static let workerOutput = Self("worker.output")
}
