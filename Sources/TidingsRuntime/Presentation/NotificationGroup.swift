/// The notifications shown together with one, as their summary counts them:
/// those of its app with its thread identifier (iOS groups an app's
/// notifications by thread, and those without one together).
///
/// Made for every presentation, so it only keeps what the host's table of
/// groups holds (a shared copy, made in constant time) and counts when asked.
package struct NotificationGroup: Sendable {
    /// The group's notifications shown when it was made, by identifier.
    private let shown: [String: UserNotification]
    /// The notification presented, counted whether or not it is still shown.
    private let notification: UserNotification

    /// The group of `notification`, whose notifications shown are `shown`.
    package init(shown: [String: UserNotification], notification: UserNotification) {
        self.shown = shown
        self.notification = notification
    }

    /// The notifications, in the order they were delivered.
    private var members: [UserNotification] {
        (shown.values.filter { $0.identifier != notification.identifier } + [notification])
            .sorted { ($0.date, $0.identifier) < ($1.date, $1.identifier) }
    }

    /// The items the group holds: each notification's summary argument count, 1 for one that gives none.
    package var count: Int {
        members.reduce(0) { $0 + max(1, $1.content.summaryArgumentCount) }
    }

    /// The notifications' distinct summary arguments, in the order they were delivered.
    package var arguments: [String] {
        var arguments: [String] = []
        for member in members {
            let argument = member.content.summaryArgument
            if !argument.isEmpty && !arguments.contains(argument) { arguments.append(argument) }
        }
        return arguments
    }

    /// The summary format when the category gives none: "%u notifications" ("1 notification" for one).
    package var defaultSummaryFormat: String {
        count == 1 ? "%u notification" : "%u notifications"
    }

    /// `format` (a categorySummaryFormat or hidden-previews placeholder) with
    /// its first conversion (`%u`) the count and its second (`%@`) the
    /// arguments as an English list: "Ann", "Ann and Bo", "Ann, Bo and Cy".
    package func text(_ format: String) -> String {
        let arguments = self.arguments
        let list = arguments.count < 2 ? arguments.first ?? ""
            : arguments.dropLast().joined(separator: ", ") + " and " + arguments[arguments.count - 1]
        return LocalizedFormat.substitute(format, [String(count), list], conversions: "@uid")
    }
}
