import TidingsBase

/// One JSON-RPC 2.0 message the server sent, by what it is: the answer to a
/// call, an event (a notification: no id), or a request of the server's own
/// (a method and an id), each with the whole message as it came.
package enum ServerMessage: Hashable, Sendable {
    /// An answer: the id it answers (`null` when the server refused a line it
    /// could not read, or the connection) and the response object.
    case answer(id: JSON, JSON)
    /// An event: its method and the whole notification.
    case event(method: String, JSON)
    /// A request of the server's: its id, its method and the whole request.
    case request(id: JSON, method: String, JSON)

    /// The messages of one line: one, or each element of a batch in order.
    /// Elements that are none of the three are left out.
    /// - Throws: `json.syntax` and the parser's other codes for a line that is not JSON.
    package static func messages(in line: [UInt8]) throws(Diagnostic) -> [ServerMessage] {
        let value = try JSON.parse(line, file: "the server's message")
        if case .array(let batch) = value { return batch.compactMap(ServerMessage.init) }
        return ServerMessage(value).map { [$0] } ?? []
    }

    /// The message `value` is, if it is one.
    package init?(_ value: JSON) {
        let id = value["id"]
        if let method = value["method"]?.stringValue {
            if let id, id != .null {
                self = .request(id: id, method: method, value)
            } else {
                self = .event(method: method, value)
            }
        } else if let id {
            self = .answer(id: id, value)
        } else {
            return nil
        }
    }

    /// The whole message.
    package var json: JSON {
        switch self {
        case .answer(_, let json), .event(_, let json), .request(_, _, let json): json
        }
    }

    /// An event's or a request's `params` (an empty object when it has none);
    /// nil for an answer.
    package var params: JSON? {
        if case .answer = self { return nil }
        return json["params"] ?? .object([])
    }

    /// What an answer says: its `result` (`null` when it has none), or its error object.
    package var reply: Result<JSON, RPCErrorReply> {
        if let error = json["error"] { return .failure(RPCErrorReply(errorObject: error)) }
        return .success(json["result"] ?? .null)
    }
}

/// An error object: what the server answered a call with (its code, its
/// sentence, its `data`), or a client's own failure under code 0.
package struct RPCErrorReply: Error, Hashable, Sendable, CustomStringConvertible {
    /// The JSON-RPC error code (-32602: invalid params, -32001: no such notification, …); 0 for a client's own.
    package let code: Int64
    /// The server's sentence.
    package let message: String
    /// The error's `data`, when it has one.
    package let data: JSON?

    /// An error of `code`.
    package init(code: Int64, message: String, data: JSON? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    /// The error object `error` as the server wrote it; what is missing reads as code 0 and no sentence.
    package init(errorObject error: JSON) {
        self.init(code: error["code"]?.integerValue ?? 0, message: error["message"]?.stringValue ?? "",
                  data: error["data"])
    }

    /// The error object as the wire carries it.
    package var json: JSON {
        var members: [(String, JSON)] = [("code", .integer(code)), ("message", .string(message))]
        if let data { members.append(("data", data)) }
        return .object(members)
    }

    /// "CODE: message".
    package var description: String { "\(code): \(message)" }
}

/// Why a client got no answer: the connection ended or broke, the server sent
/// what is not JSON-RPC, or the answer did not come in time.
package enum RPCClientFailure: Error, Sendable {
    /// The connection ended or broke (the sentence says how), or a line was too long or not JSON.
    case broken(String)
    /// Nothing came before the deadline.
    case timedOut
}
