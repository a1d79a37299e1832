import TidingsBase

/// An action's target (a GVariant of `BusValue`'s types) kept as JSON in
/// the notification's `userInfo`, so that it survives restarts of either
/// process and comes back in ActionInvoked as it was given:
/// `{"type": "<signature>", "value": …}`.
package enum PortalTarget {
    /// `value` as JSON, with its signature.
    package static func json(_ value: BusValue) -> JSON {
        .object([("type", .string(value.signature)), ("value", plain(value))])
    }

    /// The value of `json` as `json(_:)` made it; nil for anything else (a
    /// `userInfo` the app or another client wrote, say).
    package static func value(_ json: JSON, depth: Int = 0) -> BusValue? {
        guard depth < 8, let type = json["type"]?.stringValue, let value = json["value"] else { return nil }
        switch (type, value) {
        case ("s", .string(let text)): return .string(text)
        case ("b", .bool(let flag)): return .bool(flag)
        case ("y", .integer(let number)): return UInt8(exactly: number).map(BusValue.byte)
        case ("i", .integer(let number)): return Int32(exactly: number).map(BusValue.int32)
        case ("u", .integer(let number)): return UInt32(exactly: number).map(BusValue.uint32)
        case ("x", .integer(let number)): return .int64(number)
        case ("d", _): return value.doubleValue.map(BusValue.double)
        case ("ay", .array(let items)):
            let bytes = items.compactMap { $0.integerValue.flatMap { UInt8(exactly: $0) } }
            return bytes.count == items.count ? .bytes(bytes) : nil
        case ("as", .array(let items)):
            let strings = items.compactMap(\.stringValue)
            return strings.count == items.count ? .strings(strings) : nil
        case ("a{sv}", .object(let members)):
            var dictionary: [String: BusValue] = [:]
            for (key, member) in members {
                guard let entry = Self.value(member, depth: depth + 1) else { return nil }
                dictionary[key] = entry
            }
            return .dictionary(dictionary)
        default:
            return nil
        }
    }

    /// `value` as plain JSON (a dictionary's entries each with its type).
    private static func plain(_ value: BusValue) -> JSON {
        switch value {
        case .string(let text): .string(text)
        case .bool(let flag): .bool(flag)
        case .byte(let number): .integer(Int64(number))
        case .int32(let number): .integer(Int64(number))
        case .uint32(let number): .integer(Int64(number))
        case .int64(let number): .integer(number)
        case .double(let number): .double(number)
        case .bytes(let bytes): .array(bytes.map { .integer(Int64($0)) })
        case .strings(let strings): .array(strings.map(JSON.string))
        case .dictionary(let entries): .object(entries.sorted { $0.key < $1.key }.map { ($0.key, json($0.value)) })
        }
    }
}
