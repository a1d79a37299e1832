import Testing
import TidingsBase
import TidingsDesktop

/// An image attachment's thumbnail on the desktop: the notification's image
/// (`image-path`), none when hidden, whole when clipped.
@Suite struct ThumbnailTests {
    /// EventInvite's delivered invitation with its attachment's `name` option set to `value`.
    func invitation(_ name: String, _ value: JSON) throws -> DesktopPresentation {
        let delivered = try captured(CapturedPresentation.eventInviteDelivered)
        let notification = try #require(delivered["notification"])
        let attachment = try #require(notification["attachments"]?.arrayValue?.first).setting(name, to: value)
        return DesktopPresentation(presentation: delivered.setting("notification",
                                                                   to: notification.setting("attachments", to: .array([attachment]))),
                                   app: AppDisplay(identifier: "com.example.events"), capabilities: Servers.full)
    }

    @Test func aHiddenThumbnailSendsNoImage() throws {
        #expect(try invitation("thumbnailHidden", .bool(false)).notification.hints["image-path"] != nil)
        #expect(try invitation("thumbnailHidden", .bool(true)).notification.hints["image-path"] == nil)
    }

    @Test func aClippedThumbnailIsTheWholeImage() throws {
        let clipped = try invitation("thumbnailClippingRect", .object([("x", .double(0.25)), ("y", .double(0)),
                                                                       ("width", .double(0.5)), ("height", .double(1))]))
        #expect(clipped.notification.hints["image-path"]
                == .string("file:///tmp/mapcap/state/tidings/attachments/05fbbe9061f85ff94585dbcabc370ae0.png"))
    }
}
