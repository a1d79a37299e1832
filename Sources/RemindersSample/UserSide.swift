import Dispatch
import Glibc

/// The user's side of the demo — what a front end does (allowing the app,
/// tapping an action) — on a connection of its own that says hello as a
/// front end: the app's own connection is an app's, which may do neither.
/// One request at a time, each answered before the next; nothing else is
/// sent on it. The events it hears while subscribed are kept for
/// `waitFor(event:)` and skipped by `call`. Used from one thread at a time
/// (the waiting for an event on a queue of Dispatch's, the demo waiting for it).
final class UserSide: @unchecked Sendable {
    /// The connected socket, owned here.
    private let socket: Int32
    /// What was read past the last answer's newline.
    private var pending: [UInt8] = []
    /// The id of the next request.
    private var next = 1
    /// The events heard and not yet waited for, a line each.
    private var events: [String] = []

    /// Connects to the host at `path` (the default socket when nil) and says hello as a front end.
    init(socketPath path: String?) throws {
        guard let path = path ?? Self.defaultPath else { throw DemoFailure("no socket: XDG_RUNTIME_DIR is not set") }
        socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw DemoFailure("no socket for the user's side") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw DemoFailure("the socket path is too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes + [0]) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            close(socket)
            throw DemoFailure("the user's side cannot connect to \(path)")
        }
        _ = try call("server.hello", #"{"role": "frontEnd", "client": "tidings-reminders demo"}"#)
    }

    deinit {
        close(socket)
    }

    /// `$XDG_RUNTIME_DIR/tidings/tidings.sock`, as the center's default.
    private static var defaultPath: String? {
        getenv("XDG_RUNTIME_DIR").map { String(cString: $0) + "/tidings/tidings.sock" }
    }

    /// Calls `method` with `params` (a JSON object's text) and returns the
    /// answer's line; throws when the host answered an error.
    @discardableResult
    func call(_ method: String, _ params: String) throws -> String {
        let id = next
        next += 1
        let line = Array(#"{"jsonrpc": "2.0", "id": \#(id), "method": "\#(method)", "params": \#(params)}"#.utf8) + [10]
        let sent = line.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == line.count else { throw DemoFailure("the user's side could not send \(method)") }
        var answer = try readLine()
        // An event (no id) heard meanwhile is kept for `waitFor(event:)`.
        while !Self.isAnswer(answer, to: id) {
            events.append(answer)
            answer = try readLine()
        }
        guard !answer.contains(#""error""#) else { throw DemoFailure("\(method) was refused: \(answer)") }
        return answer
    }

    /// Whether `line` is the answer to request `id` (its `"id"`, however spaced).
    private static func isAnswer(_ line: String, to id: Int) -> Bool {
        let packed = String(line.filter { $0 != " " })
        return packed.contains(#""id":\#(id),"#) || packed.contains(#""id":\#(id)}"#)
    }

    /// Reads until an event `method` is heard (or was heard already), on a
    /// queue of Dispatch's: the reading blocks, and the app's own tasks must
    /// run meanwhile; throws when the host closes the connection.
    func waitFor(event method: String) async throws {
        let heard: Result<Void, DemoFailure> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { () throws(DemoFailure) in try self.readUntil(event: method) })
            }
        }
        try heard.get()
    }

    /// Reads lines until one is the event `method`, keeping the others.
    private func readUntil(event method: String) throws(DemoFailure) {
        let named = #""method":"\#(method)""#
        while true {
            if let index = events.firstIndex(where: { String($0.filter { $0 != " " }).contains(named) }) {
                events.remove(at: index)
                return
            }
            do {
                events.append(try readLine())
            } catch let failure as DemoFailure {
                throw failure
            } catch {
                throw DemoFailure("the user's side could not read: \(error)")
            }
        }
    }

    /// The next line the host sends.
    private func readLine() throws -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let newline = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw DemoFailure("the host closed the user's side") }
            pending += buffer[..<count]
        }
    }
}
