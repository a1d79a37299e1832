import RuntimeTestSupport
import Testing
import TestSupport
import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// What the host lays out in the ABI's structs, field by field, as the Echo
/// fixture reads it back: strings, optional strings as NULL, userInfo as
/// JSON text (and plain text for strings), attachments, and the response.
@Suite struct MarshallingTests {
    let fixture = Fixture()

    /// A host serving the Echo fixture for category "echo" of com.example.tests.
    func host() throws -> NotificationHost {
        let library = try CCompiler.fixture("Echo", into: fixture.directory.path)
        let manifest = BundleMaker.contentManifest(identifier: "com.example.tests.echo", executable: "libEcho.so",
                                                   categories: ["echo"])
        try BundleMaker.make("Echo", in: fixture.directory.path, manifest: manifest, library: library)
        let host = fixture.host()
        host.register([NotificationCategory(identifier: "echo", actions: [
            NotificationAction(identifier: "reply", title: "Reply", textInput: .init(buttonTitle: "Send", placeholder: "")),
        ])], for: "com.example.tests")
        return host
    }

    /// A notification with every field set, and userInfo values of every kind.
    static var full: UserNotification {
        var note = notification("n-1", category: "echo", thread: "t", title: "Tïtle", body: "Line 1\nLine 2",
                                userInfo: [
                                    ("text", .string("say \"hi\"\\ ✓")),
                                    ("count", .integer(-42)),
                                    ("ratio", .double(0.25)),
                                    ("flags", .array([.bool(true), .bool(false), .null])),
                                    ("nested", .object([("a", .object([("b", .string("\u{1}\t"))])), ("empty", .array([]))])),
                                    ("", .string("")),
                                ],
                                attachments: [
                                    NotificationAttachment(identifier: "poster", type: "public.png",
                                                           path: "/tmp/a b/poster.png", size: 1234,
                                                           thumbnail: ThumbnailOptions(
                                                               hidden: true,
                                                               clippingRect: .init(x: 0.25, y: 0, width: 0.5, height: 1),
                                                               time: 2.5)),
                                    NotificationAttachment(identifier: "clip", type: "public.mpeg-4", path: "/tmp/clip.mp4"),
                                ])
        note.content.subtitle = "Sub"
        note.content.targetContentIdentifier = "target-7"
        note.content.sound = "default"
        note.content.badge = 3
        note.content.relevanceScore = 0.5
        note.content.interruptionLevel = .timeSensitive
        return note
    }

    /// The lines Echo logs for `full`.
    static let fullLines = [
        "identifier=n-1", "date=1800000000.000", "title=Tïtle", "subtitle=Sub", "body=Line 1\nLine 2", "category=echo",
        "thread=t", "target=target-7", "sound=default", "badge relevance level=3 0.50 2",
        "key=text", #"json="say \"hi\"\\ ✓""#, #"string=say "hi"\ ✓"#,
        "key=count", "json=-42", "string=(null)",
        "key=ratio", "json=0.25", "string=(null)",
        "key=flags", "json=[true,false,null]", "string=(null)",
        "key=nested", #"json={"a":{"b":"\u0001\t"},"empty":[]}"#, "string=(null)",
        "key=", #"json="""#, "string=",
        "attachment=poster", "type=public.png", "url=file:///tmp/a%20b/poster.png",
        "size=1234 hidden=1 clip=0.25,0,0.5,1 time=2.5",
        // No options: the whole image, at the default moment (a negative time).
        "attachment=clip", "type=public.mpeg-4", "url=file:///tmp/clip.mp4", "size=0 hidden=0 clip=0,0,0,0 time=-1",
    ]

    /// The field lines Echo logged, without its "created=N" lines.
    func fields(_ log: [LogLine]) -> [String] {
        log.map(\.message).filter { !$0.hasPrefix("created=") }
    }

    @Test func notificationFieldsReachTheExtension() throws {
        let delivery = try host().deliverOpened(Self.full, to: "com.example.tests")
        #expect(delivery.diagnostics.isEmpty)
        #expect(fields(delivery.log) == Self.fullLines)
    }

    @Test func redeliveryAndResponsesGetTheSameFields() throws {
        let host = try host()
        let note = Self.full
        #expect(fields(host.deliverOpened(note, to: "com.example.tests").log) == Self.fullLines)
        #expect(fields(host.deliverOpened(note, to: "com.example.tests").log) == Self.fullLines)
        let outcome = try host.respond(to: "n-1", with: ResponseRequest(actionIdentifier: "reply", userText: "Again"))
        #expect(fields(outcome.log) == ["action=reply", "text=Again"] + Self.fullLines)
    }

    @Test func aChangedNotificationIsLaidOutAfresh() throws {
        let host = try host()
        let original = Self.full
        #expect(fields(host.deliverOpened(original, to: "com.example.tests").log) == Self.fullLines)
        var changed = original
        changed.content.title = "Changed"
        changed.content.userInfo[1].1 = .integer(7)
        let expected = Self.fullLines.map { $0 == "title=Tïtle" ? "title=Changed" : $0 == "json=-42" ? "json=7" : $0 }
        #expect(fields(host.deliverOpened(changed, to: "com.example.tests").log) == expected)
        let outcome = try host.respond(to: "n-1", with: ResponseRequest(actionIdentifier: "reply", userText: "x"))
        #expect(fields(outcome.log) == ["action=reply", "text=x"] + expected)
        #expect(fields(host.deliverOpened(original, to: "com.example.tests").log) == Self.fullLines)
    }

    @Test func absentFieldsArriveAsEmptyOrNull() throws {
        let delivery = try host().deliverOpened(notification("n-2", category: "echo", title: "", body: ""), to: "com.example.tests")
        #expect(fields(delivery.log) == [
            "identifier=n-2", "date=1800000000.000", "title=", "subtitle=", "body=", "category=echo", "thread=",
            "target=(null)", "sound=(null)", "badge relevance level=-1 0.00 1",
        ])
    }

    @Test func responseFieldsReachTheExtension() throws {
        let host = try host()
        _ = host.deliverOpened(Self.full, to: "com.example.tests")
        let outcome = try host.respond(to: "n-1", with: ResponseRequest(actionIdentifier: "reply", userText: "On my way"))
        #expect(outcome.option == .doNotDismiss)
        #expect(fields(outcome.log) == ["action=reply", "text=On my way"] + Self.fullLines)
        // The default action goes to the app, not to the extension.
        let opened = try host.respond(to: "n-1", with: ResponseRequest(actionIdentifier: ActionIdentifier.default))
        #expect(opened.receiver == .app && opened.log.isEmpty)
        #expect(opened.forwarded.map(\.actionIdentifier) == [ActionIdentifier.default])
    }
}
