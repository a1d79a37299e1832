import Testing
import TidingsRuntime
@testable import TidingsServer

/// An app's inbox kept by identifier: pages of one app or of all in the
/// order kept, across apps and after entries restored out of that order,
/// the oldest dropped past the limit and entries taken from the middle.
@Suite struct AppInboxPagingTests {
    /// A background notification for `app`, kept as entry `identifier`.
    func entry(_ identifier: UInt64, of app: String) -> InboxEntry {
        let notification = UserNotification(identifier: "n\(identifier)", date: 0, content: NotificationContent())
        return InboxEntry(identifier: identifier, received: 0, message: .background(app: app, notification: notification))
    }

    /// Every page of `app` (nil: all apps), `limit` a page, as identifiers.
    func pages(_ inbox: AppInbox, app: String?, limit: Int) -> [[UInt64]] {
        var pages: [[UInt64]] = []
        var after: UInt64 = 0
        while true {
            let page = inbox.list(app: app, after: after, limit: limit)
            pages.append(page.entries.map(\.identifier))
            guard let next = page.next else { return pages }
            after = next
        }
    }

    @Test func pagesComeInTheOrderKeptAcrossAppsAndRestores() throws {
        // Restored by app, as the state gives them back: not in the order kept.
        let restored = [entry(1, of: "a"), entry(4, of: "a"), entry(2, of: "b"), entry(3, of: "b"), entry(5, of: "b")]
        let inbox = AppInbox(limit: 3, entries: restored, state: nil, subscribers: Subscribers(), log: { _ in })
        #expect(pages(inbox, app: nil, limit: 2) == [[1, 2], [3, 4], [5]])
        #expect(pages(inbox, app: "b", limit: 2) == [[2, 3], [5]])
        #expect(pages(inbox, app: "c", limit: 2) == [[]])
        // Taken from the middle, then one kept past the limit drops the oldest of its app only.
        #expect(try inbox.take(of: "b") { $0 == 3 } == [3])
        let kept = try inbox.keep(.background(app: "a", notification: entry(0, of: "a").notification), refusingUnrecorded: true)
        #expect(kept.identifier > 5)
        #expect(pages(inbox, app: "a", limit: 5) == [[1, 4, kept.identifier]])
        let another = try inbox.keep(.background(app: "a", notification: entry(0, of: "a").notification), refusingUnrecorded: true)
        #expect(pages(inbox, app: nil, limit: 10) == [[2, 4, 5, kept.identifier, another.identifier]])
        #expect(try inbox.take(of: "a") { _ in true } == [4, kept.identifier, another.identifier])
        #expect(pages(inbox, app: nil, limit: 1) == [[2], [5]])
    }
}
