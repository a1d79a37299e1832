import RuntimeTestSupport
import Testing
import TestSupport
import TidingsBase
import TidingsIsolation
import TidingsProtocol
import TidingsRuntime

/// The expanded interface's lifecycle and the routing of responses, as on
/// iOS, against real built extensions (the Swift EventInvite sample and C
/// fixtures) in this process and in workers: a delivery runs no
/// content-extension code; opening a notification makes its instance;
/// a thread-mate delivered while it is open reaches that instance; closing
/// releases it; view state never crosses notifications; the default and
/// dismiss actions go to the app, never to the extension.
@Suite struct ExpandedInterfaceTests {
    let fixture = Fixture()

    /// The extension a test runs: the Swift sample or the C fixture.
    enum Language: String, CaseIterable, CustomStringConvertible {
        case swift, c
        var description: String { rawValue }
    }

    static let app = "com.example.events"
    static let echoApp = "com.example.tests"

    static let inviteCategory = NotificationCategory(identifier: "event-invite", actions: [
        NotificationAction(identifier: "accept", title: "Accept"),
        NotificationAction(identifier: "decline", title: "Decline", options: .destructive),
    ], options: .customDismissAction)

    static let echoCategory = NotificationCategory(identifier: "echo", actions: [
        NotificationAction(identifier: "reply", title: "Reply", textInput: .init(buttonTitle: "Send", placeholder: "…")),
    ], options: .customDismissAction)

    /// A host serving `language`'s extension in `mode`, counting the calls
    /// into it with `counter`; returns the app and category to deliver to.
    func host(_ language: Language, _ mode: IsolationMode, counter: CountingLauncher,
              customDismiss: Bool = true) throws -> (NotificationHost, app: String, category: String) {
        var category: NotificationCategory
        let app: String
        switch language {
        case .swift:
            try fixture.installEventInvite()
            (app, category) = (Self.app, Self.inviteCategory)
        case .c:
            try installEcho()
            (app, category) = (Self.echoApp, Self.echoCategory)
        }
        if !customDismiss { category.options = [] }
        var configuration = NotificationHost.Configuration()
        configuration.responseDeadline = 10
        let host = fixture.host(configuration: configuration, launcher: counter)
        host.register([category], for: app)
        return (host, app, category.identifier)
    }

    /// Builds the Echo fixture (it logs "created=N" for its Nth instance in
    /// its process, and every field it receives) as com.example.tests.echo.
    func installEcho(identifier: String = "com.example.tests.echo", category: String = "echo",
                     sharedWorker: Bool = false) throws {
        let name = identifier.split(separator: ".").last.map(String.init) ?? "echo"
        let library = try CCompiler.fixture("Echo", into: fixture.directory.path, output: "lib\(name).so")
        try BundleMaker.make(name, in: fixture.directory.path, manifest: BundleMaker.contentManifest(
            identifier: identifier, executable: "lib\(name).so", categories: [category], sharedWorker: sharedWorker),
            library: library)
    }

    func item(_ identifier: String, category: String, thread: String = "party") -> UserNotification {
        notification(identifier, category: category, thread: thread, title: "Invite", body: "Come along",
                     userInfo: [("title", .string("Offsite \(identifier)"))])
    }

    // MARK: Lifecycle

    @Test(arguments: Language.allCases, IsolationMode.allCases)
    func deliveryRunsNoExtensionCodeUntilOpened(_ language: Language, _ mode: IsolationMode) throws {
        let counter = CountingLauncher(mode.launcher())
        let (host, app, category) = try host(language, mode, counter: counter)
        for number in 0..<1_000 {
            let delivery = host.deliver(item("n\(number)", category: category), to: app)
            #expect(!delivery.presentation.expanded)
            #expect(delivery.presentation.view == nil)
            #expect(delivery.log.isEmpty)
        }
        #expect(counter.counts.calls == 0)
        #expect(host.presentedIdentifiers.count == 1_000)

        let opened = try host.open("n500")
        #expect(opened.diagnostics.isEmpty)
        #expect(opened.presentation.expanded)
        #expect(counter.counts.instances == 1)
        #expect(counter.counts.notifications == ["n500"])
        switch language {
        case .swift: #expect(opened.presentation.view?.text(of: "eventTitle") == "Offsite n500")
        case .c: #expect(opened.log.map(\.message).contains("identifier=n500"))
        }
        // Opening it again changes nothing.
        #expect(try host.open("n500").presentation.expanded)
        #expect(counter.counts.instances == 1)

        // A thread-mate delivered while it is open reaches that instance; another thread's does not.
        let mate = host.deliver(item("mate", category: category), to: app)
        #expect(!mate.presentation.expanded)
        _ = host.deliver(item("stranger", category: category, thread: "other"), to: app)
        #expect(counter.counts.instances == 1)
        #expect(counter.counts.notifications == ["n500", "mate"])
        if language == .swift {
            #expect(host.presentation(of: "n500")?.view?.text(of: "eventTitle") == "Offsite mate")
            #expect(fixture.events.presentations.last?.notification.identifier == "n500")
        }

        let closed = try host.close("n500")
        #expect(!closed.expanded && !closed.dismissed && closed.view == nil)
        #expect(counter.counts.destroyed == 1 && counter.counts.live == 0)
        #expect(host.presentedIdentifiers.contains("n500"))
        #expect(fixture.events.presentations.last?.expanded == false)
        // A thread-mate delivered now, with nothing open, reaches nobody.
        _ = host.deliver(item("later", category: category), to: app)
        #expect(counter.counts.notifications == ["n500", "mate"])
    }

    @Test(arguments: Language.allCases, IsolationMode.allCases)
    func oneInterfaceIsOpenAtATime(_ language: Language, _ mode: IsolationMode) throws {
        let counter = CountingLauncher(mode.launcher())
        let (host, app, category) = try host(language, mode, counter: counter)
        _ = host.deliver(item("a", category: category), to: app)
        _ = host.deliver(item("b", category: category, thread: "other"), to: app)
        _ = try host.open("a")
        _ = try host.open("b")
        #expect(counter.counts.instances == 2 && counter.counts.live == 1)
        #expect(host.presentation(of: "a")?.expanded == false)
        #expect(host.presentation(of: "b")?.expanded == true)
        // Taking the notification off closes its interface.
        _ = host.remove(["b"])
        #expect(counter.counts.live == 0)
        // Delivering with opening opens it at once, and says so in the delivery.
        let opened = host.deliver(item("c", category: category), to: app, opening: true)
        #expect(opened.presentation.expanded)
        #expect(counter.counts.live == 1 && counter.counts.notifications.last == "c")
    }

    /// A response to the thread-mate the open interface's instance was given
    /// last goes to that instance, which shows it: no instance is made or
    /// destroyed, and the interface is the thread-mate's from then on.
    @Test(arguments: Language.allCases, IsolationMode.allCases)
    func aResponseToTheThreadMateShownIsServedByTheOpenInstance(_ language: Language, _ mode: IsolationMode) throws {
        let counter = CountingLauncher(mode.launcher())
        let (host, app, category) = try host(language, mode, counter: counter)
        _ = host.deliver(item("a", category: category), to: app)
        _ = try host.open("a")
        _ = host.deliver(item("b", category: category), to: app)
        let response = language == .swift ? ResponseRequest(actionIdentifier: "accept")
            : ResponseRequest(actionIdentifier: "reply", userText: "hi")
        let outcome = try host.respond(to: "b", with: response)
        #expect(outcome.receiver == .extension && outcome.diagnostics.isEmpty)
        #expect(counter.counts.instances == 1)
        #expect(counter.counts.notifications == ["a", "b"] && counter.counts.responses == [response.actionIdentifier])
        #expect(host.presentation(of: "a")?.expanded == false)
        if language == .swift {
            // Accepting closes the invite, and its instance with it.
            #expect(outcome.presentation.view?.text(of: "eventTitle") == "Offsite b" && outcome.presentation.dismissed)
            #expect(counter.counts.destroyed == 1)
        } else {
            // Echo keeps it (doNotDismiss): its interface is b's now.
            #expect(outcome.log.map(\.message).contains("identifier=b") && outcome.presentation.expanded)
            #expect(counter.counts.destroyed == 0 && host.presentation(of: "b")?.expanded == true)
        }
    }

    /// With no warm workers kept, each opened interface gets a worker of its
    /// own (Echo's instance counter, a global, starts again), unless the
    /// bundle says TidingsSharedWorker; in this process every instance shares
    /// the globals. (Warm workers carry their globals on: WarmWorkerTests.)
    @Test(arguments: IsolationMode.allCases, [false, true])
    func openedInterfacesShareGlobalsOnlyByPolicy(_ mode: IsolationMode, shared: Bool) throws {
        try installEcho(sharedWorker: shared)
        var settings = IsolationMode.workerSettings
        settings.pool = .off
        let host = fixture.host(configuration: NotificationHost.Configuration(), launcher: mode.launcher(settings))
        _ = host.deliver(item("a", category: "echo"), to: Self.echoApp)
        _ = host.deliver(item("b", category: "echo", thread: "other"), to: Self.echoApp)
        let first = try host.open("a").log.map(\.message)
        let second = try host.open("b").log.map(\.message)
        #expect(first.contains("created=1"))
        #expect(second.contains(mode == .worker && !shared ? "created=1" : "created=2"))
    }

    // MARK: View state

    /// Accepting one invite shows "Going!" in its interface, never in a thread-mate's.
    @Test(arguments: IsolationMode.allCases)
    func aResponsesViewChangeNeverReachesAnotherNotification(_ mode: IsolationMode) throws {
        let counter = CountingLauncher(mode.launcher())
        let (host, app, category) = try host(.swift, mode, counter: counter)
        _ = host.deliver(item("first", category: category), to: app)
        _ = host.deliver(item("second", category: category), to: app)
        // The interface is closed: the extension has a response handler, so it opens first.
        let outcome = try host.respond(to: "first", with: ResponseRequest(actionIdentifier: "accept"))
        #expect(outcome.receiver == .extension)
        #expect(outcome.presentation.view?.text(of: "eventResponse") == "Going!")
        #expect(counter.counts.notifications == ["first"] && counter.counts.responses == ["accept"])
        let other = try host.open("second")
        #expect(other.presentation.view?.text(of: "eventTitle") == "Offsite second")
        #expect(other.presentation.view?.text(of: "eventResponse") != "Going!")
        #expect(other.presentation.view?.node("eventResponse")?.hidden == true)
        for event in fixture.events.all {
            switch event {
            case .delivered(let presentation), .presentationChanged(let presentation):
                if presentation.notification.identifier == "second" {
                    #expect(presentation.view?.text(of: "eventResponse") != "Going!")
                }
            default: break
            }
        }
    }

    // MARK: Routing

    @Test(arguments: Language.allCases, IsolationMode.allCases)
    func theDefaultActionReachesTheAppNotTheExtension(_ language: Language, _ mode: IsolationMode) throws {
        let counter = CountingLauncher(mode.launcher())
        let (host, app, category) = try host(language, mode, counter: counter)
        _ = host.deliver(item("n", category: category), to: app)
        _ = try host.open("n")
        let outcome = try host.respond(to: "n", with: ResponseRequest(actionIdentifier: ActionIdentifier.default))
        #expect(outcome.receiver == .app)
        #expect(outcome.forwarded.map(\.actionIdentifier) == [ActionIdentifier.default])
        #expect(outcome.presentation.dismissed)
        #expect(counter.counts.responses.isEmpty)
        #expect(counter.counts.live == 0)
    }

    @Test(arguments: IsolationMode.allCases, [true, false])
    func dismissReachesTheAppOnlyWithCustomDismissAction(_ mode: IsolationMode, customDismiss: Bool) throws {
        for language in Language.allCases {
            // A fixture of its own for each extension.
            let suite = ExpandedInterfaceTests()
            let counter = CountingLauncher(mode.launcher())
            let (host, app, category) = try suite.host(language, mode, counter: counter, customDismiss: customDismiss)
            _ = host.deliver(item("n", category: category), to: app)
            _ = try host.open("n")
            let outcome = try host.respond(to: "n", with: ResponseRequest(actionIdentifier: ActionIdentifier.dismiss))
            let expected = customDismiss ? [ActionIdentifier.dismiss] : []
            #expect(outcome.receiver == (customDismiss ? .app : .nobody), "\(language)")
            #expect(outcome.forwarded.map(\.actionIdentifier) == expected, "\(language)")
            #expect(suite.fixture.events.forwarded.map(\.actionIdentifier) == expected, "\(language)")
            #expect(outcome.presentation.dismissed, "\(language)")
            #expect(counter.counts.responses.isEmpty, "\(language)")
            #expect(host.presentedIdentifiers.isEmpty, "\(language)")
        }
    }

    /// A text-input response reaches the extension's handler with the user's
    /// text, opening the closed interface first.
    @Test(arguments: IsolationMode.allCases)
    func aTextResponseCarriesTheUsersText(_ mode: IsolationMode) throws {
        let counter = CountingLauncher(mode.launcher())
        let (host, app, category) = try host(.c, mode, counter: counter)
        _ = host.deliver(item("n", category: category), to: app)
        let outcome = try host.respond(to: "n", with: ResponseRequest(actionIdentifier: "reply", userText: "On my way"))
        #expect(outcome.receiver == .extension)
        #expect(outcome.log.map(\.message).contains("text=On my way"))
        #expect(counter.counts.notifications == ["n"] && counter.counts.responses == ["reply"])
        // Echo answers doNotDismiss: the notification and its interface stay.
        #expect(outcome.presentation.expanded && !outcome.presentation.dismissed)
    }

    /// dismissNotificationContentExtension closes the interface and keeps
    /// the notification; performNotificationDefaultAction sends the default
    /// action to the app.
    @Test(arguments: IsolationMode.allCases)
    func theExtensionClosesItsInterfaceOrOpensTheApp(_ mode: IsolationMode) throws {
        try fixture.installMisbehaving()
        let counter = CountingLauncher(mode.launcher())
        let host = fixture.host(configuration: NotificationHost.Configuration(), launcher: counter)
        host.register([NotificationCategory(identifier: "misbehave", actions: [
            NotificationAction(identifier: "dismiss-me", title: "Close"),
            NotificationAction(identifier: "open-app", title: "Open"),
        ])], for: "com.example.tests")
        _ = host.deliver(notification("n", category: "misbehave"), to: "com.example.tests")
        _ = try host.open("n")
        let closing = try host.respond(to: "n", with: ResponseRequest(actionIdentifier: "dismiss-me"))
        #expect(closing.receiver == .extension && closing.forwarded.isEmpty)
        #expect(!closing.presentation.dismissed && !closing.presentation.expanded)
        #expect(host.presentedIdentifiers == ["n"])
        #expect(counter.counts.live == 0)
        #expect(fixture.events.dismissals.isEmpty)

        let opening = try host.respond(to: "n", with: ResponseRequest(actionIdentifier: "open-app"))
        #expect(opening.forwarded.map(\.actionIdentifier) == [ActionIdentifier.default])
        #expect(opening.presentation.dismissed)
        #expect(host.presentedIdentifiers.isEmpty)
        #expect(counter.counts.live == 0)
    }

    // MARK: Media

    @Test(arguments: IsolationMode.allCases)
    func theMediaButtonIsTappedOnTheOpenInterface(_ mode: IsolationMode) throws {
        try fixture.installMisbehaving()
        let host = fixture.host(configuration: NotificationHost.Configuration(), launcher: mode.launcher())
        _ = host.deliver(notification("n", category: "misbehave"), to: "com.example.tests")
        #expect(throws: Diagnostic.self) { try host.tapMediaButton(of: "n") }
        _ = try host.open("n")
        let playing = try host.tapMediaButton(of: "n").presentation
        #expect(playing.mediaPlaying && playing.view?.text(of: "count") == "play")
        let paused = try host.tapMediaButton(of: "n").presentation
        #expect(!paused.mediaPlaying && paused.view?.text(of: "count") == "pause")
    }
}
