import Foundation
import Glibc
import Synchronization

/// An X server of a test's own (Xvfb) on a display no other test of the
/// run uses, stopped by pid when the value goes away.
///
/// Tests start displays at once (suites run in parallel): each number is
/// handed out once per process, and one whose socket or lock file exists
/// (another process's) is passed over. A display taken between the look
/// and Xvfb's start is found out too: the Xvfb started must be the one
/// that listens.
public final class VirtualDisplay: @unchecked Sendable {
    /// The display's number (`:N`).
    public let number: Int
    /// Xvfb itself.
    public let server: BackgroundProcess
    /// Where Xvfb keeps its screen as an XWD file (`Xvfb_screen0`), for screenshots.
    public let framebuffer: String

    /// The display as `DISPLAY` names it.
    public var name: String { ":\(number)" }
    /// The screen's XWD file.
    public var screen: String { framebuffer + "/Xvfb_screen0" }

    /// Why no display started.
    public struct Failure: Error, CustomStringConvertible {
        /// Xvfb's log.
        public var description: String
    }

    /// The next number to try, shared by every display of the process.
    private static let next = Mutex(100 + Int(getpid() % 500))

    /// Starts Xvfb (1024×768, 24 bits) on a free display; its log and
    /// framebuffer in `directory`.
    public init(in directory: String) throws {
        framebuffer = directory + "/framebuffer"
        try FileManager.default.createDirectory(atPath: framebuffer, withIntermediateDirectories: true)
        guard let xvfb = ProcessRunner.which("Xvfb") else { throw Failure(description: "no Xvfb (apt-get install xvfb)") }
        var attempts = 0
        while true {
            attempts += 1
            let number = Self.claim()
            let log = directory + "/xvfb-\(number).log"
            let server = try BackgroundProcess(xvfb, [":\(number)", "-nolisten", "tcp", "-screen", "0", "1024x768x24",
                                                      "-fbdir", framebuffer], environment: [:], log: log)
            let socket = "/tmp/.X11-unix/X\(number)"
            // Ours listens, or ours ended (the number was taken after all: the next one).
            _ = eventually { !server.isRunning || BackgroundProcess.wait(forListener: socket, seconds: 0) }
            if server.isRunning && BackgroundProcess.wait(forListener: socket, seconds: 0) {
                self.number = number
                self.server = server
                return
            }
            server.stop(with: SIGKILL)
            if attempts == 5 {
                throw Failure(description: (try? String(contentsOfFile: log, encoding: .utf8)) ?? "Xvfb did not start")
            }
        }
    }

    deinit {
        // Under the test runner Xvfb outlives SIGTERM's patience: kill it,
        // then remove the socket and lock file it left.
        server.stop(with: SIGKILL)
        try? FileManager.default.removeItem(atPath: "/tmp/.X11-unix/X\(number)")
        try? FileManager.default.removeItem(atPath: "/tmp/.X\(number)-lock")
    }

    /// A number no display of this process had, whose socket and lock file do not exist.
    private static func claim() -> Int {
        next.withLock { number in
            while FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)")
                || FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock") {
                number += 1
            }
            defer { number += 1 }
            return number
        }
    }
}
