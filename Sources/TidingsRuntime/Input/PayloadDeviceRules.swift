import TidingsBase

// What a device does with a notification that a stricter reading would
// refuse or keep: a field it cannot read is ignored, a notification with
// nothing in it is refused with Apple's code.

extension Payload {
    /// Apple's UNErrorCode notificationInvalidNoContent: a request whose
    /// content has nothing to show, sound or badge, or an APNs payload whose
    /// `aps` has no alert, sound, badge or content-available.
    package static let noContentAppleCode: Int32 = 1401

    /// Apple's code of the refusal `diagnostics` state, when Apple's API
    /// refuses it with one (`notification.no-content`: 1401).
    package static func appleCode(of diagnostics: [Diagnostic]) -> Int32? {
        diagnostics.contains { $0.code == .notificationNoContent && $0.severity == .error } ? noContentAppleCode : nil
    }
}

extension Diagnostic.Code {
    /// An APNs payload's field has the wrong type or value: as on a device,
    /// it is ignored and the rest delivered.
    package static let payloadFieldIgnored = Self("payload.field-ignored")
    /// The notification has nothing to show, sound or badge: Apple refuses it
    /// (UNErrorCodeNotificationInvalidNoContent, 1401).
    package static let notificationNoContent = Self("notification.no-content")
}
