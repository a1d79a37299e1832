import TidingsBase

/// One named member of a method's parameters or of an event's params, as
/// the protocol reference describes it.
package struct ProtocolField: Sendable, Equatable {
    /// Its name in the JSON object.
    package let name: String
    /// Its JSON type, as the reference spells it ("string", "array of
    /// strings", "object", "string | array of strings", …).
    package let type: String
    /// Whether a call must give it (a parameter), or an event always carries it.
    package let required: Bool
    /// What it means, one or two plain sentences.
    package let meaning: String

    /// A member `name` of `type` meaning `meaning`.
    package init(_ name: String, _ type: String, required: Bool = false, _ meaning: String) {
        self.name = name
        self.type = type
        self.required = required
        self.meaning = meaning
    }

    /// The member as the machine-readable description lists it.
    package var json: JSON {
        .object([("name", .string(name)), ("type", .string(type)), ("required", .bool(required)),
                 ("meaning", .string(meaning))])
    }
}
