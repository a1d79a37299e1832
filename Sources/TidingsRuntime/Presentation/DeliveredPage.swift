/// One page of the notifications a host shows, in the order they were
/// delivered (`NotificationHost.delivered(ofApp:after:limit:)`).
package struct DeliveredPage: Sendable {
    /// The notifications of the page, each with its app.
    package var notifications: [(app: String, notification: UserNotification)] = []
    /// Where the next page starts, to be given back as `after`; nil when no
    /// notification comes after this page.
    package var next: UInt64?
    /// The place of the page's last notification in the order of deliveries.
    var last: UInt64 = 0
}
