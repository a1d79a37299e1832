import Foundation
import Glibc

/// A JSON-RPC host of the test's own on a Unix socket, for a client whose
/// server side is not there (a method the server does not have yet) or
/// whose answers the test must choose: every request is answered by the
/// test's `answer`, each call is recorded, and the test pushes events to
/// every connection. It reads and writes one JSON object per line, as
/// `tidings serve` does, on threads of its own.
public final class ScriptedHost: @unchecked Sendable {
    /// What the host answers a request with.
    public enum Reply: Sendable {
        /// `result`, as JSON text.
        case result(String)
        /// A JSON-RPC error; `data` as JSON text.
        case error(code: Int, message: String, data: String? = nil)
    }

    /// A request the host received.
    public struct Call: @unchecked Sendable {
        /// The method.
        public let method: String
        /// The params (an empty object when none came).
        public let params: [String: Any]
    }

    /// The socket's path.
    public let path: String
    private let listener: Int32
    private let answer: @Sendable (String, [String: Any]) -> Reply
    private let condition = NSCondition()
    private var received: [Call] = []
    private var connections: [Int32] = []
    private var stopped = false

    /// Listens at `path` (its directory the test's own) and answers each
    /// request with `answer(method, params)`; `server.hello` and
    /// `events.subscribe` are answered `{}` unless `answer` says otherwise.
    public init(path: String, answer: @escaping @Sendable (String, [String: Any]) -> Reply) throws {
        self.path = path
        self.answer = answer
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw Failure(description: "socket: \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw Failure(description: "path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { room in
            for (index, byte) in bytes.enumerated() { room[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        // The client connects only to a socket writable by its user alone.
        guard bound == 0, chmod(path, 0o600) == 0, listen(listener, 16) == 0 else {
            close(listener)
            throw Failure(description: "cannot listen at \(path): \(errno)")
        }
        Thread.detachNewThread { [self] in acceptConnections() }
    }

    deinit {
        stop()
    }

    /// Stops listening and ends every connection.
    public func stop() {
        condition.lock()
        let open = stopped ? [] : connections + [listener]
        stopped = true
        condition.broadcast()
        condition.unlock()
        for descriptor in open { shutdown(descriptor, Int32(SHUT_RDWR)) }
        if !open.isEmpty { unlink(path) }
    }

    /// Every request received so far, in order.
    public var calls: [Call] {
        condition.lock()
        defer { condition.unlock() }
        return received
    }

    /// Waits for the `count`th request of `method` (at most `patience`), and returns it.
    public func call(_ method: String, count: Int = 1) -> Call? {
        let deadline = Date(timeIntervalSinceNow: patience)
        condition.lock()
        defer { condition.unlock() }
        while true {
            let matching = received.filter { $0.method == method }
            if matching.count >= count { return matching[count - 1] }
            if stopped || !condition.wait(until: deadline) { return nil }
        }
    }

    /// Pushes the event `method` with `params` (JSON text) to every connection.
    public func send(event method: String, params: String) {
        condition.lock()
        let open = connections
        condition.unlock()
        for connection in open {
            write(#"{"jsonrpc": "2.0", "method": "\#(method)", "params": \#(params)}"#, to: connection)
        }
    }

    /// Accepts connections until stopped, each read on a thread of its own.
    private func acceptConnections() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR { continue }
                close(listener)
                return
            }
            condition.lock()
            if stopped {
                condition.unlock()
                close(connection)
                continue
            }
            connections.append(connection)
            condition.unlock()
            Thread.detachNewThread { [self] in serve(connection) }
        }
    }

    /// Reads `connection`'s lines and answers its requests, until it ends.
    private func serve(_ connection: Int32) {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        defer {
            condition.lock()
            connections.removeAll { $0 == connection }
            condition.unlock()
            close(connection)
        }
        while true {
            while let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Data(buffer[..<end])
                buffer.removeFirst(end + 1)
                guard let message = (try? JSONSerialization.jsonObject(with: line)) as? [String: Any],
                      let method = message["method"] as? String else { continue }
                let params = message["params"] as? [String: Any] ?? [:]
                var reply: Reply = .result("{}")
                if method != "server.hello" && method != "events.subscribe" && method != "apps.foreground" {
                    reply = answer(method, params)
                }
                condition.lock()
                received.append(Call(method: method, params: params))
                condition.broadcast()
                condition.unlock()
                guard let id = message["id"], let idText = Self.text(of: id) else { continue }
                switch reply {
                case .result(let result):
                    write(#"{"jsonrpc": "2.0", "id": \#(idText), "result": \#(result)}"#, to: connection)
                case .error(let code, let errorMessage, let data):
                    let quoted = Self.text(of: errorMessage) ?? "\"\""
                    write(#"{"jsonrpc": "2.0", "id": \#(idText), "error": {"code": \#(code), "message": \#(quoted)\#(data.map { ", \"data\": \($0)" } ?? "")}}"#,
                          to: connection)
                }
            }
            let count = chunk.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            buffer += chunk[..<count]
        }
    }

    /// `value` (a string or a number) as JSON text.
    private static func text(of value: Any) -> String? {
        guard let data = try? JSONSerialization.data(withJSONObject: [value], options: [.fragmentsAllowed]) else { return nil }
        return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
    }

    /// Writes `line` and a newline to `connection`, whole.
    private func write(_ line: String, to connection: Int32) {
        let bytes = Array((line + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return }
            sent += count
        }
    }

    /// The host could not start.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed.
        public let description: String
    }
}
