import RuntimeTestSupport
import Testing
import TestSupport
import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// Every broken-library class, installed beside a good bundle in one directory.
@Suite struct LoadFailureTests {
    let fixture = Fixture()

    func installBroken() throws {
        for broken in BrokenLibrary.allCases {
            let library = try broken.make(in: fixture.directory.path)
            let manifest = BundleMaker.contentManifest(identifier: "com.example.broken.\(broken.rawValue)",
                                                       executable: "lib\(broken.rawValue).so",
                                                       categories: [broken.rawValue], hidden: true)
            try BundleMaker.make("Broken-\(broken.rawValue)", in: fixture.directory.path, manifest: manifest,
                                 library: broken == .missing ? nil : library)
        }
        // Also: an extension that loads but cannot make an instance.
        let library = try CCompiler.fixture("Broken", into: fixture.directory.path, output: "libcreate-fails.so",
                                            extraFlags: ["-DCREATE_FAILS"])
        try BundleMaker.make("CreateFails", in: fixture.directory.path, manifest: BundleMaker.contentManifest(
            identifier: "com.example.broken.create-fails", executable: "libcreate-fails.so",
            categories: ["create-fails"], hidden: true), library: library)
    }

    @Test(arguments: BrokenLibrary.allCases)
    func brokenExtensionFallsBackToDefaultContent(_ broken: BrokenLibrary) throws {
        try installBroken()
        let delivery = fixture.host().deliverOpened(
            notification("n", category: broken.rawValue, title: "Still here", body: "Default content"),
            to: "com.example.broken")
        #expect(delivery.diagnostics.codes == [broken.expectedCode])
        #expect(delivery.extensionFailed)
        let presentation = delivery.presentation
        #expect(presentation.extensionIdentifier == nil)
        #expect(!presentation.defaultContentHidden)  // the manifest asks to hide it, but the extension failed
        #expect(presentation.defaultContent?.title == "Still here")
        #expect(presentation.defaultContent?.body == "Default content")
        #expect(presentation.view == nil)
    }

    @Test func failedCreationFallsBackToDefaultContent() throws {
        try installBroken()
        let delivery = fixture.host().deliverOpened(notification("n", category: "create-fails"), to: "com.example.broken")
        #expect(delivery.diagnostics.codes == ["extension.create-failed"])
        #expect(delivery.presentation.defaultContent != nil)
    }

    @Test func goodBundlesStillServeBesideBrokenOnes() throws {
        try installBroken()
        try fixture.installEventInvite()
        let host = fixture.host()
        for broken in BrokenLibrary.allCases {
            _ = host.deliverOpened(notification("broken-\(broken.rawValue)", category: broken.rawValue), to: "com.example.broken")
        }
        let delivery = host.deliverOpened(notification("good", category: "event-invite"), to: "com.example.events")
        #expect(delivery.diagnostics.isEmpty)
        #expect(delivery.presentation.extensionIdentifier == "com.example.events.invite")
        #expect(delivery.presentation.defaultContentHidden)
    }

    @Test func aResponseToAFailedExtensionGoesToTheApp() throws {
        try installBroken()
        let host = fixture.host()
        _ = host.deliverOpened(notification("n", category: "null-descriptor"), to: "com.example.broken")
        let outcome = try host.respond(to: "n", with: ResponseRequest(actionIdentifier: ActionIdentifier.default))
        #expect(outcome.receiver == .app)
        #expect(outcome.forwarded.map(\.actionIdentifier) == [ActionIdentifier.default])
        #expect(outcome.presentation.dismissed)
    }

    @Test func theFailureIsRememberedNotRetriedPerNotification() throws {
        try installBroken()
        let host = fixture.host()
        let first = host.deliverOpened(notification("a", category: "future-abi"), to: "com.example.broken")
        let second = host.deliverOpened(notification("b", category: "future-abi"), to: "com.example.broken")
        #expect(first.diagnostics == second.diagnostics)
    }
}
