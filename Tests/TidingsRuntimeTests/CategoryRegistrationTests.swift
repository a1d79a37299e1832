import RuntimeTestSupport
import Testing
import TestSupport
import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// The host keeps each (app, category)'s registered category beside where
/// the route leads; registering again must still show at once, for routes
/// delivered to before as for new ones, and for one app only.
@Suite struct CategoryRegistrationTests {
    let fixture = Fixture()
    static let app = "com.example.tests"

    /// A host serving the Echo fixture for categories "echo" and "other" of com.example.tests.
    func host() throws -> NotificationHost {
        let library = try CCompiler.fixture("Echo", into: fixture.directory.path)
        let manifest = BundleMaker.contentManifest(identifier: "com.example.tests.echo", executable: "libEcho.so",
                                                   categories: ["echo", "other"])
        try BundleMaker.make("Echo", in: fixture.directory.path, manifest: manifest, library: library)
        return fixture.host()
    }

    static func category(_ identifier: String, actions: [String]) -> NotificationCategory {
        NotificationCategory(identifier: identifier, actions: actions.map { NotificationAction(identifier: $0, title: $0) })
    }

    /// The action identifiers a delivery of category `category` shows.
    func actions(_ host: NotificationHost, _ category: String, thread: String = "") -> [String] {
        let delivery = host.deliver(notification("n-\(category)", category: category, thread: thread), to: Self.app)
        #expect(delivery.presentation.extensionIdentifier == "com.example.tests.echo")
        return delivery.presentation.actions.map(\.identifier)
    }

    @Test func registeringAgainChangesTheActionsOfARouteDeliveredTo() throws {
        let host = try host()
        #expect(actions(host, "echo").isEmpty)
        host.register([Self.category("echo", actions: ["a"])], for: Self.app)
        #expect(actions(host, "echo") == ["a"])
        #expect(actions(host, "echo", thread: "t") == ["a"])
        host.register([Self.category("echo", actions: ["b", "c"]), Self.category("other", actions: ["d"])], for: Self.app)
        #expect(actions(host, "echo") == ["b", "c"])
        #expect(actions(host, "other") == ["d"])
        host.register([Self.category("other", actions: ["e"])], for: Self.app)
        #expect(actions(host, "echo").isEmpty)
        #expect(host.category("echo", of: Self.app) == nil)
        #expect(actions(host, "other") == ["e"])
        host.register([], for: Self.app)
        #expect(actions(host, "other").isEmpty)
        #expect(host.category("other", of: Self.app) == nil)
    }

    @Test func theLastOfTwoWithOneIdentifierCounts() throws {
        let host = try host()
        host.register([Self.category("echo", actions: ["first"]), Self.category("echo", actions: ["last"])], for: Self.app)
        #expect(actions(host, "echo") == ["last"])
        #expect(host.category("echo", of: Self.app)?.actions.map(\.identifier) == ["last"])
    }

    @Test func registeringForOneAppLeavesTheOthers() throws {
        let host = try host()
        host.register([Self.category("echo", actions: ["a"])], for: Self.app)
        host.register([Self.category("echo", actions: ["x"])], for: "com.example.elsewhere")
        _ = actions(host, "echo")
        host.register([], for: "com.example.elsewhere")
        #expect(actions(host, "echo") == ["a"])
        #expect(host.category("echo", of: "com.example.elsewhere") == nil)
        host.register([Self.category("echo", actions: ["y"])], for: "com.example.elsewhere")
        #expect(actions(host, "echo") == ["a"])
        #expect(host.category("echo", of: "com.example.elsewhere")?.actions.map(\.identifier) == ["y"])
    }

    @Test func aResponseSeesTheCategoryRegisteredNow() throws {
        let host = try host()
        host.register([Self.category("echo", actions: ["a"])], for: Self.app)
        _ = host.deliver(notification("n", category: "echo"), to: Self.app)
        host.register([Self.category("echo", actions: ["b"])], for: Self.app)
        #expect(throws: Diagnostic.self) { try host.respond(to: "n", with: ResponseRequest(actionIdentifier: "a")) }
        let outcome = try host.respond(to: "n", with: ResponseRequest(actionIdentifier: "b"))
        #expect(outcome.presentation.actions.map(\.identifier) == ["b"])
    }
}
