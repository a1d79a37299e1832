import Foundation
import Glibc

/// A program running beside a test (a server), stopped when the value goes away.
public final class BackgroundProcess: @unchecked Sendable {
    private let process = Process()
    /// Its process id.
    public var identifier: Int32 { process.processIdentifier }

    /// Starts `executable` with `arguments`, its output to `log` (a file path).
    /// - Parameters:
    ///   - environment: replaces the environment, but for PATH.
    ///   - input: its standard input; the test's own when nil.
    public init(_ executable: String, _ arguments: [String], environment: [String: String], log: String,
                input: FileHandle? = nil) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = environment
        environment["PATH"] = ProcessInfo.processInfo.environment["PATH"]
        process.environment = environment
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = handle
        process.standardError = handle
        if let input { process.standardInput = input }
        try process.run()
    }

    /// True while it runs.
    public var isRunning: Bool { process.isRunning }

    /// Sends it `signal` and waits up to `seconds` for it to end, then kills it.
    public func stop(with signal: Int32 = SIGTERM, within seconds: Double = 5) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, signal)
        if !waitUntilExit(within: seconds) { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Waits up to `seconds` for it to end by itself; false when it still runs.
    public func waitUntilExit(within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        return !process.isRunning
    }

    /// How it ended, once it has: its exit status, or the number of the
    /// signal that ended it (then `bySignal`); nil while it runs.
    public var ending: (status: Int32, bySignal: Bool)? {
        process.isRunning ? nil : (process.terminationStatus, process.terminationReason == .uncaughtSignal)
    }

    /// Waits up to `seconds` for `path` to exist; false when it did not.
    public static func wait(forFile path: String, seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !FileManager.default.fileExists(atPath: path) {
            if Date() > deadline { return false }
            usleep(10_000)
        }
        return true
    }

    /// Waits up to `seconds` for the file at `path` to hold `text`; false when it did not.
    public static func wait(for text: String, inFile path: String, seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while (try? String(contentsOfFile: path, encoding: .utf8))?.contains(text) != true {
            if Date() > deadline { return false }
            usleep(10_000)
        }
        return true
    }

    deinit {
        stop(with: SIGKILL)
    }
}
