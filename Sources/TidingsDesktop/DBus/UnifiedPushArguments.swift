/// A Connector2 call's one argument, the variant dictionary (`a{sv}`),
/// read with the connector's limits: string values (`token`, `endpoint`,
/// `id`) and the `message` bytes, the latter refused before they are copied
/// when longer than `UnifiedPushLimits.busMessage`. A key of a known name
/// with another type than the specification's, a key given twice, or more
/// than `UnifiedPushLimits.entries` entries refuse the call; unknown keys
/// are skipped (a newer specification may add some).
package struct UnifiedPushArguments: Sendable, Equatable {
    /// The string values, by key.
    package var strings: [String: String] = [:]
    /// The `message` value.
    package var message: [UInt8]?

    /// The keys whose value is a string (`s`).
    static let stringKeys: Set<String> = ["token", "endpoint", "id", "service", "description", "vapid"]

    /// Reads the dictionary at `reader`'s position.
    /// - Throws: why the call is refused.
    package static func read(_ reader: borrowing MessageReader) throws(UnifiedPushRefusal) -> UnifiedPushArguments {
        var arguments = UnifiedPushArguments()
        var seen: Set<String> = []
        var problem: UnifiedPushRefusal?
        do throws(BusError) {
            _ = try reader.readArray("{sv}") { (entries: borrowing MessageReader) throws(BusError) in
                try entries.inContainer("e", "sv") { (entry: borrowing MessageReader) throws(BusError) in
                    guard problem == nil else { return try entry.skip("sv") }
                    let key = try entry.readString()
                    let signature = try entry.variantSignature()
                    guard seen.insert(key).inserted, seen.count <= UnifiedPushLimits.entries else {
                        problem = UnifiedPushRefusal(sentence: seen.count > UnifiedPushLimits.entries
                            ? "its dictionary has more than \(UnifiedPushLimits.entries) entries" : "it gives \(key) twice")
                        return try entry.skip("v")
                    }
                    if key == "message" {
                        guard signature == "ay" else {
                            problem = UnifiedPushRefusal(sentence: "its message is a \(signature), not bytes (ay)")
                            return try entry.skip("v")
                        }
                        let bytes: [UInt8]
                        do throws(BusError) {
                            bytes = try entry.inContainer("v", "ay") { (value: borrowing MessageReader) throws(BusError) in
                                try value.readBytes(atMost: UnifiedPushLimits.busMessage)
                            }
                        } catch {
                            problem = UnifiedPushRefusal(sentence: "its message is longer than the \(UnifiedPushLimits.busMessage) bytes taken")
                            return
                        }
                        arguments.message = bytes
                    } else if stringKeys.contains(key) {
                        guard signature == "s" else {
                            problem = UnifiedPushRefusal(sentence: "its \(key) is a \(signature), not a string (s)")
                            return try entry.skip("v")
                        }
                        arguments.strings[key] = try entry.inContainer("v", "s") {
                            (value: borrowing MessageReader) throws(BusError) in try value.readString()
                        }
                    } else {
                        try entry.skip("v")
                    }
                }
            }
        } catch {
            throw problem ?? UnifiedPushRefusal(sentence: "its argument is not a dictionary of variants (a{sv}): \(error.message)")
        }
        if let problem { throw problem }
        return arguments
    }
}
