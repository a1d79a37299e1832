import TidingsBase

/// What a client writes: requests under ids of its own (1, 2, …, exact
/// integers), its answers to the server's requests, each one line of the
/// wire JSON and its newline, queued until the transport takes them.
package struct RPCOutput: Sendable {
    /// The bytes not yet written.
    package private(set) var pending: [UInt8] = []
    private var lastID: Int64 = 0

    /// Nothing queued, ids from 1.
    package init() {}

    /// Queues a request for `method` with `params` (none when nil) under the
    /// next id, or `id` when given.
    /// - Returns: the request's id, as its answer carries it.
    package mutating func request(_ method: MethodName, _ params: JSON?, id: JSON? = nil) -> JSON {
        let id = id ?? nextID()
        var members: [(String, JSON)] = [("jsonrpc", .string("2.0")), ("id", id), ("method", .string(method.rawValue))]
        if let params { members.append(("params", params)) }
        queue(.object(members))
        return id
    }

    /// A new id: one more than the last.
    private mutating func nextID() -> JSON {
        lastID += 1
        return .integer(lastID)
    }

    /// Queues the answer `result` to the server's request `id`.
    package mutating func respond(to id: JSON, result: JSON) {
        queue(.object([("jsonrpc", .string("2.0")), ("id", id), ("result", result)]))
    }

    /// Queues the answer `error` to the server's request `id`.
    package mutating func respond(to id: JSON, error: RPCErrorReply) {
        queue(.object([("jsonrpc", .string("2.0")), ("id", id), ("error", error.json)]))
    }

    /// Queues `message` as one line.
    package mutating func queue(_ message: JSON) {
        message.serialize(into: &pending)
        pending.append(UInt8(ascii: "\n"))
    }

    /// Queues `bytes` as they are, and a newline (a line a test writes by hand).
    package mutating func queue(line bytes: [UInt8]) {
        pending += bytes
        pending.append(UInt8(ascii: "\n"))
    }

    /// Takes everything queued, for a transport that writes it whole.
    package mutating func take() -> [UInt8] {
        defer { pending = [] }
        return pending
    }

    /// Drops the first `count` bytes queued: the transport wrote them.
    package mutating func written(_ count: Int) {
        pending.removeFirst(min(count, pending.count))
    }
}

/// What a client reads: bytes as they arrive, cut into lines at each newline
/// (a line may come in many pieces, many lines in one), a line longer than
/// the limit refused before more is kept.
package struct RPCInput: Sendable {
    /// The longest line accepted from the server (its own limit is 1 MiB by default, events included).
    package static let lineLimit = 64 << 20
    private var buffer: [UInt8] = []
    /// Where the first line not yet taken begins in `buffer`.
    private var start = 0
    /// How far `buffer` from `start` is known to hold no newline.
    private var searched = 0

    /// Nothing read yet.
    package init() {}

    /// Adds bytes read.
    package mutating func append(_ bytes: [UInt8]) {
        buffer += bytes
    }

    /// The next whole line without its newline, taken; nil until one has arrived whole.
    /// - Throws: `.broken` when the line so far is longer than ``lineLimit``.
    package mutating func nextLine() throws(RPCClientFailure) -> [UInt8]? {
        guard let newline = buffer[(start + searched)...].firstIndex(of: UInt8(ascii: "\n")) else {
            searched = buffer.count - start
            if searched > Self.lineLimit { throw .broken("The server sent a line longer than \(Self.lineLimit) bytes.") }
            compact()
            return nil
        }
        let line = Array(buffer[start..<newline])
        start = newline + 1
        searched = 0
        return line
    }

    /// The messages of the next whole line (see `ServerMessage.messages(in:)`); nil until one has arrived whole.
    /// - Throws: `.broken` for a line too long or not JSON.
    package mutating func nextMessages() throws(RPCClientFailure) -> [ServerMessage]? {
        guard let line = try nextLine() else { return nil }
        do throws(Diagnostic) {
            return try ServerMessage.messages(in: line)
        } catch {
            throw .broken("The server sent a line that is not JSON: \(error.message)")
        }
    }

    /// Drops the lines taken once nothing but a partial line is left.
    private mutating func compact() {
        guard start > 0 else { return }
        buffer.removeSubrange(..<start)
        start = 0
    }
}
