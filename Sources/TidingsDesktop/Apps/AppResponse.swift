import TidingsBase

/// A response as an app receives it over D-Bus: the parameter of the
/// `tidings.response` action, made from a `response.forwarded` event's
/// params or an inbox entry of kind `response` (the same members).
struct AppResponse: Hashable {
    /// The action apps are sent (`ActivateAction`'s first argument).
    static let actionName = "tidings.response"

    /// The app it is for: its identifier, which is its bus name.
    var app: String
    /// Whether the response brings the app forward (the default action, a `.foreground` action).
    var opensApp: Bool
    /// The `a{sv}` parameter: `notification`, `category`, `action`, `text`
    /// (text input only), `opensApp`, `entry`, `userInfo` (JSON text), `received`.
    var parameter: [String: BusValue]

    /// Why an entry is not a response this can forward: one plain sentence.
    struct Malformed: Error, Hashable {
        var sentence: String
    }

    /// The response `entry` carries.
    /// - Throws: `Malformed` when a member is missing or has another type than the protocol's.
    init(entry: JSON) throws(Malformed) {
        guard entry.objectMembers != nil else {
            throw Malformed(sentence: "the response is \(entry.typeDescription), not an object")
        }
        if let kind = entry["kind"], kind != .string("response") {
            throw Malformed(sentence: "the inbox entry is of kind \(kind.serialized()), not \"response\"")
        }
        app = try Self.member("app", of: entry, "a string", \.stringValue)
        let id = try Self.member("id", of: entry, "an integer", \.integerValue)
        let notification = try Self.member("notification", of: entry, "an object") { $0.objectMembers != nil ? $0 : nil }
        let identifier = try Self.member("identifier", of: notification, "a string", \.stringValue, in: "notification")
        let action = try Self.member("actionIdentifier", of: entry, "a string", \.stringValue)
        opensApp = try Self.member("opensApp", of: entry, "a Boolean", \.boolValue)
        let received = try Self.member("received", of: entry, "a string", \.stringValue)
        let text: String?
        switch entry["userText"] {
        case nil, .null?: text = nil
        case .string(let value)?: text = value
        case let other?: throw Malformed(sentence: "the response's userText is \(other.typeDescription), not a string or null")
        }
        let category = try Self.optional("categoryIdentifier", of: notification, "a string", \.stringValue,
                                         in: "notification") ?? ""
        let userInfo = try Self.optional("userInfo", of: notification, "an object", { $0.objectMembers != nil ? $0 : nil },
                                         in: "notification") ?? .object([])
        parameter = [
            "notification": .string(identifier), "category": .string(category), "action": .string(action),
            "opensApp": .bool(opensApp), "entry": .int64(id), "userInfo": .string(userInfo.serialized()),
            "received": .string(received),
        ]
        if let text { parameter["text"] = .string(text) }
    }

    /// The member `name` of `object`, read by `read`.
    /// - Throws: `Malformed` naming it and `expected` when it is missing or `read` refuses it.
    private static func member<Value>(_ name: String, of object: JSON, _ expected: String, _ read: (JSON) -> Value?,
                                      in parent: String? = nil) throws(Malformed) -> Value {
        guard let value = try optional(name, of: object, expected, read, in: parent) else {
            throw Malformed(sentence: "the response has no \(parent.map { "\($0)." } ?? "")\(name) (\(expected))")
        }
        return value
    }

    /// The member `name` of `object` read by `read`; nil when it is absent.
    /// - Throws: `Malformed` when it is there but `read` refuses it.
    private static func optional<Value>(_ name: String, of object: JSON, _ expected: String, _ read: (JSON) -> Value?,
                                        in parent: String? = nil) throws(Malformed) -> Value? {
        guard let value = object[name] else { return nil }
        guard let read = read(value) else {
            throw Malformed(sentence: "the response's \(parent.map { "\($0)." } ?? "")\(name) is "
                            + "\(value.typeDescription), not \(expected)")
        }
        return read
    }
}
