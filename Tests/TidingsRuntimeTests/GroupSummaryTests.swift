import Testing
import TidingsRuntime

/// What the host keeps of each group for its summary, against the group
/// counted the plain way (its notifications sorted by date and identifier,
/// their items added up, their distinct arguments listed) through thousands
/// of random deliveries, replacements and removals, presenting notifications
/// shown, replaced and gone.
@Suite struct GroupSummaryTests {
    /// A linear congruential sequence: the same arbitrary choices every run.
    struct Choices {
        var state: UInt64 = 22
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    /// A notification `identifier` at `date` giving `argument` for `count` items.
    func notification(_ identifier: String, date: Double, argument: String, count: Int) -> UserNotification {
        var content = NotificationContent()
        content.summaryArgument = argument
        content.summaryArgumentCount = count
        return UserNotification(identifier: identifier, date: date, content: content)
    }

    /// The group `presented` shows in, counted the plain way over `members` (by identifier).
    func counted(_ members: [String: UserNotification], presenting presented: UserNotification) -> (Int, [String]) {
        let all = (members.values.filter { $0.identifier != presented.identifier } + [presented])
            .sorted { ($0.date, $0.identifier) < ($1.date, $1.identifier) }
        var arguments: [String] = []
        for member in all where !member.content.summaryArgument.isEmpty && !arguments.contains(member.content.summaryArgument) {
            arguments.append(member.content.summaryArgument)
        }
        return (all.reduce(0) { $0 + max(1, $1.content.summaryArgumentCount) }, arguments)
    }

    @Test func agreesWithTheGroupCountedThePlainWay() {
        var summary = GroupSummary()
        var members: [String: UserNotification] = [:]
        var choices = Choices()
        let arguments = ["", "", "Ann", "Bo", "Cy", "Di"]
        /// A new notification under `identifier`: few dates, so that identifiers often decide the order.
        func made(_ identifier: String) -> UserNotification {
            notification(identifier, date: Double(choices.next(40)), argument: arguments[choices.next(arguments.count)],
                         count: choices.next(4))
        }
        for step in 0..<6_000 {
            let identifier = "n\(choices.next(60))"
            let roll = choices.next(10)
            if let member = members[identifier], roll < 4 {
                summary.remove(member)
                members[identifier] = nil
            } else {
                // New, or replacing the one shown under the identifier.
                if let member = members[identifier] { summary.remove(member) }
                let new = made(identifier)
                summary.add(new)
                members[identifier] = new
            }
            #expect(summary.size == members.count, "step \(step)")
            // Each presented: one shown, one replaced or gone (another value under a shown identifier or none).
            let presented: [UserNotification] = Array(members.values.prefix(1)) + [made(identifier), made("gone\(choices.next(3))")]
            for notification in presented {
                let group = summary.group(presenting: notification, shown: members[notification.identifier])
                let (count, listed) = counted(members, presenting: notification)
                #expect(group.count == count && group.arguments == listed, "step \(step), \(notification.identifier)")
            }
        }
    }

    @Test func theEarliestNotificationOfAnArgumentPlacesIt() {
        var summary = GroupSummary()
        let bo = notification("b", date: 1, argument: "Bo", count: 0)
        let ann = notification("a", date: 2, argument: "Ann", count: 2)
        let earlierAnn = notification("c", date: 0, argument: "Ann", count: 0)
        for member in [bo, ann] { summary.add(member) }
        #expect(summary.group(presenting: ann, shown: ann).arguments == ["Bo", "Ann"])
        summary.add(earlierAnn)
        #expect(summary.group(presenting: ann, shown: ann).arguments == ["Ann", "Bo"])
        #expect(summary.group(presenting: ann, shown: ann).count == 4)
        summary.remove(earlierAnn)
        summary.remove(bo)
        #expect(summary.group(presenting: ann, shown: ann).arguments == ["Ann"])
        // Gone from the group, a notification presented still counts itself.
        summary.remove(ann)
        #expect(summary.size == 0)
        let alone = summary.group(presenting: ann, shown: nil)
        #expect(alone.count == 2 && alone.arguments == ["Ann"])
    }
}
