import TidingsBase
import TidingsProtocol

/// What the protocol reference says of one method: its name, what it does,
/// the parameters it takes, what it answers and the errors it can answer.
///
/// The entry is the method's own: `Params` reads a call's parameters by the
/// entry's names (a name it does not list is refused, one it marks required
/// is reported missing), so what the reference says is what the server takes.
package struct ProtocolMethod: Sendable {
    /// The method's name (`family.verb`).
    package let name: String
    /// One sentence (or two): what a call does.
    package let summary: String
    /// The parameters it takes, by name, in the order the server lists them.
    package let parameters: [ProtocolField]
    /// What the answer's `result` holds.
    package let result: String
    /// The JSON-RPC error codes a call can answer besides those any request
    /// can (`ProtocolErrorCode.anyRequest`), each in `ProtocolErrorCode.all`.
    package let errors: [Int]

    /// The entry of `method` (its name one of TidingsProtocol's, which clients call it by).
    package init(_ method: MethodName, summary: String, parameters: [ProtocolField] = [], result: String, errors: [Int]) {
        self.name = method.rawValue
        self.summary = summary
        self.parameters = parameters
        self.result = result
        self.errors = errors
    }

    /// The parameter `name`, if the method takes one of that name.
    package func parameter(_ name: String) -> ProtocolField? {
        parameters.first { $0.name == name }
    }

    /// The entry of a request the server sends, as the machine-readable
    /// description lists it: its name, when it is sent, its params and the result it expects.
    package var serverRequestJSON: JSON {
        .object([
            ("name", .string(name)), ("summary", .string(summary)),
            ("params", .array(parameters.map(\.json))), ("result", .string(result)),
        ])
    }

    /// The entry as the machine-readable description lists it.
    package var json: JSON {
        .object([
            ("name", .string(name)), ("summary", .string(summary)),
            ("params", .array(parameters.map(\.json))), ("result", .string(result)),
            ("errors", .array(errors.map { .integer(Int64($0)) })),
        ])
    }
}
