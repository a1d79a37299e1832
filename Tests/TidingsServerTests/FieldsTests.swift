import Foundation
import Glibc
import ServerTestSupport
import Testing
import TestSupport
import TidingsBase

/// Every payload, content and category field reaches the server's
/// presentation and survives a `kill -9`: the sound's critical flag and
/// volume, the launch image, the summary argument and count, the filter
/// criteria, content-available; the category's placeholder, options and
/// summary format, its actions' icons; the app's registered name, icon and
/// show-previews setting.
@Suite struct FieldsTests {
    let fixture = ServerFixture()

    init() throws {
        try fixture.installSample("EventInvite")
    }

    /// The sample's categories: hidden-previews placeholder "%u invitations",
    /// hiddenPreviewsShowTitle, summary "%u invitations from %@", icons.
    static func categories() throws -> JSON {
        try JSON.parse(Array(try Data(contentsOf: URL(fileURLWithPath: Locations.repositoryFile(
            "Plugins/EventInvite/Payloads/categories.json")))))
    }

    /// An invitation of thread "offsite" from `inviter`, counting `count` items, with every field.
    static func delivery(_ identifier: String, from inviter: String, count: Int) -> JSON {
        .object([("app", .string("com.example.events")), ("identifier", .string(identifier)), ("open", .bool(true)),
                 ("payload", .object([
            ("aps", .object([
                ("alert", .object([("title", .string("Team offsite")), ("subtitle", .string("Pier 3")),
                                   ("body", .string("You are invited.")), ("launch-image", .string("Splash")),
                                   ("summary-arg", .string(inviter)), ("summary-arg-count", .integer(Int64(count)))])),
                ("sound", .object([("critical", .integer(1)), ("name", .string("alarm.caf")), ("volume", .double(0.5))])),
                ("category", .string("event-invite")), ("thread-id", .string("offsite")),
                ("filter-criteria", .string("work")), ("content-available", .integer(1)),
            ])),
            ("title", .string("Team offsite")),
        ]))])
    }

    /// What `presentation` shows, checked field by field.
    static func expectEveryField(_ presentation: JSON, _ context: String) {
        #expect(presentation["header"] == .string("Events"), "\(context)")
        #expect(presentation["icon"] == .string("/usr/share/icons/events.png"), "\(context)")
        #expect(presentation["previewsHidden"] == .bool(true), "\(context)")
        // Previews hidden: the title shows (hiddenPreviewsShowTitle), the subtitle does not, the body is the placeholder.
        #expect(presentation["defaultContent"] == .object([("title", .string("Team offsite")), ("subtitle", .string("")),
                                                           ("body", .string("3 invitations"))]), "\(context)")
        #expect(presentation["view"] == .null, "\(context)")
        #expect(presentation["group"]?["summary"] == .string("3 invitations from Ann and Bo"), "\(context)")
        #expect(presentation["actions"]?.arrayValue?.map { $0["icon"] ?? .null } == [
            .object([("systemImageName", .string("checkmark"))]), .object([("systemImageName", .string("xmark"))]),
            .object([("templateImageName", .string("comment-bubble"))]),
        ], "\(context)")
        let attributes = presentation["attributes"] ?? .null
        #expect(attributes["sound"] == .object([("name", .string("alarm.caf")), ("critical", .bool(true)),
                                                ("volume", .double(0.5))]), "\(context)")
        #expect(attributes["launchImageName"] == .string("Splash") && attributes["summaryArgument"] == .string("Bo")
            && attributes["summaryArgumentCount"] == .integer(2), "\(context)")
        #expect(attributes["filterCriteria"] == .string("work") && attributes["contentAvailable"] == .bool(true),
                "\(context)")
        let category = presentation["category"] ?? .null
        #expect(category["hiddenPreviewsBodyPlaceholder"] == .string("%u invitations"), "\(context)")
        #expect(category["categorySummaryFormat"] == .string("%u invitations from %@"), "\(context)")
        #expect(category["options"] == .array([.string("customDismissAction"), .string("hiddenPreviewsShowTitle")]),
                "\(context)")
    }

    @Test(arguments: IsolationMode.allCases)
    func everyFieldShowsAndSurvivesAKill(_ isolation: IsolationMode) throws {
        let first = try fixture.startProcess(isolation)
        let client = try fixture.client()
        _ = try client.call("categories.register", try Self.categories())
        _ = try client.call("apps.register", .object([
            ("app", .string("com.example.events")), ("name", .string("Events")),
            ("icon", .string("/usr/share/icons/events.png")), ("showPreviews", .string("never")),
        ]))
        _ = try client.call("notifications.deliver", Self.delivery("from-ann", from: "Ann", count: 1))
        let delivered = try client.call("notifications.deliver", Self.delivery("from-bo", from: "Bo", count: 2))
        Self.expectEveryField(delivered["presentation"] ?? .null, "delivered")
        #expect(delivered["notification"]?["criticalSound"] == .bool(true))
        first.stop(with: SIGKILL)

        let second = try fixture.startProcess(isolation)
        defer { second.stop() }
        let again = try fixture.client()
        let presentation = try again.call("notifications.presentation", .object([("identifier", .string("from-bo"))]))
        Self.expectEveryField(presentation, "after the restart")
        let listed = try again.call("notifications.list")["notifications"]?.arrayValue ?? []
        let notification = listed.first { $0["notification"]?["identifier"] == .string("from-bo") }?["notification"]
        #expect(notification?["filterCriteria"] == .string("work") && notification?["soundVolume"] == .double(0.5))
        #expect(try again.call("apps.list")["apps"] == .array([.object([
            ("app", .string("com.example.events")), ("name", .string("Events")),
            ("icon", .string("/usr/share/icons/events.png")), ("showPreviews", .string("never")), ("badge", .integer(0)),
            ("badgeShown", .bool(true)), ("authorizationStatus", .string("notDetermined")),
            ("providesAppNotificationSettings", .bool(false)),
        ])]))
    }

    @Test func anAppRegistrationIsCheckedAndPreviewsShowAgain() throws {
        try fixture.start()
        let client = try fixture.client()
        #expect(throws: RPCErrorReply.self) {
            _ = try client.call("apps.register", .object([("app", .string("com.example.events")),
                                                          ("showPreviews", .string("sometimes"))]))
        }
        _ = try client.call("categories.register", try Self.categories())
        _ = try client.call("apps.register", .object([("app", .string("com.example.events")),
                                                      ("showPreviews", .string("always"))]))
        let delivered = try client.call("notifications.deliver", Self.delivery("shown", from: "Ann", count: 1))
        let presentation = delivered["presentation"] ?? .null
        #expect(presentation["header"] == .string("com.example.events"))
        #expect(presentation["previewsHidden"] == .bool(false))
        #expect(presentation["defaultContent"] == nil)  // EventInvite hides it and shows its view
        #expect(presentation["view"] != .null)
    }
}
