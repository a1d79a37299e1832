import ServerTestSupport
import TestSupport
import TidingsApp
import TidingsBase
import Testing

/// Authorization and foreground presentation through the app library,
/// against a real `tidings serve`: the front end (a raw client) plays the user.
@Suite(.serialized, .onOwnThreads) struct AppAuthorizationTests {
    static let app = "org.example.app"

    /// Asks for authorization while the front end waits for the prompt and
    /// answers `decision`; returns whether the app was granted.
    func ask(_ host: HostFixture, options: AuthorizationOptions, decision: String) async throws -> Bool {
        _ = try host.frontEnd.call("events.subscribe", try host.json(#"{"apps": ["\#(Self.app)"], "replay": false}"#))
        let center = host.center(Self.app)
        async let granted = center.requestAuthorization(options: options)
        let prompt = try #require(try await Threaded.run { try host.frontEnd.event("authorization.requested") })
        #expect(prompt["app"]?.stringValue == Self.app)
        #expect(Set(prompt["options"]?.arrayValue?.compactMap(\.stringValue) ?? []) == ["alert", "sound", "badge"])
        _ = try host.frontEnd.call("authorization.decide",
                                   try host.json(#"{"app": "\#(Self.app)", "decision": "\#(decision)"}"#))
        return try await granted
    }

    @Test func askedAndGranted() async throws {
        let host = try HostFixture()
        #expect(try await ask(host, options: [.alert, .sound, .badge], decision: "allow"))
        let settings = try await host.center(Self.app).notificationSettings()
        #expect(settings.authorizationStatus == .authorized)
        #expect(settings.alertSetting == .enabled)
        #expect(settings.badgeSetting == .enabled)
        // Decided already: answered at once from the stored decision.
        #expect(try await host.center(Self.app).requestAuthorization(options: [.alert, .sound, .badge]))
    }

    @Test func deniedPresentsNothingButStillWakes() async throws {
        let host = try HostFixture()
        #expect(try await ask(host, options: [.alert, .sound, .badge], decision: "deny") == false)
        let center = host.center(Self.app)
        #expect(try await center.notificationSettings().authorizationStatus == .denied)
        let delegate = RecordingDelegate()
        try await center.setDelegate(delegate)

        let shown = try host.deliver(#"{"aps": {"alert": {"title": "Hi"}, "badge": 3}}"#, app: Self.app, identifier: "a")
        #expect(shown["display"]?.stringValue == "denied")
        let apps = try host.frontEnd.call("apps.list", try host.json(#"{"app": "\#(Self.app)"}"#))
        #expect(apps["apps"]?.arrayValue?.first?["badge"]?.integerValue ?? 0 == 0)
        // The app may still set its count (kept, not shown: iOS shows no badge then).
        try await center.setBadgeCount(2)

        try host.deliver(#"{"aps": {"content-available": 1}, "job": 1}"#, app: Self.app, identifier: "quiet")
        #expect(await next(delegate.background)?.request.identifier == "quiet")
    }

    @Test func provisionalIsGrantedAtOnceAndQuiet() async throws {
        let host = try HostFixture()
        let center = host.center(Self.app)
        #expect(try await center.requestAuthorization(options: [.alert, .provisional]))
        #expect(try await center.notificationSettings().authorizationStatus == .provisional)
        let answer = try host.deliver(#"{"aps": {"alert": {"title": "Hi"}}}"#, app: Self.app, identifier: "p")
        #expect(answer["presentation"]?["quiet"]?.boolValue == true)
    }

    /// Delivers a notification to the app in the foreground and returns the delivery's answer.
    func deliverInForeground(presenting: PresentationOptions?) async throws -> (JSON, UserNotification?) {
        // The delegate answers on a loaded machine too: a deadline no answer misses.
        let host = try HostFixture(["--will-present-deadline", "60"])
        let center = host.center(Self.app)
        let delegate = presenting.map { RecordingDelegate(presenting: $0) }
        if let delegate { try await center.setDelegate(delegate) }
        try await center.setForeground(true)
        // The host asks the delegate while answering the delivery: the front end's call runs on its own thread.
        let answer = try await Threaded.run { try host.deliver(#"{"aps": {"alert": {"title": "Hi"}}}"#, app: Self.app, identifier: "f") }
        let asked = if let delegate { await next(delegate.presented) } else { UserNotification?.none }
        return (answer, asked)
    }

    @Test(arguments: [["banner"], ["list"], ["banner", "list", "sound", "badge"]])
    func foregroundWithADelegate(names: [String]) async throws {
        let named: [String: PresentationOptions] = ["banner": .banner, "list": .list, "sound": .sound, "badge": .badge]
        let options = PresentationOptions(names.compactMap { named[$0] })
        let (answer, asked) = try await deliverInForeground(presenting: options)
        #expect(asked?.request.identifier == "f")
        #expect(answer["display"]?.stringValue == "presented")
        let presented = answer["presentation"]?["presentationOptions"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(Set(presented) == Set(names))
    }

    @Test func foregroundWithADelegateChoosingNone() async throws {
        let (answer, asked) = try await deliverInForeground(presenting: [])
        #expect(asked?.request.identifier == "f")
        #expect(answer["display"]?.stringValue == "foreground")
    }

    @Test func foregroundWithoutADelegate() async throws {
        let (answer, _) = try await deliverInForeground(presenting: nil)
        #expect(answer["display"]?.stringValue == "foreground")
    }
}

/// Runs blocking work on a thread of its own, so that the concurrency pool
/// stays free for the center it waits on.
enum Threaded {
    static func run<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Threads.start { continuation.resume(with: Result { try work() }) }
        }
    }
}
