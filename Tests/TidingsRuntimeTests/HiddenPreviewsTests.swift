import RuntimeTestSupport
import Testing
import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// What a presentation takes from its app and category: the registered name
/// in the header, hidden previews (the placeholder, the title and subtitle
/// as the category's options allow), and its group's summary, counted over
/// the notifications of its app and thread shown now.
@Suite struct HiddenPreviewsTests {
    let fixture = Fixture()
    static let app = "com.example.tests"

    /// A note of thread `thread` from `argument`, counting `count` items.
    static func note(_ identifier: String, thread: String = "t", argument: String = "", count: Int = 0) -> UserNotification {
        var made = notification(identifier, category: "c", thread: thread, title: "Title", body: "Secret")
        made.content.subtitle = "Subtitle"
        made.content.summaryArgument = argument
        made.content.summaryArgumentCount = count
        return made
    }

    @Test func withoutARegistrationTheHeaderIsTheBundleIdentifierAndPreviewsShow() {
        let presentation = fixture.host().deliver(Self.note("n"), to: Self.app).presentation
        #expect(presentation.header == Self.app)
        #expect(!presentation.previewsHidden)
        #expect(presentation.defaultContent?.body == "Secret")
        #expect(presentation.summary == "1 notification")
    }

    @Test func hiddenPreviewsWithoutAPlaceholderShowApplesWordAndNoTitle() {
        let host = fixture.host()
        host.register(AppRegistration(name: "Tests", showPreviews: .never), for: Self.app)
        let presentation = host.deliver(Self.note("n"), to: Self.app).presentation
        #expect(presentation.header == "Tests")
        #expect(presentation.previewsHidden)
        #expect(presentation.defaultContent?.title == "")
        #expect(presentation.defaultContent?.subtitle == "")
        #expect(presentation.defaultContent?.body == "Notification")
        #expect(presentation.json["view"] == .null)
    }

    @Test func theCategoryDecidesTheTitleSubtitleAndPlaceholderCountingTheGroup() {
        let host = fixture.host()
        host.register([NotificationCategory(identifier: "c", options: [.hiddenPreviewsShowSubtitle],
                                            hiddenPreviewsBodyPlaceholder: "%u new messages",
                                            summaryFormat: "%u messages from %@")], for: Self.app)
        host.register(AppRegistration(showPreviews: .never), for: Self.app)
        _ = host.deliver(Self.note("a", argument: "Ann"), to: Self.app)
        _ = host.deliver(Self.note("other-thread", thread: "u", argument: "Cy"), to: Self.app)
        _ = host.deliver(Self.note("other-app", argument: "Di"), to: "com.example.else")
        let presentation = host.deliver(Self.note("b", argument: "Bo", count: 2), to: Self.app).presentation
        #expect(presentation.defaultContent?.title == "")
        #expect(presentation.defaultContent?.subtitle == "Subtitle")
        #expect(presentation.defaultContent?.body == "3 new messages")
        #expect(presentation.summary == "3 messages from Ann and Bo")
        // One leaves: the group counts what is shown now.
        host.remove(["a"])
        #expect(host.presentation(of: "b")?.summary == "2 messages from Bo")
        // Previews shown again: the text is the notification's.
        host.register(AppRegistration(showPreviews: .always), for: Self.app)
        #expect(host.presentation(of: "b")?.defaultContent?.body == "Secret")
    }

    @Test func formatsTakeTheCountAndTheListInOrderOrByPosition() {
        #expect(LocalizedFormat.substitute("%u from %@", ["2", "Ann"], conversions: "@uid") == "2 from Ann")
        #expect(LocalizedFormat.substitute("%2$@ sent %1$lu", ["2", "Ann"], conversions: "@uid") == "Ann sent 2")
        #expect(LocalizedFormat.substitute("100%% %d%%", ["7"], conversions: "@uid") == "100% 7%")
        #expect(LocalizedFormat.substitute("%x stays", ["7"], conversions: "@uid") == "%x stays")
        // loc-args take objects only: a number conversion stays as written.
        #expect(LocalizedFormat.substitute("%u from %@", ["Ann"]) == "%u from Ann")
    }
}
