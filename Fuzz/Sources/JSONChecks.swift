import TidingsBase

/// The JSON parser and writer: whatever `JSON.parse` accepts is written,
/// compact and pretty, in exactly the bytes the writer measured, and reads
/// back as the same value.
enum JSONChecks {
    static func check(_ bytes: [UInt8]) {
        guard let value = try? JSON.parse(bytes) else { return }
        for pretty in [false, true] {
            var text: [UInt8] = []
            value.serialize(into: &text, pretty: pretty)
            precondition(text.count == value.utf8Count(pretty: pretty), "the writer measured another length than it wrote")
            guard let again = try? JSON.parse(text) else { preconditionFailure("the writer's text does not parse") }
            precondition(again == value, "the writer's text reads back as another value")
        }
    }
}
