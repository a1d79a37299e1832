import Glibc
import TidingsBase
import TestSupport

/// The server's end of one connection, driven by the test on its own
/// thread: it reads the client's lines and writes whatever bytes the test
/// gives it, in the pieces it gives them.
final class ScriptedServer {
    let directory = TemporaryDirectory("tidings-protocol")
    let path: String
    private let listening: FileDescriptor
    private var connection: Int32 = -1
    private var input: [UInt8] = []

    init() throws {
        path = directory.file("tidings.sock")
        listening = try UnixSocket.listen(at: path)
    }

    deinit {
        if connection >= 0 { close(connection) }
    }

    /// Accepts the client's connection (made before: it waits in the backlog).
    func accept() {
        connection = Glibc.accept(listening.rawValue, nil, nil)
    }

    /// Writes `text` as it is.
    func write(_ text: String) {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return }
            sent += count
        }
    }

    /// The next line the client wrote, parsed; nil at the end of the connection.
    func readMessage() throws -> JSON? {
        while true {
            if let newline = input.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(input[..<newline])
                input.removeSubrange(...newline)
                return try JSON.parse(line)
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            input += chunk[..<count]
        }
    }

    /// Ends the connection.
    func hangUp() {
        shutdown(connection, Int32(SHUT_RDWR))
    }
}
