import RuntimeTestSupport
import Foundation
import Testing
import TestSupport
import TidingsBase
import TidingsRuntime

/// Attachments a real service extension (built from C) creates while it
/// serves a request: moved into the store and shown, or refused with Apple's
/// code, and never left in the store when the notification does not carry them.
@Suite struct ServiceAttachmentTests {
    let fixture = Fixture()
    let png = Locations.repositoryFile("Plugins/EventInvite/Payloads/lighthouse.png")

    init() throws {
        let library = try CCompiler.fixture("Service", into: fixture.directory.path, extraFlags: ["-pthread"])
        try BundleMaker.make("Service", in: fixture.directory.path, manifest: BundleMaker.serviceManifest(
            identifier: "com.example.svc.service", executable: "libService.so"), library: library)
    }

    var storeDirectory: String { fixture.directory.file("state/attachments") }

    func host(deadline: Double = 2, grace: Double = 0.3) -> NotificationHost {
        var configuration = NotificationHost.Configuration()
        configuration.serviceDeadline = deadline
        configuration.serviceGracePeriod = grace
        configuration.attachmentDirectory = storeDirectory
        return fixture.host(configuration: configuration)
    }

    /// A mutable notification asking the fixture to attach `file`.
    func request(_ mode: String, file: String, extra: [(String, JSON)] = []) -> UserNotification {
        var request = notification("n", category: "", title: "Hello",
                                   userInfo: [("mode", .string(mode)), ("file", .string(file))] + extra)
        request.content.mutableContent = true
        return request
    }

    /// A copy of the sample PNG that the extension may have moved away.
    func fetchedCopy(_ name: String = "fetched.png") throws -> String {
        let path = fixture.directory.file(name)
        try FileManager.default.copyItem(atPath: png, toPath: path)
        return path
    }

    var storedFiles: [String] { AttachmentStore(directory: storeDirectory).fileNames() }

    @Test func aCreatedAttachmentIsMovedIntoTheStoreAndShown() throws {
        let file = try fetchedCopy()
        let size = try Data(contentsOf: URL(fileURLWithPath: png)).count
        let delivery = host().deliver(request("attach", file: file, extra: [("identifier", .string("photo"))]),
                                      to: "com.example.svc")
        let content = delivery.presentation.notification.content
        #expect(content.title == "Attached photo public.png \(size) readable")
        let attachment = try #require(content.attachments.first)
        #expect(attachment.identifier == "photo")
        #expect(attachment.type == "public.png")
        #expect(attachment.path.hasPrefix(storeDirectory + "/"))
        #expect(!FileManager.default.fileExists(atPath: file), "moved, as on iOS")
        #expect(storedFiles.count == 1)
        #expect(delivery.createdAttachments.map(\.attachment) == [attachment])
        #expect(delivery.createdAttachments.first?.transfer == .moved)
        guard case .rewrote(_, let changes, _, _) = delivery.service else {
            Issue.record("unexpected stage: \(delivery.service)")
            return
        }
        #expect(changes == ["title", "1 attachment added"])
    }

    @Test func anEmptyIdentifierGetsAGeneratedOne() throws {
        let delivery = host().deliver(request("attach", file: try fetchedCopy()), to: "com.example.svc")
        let attachment = try #require(delivery.presentation.notification.content.attachments.first)
        #expect(attachment.identifier.count == 36)
        #expect(delivery.presentation.notification.content.title.hasPrefix("Attached \(attachment.identifier) "))
    }

    @Test func aRefusedFileGivesTheExtensionApplesCodeAndStaysPut() throws {
        let file = try fixture.directory.write("not a picture", to: "fetched.png")
        let delivery = host().deliver(request("attach", file: file), to: "com.example.svc")
        #expect(delivery.log.map(\.message) == ["attachment error 101"])
        #expect(delivery.diagnostics.codes.contains("attachment.unrecognized-type"))
        #expect(delivery.presentation.notification.content.attachments.isEmpty)
        #expect(FileManager.default.fileExists(atPath: file))
        #expect(storedFiles.isEmpty)
    }

    @Test func aTypeHintTheContentMissesIsRefused() throws {
        let delivery = host().deliver(request("attach", file: try fetchedCopy(), extra: [("type", .string("public.mp3"))]),
                                      to: "com.example.svc")
        #expect(delivery.log.map(\.message) == ["attachment error 101"])
        #expect(storedFiles.isEmpty)
    }

    @Test func anAttachmentLeftOutOfTheContentLeavesTheStore() throws {
        let delivery = host().deliver(request("attach", file: try fetchedCopy(), extra: [("keep", .string("no"))]),
                                      to: "com.example.svc")
        #expect(delivery.presentation.notification.content.attachments.isEmpty)
        #expect(delivery.diagnostics.codes.contains("service.attachment-discarded"))
        #expect(delivery.createdAttachments.isEmpty)
        #expect(storedFiles.isEmpty)
    }

    @Test func anAttachmentOfAServiceThatTimesOutLeavesTheStore() throws {
        let delivery = host(deadline: 0.1, grace: 0.1).deliver(request("attach-then-never", file: try fetchedCopy()),
                                                               to: "com.example.svc")
        #expect(delivery.diagnostics.codes.contains("service.timeout"))
        #expect(delivery.presentation.notification.content.title == "Hello")
        #expect(storedFiles.isEmpty)
    }

    @Test func withoutAStoreCreatingFailsWith104() throws {
        var configuration = NotificationHost.Configuration()
        configuration.serviceDeadline = 2
        let file = try fetchedCopy()
        let delivery = fixture.host(configuration: configuration).deliver(request("attach", file: file),
                                                                          to: "com.example.svc")
        #expect(delivery.log.map(\.message) == ["attachment error 104"])
        #expect(FileManager.default.fileExists(atPath: file))
    }

    @Test func theRequestsOwnAttachmentsTheRewriteDropsLeaveTheStore() throws {
        let store = AttachmentStore(directory: storeDirectory)
        let own = try store.admit(AttachmentRequest(identifier: "own", url: try fetchedCopy("own.png")), as: .move).get()
        var original = request("attach", file: try fetchedCopy())
        original.content.attachments = [own.attachment]
        // The fixture hands back only the attachment it created.
        let delivery = host().deliver(original, to: "com.example.svc")
        let shown = delivery.presentation.notification.content.attachments
        #expect(shown.count == 1 && shown.first?.identifier != "own")
        #expect(!FileManager.default.fileExists(atPath: own.attachment.path))
        #expect(storedFiles.count == 1)
    }
}
