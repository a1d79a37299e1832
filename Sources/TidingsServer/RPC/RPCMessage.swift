import TidingsBase

/// A request's id: a number, a string, or null (JSON-RPC 2.0).
package enum RPCID: Sendable, Hashable {
    case number(Int64)
    /// A number with a fraction or an exponent (`1.0`, `1.5`): JSON-RPC allows any number; answered as given.
    case fraction(Double)
    case string(String)
    case null

    /// The id as JSON.
    package var json: JSON {
        switch self {
        case .number(let value): .integer(value)
        case .fraction(let value): .double(value)
        case .string(let value): .string(value)
        case .null: .null
        }
    }
}

/// One call: a method, its parameters, and the id to answer (nil for a
/// notification, which gets no answer).
package struct RPCRequest: Sendable {
    /// The id; nil for a notification.
    package var id: RPCID?
    /// The method's name.
    package var method: String
    /// The parameters: an object or an array; nil when absent.
    package var params: JSON?
}

/// A request that could not be read, and the id to answer it under (null
/// when none could be read).
package struct RPCFailure: Error, Sendable {
    /// The id the error answers.
    package var id: RPCID
    /// What is wrong.
    package var error: RPCError
}

/// A client's answer to a request the server sent it (an object with an
/// `id` and a `result` or an `error`, and no `method`).
package struct RPCResponse: Sendable {
    /// The id of the server's request it answers.
    package var id: RPCID
    /// The result, or the error the client answered.
    package var outcome: Result<JSON, RPCError>
}

/// What one line of input holds.
package enum RPCMessage: Sendable {
    /// One request, or why it is not one.
    case single(Result<RPCRequest, RPCFailure>)
    /// A batch: an array of requests, answered with an array.
    case batch([Result<RPCRequest, RPCFailure>])
    /// The client's answer to a request the server sent it; it gets no answer.
    case response(RPCResponse)

    /// Reads one line (without its newline).
    package static func read(_ line: [UInt8]) -> RPCMessage {
        let json: JSON
        do {
            json = try JSON.parse(line, maximumDepth: 64)
        } catch {
            return .single(.failure(RPCFailure(id: .null, error: .parseError("The message is not JSON: \(error.message)"))))
        }
        if case .array(let elements) = json {
            guard !elements.isEmpty else {
                return .single(.failure(RPCFailure(id: .null, error: .invalidRequest("An empty batch has no request."))))
            }
            return .batch(elements.map(request))
        }
        guard let members = json.objectMembers else {
            return .single(.failure(RPCFailure(id: .null, error: .invalidRequest(
                "A request is an object; this is \(json.typeDescription)."))))
        }
        let envelope = Envelope(members)
        if let response = envelope.response { return .response(response) }
        return .single(envelope.request)
    }

    /// A message's members, found in one pass over them: the first of each
    /// name, as `JSON`'s subscript finds it, and the first name that no
    /// request has.
    private struct Envelope {
        var version: JSON?
        var id: JSON?
        var method: JSON?
        var params: JSON?
        var result: JSON?
        var error: JSON?
        /// The first member that is none of a request's four.
        var unknown: String?

        init(_ members: [(String, JSON)]) {
            for (name, value) in members {
                switch name {
                case "jsonrpc": if version == nil { version = value }
                case "id": if id == nil { id = value }
                case "method": if method == nil { method = value }
                case "params": if params == nil { params = value }
                default:
                    if name == "result", result == nil { result = value }
                    if name == "error", error == nil { error = value }
                    if unknown == nil { unknown = name }
                }
            }
        }

        /// The response the message is, when it is one: no `method`, a
        /// string or integer `id`, and a `result` or an `error` (an error
        /// without a code or message still counts as one, coded -32603).
        var response: RPCResponse? {
            guard method == nil, result != nil || error != nil else { return nil }
            let id: RPCID
            switch self.id {
            case .integer(let value)?: id = .number(value)
            case .string(let value)?: id = .string(value)
            default: return nil
            }
            if let result { return RPCResponse(id: id, outcome: .success(result)) }
            return RPCResponse(id: id, outcome: .failure(RPCError(
                error?["code"]?.integerValue.map { Int($0) } ?? -32603,
                error?["message"]?.stringValue ?? "The client answered an error without a message.", data: error?["data"])))
        }

        /// The request the message states, checked member by member.
        var request: Result<RPCRequest, RPCFailure> {
            var id: RPCID?
            switch self.id {
            case nil: id = nil
            case .null?: id = .null
            case .integer(let value)?: id = .number(value)
            case .double(let value)?: id = .fraction(value)
            case .string(let value)?: id = .string(value)
            case let other?:
                return .failure(RPCFailure(id: .null, error: .invalidRequest(
                    "\"id\" must be a string, a number or null; it is \(other.typeDescription).")))
            }
            let answerID = id ?? .null
            guard version?.stringValue == "2.0" else {
                return .failure(RPCFailure(id: answerID, error: .invalidRequest("\"jsonrpc\" must be \"2.0\".")))
            }
            guard let method = method?.stringValue, !method.isEmpty else {
                return .failure(RPCFailure(id: answerID, error: .invalidRequest("\"method\" must be a non-empty string.")))
            }
            if let params, params.objectMembers == nil, params.arrayValue == nil {
                return .failure(RPCFailure(id: answerID, error: .invalidRequest(
                    "\"params\" must be an object or an array; it is \(params.typeDescription).")))
            }
            if let unknown {
                return .failure(RPCFailure(id: answerID, error: .invalidRequest(
                    "\"\(unknown)\" is not a member of a JSON-RPC 2.0 request.")))
            }
            return .success(RPCRequest(id: id, method: method, params: params))
        }
    }

    /// The request `json`, an element of a batch, states.
    private static func request(_ json: JSON) -> Result<RPCRequest, RPCFailure> {
        guard let members = json.objectMembers else {
            return .failure(RPCFailure(id: .null, error: .invalidRequest("A request is an object; this is \(json.typeDescription).")))
        }
        return Envelope(members).request
    }
}

/// The lines the server writes: answers and event notifications.
package enum RPCReply {
    /// The answer to request `id` with `result`, as one line.
    package static func result(_ result: JSON, id: RPCID) -> [UInt8] {
        line(.object([("jsonrpc", .string("2.0")), ("id", id.json), ("result", result)]))
    }

    /// The answer to request `id` with `error`, as one line.
    package static func error(_ error: RPCError, id: RPCID) -> [UInt8] {
        line(.object([("jsonrpc", .string("2.0")), ("id", id.json), ("error", error.json)]))
    }

    /// A request of the server's own, `method` with `params` under `id`, as
    /// one line: the client answers it as it would be answered.
    package static func request(_ method: String, params: JSON, id: RPCID) -> [UInt8] {
        line(.object([("jsonrpc", .string("2.0")), ("id", id.json), ("method", .string(method)), ("params", params)]))
    }

    /// A notification (no id) of `method` with `params`, as one line: how
    /// events are pushed; one `kept` for those that resume is made no larger than it is.
    package static func notification(_ method: String, params: JSON, kept: Bool = false) -> [UInt8] {
        line(.object([("jsonrpc", .string("2.0")), ("method", .string(method)), ("params", params)]), kept: kept)
    }

    /// `json` serialised, with a newline, written once (`JSON.line(kept:)`).
    package static func line(_ json: JSON, kept: Bool = false) -> [UInt8] {
        json.line(kept: kept)
    }
}
