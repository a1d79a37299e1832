import RuntimeTestSupport
import Foundation
import Testing
import TestSupport
import TidingsBase
import TidingsRuntime

/// The two Swift samples together, from their built libraries: the
/// InviteService service extension fetches the payload's `my-attachment`,
/// attaches it and rewrites the title; EventInvite then shows the image.
@Suite struct InviteServiceTests {
    let fixture = Fixture()
    let png = Locations.repositoryFile("Plugins/EventInvite/Payloads/lighthouse.png")

    var storeDirectory: String { fixture.directory.file("state/attachments") }

    /// A host speaking ABI `version` (its own by default) serving both
    /// samples, with the photo in the service's bundle.
    func host(deadline: Double = 5, version: UInt32 = HostFunctions.abiVersion) throws -> NotificationHost {
        try fixture.installEventInvite()
        let manifest = try String(contentsOfFile: Locations.repositoryFile("Manifests/InviteService.plist"), encoding: .utf8)
        try BundleMaker.make("InviteService", in: fixture.directory.path, manifest: manifest,
                             library: Locations.product("libInviteService.so"), resources: [png])
        var configuration = NotificationHost.Configuration()
        configuration.serviceDeadline = deadline
        configuration.attachmentDirectory = storeDirectory
        configuration.abiVersion = version
        return fixture.host(configuration: configuration)
    }

    /// The sample payload, with `my-attachment` set to `attachment` when given.
    func samplePayload(attachment: String? = nil) throws -> UserNotification {
        let path = Locations.repositoryFile("Plugins/InviteService/Payloads/invite-with-photo.json")
        var json = try JSON.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        if let attachment, var members = json.objectMembers, let index = members.firstIndex(where: { $0.0 == "my-attachment" }) {
            members[index].1 = .string(attachment)
            json = .object(members)
        }
        let reading = Payload.decode(json, file: path, identifier: "invite-photo")
        #expect(reading.diagnostics.isEmpty)
        return try #require(reading.notification)
    }

    @Test func theServiceAttachesThePhotoAndTheContentExtensionShowsIt() throws {
        let delivery = try host().deliverOpened(try samplePayload(attachment: "file://" + png), to: "com.example.events")
        #expect(delivery.diagnostics.isEmpty, "\(delivery.diagnostics)")
        guard case .rewrote("com.example.events.service", let changes, false, _) = delivery.service else {
            Issue.record("unexpected stage: \(delivery.service)")
            return
        }
        #expect(changes == ["title", "1 attachment added"])
        let presentation = delivery.presentation
        #expect(presentation.extensionIdentifier == "com.example.events.invite")
        #expect(presentation.notification.content.title == "Invitation: Team offsite")
        let attachment = try #require(presentation.notification.content.attachments.first)
        #expect(attachment.identifier == "event-image")
        #expect(attachment.type == "public.png")
        #expect(attachment.path.hasPrefix(storeDirectory + "/"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: attachment.path)) == Data(contentsOf: URL(fileURLWithPath: png)))
        // The image element is bound to the stored attachment and shown.
        let image = try #require(presentation.view?.node("eventImage"))
        guard case .image(let bound) = image.content else {
            Issue.record("eventImage is not an image")
            return
        }
        #expect(bound == "event-image")
        #expect(!image.hidden)
        #expect(presentation.contentHeight == 320)
        #expect(FileManager.default.fileExists(atPath: png), "the sample fetched a copy; the original stays")
    }

    /// A name in its own bundle, found where the host said the bundle is.
    @Test func aNameInItsBundleIsAttached() throws {
        let delivery = try host().deliverOpened(try samplePayload(attachment: "lighthouse.png"), to: "com.example.events")
        #expect(delivery.diagnostics.isEmpty, "\(delivery.diagnostics)")
        #expect(delivery.presentation.notification.content.attachments.map(\.identifier) == ["event-image"])
    }

    /// A host of version 2 does not say where the bundle is: the name is not
    /// found, and the title is still rewritten (completed without naming the instance).
    @Test func onAVersion2HostANameInItsBundleIsNotFoundAndTheTitleStillChanges() throws {
        let delivery = try host(version: 2).deliverOpened(try samplePayload(attachment: "lighthouse.png"), to: "com.example.events")
        #expect(delivery.presentation.notification.content.title == "Invitation: Team offsite")
        #expect(delivery.presentation.notification.content.attachments.isEmpty)
        #expect(delivery.log.contains { $0.level == .warning && $0.message.contains("could not attach lighthouse.png") })
    }

    @Test func withoutAPhotoTheServiceStillRewritesTheTitle() throws {
        let delivery = try host().deliverOpened(try samplePayload(attachment: "/nonexistent/photo.png"), to: "com.example.events")
        #expect(delivery.presentation.notification.content.title == "Invitation: Team offsite")
        #expect(delivery.presentation.notification.content.attachments.isEmpty)
        #expect(delivery.log.contains { $0.level == .warning && $0.message.contains("could not attach /nonexistent/photo.png") })
        #expect(AttachmentStore(directory: storeDirectory).fileNames().isEmpty)
    }

    @Test func theServiceDoesNotRunWithoutMutableContent() throws {
        var notification = try samplePayload(attachment: "file://" + png)
        notification.content.mutableContent = false
        let delivery = try host().deliverOpened(notification, to: "com.example.events")
        #expect(delivery.service == .skipped(.notMutable))
        #expect(delivery.presentation.notification.content.title == "Team offsite")
    }
}
