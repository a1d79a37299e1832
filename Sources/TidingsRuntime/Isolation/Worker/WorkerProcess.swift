import Glibc
import TidingsBase
import TidingsRegistry

/// The worker process (`tidings worker`): serves one bundle's extension to
/// the host that started it, over the channel on descriptor 3.
///
/// It reads the host's `hello`, captures its standard output, drops what it
/// does not need (`WorkerSandbox`), loads the library in its own address
/// space (`InProcessLauncher`) and answers `ready`; then it runs each call the
/// host sends, one at a time on its main thread, under the CPU-time budget,
/// until the host closes the channel.
package enum WorkerProcess {
    /// The descriptor the host's end of the channel arrives on.
    package static let channelDescriptor: Int32 = 3

    /// Serves the host until it closes the channel; the exit status (0 when
    /// the host closed it, 2 when the host spoke no protocol this worker knows).
    package static func run() -> Int32 {
        // Not inherited by what the extension starts: the host must see the channel end with the worker.
        _ = fcntl(channelDescriptor, F_SETFD, FD_CLOEXEC)
        let channel = WorkerChannel(adopting: channelDescriptor)
        guard let first = try? channel.receive(), let hello = try? WorkerMessage(decoding: first.bytes),
              case let .hello(version, bundlePath, memoryLimit, cpuTimePerCall) = hello
        else { return 2 }
        guard version == WorkerMessage.version else {
            let refusal = Diagnostic.error(
                .workerProtocol,
                "The worker speaks protocol version \(WorkerMessage.version), not the host's \(version): the tidings binary changed under the host.")
            try? channel.send(WorkerMessage.launchFailed(refusal).encoded, timeout: 1)
            return 2
        }
        // Whatever the extension prints goes to a pipe the worker drains, never to anyone's output.
        var keep = [channelDescriptor]
        if let output = try? WorkerSandbox.captureStandardOutput() {
            keep.append(output.rawValue)
            WorkerOutput.drain(output, bundle: Path.lastComponent(of: bundlePath), to: channel)
        }
        do throws(SystemError) {
            _ = try WorkerSandbox.enter(memoryLimit: memoryLimit == 0 ? nil : memoryLimit, keeping: keep)
            let overflow = Diagnostic.error(.workerStackOverflow, "The extension overflowed its stack.")
            let exhausted = Diagnostic.error(.workerOutOfMemory, "The extension reached its memory limit.")
            try FatalSignalReporter.install(reportTo: channelDescriptor,
                                            overflow: WorkerMessage.report(overflow).encoded,
                                            outOfMemory: WorkerMessage.report(exhausted).encoded)
        } catch {
            let refusal = Diagnostic.error(.workerLaunchFailed, "The worker could not limit itself: \(error).")
            try? channel.send(WorkerMessage.launchFailed(refusal).encoded, timeout: 1)
            return 1
        }
        let budget = cpuTimePerCall > 0 ? try? CPUBudget(seconds: cpuTimePerCall) : nil

        let bundle = BundleReader.read(bundlePath)
        let server: WorkerServer
        do throws(Diagnostic) {
            server = try WorkerServer(bundle: bundle, channel: channel)
        } catch {
            try? channel.send(WorkerMessage.launchFailed(error).encoded, timeout: 1)
            return 1
        }
        try? channel.send(WorkerMessage.ready(handlesResponses: server.provider.handlesResponses,
                                              handlesMedia: server.provider.handlesMedia).encoded)
        while true {
            let received: WorkerChannel.Message?
            do throws(WorkerChannel.Failure) {
                received = try channel.receive()
            } catch {
                continue  // a message too large to be ours: the host notices the missing answer
            }
            guard let received else { return 0 }
            guard let message = try? WorkerMessage(decoding: received.bytes) else {
                server.report(.error(.workerProtocol, "The worker received a message it cannot read."))
                continue
            }
            budget?.arm()
            server.serve(message, files: received)
            budget?.disarm()
        }
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
    /// The worker's extension wrote to standard output.
    package static let workerOutput = Self("worker.output")
}
