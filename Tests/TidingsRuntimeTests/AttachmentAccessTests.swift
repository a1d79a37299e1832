import RuntimeTestSupport
import Foundation
import Testing
import TestSupport
import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// A content extension (built from C) reads its notification's attachments
/// through the host — read-only descriptors, for that notification's
/// attachments only, none once a file left the store — and may not create any.
@Suite struct AttachmentAccessTests {
    let fixture = Fixture()
    let png = Locations.repositoryFile("Plugins/EventInvite/Payloads/lighthouse.png")
    let store: AttachmentStore

    init() throws {
        let library = try CCompiler.fixture("Viewer", into: fixture.directory.path)
        let interface = try fixture.directory.write("""
            {"version": 1, "root": {"type": "stack", "children": [
              {"type": "image", "id": "image"}, {"type": "label", "id": "report"}]}}
            """, to: "MainInterface.json")
        try BundleMaker.make("Viewer", in: fixture.directory.path, manifest: BundleMaker.contentManifest(
            identifier: "com.example.view.viewer", executable: "libViewer.so", categories: ["photo"],
            interface: "MainInterface"), library: library, resources: [interface])
        store = AttachmentStore(directory: fixture.directory.file("store"))
    }

    func host() -> NotificationHost {
        var configuration = NotificationHost.Configuration()
        configuration.attachmentDirectory = store.directory
        return fixture.host(configuration: configuration)
    }

    /// A notification of category "photo" with the sample PNG admitted as `identifier`.
    func photo(_ identifier: String = "photo", thread: String = "") throws -> UserNotification {
        let copy = fixture.directory.file("\(identifier).png")
        try FileManager.default.copyItem(atPath: png, toPath: copy)
        let admitted = try store.admit(AttachmentRequest(identifier: identifier, url: copy), as: .move).get()
        return notification(identifier, category: "photo", thread: thread, attachments: [admitted.attachment])
    }

    @Test func theExtensionReadsItsAttachmentReadOnlyAndCannotCreateOne() throws {
        let size = try Data(contentsOf: URL(fileURLWithPath: png)).count
        let delivery = host().deliverOpened(try photo(), to: "com.example.view")
        #expect(delivery.presentation.view?.text(of: "report")
            == "photo:\(size):89504e47:ro unknown:-1 create:9")
        #expect(delivery.diagnostics.codes == ["extension.attachment-not-supported"])
        guard case .image(let bound) = delivery.presentation.view?.node("image")?.content else {
            Issue.record("no image element")
            return
        }
        #expect(bound == "photo")
    }

    @Test func anAttachmentThatLeftTheStoreCannotBeOpened() throws {
        let host = host()
        let first = try photo("first", thread: "album")
        _ = host.deliverOpened(first, to: "com.example.view")
        store.remove(first.content.attachments)
        // Delivered again to the thread's instance, whose notification now names a file that is gone.
        let again = host.deliverOpened(first, to: "com.example.view")
        #expect(again.presentation.view?.text(of: "report")?.hasPrefix("first:gone ") == true)
    }

    @Test func anotherNotificationsAttachmentIsNotOpened() throws {
        let host = host()
        let first = try photo("first", thread: "album")
        let second = notification("second", category: "photo", thread: "album")
        _ = host.deliverOpened(first, to: "com.example.view")
        let delivery = host.deliverOpened(second, to: "com.example.view")
        // The thread's instance serves both; it reads only the second's (none).
        #expect(delivery.presentation.view?.text(of: "report") == "unknown:-1 create:9")
    }

    @Test func dismissingANotificationTakesItsAttachmentsOutOfTheStore() throws {
        let host = host()
        let photo = try photo()
        _ = host.deliverOpened(photo, to: "com.example.view")
        #expect(store.fileNames().count == 1)
        _ = try host.respond(to: "photo", with: ResponseRequest(actionIdentifier: ActionIdentifier.default, userText: nil))
        #expect(store.fileNames().isEmpty)
    }

    @Test func deliveringTheSameNotificationAgainKeepsItsAttachments() throws {
        let host = host()
        let photo = try photo()
        _ = host.deliverOpened(photo, to: "com.example.view")
        let again = host.deliverOpened(photo, to: "com.example.view")
        #expect(store.fileNames().count == 1)
        #expect(again.presentation.view?.text(of: "report")?.hasPrefix("photo:") == true)
    }
}
