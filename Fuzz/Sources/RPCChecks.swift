import TidingsBase
import TidingsServer

/// A line as the server reads it (a request, a batch, or why it is neither),
/// and the answer it would write: exactly one line of JSON-RPC 2.0 that
/// carries the request's id and reads back as what was put in it.
enum RPCChecks {
    static func check(_ bytes: [UInt8]) {
        switch RPCMessage.read(bytes) {
        case .single(let outcome): checkAnswer(to: outcome)
        case .batch(let outcomes): outcomes.forEach(checkAnswer)
        // An answer to one of the server's own requests is handed to whoever asked, never answered.
        case .response: break
        }
    }

    /// Checks the answer to one request, or to one that could not be read.
    private static func checkAnswer(to outcome: Result<RPCRequest, RPCFailure>) {
        switch outcome {
        case .success(let request):
            precondition(!request.method.isEmpty, "a request without a method was accepted")
            let id = request.id ?? .null
            let result = request.params ?? .null
            checkLine(RPCReply.result(result, id: id), id: id, member: "result", value: result)
        case .failure(let failure):
            checkLine(RPCReply.error(failure.error, id: failure.id), id: failure.id, member: "error", value: failure.error.json)
        }
    }

    /// Checks that `line` is one line answering `id` with `member` set to `value`.
    private static func checkLine(_ line: [UInt8], id: RPCID, member: String, value: JSON) {
        precondition(line.last == UInt8(ascii: "\n") && !line.dropLast().contains(UInt8(ascii: "\n")),
                     "an answer is not exactly one line")
        guard let answer = try? JSON.parse(Array(line.dropLast())) else { preconditionFailure("an answer is not JSON") }
        precondition(answer["jsonrpc"] == .string("2.0") && answer["id"] == id.json && answer[member] == value,
                     "an answer does not read back as what it answers")
    }
}
