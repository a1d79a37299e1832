import Glibc
import TestSupport
import TidingsApp
import TidingsBase
import TidingsServer
import Testing

/// The server → client request `app.willPresent` (ids "s1", …), against a
/// scripted host on a socket of the test's own: the center answers with its
/// delegate's options on the connection the request came on.
@Suite(.onOwnThreads) struct AppServerRequestTests {
    /// A host that answers every call with `{}` and, once the app declares
    /// itself in the foreground, asks `app.willPresent` and returns the answer.
    static func scriptedHost(_ listener: Int32) throws -> JSON {
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else { throw SystemFailure() }
        defer { close(connection) }
        var buffer: [UInt8] = []
        func readLine() throws -> JSON {
            while true {
                if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    defer { buffer.removeFirst(end + 1) }
                    return try JSON.parse(Array(buffer[..<end]))
                }
                var chunk = [UInt8](repeating: 0, count: 4096)
                let count = chunk.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
                guard count > 0 else { throw SystemFailure() }
                buffer += chunk[..<count]
            }
        }
        func send(_ text: String) {
            let bytes = Array((text + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
        }
        while true {
            let message = try readLine()
            if let id = message["id"], message["method"] != nil {
                send(#"{"jsonrpc": "2.0", "id": \#(id.serialized()), "result": {}}"#)
            }
            if message["method"]?.stringValue == "apps.foreground", message["params"]?["foreground"] == .bool(true) {
                break
            }
        }
        send(#"{"jsonrpc": "2.0", "id": "s1", "method": "app.willPresent", "params": {"app": "org.example.app", "notification": {"identifier": "n1", "date": "2026-11-26T10:00:00Z", "title": "Hi", "body": "There", "userInfo": {"k": 1, "big": 9007199254740993}}}}"#)
        while true {
            let message = try readLine()
            if message["id"] == .string("s1") { return message }
        }
    }

    /// A failed system call of the scripted host.
    struct SystemFailure: Error {}

    @Test func willPresentIsAnsweredWithTheDelegatesOptions() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("host.sock")
        let listener = try UnixSocket.listen(at: path).take()
        defer { close(listener) }
        async let answered = Threaded.run { try Self.scriptedHost(listener) }
        let center = UserNotificationCenter(app: "org.example.app", socketPath: path, executor: OwnThreads.shared)
        let delegate = RecordingDelegate(presenting: [.banner, .list])
        try await center.setDelegate(delegate)
        try await center.setForeground(true)
        let answer = try await answered
        #expect(answer["result"]?["options"] == .array([.string("banner"), .string("list")]))
        let asked = try #require(await next(delegate.presented))
        #expect(asked.request.identifier == "n1")
        #expect(asked.request.content.body == "There")
        #expect(asked.request.content.userInfo["k"] == 1)
        // Above 2^53 an integer is still exact (never read through a Double).
        #expect(asked.request.content.userInfo["big"] == .integer(9_007_199_254_740_993))
        await center.disconnect()
    }
}
