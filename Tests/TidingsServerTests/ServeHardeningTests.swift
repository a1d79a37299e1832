import Foundation
import Glibc
import Testing
import ServerTestSupport
import TestSupport

/// `tidings serve` makes itself non-dumpable at its start, before it
/// listens (`HostHardening.apply()` in `tidings`' main), not when a first
/// worker starts: the server below never starts one (it runs in process and
/// nothing is delivered). Seen through `/proc/PID`: the files of a
/// non-dumpable process belong to root, not to the user it runs as, so no
/// other process of that user may open its `environ` or `mem`. Only root
/// can run the server as another user, which makes the difference visible.
@Suite(.enabled(if: geteuid() == 0 && ProcessRunner.which("setpriv") != nil, "needs root and setpriv"))
struct ServeHardeningTests {
    let fixture = ServerFixture()

    @Test func theServerIsNotDumpableFromItsStart() throws {
        let home = TemporaryDirectory("hardened")
        let server = try fixture.serveAsAnotherUser(socket: home.file("run/tidings.sock"), home: home, log: "hardened")
        defer { server.stop(with: SIGKILL) }
        var environ = stat()
        try #require(stat("/proc/\(server.identifier)/environ", &environ) == 0)
        #expect(environ.st_uid == 0, "its /proc files belong to user \(environ.st_uid): it is dumpable")
        // It runs as user 65534 all the same.
        let status = try String(contentsOfFile: "/proc/\(server.identifier)/status", encoding: .utf8)
        #expect(status.contains("\nUid:\t65534\t"), "\(status)")
    }
}
