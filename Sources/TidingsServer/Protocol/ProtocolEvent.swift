import TidingsBase

/// What the protocol reference says of one event the server pushes (a
/// JSON-RPC notification): its method name, when it is sent, and its params.
package struct ProtocolEvent: Sendable {
    /// The notification's `method`.
    package let name: String
    /// When the server sends it.
    package let summary: String
    /// The members of its `params`.
    package let fields: [ProtocolField]

    /// The entry of `name`.
    package init(_ name: String, summary: String, fields: [ProtocolField]) {
        self.name = name
        self.summary = summary
        self.fields = fields
    }

    /// The entry as the machine-readable description lists it.
    package var json: JSON {
        .object([("name", .string(name)), ("summary", .string(summary)), ("params", .array(fields.map(\.json)))])
    }
}
