import TidingsBase

/// One named member of a method's parameters, of a result, of an event's
/// params or of a named schema, as the protocol reference describes it.
package struct ProtocolField: Sendable, Equatable {
    /// Its name in the JSON object.
    package let name: String
    /// Its JSON type, which makes both its JSON Schema and the words the
    /// reference's tables give it.
    package let schema: ProtocolSchema
    /// Whether a call must give it (a parameter), or the object always carries it.
    package let required: Bool
    /// What it means, one or two plain sentences.
    package let meaning: String

    /// A member `name` of type `schema` meaning `meaning`.
    package init(_ name: String, _ schema: ProtocolSchema, required: Bool = false, _ meaning: String) {
        self.name = name
        self.schema = schema
        self.required = required
        self.meaning = meaning
    }

    /// Its type in words, as the reference's tables give it.
    package var type: String { schema.prose }

    /// Its JSON Schema with its meaning as the schema's `description`.
    package var describedSchema: JSON {
        guard case .object(let members) = schema.jsonSchema else { return schema.jsonSchema }
        // A `$ref`'s siblings are ignored in draft 7: the description goes beside it in an allOf.
        if members.contains(where: { $0.0 == "$ref" }) {
            return .object([("description", .string(meaning)), ("allOf", .array([schema.jsonSchema]))])
        }
        return .object([("description", .string(meaning))] + members)
    }

    /// The member as an OpenRPC content descriptor: name, description, whether required, schema.
    package var contentDescriptor: JSON {
        .object([("name", .string(name)), ("description", .string(meaning)), ("required", .bool(required)),
                 ("schema", schema.jsonSchema)])
    }

    /// The member as the compact description (protocol.json) lists it.
    package var json: JSON {
        .object([("name", .string(name)), ("type", .string(type)), ("required", .bool(required)),
                 ("meaning", .string(meaning))])
    }
}
