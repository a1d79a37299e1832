import TidingsBase
import TidingsRuntime

/// The members of `config.json`'s `limits` that set the attachment store's
/// quota (`AttachmentQuota`).
enum AttachmentQuotaKeys {
    /// One member: its name, and the field it sets (mebibytes of bytes, or files).
    private struct Key {
        var name: String
        var field: WritableKeyPath<AttachmentQuota, UInt64>?
        var count: WritableKeyPath<AttachmentQuota, Int>?
    }

    private static var keys: [Key] {
        [
            Key(name: "attachments-per-notification-mib", field: \.notificationBytes),
            Key(name: "attachments-per-notification", count: \.notificationFiles),
            Key(name: "attachments-per-bundle-mib", field: \.bundleBytes),
            Key(name: "attachments-per-bundle", count: \.bundleFiles),
            Key(name: "attachments-per-app-mib", field: \.appBytes),
            Key(name: "attachments-per-app", count: \.appFiles),
        ]
    }

    /// The members' names.
    static var names: [String] { keys.map(\.name) }

    /// Sets `quota`'s fields from the members of `limits` there are, each a
    /// number from 0 to 1,048,576 (mebibytes, or files); what is out of range
    /// is reported by `reader`.
    static func read(_ limits: JSON, with reader: inout JSONFieldReader, into quota: inout AttachmentQuota) {
        for key in keys {
            guard let value = reader.number(limits[key.name], at: ["limits", key.name], in: 0...1_048_576) else { continue }
            if let field = key.field { quota[keyPath: field] = UInt64(value * 1_048_576) }
            if let count = key.count { quota[keyPath: count] = Int(value) }
        }
    }
}
