import Foundation
import Glibc

/// A program running beside a test (a server), stopped when the value goes away.
public final class BackgroundProcess: @unchecked Sendable {
    private let process = Process()
    /// Opened when the process has ended (and was reaped); not `self`, which the handler must not keep.
    private let ended = Ended()
    /// Its process id.
    public var identifier: Int32 { process.processIdentifier }

    /// Starts `executable` with `arguments`, its output to `log` (a file path).
    /// - Parameters:
    ///   - environment: replaces the environment, but for PATH.
    ///   - input: its standard input; the test's own when nil.
    ///   - output: its standard output; `log` when nil.
    public init(_ executable: String, _ arguments: [String], environment: [String: String], log: String,
                input: FileHandle? = nil, output: FileHandle? = nil) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = environment
        environment["PATH"] = ProcessInfo.processInfo.environment["PATH"]
        process.environment = environment
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = output ?? handle
        process.standardError = handle
        if let input { process.standardInput = input }
        process.terminationHandler = { [ended] _ in ended.open() }
        try process.run()
    }

    /// True while it runs.
    public var isRunning: Bool { process.isRunning }

    /// Sends it `signal` and waits up to `seconds` for it to end, then kills it.
    public func stop(with signal: Int32 = SIGTERM, within seconds: Double = patience) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, signal)
        if !waitUntilExit(within: seconds) { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Waits for it to end by itself: until it has ended, for at most
    /// `seconds`; false when it still runs then.
    public func waitUntilExit(within seconds: Double = patience) -> Bool {
        ended.wait(until: Date().addingTimeInterval(seconds))
    }

    /// A flag with a condition: set once, when the process ended.
    private final class Ended: @unchecked Sendable {
        private let condition = NSCondition()
        private var isSet = false

        func open() {
            condition.withLock {
                isSet = true
                condition.broadcast()
            }
        }

        /// Waits until it is set or `deadline` passes; true when it was set.
        func wait(until deadline: Date) -> Bool {
            condition.withLock {
                while !isSet && condition.wait(until: deadline) {}
                return isSet
            }
        }
    }

    /// How it ended, once it has: its exit status, or the number of the
    /// signal that ended it (then `bySignal`); nil while it runs.
    public var ending: (status: Int32, bySignal: Bool)? {
        process.isRunning ? nil : (process.terminationStatus, process.terminationReason == .uncaughtSignal)
    }

    /// Waits for a server to listen on the Unix socket at `path` (its file
    /// appears at bind, a moment before it listens): until a connection is
    /// accepted, for at most `seconds`; false when none was.
    public static func wait(forListener path: String, seconds: Double = patience) -> Bool {
        eventually(within: seconds) { accepts(path) }
    }

    /// True when a connection to the Unix socket at `path` is accepted (it is closed at once).
    private static func accepts(_ path: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }

    /// Waits for the file at `path` to hold `text`, for at most `seconds`; false when it did not.
    public static func wait(for text: String, inFile path: String, seconds: Double = patience) -> Bool {
        eventually(within: seconds) { (try? String(contentsOfFile: path, encoding: .utf8))?.contains(text) == true }
    }

    deinit {
        stop(with: SIGKILL)
    }
}
