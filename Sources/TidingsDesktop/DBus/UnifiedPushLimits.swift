/// What the connector takes of a distributor's arguments (the D-Bus
/// specification's Resources): a token of at most 100 bytes, an endpoint
/// URL of at most 1,000 bytes, a message of 1 byte or more. A message longer
/// than Web Push allows (4,096 bytes) is still taken and forwarded, for the
/// server to refuse with its own diagnostic naming the registration; one
/// longer than `busMessage` is refused at the bus, before it is copied or
/// buffered.
package enum UnifiedPushLimits {
    /// The longest token, in bytes.
    package static let token = 100
    /// The longest endpoint, in bytes.
    package static let endpoint = 1_000
    /// The longest message Web Push allows (RFC 8030 push services, the specification), in bytes.
    package static let webPushMessage = 4_096
    /// The longest message taken at the bus, in bytes: 64 KiB.
    package static let busMessage = 65_536
    /// The longest message id kept, in bytes.
    package static let messageID = 256
    /// The most entries a Connector2 dictionary may have.
    package static let entries = 64

    /// `value` as a token: present, 1 to `token` bytes.
    package static func token(_ value: String?) throws(UnifiedPushRefusal) -> String {
        guard let value, !value.isEmpty else { throw UnifiedPushRefusal(sentence: "it has no token (a string)") }
        guard value.utf8.count <= token else {
            throw UnifiedPushRefusal(sentence: "its token is \(value.utf8.count) bytes long, more than the \(token) allowed")
        }
        return value
    }

    /// `value` as an endpoint: present, at most `endpoint` bytes, an `https:`
    /// or `http:` URL with a host and no space or control character.
    package static func endpoint(_ value: String?) throws(UnifiedPushRefusal) -> String {
        guard let value, !value.isEmpty else { throw UnifiedPushRefusal(sentence: "it has no endpoint (a string)") }
        guard value.utf8.count <= endpoint else {
            throw UnifiedPushRefusal(sentence: "its endpoint is \(value.utf8.count) bytes long, more than the \(endpoint) allowed")
        }
        let lowered = value.lowercased()
        let rest = lowered.hasPrefix("https://") ? lowered.dropFirst(8) : lowered.hasPrefix("http://") ? lowered.dropFirst(7) : nil
        guard let rest, let first = rest.first, first != "/",
              !value.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7f }) else {
            throw UnifiedPushRefusal(sentence: "its endpoint is not an https or http URL")
        }
        return value
    }

    /// `value` as a message: present, 1 to `busMessage` bytes (the caller read at most that many).
    package static func message(_ value: [UInt8]?) throws(UnifiedPushRefusal) -> [UInt8] {
        guard let value else { throw UnifiedPushRefusal(sentence: "it has no message (bytes)") }
        guard !value.isEmpty else { throw UnifiedPushRefusal(sentence: "its message is empty") }
        guard value.count <= busMessage else {
            throw UnifiedPushRefusal(sentence: "its message is \(value.count) bytes long, more than the \(busMessage) taken")
        }
        return value
    }

    /// `value` as a message id: nil when absent or empty, else at most `messageID` bytes.
    package static func messageID(_ value: String?) throws(UnifiedPushRefusal) -> String? {
        guard let value, !value.isEmpty else { return nil }
        guard value.utf8.count <= messageID else {
            throw UnifiedPushRefusal(sentence: "its message id is \(value.utf8.count) bytes long, more than the \(messageID) taken")
        }
        return value
    }
}
