import TidingsBase
import TidingsProtocol

/// What the protocol reference says of one event the server pushes (a
/// JSON-RPC notification): its method name, when it is sent, and its params.
package struct ProtocolEvent: Sendable {
    /// The notification's `method`.
    package let name: String
    /// When the server sends it.
    package let summary: String
    /// The members of its `params`.
    package let fields: [ProtocolField]

    /// The entry of `event` (its name one of TidingsProtocol's, which clients follow it by).
    package init(_ event: EventName, summary: String, fields: [ProtocolField]) {
        self.name = event.rawValue
        self.summary = summary
        self.fields = fields
    }

    /// The JSON Schema of its `params`: the members it carries, those it always carries.
    package var paramsSchema: JSON { ProtocolSchema.objectSchema(fields, closed: false) }

    /// The entry as the compact description (protocol.json) lists it.
    package var json: JSON {
        .object([("name", .string(name)), ("summary", .string(summary)), ("params", .array(fields.map(\.json)))])
    }

    /// The entry as the OpenRPC document's `x-events` lists it: a
    /// notification's name, when it is sent, its params as content
    /// descriptors and the schema of the whole `params` object.
    package var openRPC: JSON {
        .object([("name", .string(name)), ("description", .string(summary)),
                 ("params", .array(fields.map(\.contentDescriptor))), ("x-params-schema", paramsSchema)])
    }
}
