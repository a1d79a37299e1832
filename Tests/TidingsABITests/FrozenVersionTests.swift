import TestSupport
import Testing
import TidingsRegistry
import TidingsRuntime

/// An extension built against the frozen version 1 header keeps loading and
/// working with the current host.
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
        let delivery = host.deliver(UserNotification(identifier: "n", date: 0, content: content), to: "com.example.ci")
        #expect(delivery.diagnostics.isEmpty)
        #expect(delivery.presentation.header == "CI · legacy")
        host.register([NotificationCategory(identifier: "build-status", actions: [.init(identifier: "retry", title: "Retry")])],
                      for: "com.example.ci")
        let outcome = try host.respond(to: "n", with: ResponseRequest(actionIdentifier: "retry"))
        #expect(outcome.option == .dismissAndForwardAction)
    }
}
