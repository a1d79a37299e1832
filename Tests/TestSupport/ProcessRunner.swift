import Foundation

/// The result of running a program.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String
    /// True when it was still running at its deadline, and was killed then.
    public var timedOut = false
}

/// Runs programs for tests, capturing their output.
public enum ProcessRunner {
    /// Runs `executable` with `arguments`, its standard input empty, and waits for it.
    /// - Parameters:
    ///   - environment: added to (and overriding) this process's environment.
    ///   - deadline: seconds after which a process still running is killed
    ///     (and the result says it timed out), so that a hang fails a test
    ///     instead of stopping the run; none by default.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                           directory: String? = nil, deadline: Double? = nil) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let output = Pipe()
        let error = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let killed = KillTimer(process, after: deadline)
        // Read both pipes to the end before waiting, so a full pipe cannot block the child.
        let errorData = LockedData()
        let errorRead = DispatchSemaphore(value: 0)
        let reader = Thread {
            errorData.set(error.fileHandleForReading.readDataToEndOfFile())
            errorRead.signal()
        }
        reader.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        killed.cancel()
        errorRead.wait()
        return ProcessResult(status: process.terminationStatus,
                             standardOutput: String(decoding: outputData, as: UTF8.self),
                             standardError: String(decoding: errorData.value, as: UTF8.self),
                             timedOut: killed.fired)
    }

    /// Finds a program on PATH.
    public static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// Kills a process still running at its deadline (SIGKILL), once.
private final class KillTimer: @unchecked Sendable {
    private let lock = NSLock()
    private var armed = true
    private var killed = false

    /// Arms the timer for `process`, `seconds` from now; never when nil.
    init(_ process: Process, after seconds: Double?) {
        guard let seconds else { return }
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
            lock.withLock {
                guard armed else { return }
                armed = false
                killed = kill(pid, SIGKILL) == 0
            }
        }
    }

    /// Disarms it: the process ended (and its id may be reused).
    func cancel() { lock.withLock { armed = false } }

    /// True when it killed the process.
    var fired: Bool { lock.withLock { killed } }
}

private final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data: Data?

    func set(_ value: Data) { lock.withLock { data = value } }
    var value: Data { lock.withLock { data ?? Data() } }
}
