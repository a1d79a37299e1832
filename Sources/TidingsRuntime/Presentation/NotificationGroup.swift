/// The notifications shown together with one, as their summary counts them:
/// those of its app with its thread identifier (iOS groups an app's
/// notifications by thread, and those without one together).
package struct NotificationGroup: Sendable, Equatable {
    /// The items the group holds: each notification's summary argument count, 1 for one that gives none.
    package var count: Int
    /// The notifications' distinct summary arguments, in the order they were delivered.
    package var arguments: [String]

    /// The summary format when the category gives none: "%u notifications" ("1 notification" for one).
    package var defaultSummaryFormat: String {
        count == 1 ? "%u notification" : "%u notifications"
    }

    /// The group of `notifications`.
    package init(_ notifications: [UserNotification]) {
        let ordered = notifications.sorted { ($0.date, $0.identifier) < ($1.date, $1.identifier) }
        count = ordered.reduce(0) { $0 + max(1, $1.content.summaryArgumentCount) }
        arguments = []
        for notification in ordered {
            let argument = notification.content.summaryArgument
            if !argument.isEmpty && !arguments.contains(argument) { arguments.append(argument) }
        }
    }

    /// The arguments as an English list: "Ann", "Ann and Bo", "Ann, Bo and Cy".
    package var argumentList: String {
        guard let last = arguments.last else { return "" }
        return arguments.count == 1 ? last : arguments.dropLast().joined(separator: ", ") + " and " + last
    }

    /// `format` (a categorySummaryFormat or hidden-previews placeholder) with
    /// its first conversion (`%u`) the count and its second (`%@`) the argument list.
    package func text(_ format: String) -> String {
        LocalizedFormat.substitute(format, [String(count), argumentList], conversions: "@uid")
    }
}
