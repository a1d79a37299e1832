import Foundation
import TestSupport
import Testing
import TidingsProtocol
import TidingsRegistry
import TidingsRuntime

/// Extensions built against the frozen headers keep loading and working
/// with the current host.
@Suite struct FrozenVersionTests {
    @Test func extensionBuiltAgainstVersion1IsServed() throws {
        let directory = TemporaryDirectory("frozen")
        let library = try CCompiler.sharedLibrary(Locations.repositoryFile("Plugins/BuildStatus/BuildStatus.c"),
                                                  output: directory.file("libBuildStatus.so"),
                                                  includeDirectory: Locations.repositoryFile("Tests/ABI/v1"))
        let manifest = try String(contentsOfFile: Locations.repositoryFile("Manifests/BuildStatus.plist"), encoding: .utf8)
        try BundleMaker.make("BuildStatus", in: directory.path, manifest: manifest, library: library,
                             resources: [Locations.repositoryFile("Plugins/BuildStatus/MainInterface.json")])
        let host = NotificationHost(index: Discovery.scan(SearchPath(directories: [directory.path], origin: .option)))
        var content = NotificationContent()
        content.categoryIdentifier = "build-status"
        content.userInfo = [("project", .string("legacy")), ("status", .string("passed"))]
        let delivery = host.deliver(UserNotification(identifier: "n", date: 0, content: content), to: "com.example.ci",
                                    opening: true)
        #expect(delivery.diagnostics.isEmpty)
        #expect(delivery.presentation.header == "CI · legacy")
        host.register([NotificationCategory(identifier: "build-status", actions: [.init(identifier: "retry", title: "Retry")])],
                      for: "com.example.ci")
        let outcome = try host.respond(to: "n", with: ResponseRequest(actionIdentifier: "retry"))
        #expect(outcome.option == .dismissAndForwardAction)
    }

    @Test func serviceExtensionBuiltAgainstVersion2AttachesAFile() throws {
        let directory = TemporaryDirectory("frozen")
        let library = try CCompiler.sharedLibrary(Locations.repositoryFile("Tests/Fixtures/Extensions/Service.c"),
                                                  output: directory.file("libService.so"),
                                                  includeDirectory: Locations.repositoryFile("Tests/ABI/v2"),
                                                  extraFlags: ["-pthread"])
        try BundleMaker.make("Service", in: directory.path, manifest: BundleMaker.serviceManifest(
            identifier: "com.example.svc.service", executable: "libService.so"), library: library)
        let photo = directory.file("photo.png")
        try FileManager.default.copyItem(atPath: Locations.repositoryFile("Plugins/EventInvite/Payloads/lighthouse.png"),
                                         toPath: photo)
        var configuration = NotificationHost.Configuration()
        configuration.attachmentDirectory = directory.file("store")
        let host = NotificationHost(index: Discovery.scan(SearchPath(directories: [directory.path], origin: .option)),
                                    configuration: configuration)
        var content = NotificationContent()
        content.title = "Hello"
        content.mutableContent = true
        content.userInfo = [("mode", .string("attach")), ("file", .string(photo)), ("identifier", .string("photo"))]
        let delivery = host.deliver(UserNotification(identifier: "n", date: 0, content: content), to: "com.example.svc")
        #expect(delivery.presentation.notification.content.title.hasPrefix("Attached photo public.png "))
        #expect(delivery.presentation.notification.content.attachments.map(\.identifier) == ["photo"])
    }
}
