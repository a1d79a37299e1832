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
    /// The parameters of which a call gives exactly one (none: no such choice).
    package let oneOf: [String]
    /// What the answer's `result` holds, in words.
    package let result: String
    /// The type of the answer's `result`.
    package let returns: ProtocolSchema
    /// The JSON-RPC error codes a call can answer besides those any request
    /// can (`ProtocolErrorCode.anyRequest`), each in `ProtocolErrorCode.all`.
    package let errors: [Int]

    /// The entry of `method` (its name one of TidingsProtocol's, which clients call it by).
    package init(_ method: MethodName, summary: String, parameters: [ProtocolField] = [], oneOf: [String] = [],
                 result: String, returns: ProtocolSchema, errors: [Int]) {
        self.name = method.rawValue
        self.summary = summary
        self.parameters = parameters
        self.oneOf = oneOf
        self.result = result
        self.returns = returns
        self.errors = errors
    }

    /// The parameter `name`, if the method takes one of that name.
    package func parameter(_ name: String) -> ProtocolField? {
        parameters.first { $0.name == name }
    }

    /// The JSON Schema of a call's whole `params` object: the parameters, no
    /// other, those required, and exactly one of `oneOf`.
    package var paramsSchema: JSON {
        guard !oneOf.isEmpty, case .object(let members) = ProtocolSchema.objectSchema(parameters, closed: true) else {
            return ProtocolSchema.objectSchema(parameters, closed: true)
        }
        let choices = oneOf.map { JSON.object([("required", .array([.string($0)]))]) }
        return .object(members + [("oneOf", .array(choices))])
    }

    /// The entry of a request the server sends, as the compact description
    /// (protocol.json) lists it: its name, when it is sent, its params and the result it expects.
    package var serverRequestJSON: JSON {
        .object([
            ("name", .string(name)), ("summary", .string(summary)),
            ("params", .array(parameters.map(\.json))), ("result", .string(result)),
        ])
    }

    /// The entry as the compact description (protocol.json) lists it.
    package var json: JSON {
        .object([
            ("name", .string(name)), ("summary", .string(summary)),
            ("params", .array(parameters.map(\.json))), ("result", .string(result)),
            ("errors", .array(errors.map { .integer(Int64($0)) })),
        ])
    }

    /// The entry as an OpenRPC method object: its params as content
    /// descriptors (by name), its result's schema, its errors (by reference
    /// to `components/errors`), and the schema of its whole `params` object
    /// (`x-params-schema`, which says what OpenRPC cannot: no other
    /// parameter, one of two).
    package var openRPC: JSON {
        var members: [(String, JSON)] = [
            ("name", .string(name)), ("description", .string(summary)), ("paramStructure", .string("by-name")),
            ("params", .array(parameters.map(\.contentDescriptor))),
            ("result", .object([("name", .string("result")), ("description", .string(result)),
                                ("schema", returns.jsonSchema)])),
        ]
        if !errors.isEmpty {
            members.append(("errors", .array(errors.map { .object([("$ref", .string("#/components/errors/\($0)"))]) })))
        }
        members.append(("x-params-schema", paramsSchema))
        return .object(members)
    }
}
