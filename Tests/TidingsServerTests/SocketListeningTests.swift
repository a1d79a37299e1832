import Glibc
import Testing
import TestSupport
import TidingsBase
import TidingsServer

/// The server's socket appears at its path only once it listens, already
/// 0600: a client that waits for the file and connects at once is never
/// refused. (It was bound at its path and listened on after, and a client
/// that came in between — a test under ThreadSanitizer — was refused.)
/// Seen with inotify: the name arrives by a rename, never by a bind.
struct SocketListeningTests {
    @Test func theSocketAppearsAtItsPathOnlyOnceItListens() throws {
        let directory = TemporaryDirectory("socket")
        let path = directory.file("tidings.sock")
        let watch = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        try #require(watch >= 0)
        defer { close(watch) }
        try #require(inotify_add_watch(watch, directory.path, UInt32(IN_CREATE | IN_MOVED_TO)) >= 0)

        let listener = try UnixSocket.listen(at: path)
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(watch, &buffer, buffer.count)
        try #require(count > 0)
        var events: [(name: String, mask: UInt32)] = []
        var offset = 0
        while offset + MemoryLayout<inotify_event>.size <= count {
            let (mask, length) = buffer.withUnsafeBytes { bytes in
                let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                return (event.mask, Int(event.len))
            }
            let start = offset + MemoryLayout<inotify_event>.size
            let name = String(decoding: buffer[start..<start + length].prefix { $0 != 0 }, as: UTF8.self)
            events.append((name, mask))
            offset = start + length
        }
        let atPath = events.filter { $0.name == "tidings.sock" }
        #expect(atPath.count == 1 && atPath.allSatisfy { $0.mask & UInt32(IN_MOVED_TO) != 0 }, "\(events)")

        var status = stat()
        #expect(stat(path, &status) == 0 && status.st_mode & 0o7777 == 0o600)
        #expect(try FileSystem.contentsOfDirectory(directory.path) == ["tidings.sock"])
        // A connection once made waits in the backlog, whether the client is still open or not.
        _ = try UnixSocket.connect(to: path)
        let accepted = accept(listener.rawValue, nil, nil)
        #expect(accepted >= 0)
        if accepted >= 0 { close(accepted) }
    }
}

/// An accepted client's descriptor is close-on-exec from the moment it
/// exists (`accept4` with `SOCK_CLOEXEC`), so no worker started meanwhile
/// inherits it, and does not block, as the event loop wants.
struct AcceptedConnectionTests {
    @Test func anAcceptedConnectionIsCloseOnExecAndDoesNotBlock() throws {
        let directory = TemporaryDirectory("accept")
        let path = directory.file("tidings.sock")
        let listener = try UnixSocket.listen(at: path)
        let client = try UnixSocket.connect(to: path)
        guard let accepted = try UnixSocket.accept(on: listener) else {
            Issue.record("no connection was accepted")
            return
        }
        let flags = fcntl(accepted.rawValue, F_GETFD)
        #expect(flags >= 0 && flags & FD_CLOEXEC != 0, "flags \(flags)")
        #expect(fcntl(accepted.rawValue, F_GETFL) & O_NONBLOCK != 0)
        _ = client
    }

    @Test func aListenerWithNoClientWaitingAcceptsNone() throws {
        let directory = TemporaryDirectory("accept")
        let listener = try UnixSocket.listen(at: directory.file("tidings.sock"))
        #expect(fcntl(listener.rawValue, F_SETFL, O_NONBLOCK) == 0)
        #expect(try UnixSocket.accept(on: listener) == nil)
    }
}
