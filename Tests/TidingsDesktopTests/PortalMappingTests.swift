import Testing
import TidingsBase
import TidingsDesktop

/// A portal notification's keys checked and mapped to a Tidings delivery,
/// and a response's way back, without a bus: what hostile keys are refused,
/// what each key becomes, and what ActionInvoked carries.
@Suite struct PortalMappingTests {
    /// GLib's serialization of a notification with two buttons and a default action.
    static let entries: [(String, PortalNotification.Read)] = [
        ("title", .value(.string("Dose due"))),
        ("body", .value(.string("Take one pill"))),
        ("priority", .value(.string("high"))),
        ("default-action", .value(.string("app.open"))),
        ("default-action-target", .value(.string("dose-1"))),
        ("buttons", .dictionaries([["label": .string("Take"), "action": .string("app.take"), "target": .string("dose-1")],
                                   ["label": .string("Snooze"), "action": .string("app.snooze"), "target": .int32(10)]])),
        ("icon", .tagged("themed", .strings(["pills", "pills-symbolic"]))),
        ("display-hint", .value(.strings(["show-as-new"]))),
        ("x-unknown", .value(.bool(true))),
    ]

    @Test func glibsNotificationBecomesARequestOfThePortalsAppAndId() throws {
        let notification = try PortalNotification(entries: Self.entries)
        #expect(notification.ignored == ["x-unknown"])
        let delivery = PortalDelivery(appID: "org.example.Pills", id: "dose-1", notification, appCategories: [], iconPath: nil)
        #expect(delivery.app == "org.example.Pills")
        #expect(delivery.identifier == "dose-1")
        let content = try #require(delivery.payload["content"])
        #expect(delivery.payload["identifier"] == .string("dose-1"))
        #expect(content["title"] == .string("Dose due"))
        #expect(content["body"] == .string("Take one pill"))
        #expect(content["interruptionLevel"] == .string("time-sensitive"))
        #expect(content["sound"] == .string("default"))
        // The buttons are a category's actions, named by index, titled by their labels.
        let category = try #require(delivery.category)
        let identifier = PortalDelivery.categoryIdentifier(["Take", "Snooze"])
        #expect(category["identifier"] == .string(identifier))
        #expect(content["categoryIdentifier"] == .string(identifier))
        #expect(category["actions"]?.arrayValue?[0]["identifier"] == .string("button-0"))
        #expect(category["actions"]?.arrayValue?[1]["title"] == .string("Snooze"))
        let marker = try #require(content["userInfo"]?["tidings.portal"])
        #expect(marker["appID"] == .string("org.example.Pills"))
        #expect(marker["icon"] == .array([.string("pills"), .string("pills-symbolic")]))
        #expect(marker["displayHints"] == .array([.string("show-as-new")]))
        // The banner's icon is the first theme name, read back from the notification as delivered.
        #expect(PortalDelivery.themedIcon(of: content) == "pills")
        let planted = JSON.object([("userInfo", .object([("tidings.portal", .object([("icon", .array([.string("/etc/shadow")]))]))]))])
        #expect(PortalDelivery.themedIcon(of: planted) == nil)
    }

    @Test(arguments: [("low", "passive"), ("normal", "active"), ("high", "time-sensitive"), ("urgent", "critical")])
    func priorityBecomesAnInterruptionLevel(priority: String, level: String) {
        #expect(PortalDelivery.interruptionLevel(priority) == level)
    }

    @Test func theSameLabelsShareACategoryAndOthersDoNot() {
        #expect(PortalDelivery.categoryIdentifier(["Take", "Snooze"]) == PortalDelivery.categoryIdentifier(["Take", "Snooze"]))
        #expect(PortalDelivery.categoryIdentifier(["Take", "Snooze"]) != PortalDelivery.categoryIdentifier(["TakeSnooze"]))
        #expect(PortalDelivery.categoryIdentifier(["a"]).hasPrefix(PortalDelivery.categoryPrefix))
    }

    @Test func aCategoryTheAppRegisteredIsTheNotificationsAndNoButtonCategoryIsMade() throws {
        var entries = Self.entries
        entries.append(("category", .value(.string("dose-reminder"))))
        let notification = try PortalNotification(entries: entries)
        let delivery = PortalDelivery(appID: "org.example.Pills", id: "dose-1", notification,
                                      appCategories: ["dose-reminder"], iconPath: nil)
        #expect(delivery.payload["content"]?["categoryIdentifier"] == .string("dose-reminder"))
        #expect(delivery.category == nil)
    }

    @Test func theEmptyAppIdIsTheHostAppAndComesBackEmpty() throws {
        let notification = try PortalNotification(entries: Self.entries)
        let delivery = PortalDelivery(appID: "", id: "dose-1", notification, appCategories: [], iconPath: "/run/icon-1")
        #expect(delivery.app == PortalDelivery.hostApp)
        #expect(delivery.payload["content"]?["attachments"]?.arrayValue?[0]["path"] == .string("/run/icon-1"))
        // The notification as the server forwards it back: its userInfo as delivered.
        let forwarded = JSON.object([("identifier", .string("dose-1")), ("userInfo", delivery.payload["content"]?["userInfo"] ?? .null)])
        let invocation = try #require(PortalInvocation(notification: forwarded, actionIdentifier: "button-1"))
        #expect(invocation == PortalInvocation(appID: "", id: "dose-1", action: "app.snooze", target: .int32(10)))
        #expect(invocation.exportedAction == "snooze")
        let clicked = try #require(PortalInvocation(notification: forwarded,
                                                    actionIdentifier: "com.apple.UNNotificationDefaultActionIdentifier"))
        #expect(clicked.action == "app.open")
        #expect(clicked.target == .string("dose-1"))
        #expect(PortalInvocation(notification: forwarded, actionIdentifier: "com.apple.UNNotificationDismissActionIdentifier") == nil)
        // Not the portal's: nothing to send.
        #expect(PortalInvocation(notification: .object([("userInfo", .object([]))]), actionIdentifier: "button-0") == nil)
    }

    @Test func aClickOnANotificationWithoutDefaultActionSendsNothing() throws {
        let notification = try PortalNotification(entries: [("title", .value(.string("Hi")))])
        let delivery = PortalDelivery(appID: "org.example.Pills", id: "hi", notification, appCategories: [], iconPath: nil)
        #expect(delivery.category == nil)
        let forwarded = JSON.object([("userInfo", delivery.payload["content"]?["userInfo"] ?? .null)])
        #expect(PortalInvocation(notification: forwarded, actionIdentifier: "com.apple.UNNotificationDefaultActionIdentifier") == nil)
    }

    @Test(arguments: [BusValue.string("s"), .bool(true), .byte(7), .int32(-3), .uint32(3), .int64(1 << 40), .double(0.5),
                      .bytes([1, 2]), .strings(["a", "b"]), .dictionary(["k": .int32(1), "n": .dictionary(["s": .string("x")])])])
    func aTargetComesBackAsItWasGiven(target: BusValue) throws {
        let kept = try JSON.parse(Array(PortalTarget.json(target).serialized().utf8))
        #expect(PortalTarget.value(kept) == target)
    }

    @Test func aTargetSomeoneElseWroteIsNoTarget() throws {
        #expect(PortalTarget.value(.object([("type", .string("y")), ("value", .integer(300))])) == nil)
        #expect(PortalTarget.value(.object([("type", .string("(ii)")), ("value", .array([]))])) == nil)
        #expect(PortalTarget.value(.string("dose-1")) == nil)
    }

    @Test func markupIsTakenOutOfTheBody() throws {
        let notification = try PortalNotification(entries: [("markup-body", .value(.string(
            "<b>Take</b> <a href=\"https://example.org\">one</a> &lt;pill&gt; &amp;amp; water")))])
        #expect(notification.body == "Take one <pill> &amp; water")
    }

    @Test func hostileKeysAreRefused() {
        let long = String(repeating: "x", count: PortalLimits.text + 1)
        let refused: [[(String, PortalNotification.Read)]] = [
            [("title", .value(.int32(1)))],
            [("title", .value(.string(long)))],
            [("priority", .value(.string("now")))],
            [("buttons", .dictionaries(Array(repeating: ["label": .string("a"), "action": .string("app.a")],
                                             count: PortalLimits.buttons + 1)))],
            [("buttons", .dictionaries([["label": .string("a")]]))],
            [("buttons", .dictionaries([["label": .string(""), "action": .string("app.a")]]))],
            [("buttons", .value(.strings(["a"])))],
            [("default-action", .value(.string("app.\u{1}")))],
            [("default-action-target", .value(.string(long)))],
            [("icon", .tagged("bytes", .bytes(Array(repeating: 0, count: PortalLimits.iconBytes + 1))))],
        ]
        for entries in refused {
            #expect(throws: PortalRefusal.self, "\(entries.map(\.0))") { try PortalNotification(entries: entries) }
        }
    }

    @Test func iconsAnAppCouldAimAtTheUsersFilesAreLeftOut() throws {
        let file = try PortalNotification(entries: [("icon", .tagged("file", .string("/home/me/.ssh/id_ed25519")))])
        #expect(file.icon == nil)
        let uri = try PortalNotification(entries: [("icon", .value(.string("file:///etc/shadow")))])
        #expect(uri.icon == nil)
        let named = try PortalNotification(entries: [("icon", .value(.string("pills")))])
        #expect(named.icon == .themed(["pills"]))
    }
}
