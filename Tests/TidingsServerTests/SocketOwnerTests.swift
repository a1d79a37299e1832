import Foundation
import Glibc
import Testing
import ServerTestSupport
import TestSupport
import TidingsBase
import TidingsServer

/// A client talks only to a server of its own user: a socket file of
/// another user's is refused before connecting, and a server of another
/// user behind a socket file of the client's own is refused once connected
/// (`SO_PEERCRED`), before a request is sent. Planting either needs root.
@Suite(.enabled(if: geteuid() == 0, "only root can give a socket to another user"))
struct SocketOwnerTests {
    let fixture = ServerFixture()

    /// The code `body` throws, nil when it throws nothing.
    func refusal(_ body: () throws -> Void) -> Diagnostic? {
        do {
            try body()
            return nil
        } catch let error as Diagnostic {
            return error
        } catch {
            return .error(.init("unexpected"), "\(error)")
        }
    }

    @Test func aSocketOfAnotherUserIsRefusedBeforeConnecting() throws {
        let listener = try UnixSocket.listen(at: fixture.socketPath)
        #expect(lchown(fixture.socketPath, 65534, 65534) == 0)
        let refused = refusal { _ = try RPCClient(path: fixture.socketPath) }
        #expect(refused?.code == .fileForeign)
        #expect(refused?.message.contains("belongs to user 65534") == true, "\(String(describing: refused))")
        // No connection reached the impostor.
        #expect(fcntl(listener.rawValue, F_SETFL, O_NONBLOCK) == 0)
        #expect(accept(listener.rawValue, nil, nil) == -1 && errno == EAGAIN)
    }

    @Test(.enabled(if: ProcessRunner.which("setpriv") != nil, "needs setpriv"))
    func aServerOfAnotherUserBehindASocketOfOursIsRefused() throws {
        // The impostor, `tidings serve` of user 65534, binds in a directory of
        // its own; the socket file is then made ours, in ours.
        let theirs = TemporaryDirectory("impostor")
        let bound = theirs.file("run/tidings.sock")
        let impostor = try fixture.serveAsAnotherUser(socket: bound, home: theirs, log: "impostor")
        defer { impostor.stop(with: SIGKILL) }
        #expect(rename(bound, fixture.socketPath) == 0)
        #expect(lchown(fixture.socketPath, geteuid(), getegid()) == 0)
        let refused = refusal { _ = try RPCClient(path: fixture.socketPath) }
        #expect(refused?.code == .fileForeign)
        #expect(refused?.message.contains("does not run as user \(geteuid())") == true, "\(String(describing: refused))")
    }
}
