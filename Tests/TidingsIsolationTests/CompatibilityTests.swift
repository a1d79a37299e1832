import Foundation
import RuntimeTestSupport
import TestSupport
import Testing
import TidingsBase
import TidingsIsolation
import TidingsProtocol
import TidingsRuntime

/// An extension built against each frozen header (v1, v2, v3) and against
/// a header from the future (every sized struct one field longer, version
/// 4) calls every host function its header has and answers every call the
/// host makes (Tests/Fixtures/Extensions/Exerciser.c), with every struct it
/// hands over at the end of a page: delivered to, responded to and, as a
/// service extension, asked to rewrite, in this process and in a worker.
/// The extension checks each status and effect and reports what failed
/// where these tests read it.
@Suite(.serialized) struct CompatibilityTests {
    /// The header an extension is built against.
    enum Header: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case v1, v2, v3, future

        var testDescription: String { rawValue }
    }

    static let app = "com.example.exercise"
    let fixture = Fixture()

    /// The directory holding the header `header`.
    func includeDirectory(_ header: Header) throws -> String {
        switch header {
        case .v1, .v2, .v3: Locations.repositoryFile("Tests/ABI/\(header.rawValue)")
        case .future: try FutureHeader.write(into: fixture.directory.path)
        }
    }

    /// Installs the exerciser built against `header`: the content extension
    /// of category "exercise" and, from version 2, the app's service extension.
    func install(_ header: Header) throws {
        let include = try includeDirectory(header)
        let content = try CCompiler.fixture("Exerciser", into: fixture.directory.path, output: "libExerciser.so",
                                            extraFlags: ["-pthread"], includeDirectory: include)
        let interface = try fixture.directory.write("""
            {"version": 1, "root": {"type": "stack", "children": [
              {"type": "label", "id": "report"}, {"type": "label", "id": "title"},
              {"type": "label", "id": "media"}, {"type": "image", "id": "picture"}]}}
            """, to: "MainInterface.json")
        try BundleMaker.make("Exerciser", in: fixture.directory.path, manifest: BundleMaker.contentManifest(
            identifier: "\(Self.app).content", executable: "libExerciser.so", categories: ["exercise"],
            overridesTitle: true, interface: "MainInterface"), library: content, resources: [interface])
        guard header != .v1 else { return }
        let service = try CCompiler.fixture("Exerciser", into: fixture.directory.path, output: "libExerciserService.so",
                                            extraFlags: ["-pthread", "-DSERVICE"], includeDirectory: include)
        try BundleMaker.make("ExerciserService", in: fixture.directory.path, manifest: BundleMaker.serviceManifest(
            identifier: "\(Self.app).service", executable: "libExerciserService.so"), library: service)
    }

    /// A host running the extensions as `mode` says, speaking ABI `version`,
    /// with the exerciser's category registered.
    func host(_ mode: IsolationMode, version: UInt32 = HostFunctions.abiVersion) -> NotificationHost {
        var configuration = NotificationHost.Configuration()
        configuration.abiVersion = version
        configuration.attachmentDirectory = fixture.directory.file("store")
        // Long enough that the request completed at once is never taken for a late one while a worker
        // starts on a loaded machine, short enough that the "expire" request's wait for time-will-expire
        // plus the grace period ends within the exerciser's own 5 s wait for the first request's checks.
        configuration.serviceDeadline = 1
        // The exerciser misuses each completion token on purpose (complete_request with a response's
        // token, completing twice), to check the statuses: a fault per token, which must not quarantine it here.
        var settings = IsolationMode.workerSettings
        settings.restarts.quarantineAfter = 100
        let host = fixture.host(configuration: configuration, launcher: mode.launcher(settings))
        host.register([NotificationCategory(identifier: "exercise", actions: [
            NotificationAction(identifier: "keep", title: "Keep"),
            NotificationAction(identifier: "reply", title: "Reply", textInput: .init(buttonTitle: "Send", placeholder: "")),
            NotificationAction(identifier: "close", title: "Close", options: .destructive),
            NotificationAction(identifier: "open", title: "Open", options: .foreground),
        ])], for: Self.app)
        return host
    }

    /// What the content extension reported last.
    func report(_ presentation: Presentation) -> String? {
        presentation.view?.text(of: "report")
    }

    /// A notification of category "exercise" in `thread`, with a PNG attached.
    func exercise(_ identifier: String, thread: String) throws -> UserNotification {
        let photo = fixture.directory.file("\(identifier).png")
        try? FileManager.default.removeItem(atPath: photo)
        try FileManager.default.copyItem(atPath: Locations.repositoryFile("Plugins/EventInvite/Payloads/lighthouse.png"),
                                         toPath: photo)
        let size = try FileManager.default.attributesOfItem(atPath: photo)[.size] as? UInt64 ?? 0
        return notification(identifier, category: "exercise", thread: thread, title: "Exercise \(identifier)",
                            attachments: [NotificationAttachment(identifier: "photo", type: "public.png", path: photo,
                                                                 size: size)])
    }

    /// Delivers to the content extension, responds with each action, taps
    /// the media button, and reads what it reported each time.
    func exerciseContent(_ host: NotificationHost) throws {
        let first = host.deliverOpened(try exercise("a", thread: "a"), to: Self.app)
        #expect(report(first.presentation) == "receive: ok", "\(first.diagnostics.map(\.description))")
        #expect(first.presentation.header == "Exercised")
        #expect(first.presentation.view?.text(of: "title") == "Exercise a")
        #expect(first.presentation.contentHeight == 240)
        #expect(first.presentation.mediaButton?.type == 2)
        #expect(first.presentation.actions.map(\.identifier) == ["keep", "reply", "close", "open"])
        #expect(first.log.map(\.message).contains("exerciser: received"))
        // A second interface opened closes the first; responding to "a" opens it again.
        let second = host.deliverOpened(try exercise("b", thread: "b"), to: Self.app)
        #expect(report(second.presentation) == "receive: ok", "\(second.diagnostics.map(\.description))")

        let kept = try host.respond(to: "a", with: ResponseRequest(actionIdentifier: "keep"))
        #expect(report(kept.presentation) == "keep: ok", "\(kept.diagnostics.map(\.description))")
        #expect(kept.option == .doNotDismiss)
        #expect(!kept.presentation.dismissed)
        let played = try host.tapMediaButton(of: "a").presentation
        #expect(report(played) == "play: ok")
        #expect(played.view?.text(of: "media") == "play")
        let paused = try host.tapMediaButton(of: "a").presentation
        #expect(report(paused) == "pause: ok")
        let replied = try host.respond(to: "a", with: ResponseRequest(actionIdentifier: "reply", userText: "hello"))
        #expect(report(replied.presentation) == "reply: ok")
        #expect(replied.option == .dismiss)
        #expect(replied.presentation.dismissed)
        // dismissNotificationContentExtension closes the interface; the notification stays.
        let closed = try host.respond(to: "b", with: ResponseRequest(actionIdentifier: "close"))
        #expect(report(closed.presentation) == "close: ok")
        #expect(!closed.presentation.dismissed && !closed.presentation.expanded)
        #expect(host.presentation(of: "b")?.expanded == false)
        _ = host.deliverOpened(try exercise("c", thread: "c"), to: Self.app)
        let opened = try host.respond(to: "c", with: ResponseRequest(actionIdentifier: "open"))
        #expect(report(opened.presentation) == "open: ok")
        #expect(opened.presentation.dismissed)
        #expect(opened.forwarded.map(\.actionIdentifier) == [ActionIdentifier.default])
        for outcome in [kept, replied, closed, opened] {
            #expect(!outcome.log.map(\.message).contains("exerciser: the completion was refused"))
        }
    }

    /// Has the service extension rewrite a notification at once, then one
    /// only when its time will expire (which counts what the first checked
    /// after its completion), and reads what it reported.
    func exerciseService(_ host: NotificationHost) {
        var request = notification("r", category: "", title: "Hello", body: "World", userInfo: [("mode", .string("exercise"))])
        request.content.mutableContent = true
        let rewritten = host.deliverOpened(request, to: Self.app)
        let content = rewritten.presentation.notification.content
        #expect(content.title == "exercised: ok", "\(rewritten.diagnostics.map(\.description))")
        #expect(content.attachments.map(\.identifier) == ["made"])
        #expect(content.attachments.first?.thumbnail.hidden == true)
        #expect(content.userInfo.map(\.0) == ["exercised"])
        #expect(rewritten.log.map(\.message) == ["exerciser: request"])

        request.content.userInfo = [("mode", .string("expire"))]
        let expired = host.deliverOpened(request, to: Self.app)
        #expect(expired.presentation.notification.content.title == "expired: ok",
                "\(expired.diagnostics.map(\.description))")
        #expect(expired.log.map(\.message) == ["exerciser: request", "exerciser: time will expire"])
    }

    @Test(arguments: Header.allCases, IsolationMode.allCases)
    func aContentExtensionExercisesEveryHostFunction(_ header: Header, _ mode: IsolationMode) throws {
        try install(header)
        try exerciseContent(host(mode))
    }

    @Test(arguments: [Header.v2, .v3, .future], IsolationMode.allCases)
    func aServiceExtensionExercisesEveryHostFunction(_ header: Header, _ mode: IsolationMode) throws {
        try install(header)
        exerciseService(host(mode))
    }

    /// A version 3 extension on a host of version 2 (its table, its entry
    /// function): it declares version 2, calls no function of version 3,
    /// and works.
    @Test(arguments: IsolationMode.allCases)
    func aVersion3ExtensionWorksWithAVersion2Host(_ mode: IsolationMode) throws {
        try install(.v3)
        let host = host(mode, version: 2)
        try exerciseContent(host)
        exerciseService(host)
    }
}
