import Testing
import TidingsProtocol
@testable import TidingsServer

/// The order a snapshot keeps the notifications in: the order they were
/// last delivered, a replaced one at its new place, removed ones gone,
/// whichever way the removal names them.
struct FoldedStateOrderTests {
    func deliver(_ identifier: String, of app: String = "org.example.pillbox", in state: inout FoldedState<String>) {
        state.apply(.delivered(NotificationKey(app: app, identifier: identifier)), "\(app)/\(identifier)")
    }

    @Test func aReplacedNotificationTakesItsNewPlace() {
        var state = FoldedState<String>()
        for identifier in ["a", "b", "c"] { deliver(identifier, in: &state) }
        deliver("a", in: &state)
        #expect(state.orderedDeliveries == ["org.example.pillbox/b", "org.example.pillbox/c", "org.example.pillbox/a"])
        #expect(state.deliveredCount == 3)
    }

    @Test func removedNotificationsLeaveTheOrder() {
        var state = FoldedState<String>()
        for identifier in ["a", "b", "c"] { deliver(identifier, in: &state) }
        deliver("b", of: "org.example.other", in: &state)
        state.apply(.removed([("org.example.pillbox", "b")]), "")
        #expect(state.orderedDeliveries == ["org.example.pillbox/a", "org.example.pillbox/c", "org.example.other/b"])
        // An earlier version's removal names the identifier alone: every app's goes.
        state.apply(.removed([(nil, "b"), (nil, "c")]), "")
        #expect(state.orderedDeliveries == ["org.example.pillbox/a"])
        #expect(state.deliveredCount == 1)
    }

    @Test func theOrderSurvivesMappingTheValues() {
        var state = FoldedState<String>()
        for identifier in ["c", "a", "b"] { deliver(identifier, in: &state) }
        state.apply(.removed([("org.example.pillbox", "a")]), "")
        #expect(state.mapValues { $0.count }.orderedDeliveries == [21, 21])
        #expect(state.mapValues { $0.uppercased() }.orderedDeliveries == ["ORG.EXAMPLE.PILLBOX/C", "ORG.EXAMPLE.PILLBOX/B"])
    }
}
