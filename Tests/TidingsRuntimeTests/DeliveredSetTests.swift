import RuntimeTestSupport
import Testing
import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// The delivered set's rules as a plain value: replacement by identifier,
/// groups, expiry past a limit, reservations, and the attachments in use.
@Suite struct DeliveredSetTests {
    /// A delivery of `identifier` to `app` in `thread`, numbered by `set`.
    func delivery(_ identifier: String, app: String = "com.example.app", thread: String = "",
                  attachments: [String] = [], in set: inout DeliveredSet) -> DeliveredNotification {
        let carried = attachments.map { NotificationAttachment(identifier: $0, type: "public.png", path: "/store/" + $0) }
        return DeliveredNotification(notification: notification(identifier, category: "c", thread: thread,
                                                                attachments: carried),
                                     app: app, width: 360, target: nil, number: set.takeNumber())
    }

    /// The key of `app`'s `identifier`.
    func key(_ identifier: String, app: String = "com.example.app") -> NotificationKey {
        NotificationKey(app: app, identifier: identifier)
    }

    /// Shows `entry` as the latest delivery of its key.
    @discardableResult
    func show(_ entry: DeliveredNotification, in set: inout DeliveredSet, limit: Int? = nil) -> DeliveredSet.Insertion {
        set.show(entry, reserved: set.reserve(entry.key), limits: KeptLimits(total: limit)) { _ in nil }
    }

    @Test func aLaterDeliveryOfAnIdentifierReplacesTheEarlierInPlaceOfOrder() {
        var set = DeliveredSet()
        let first = delivery("a", in: &set)
        show(first, in: &set)
        show(delivery("b", in: &set), in: &set)
        let again = delivery("a", in: &set)
        let insertion = show(again, in: &set)
        #expect(insertion.shown)
        #expect(insertion.replaced === first)
        #expect(set.count == 2)
        #expect(set[key("a")] === again)
        #expect(!set.isShowing(first))
        #expect(set.inOrder(after: 0).map(\.element.identifier) == ["b", "a"])
        // Hiding the replaced delivery leaves the new one shown.
        let hidden = set.hide(first)
        #expect(!hidden)
        #expect(set[key("a")] === again)
    }

    @Test func groupsAreAnAppsThreadAndEmptyOnesGo() {
        var set = DeliveredSet()
        let one = delivery("one", thread: "t", in: &set)
        let two = delivery("two", thread: "t", in: &set)
        let elsewhere = delivery("three", app: "com.example.other", thread: "t", in: &set)
        for entry in [one, two, elsewhere] { show(entry, in: &set) }
        let group = DeliveredSet.Group(of: one)
        #expect(set.summary(of: group)?.size == 2)
        #expect(set.summary(of: DeliveredSet.Group(of: elsewhere))?.size == 1)
        set.hide(key: key("one"))
        set.hide(key: key("two"))
        #expect(set.summary(of: group) == nil)
    }

    @Test func anAppsNotificationsComeInTheOrderDelivered() {
        var set = DeliveredSet()
        for (identifier, app) in [("a", "one"), ("b", "two"), ("c", "one"), ("d", "two")] {
            show(delivery(identifier, app: app, in: &set), in: &set)
        }
        show(delivery("a", app: "one", in: &set), in: &set)
        #expect(set.inOrder(ofApp: "one", after: 0).map(\.element.identifier) == ["c", "a"])
        let afterFirst = Array(set.inOrder(ofApp: "two", after: 0)).first?.key ?? 0
        #expect(set.inOrder(ofApp: "two", after: afterFirst).map(\.element.identifier) == ["d"])
        set.hide(key: key("b", app: "two"))
        set.hide(key: key("d", app: "two"))
        #expect(set.inOrder(ofApp: "two", after: 0).map(\.element.identifier).isEmpty)
        #expect(set.inOrder(after: 0).map(\.element.identifier) == ["c", "a"])
    }

    @Test func theOldestExpireBeyondTheLimitEachOnceRecorded() {
        var set = DeliveredSet()
        for identifier in ["a", "b", "c"] { show(delivery(identifier, in: &set), in: &set) }
        var recorded: [String] = []
        let newest = delivery("d", in: &set)
        let insertion = set.show(newest, reserved: set.reserve(key("d")), limits: KeptLimits(total: 2)) { key in
            recorded.append(key.identifier)
            return nil
        }
        #expect(recorded == ["a", "b"])
        #expect(insertion.expired.map(\.identifier) == ["a", "b"])
        #expect(set.inOrder(after: 0).map(\.element.identifier) == ["c", "d"])
    }

    /// What a journaled delivery records with itself: the one `show` would
    /// expire first once the delivery showed, found before it shows — per
    /// app, and in all, where of two apps keeping as many the one
    /// delivering gives up its oldest, and an app with nothing else kept
    /// makes another give up its own.
    @Test(arguments: [
        // (kept as (identifier, app), delivering app, limits, expected first to go)
        ([("a", "one"), ("b", "one"), ("c", "two")], "one", KeptLimits(perApp: 2), "a"),
        ([("a", "one"), ("b", "one"), ("c", "two")], "two", KeptLimits(perApp: 2), nil),
        ([("a", "one"), ("b", "two"), ("c", "one"), ("d", "two")], "two", KeptLimits(total: 4), "b"),
        ([("a", "one"), ("b", "two"), ("c", "one"), ("d", "two")], "one", KeptLimits(total: 4), "a"),
        ([("a", "one"), ("b", "two"), ("c", "two")], "three", KeptLimits(total: 3), "b"),
        ([("a", "one"), ("b", "two"), ("c", "two")], "one", KeptLimits(total: 3), "a"),
        ([("a", "one"), ("b", "two")], "one", KeptLimits(total: 3), nil),
    ] as [([(String, String)], String, KeptLimits, String?)])
    func theOldestToMakeRoomIsTheOneShowingWouldExpireFirst(kept: [(String, String)], app: String, limits: KeptLimits,
                                                            expected: String?) {
        var set = DeliveredSet()
        for (identifier, owner) in kept { show(delivery(identifier, app: owner, in: &set), in: &set) }
        let named = set.oldestToMakeRoom(forDeliveryTo: app, limits: limits)
        #expect(named?.identifier == expected)
        var shown = set
        let insertion = shown.show(delivery("new", app: app, in: &shown), reserved: shown.reserve(key("new", app: app)),
                                   limits: limits) { _ in nil }
        #expect(insertion.expired.first?.identifier == expected)
        #expect(insertion.expired.first.map { $0 === named } ?? (named == nil))
    }

    @Test func anOldestWhoseDismissalCannotBeRecordedStays() {
        var set = DeliveredSet()
        for identifier in ["a", "b"] { show(delivery(identifier, in: &set), in: &set) }
        let refusal = Diagnostic.error(.init("test.refused"), "The journal is full.")
        let insertion = set.show(delivery("c", in: &set), reserved: set.reserve(key("c")), limits: KeptLimits(total: 1)) { _ in refusal }
        #expect(insertion.shown)
        #expect(insertion.expired.isEmpty)
        #expect(insertion.refusal?.code == refusal.code)
        #expect(set.count == 3)
    }

    @Test func theDeliveryThatReservedLastStaysWhicheverFinishesFirst() {
        var set = DeliveredSet()
        let earlier = delivery("a", in: &set)
        let earlierReservation = set.reserve(key("a"))
        let later = delivery("a", in: &set)
        let laterReservation = set.reserve(key("a"))
        #expect(set.show(later, reserved: laterReservation, limits: KeptLimits()) { _ in nil }.shown)
        let late = set.show(earlier, reserved: earlierReservation, limits: KeptLimits()) { _ in nil }
        #expect(!late.shown)
        #expect(late.replaced === earlier)
        #expect(set[key("a")] === later)
        #expect(set.count == 1)
    }

    @Test func anAttachmentStaysInUseWhileAnyNotificationShownCarriesIt() {
        var set = DeliveredSet()
        show(delivery("a", attachments: ["poster.png"], in: &set), in: &set)
        show(delivery("b", attachments: ["poster.png", "map.png"], in: &set), in: &set)
        set.hide(key: key("a"))
        #expect(set.isInUse(attachmentAt: "/store/poster.png"))
        #expect(set.isInUse(attachmentAt: "/store/map.png"))
        set.hide(key: key("b"))
        #expect(!set.isInUse(attachmentAt: "/store/poster.png"))
        #expect(!set.isInUse(attachmentAt: "/store/map.png"))
    }

    @Test func twoAppsShowOneIdentifierApartAndEachExpiresItsOwn() {
        var set = DeliveredSet()
        let medicine = delivery("dose-1", app: "medicine", in: &set)
        let other = delivery("dose-1", app: "other", in: &set)
        show(medicine, in: &set)
        #expect(show(other, in: &set).replaced == nil, "another app's does not replace it")
        #expect(set.count == 2 && set.apps(showing: "dose-1") == ["medicine", "other"])
        #expect(set[key("dose-1", app: "medicine")] === medicine && set[key("dose-1", app: "other")] === other)
        set.hide(key: key("dose-1", app: "other"))
        #expect(set[key("dose-1", app: "medicine")] === medicine && set.apps(showing: "dose-1") == ["medicine"])

        // Beyond two of an app, the app's own oldest goes, never another app's.
        for number in 0..<5 {
            let entry = delivery("n\(number)", app: "other", in: &set)
            _ = set.show(entry, reserved: set.reserve(entry.key), limits: KeptLimits(perApp: 2, total: 100)) { _ in nil }
        }
        #expect(set.inOrder(ofApp: "medicine", after: 0).map(\.element.identifier) == ["dose-1"])
        #expect(set.inOrder(ofApp: "other", after: 0).map(\.element.identifier) == ["n3", "n4"])
    }
    @Test func appsInventedWithOneEachCannotPassTheTotalNorExpireAQuietAppsOne() {
        var set = DeliveredSet()
        let limits = KeptLimits(perApp: 5, total: 4)
        let quiet = delivery("dose-1", app: "medicine", in: &set)
        _ = set.show(quiet, reserved: set.reserve(quiet.key), limits: limits) { _ in nil }
        for number in 0..<10 {
            let entry = delivery("one", app: "com.example.flood\(number)", in: &set)
            let insertion = set.show(entry, reserved: set.reserve(entry.key), limits: limits) { _ in nil }
            #expect(insertion.shown, "the newcomer is kept: an earlier app of the flood gives up its one")
        }
        #expect(set.count == 4)
        #expect(set[key("dose-1", app: "medicine")] === quiet, "the app that stayed quiet keeps its notification")
        // Of apps keeping one each, the one that delivered last gives it up: the flood's latest but the newcomer.
        #expect(set.apps(showing: "one") == ["com.example.flood0", "com.example.flood1", "com.example.flood9"])
    }
}
