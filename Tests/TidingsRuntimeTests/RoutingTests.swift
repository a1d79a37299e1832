import RuntimeTestSupport
import Testing
import TidingsBase
import TidingsProtocol
import TidingsRegistry
import TidingsRuntime

/// Which extension a route reaches, the notes saying why none does, and the
/// table of registered categories.
@Suite struct RoutingTests {
    /// Whether the route of `app` and `category` reaches an extension in `index`, and the notes it leaves.
    func find(_ app: String, _ category: String, in index: ExtensionIndex) -> (found: Bool, notes: [Diagnostic]) {
        var notes: [Diagnostic] = []
        let target = RouteFinder(index: index).target(for: ExtensionIndex.Route(app: app, category: category),
                                                      diagnostics: &notes)
        return (target != nil, notes)
    }

    @Test func aRouteReachesTheAppsOwnExtensionForItsCategory() throws {
        let fixture = Fixture()
        try fixture.installEventInvite()
        let index = fixture.host().index
        let served = find("com.example.events", "event-invite", in: index)
        #expect(served.found)
        #expect(served.notes.isEmpty)
        let nearMiss = find("com.example.events", "event-invit", in: index)
        #expect(!nearMiss.found)
        #expect(nearMiss.notes.map(\.code) == [.routeNoExtension])
        #expect(nearMiss.notes.first?.message.contains("did you mean \"event-invite\"") == true)
        let otherApp = find("com.example.other", "event-invite", in: index)
        #expect(!otherApp.found)
        #expect(otherApp.notes.first?.message.contains("it is served for com.example.events") == true)
    }

    @Test func aNotificationWithoutCategoryOrExtensionIsToldWhy() {
        let index = ExtensionIndex(searchPath: SearchPath(directories: [], origin: .option), bundles: [])
        #expect(find("com.example.app", "", in: index).notes.map(\.code) == [.routeNoCategory])
        let none = find("com.example.app", "chat", in: index)
        #expect(none.notes.map(\.code) == [.routeNoExtension])
        #expect(none.notes.first?.message.contains("has no content extension on the search path") == true)
    }

    @Test func registeringReplacesAnAppsCategoriesAndTheLastOfOneIdentifierCounts() {
        var table = RouteTable()
        table.register([NotificationCategory(identifier: "b"), NotificationCategory(identifier: "a")], for: "one")
        table.register([NotificationCategory(identifier: "x")], for: "two")
        table.register([NotificationCategory(identifier: "c"),
                        NotificationCategory(identifier: "c", options: .customDismissAction)], for: "one")
        #expect(table.registeredCategories().mapValues { $0.map(\.identifier) } == ["one": ["c"], "two": ["x"]])
        #expect(table.category("c", of: "one")?.options == .customDismissAction)
        #expect(table.category("a", of: "one") == nil)
        table.forgetTargets()
        #expect(table.category("x", of: "two") != nil)
    }
}
