import Foundation
import Glibc
import TestSupport
import TidingsBase
import TidingsRegistry
import TidingsRuntime
import TidingsServer

/// A server in this process on a socket in a temporary directory, serving
/// the bundles a test installs, stopped when the fixture goes away.
final class ServerFixture: @unchecked Sendable {
    let directory = TemporaryDirectory("server")
    private(set) var server: Server?
    var socketPath: String { directory.file("tidings.sock") }

    /// Builds a C fixture and installs it as a content extension of `identifier` for `categories`.
    func installC(_ name: String, identifier: String, categories: [String], interface: String? = nil) throws {
        let library = try CCompiler.fixture(name, into: directory.path, extraFlags: ["-pthread"])
        var resources: [String] = []
        if let interface { resources.append(try directory.write(interface, to: "\(name)-interface/MainInterface.json")) }
        try BundleMaker.make(name, in: directory.file("extensions"), manifest: BundleMaker.contentManifest(
            identifier: identifier, executable: "lib\(name).so", categories: categories,
            interface: interface == nil ? nil : "MainInterface"), library: library, resources: resources)
    }

    /// Installs a shipped sample (EventInvite, NoOp, …).
    func installSample(_ name: String) throws {
        try FileManager.default.createDirectory(atPath: directory.file("extensions"), withIntermediateDirectories: true)
        try BundleMaker.installSample(name, in: directory.file("extensions"))
    }

    /// Starts the server over what is installed.
    @discardableResult
    func start(limits: Server.Limits = Server.Limits(), responseDeadline: Double = 2) throws -> Server {
        try FileManager.default.createDirectory(atPath: directory.file("extensions"), withIntermediateDirectories: true)
        var configuration = HostService.Configuration()
        configuration.host.responseDeadline = responseDeadline
        configuration.host.attachmentDirectory = directory.file("state/attachments")
        let index = Discovery.scan(SearchPath(directories: [directory.file("extensions")], origin: .option))
        let server = Server(service: HostService(index: index, configuration: configuration), limits: limits)
        server.serveInBackground(try UnixSocket.listen(at: socketPath))
        self.server = server
        return server
    }

    /// A client connected to the server.
    func client() throws -> RPCClient {
        try RPCClient(path: socketPath)
    }

    deinit {
        server?.stop()
    }
}

/// An error the server answered with.
struct RPCErrorReply: Error, CustomStringConvertible {
    let code: Int64
    let message: String
    let data: JSON?
    var description: String { "\(code): \(message)" }
}

/// A JSON-RPC client over a Unix socket, as a front end would be: it sends
/// lines and reads answers and events.
final class RPCClient {
    let socket: Int32
    private var buffer: [UInt8] = []
    private var nextID: Int64 = 0
    /// Events received, in order, not yet taken.
    private(set) var events: [JSON] = []
    /// Answers read while waiting for another, by id.
    private var answers: [JSON: JSON] = [:]

    init(path: String) throws {
        let descriptor = try UnixSocket.connect(to: path)
        socket = descriptor.take()
    }

    deinit {
        close(socket)
    }

    /// Sends `text` and a newline.
    func send(_ text: String) {
        let bytes = Array((text + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return }
            sent += count
        }
    }

    /// Sends a request and returns its id.
    @discardableResult
    func request(_ method: String, _ params: JSON? = nil, id: JSON? = nil) -> JSON {
        nextID += 1
        let id = id ?? .integer(nextID)
        var members: [(String, JSON)] = [("jsonrpc", .string("2.0")), ("id", id), ("method", .string(method))]
        if let params { members.append(("params", params)) }
        send(JSON.object(members).serialized())
        return id
    }

    /// Calls `method` and returns its result, or throws the error the server answered.
    func call(_ method: String, _ params: JSON? = nil, timeout: Double = 5) throws -> JSON {
        let id = request(method, params)
        return try result(of: id, timeout: timeout)
    }

    /// The answer to request `id`: its result, or its error thrown.
    func result(of id: JSON, timeout: Double = 5) throws -> JSON {
        let answer = try self.answer(to: id, timeout: timeout)
        if let error = answer["error"] {
            throw RPCErrorReply(code: error["code"]?.integerValue ?? 0, message: error["message"]?.stringValue ?? "",
                                data: error["data"])
        }
        return answer["result"] ?? .null
    }

    /// The whole response object for `id`.
    func answer(to id: JSON, timeout: Double = 5) throws -> JSON {
        let deadline = MonotonicClock.deadline(after: timeout)
        while true {
            if let answer = answers.removeValue(forKey: id) { return answer }
            guard let message = try readMessage(until: deadline) else { throw RPCErrorReply(code: 0, message: "no answer to \(id) in time", data: nil) }
            file(message)
        }
    }

    /// The next event of `method` (taking it), waiting up to `timeout` seconds.
    func event(_ method: String, timeout: Double = 3) throws -> JSON? {
        let deadline = MonotonicClock.deadline(after: timeout)
        while true {
            if let position = events.firstIndex(where: { $0["method"]?.stringValue == method }) {
                return events.remove(at: position)["params"]
            }
            guard let message = try readMessage(until: deadline) else { return nil }
            file(message)
        }
    }

    /// Reads whatever arrives for `seconds`, filing it.
    func drain(for seconds: Double) throws {
        let deadline = MonotonicClock.deadline(after: seconds)
        while let message = try readMessage(until: deadline) { file(message) }
    }

    /// The next raw line, or nil when none came in time; throws at end of stream.
    func readLine(until deadline: UInt64) throws -> String? {
        try readMessageBytes(until: deadline).map { String(decoding: $0, as: UTF8.self) }
    }

    private func file(_ message: JSON) {
        if case .array(let replies) = message {
            for reply in replies { file(reply) }
        } else if let id = message["id"] {
            answers[id] = message
        } else {
            events.append(message)
        }
    }

    private func readMessage(until deadline: UInt64) throws -> JSON? {
        guard let bytes = try readMessageBytes(until: deadline) else { return nil }
        return try JSON.parse(bytes)
    }

    private func readMessageBytes(until deadline: UInt64) throws -> [UInt8]? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return line
            }
            let now = MonotonicClock.now()
            guard now < deadline else { return nil }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(max(1, (deadline - now) / 1_000_000)))
            if ready <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw RPCErrorReply(code: 0, message: "the server closed the connection", data: nil) }
            buffer += chunk[..<count]
        }
    }
}
