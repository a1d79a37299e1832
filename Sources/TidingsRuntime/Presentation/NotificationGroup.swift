/// The notifications shown together with one, as their summary counts them:
/// those of its app with its thread identifier (iOS groups an app's
/// notifications by thread, and those without one together).
///
/// Made for every presentation from what the host keeps of each group
/// (`GroupSummary`), without passing its members.
package struct NotificationGroup: Sendable {
    /// The items the group holds: each notification's summary argument count, 1 for one that gives none.
    package let count: Int
    /// The notifications' distinct summary arguments, in the order they were delivered.
    package let arguments: [String]

    /// A group holding `count` items, whose notifications give `arguments`.
    package init(count: Int, arguments: [String]) {
        self.count = count
        self.arguments = arguments
    }

    /// The summary format when the category gives none: "%u notifications" ("1 notification" for one).
    package var defaultSummaryFormat: String {
        count == 1 ? "%u notification" : "%u notifications"
    }

    /// `format` (a categorySummaryFormat or hidden-previews placeholder) with
    /// its first conversion (`%u`) the count and its second (`%@`) the
    /// arguments as an English list: "Ann", "Ann and Bo", "Ann, Bo and Cy".
    package func text(_ format: String) -> String {
        let list = arguments.count < 2 ? arguments.first ?? ""
            : arguments.dropLast().joined(separator: ", ") + " and " + arguments[arguments.count - 1]
        return LocalizedFormat.substitute(format, [String(count), list], conversions: "@uid")
    }
}
