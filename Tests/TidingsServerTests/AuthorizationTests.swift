import Synchronization
import Testing
import TestSupport
import TidingsBase
import TidingsRegistry
import TidingsRuntime
@testable import TidingsServer

/// Authorization as an app asks for it and the user decides it, driven
/// through the server's methods: a request waits for the user (holding no
/// thread) and every waiting request of the app is answered by one decision;
/// a denied app shows nothing and sets no badge while its background
/// notifications still reach it; a provisional one is granted at once and
/// listed quietly; decisions are kept across a restart.
@Suite struct AuthorizationTests {
    static let app = "com.example.reminders"
    let directory = TemporaryDirectory("authorization")

    /// A service over no bundles, recording in `state`, delivering apps
    /// that never asked as `unasked` says; `events` subscribed to every app.
    func service(state: (any ServerState)? = nil, unasked: UnaskedApps = .deliver,
                 events: EventRecorder) throws -> HostService {
        var configuration = HostService.Configuration()
        configuration.unaskedApps = unasked
        configuration.host.attachmentDirectory = directory.file("attachments")
        let index = Discovery.scan(SearchPath(directories: [directory.path], origin: .option))
        let service = HostService(index: index, configuration: configuration, state: state)
        _ = try call(service, "events.subscribe", #"{"apps": "all"}"#, from: events).get()
        return service
    }

    /// Calls `method` of `service` with `params` (JSON text), waiting for its answer.
    func call(_ service: HostService, _ method: String, _ params: String,
              from receiver: any EventReceiver = EventRecorder()) throws -> Result<JSON, RPCError> {
        service.answer(RPCRequest(id: .number(1), method: method, params: try JSON.parse(Array(params.utf8))), from: receiver)
    }

    /// Calls `method` without waiting: its answer comes to the returned `LaterAnswer`.
    func start(_ service: HostService, _ method: String, _ params: String) throws -> LaterAnswer {
        let answer = LaterAnswer()
        service.answer(RPCRequest(id: .number(1), method: method, params: try JSON.parse(Array(params.utf8))),
                       from: EventRecorder()) { answer.give($0) }
        return answer
    }

    /// `authorization.request` of the app for `options` (JSON array text), not waited for.
    func request(_ service: HostService, _ options: String, timeout: Double? = nil) throws -> LaterAnswer {
        try start(service, "authorization.request",
                  #"{"app": "\#(Self.app)", "options": \#(options)\#(timeout.map { ", \"timeout\": \($0)" } ?? "")}"#)
    }

    /// An app has at most `AppAuthorizations.waitingLimit` requests waiting
    /// for the user; one more is refused (-32602) and changes nothing, and the
    /// waits of a connection that left end, answered not determined.
    @Test func waitsAreBoundedAndEndWithTheirConnection() throws {
        let events = EventRecorder()
        let service = try service(events: events)
        let leaving = EventRecorder()
        var waits: [LaterAnswer] = []
        for _ in 0..<AppAuthorizations.waitingLimit {
            let answer = LaterAnswer()
            service.answer(RPCRequest(id: .number(1), method: "authorization.request",
                                      params: try JSON.parse(Array(#"{"app": "\#(Self.app)", "options": ["alert"]}"#.utf8))),
                           from: leaving) { answer.give($0) }
            waits.append(answer)
        }
        let refused = try call(service, "authorization.request", #"{"app": "\#(Self.app)", "options": ["alert"]}"#)
        guard case .failure(let error) = refused else {
            Issue.record("the request past the bound waits: \(refused)")
            return
        }
        #expect(error.code == -32602 && error.message.contains("64 authorization requests waiting"), "\(error.message)")
        #expect(waits.allSatisfy { $0.value == nil })
        service.authorizations.forget(client: ObjectIdentifier(leaving))
        for wait in waits {
            let answer = try #require(try wait.wait()?.get())
            #expect(answer["timedOut"] == .bool(true) && answer["status"] == .string("notDetermined"))
        }
    }

    /// The user's `decision` about the app.
    func decide(_ service: HostService, _ decision: String) throws -> JSON {
        try call(service, "authorization.decide", #"{"app": "\#(Self.app)", "decision": "\#(decision)"}"#).get()
    }

    /// Delivers an alert with a badge of 5 to the app, as identifier `identifier`.
    func deliverAlert(_ service: HostService, _ identifier: String) throws -> JSON {
        try call(service, "notifications.deliver", #"{"app": "\#(Self.app)", "identifier": "\#(identifier)", "payload": {"aps": {"alert": {"title": "Stand up", "body": "Time to move"}, "badge": 5, "sound": "default"}}}"#).get()
    }

    @Test func aRequestWaitsForTheUserAndOneDecisionAnswersEveryWaitingRequest() throws {
        let events = EventRecorder()
        let service = try service(events: events)
        _ = try call(service, "apps.register", #"{"app": "\#(Self.app)", "name": "Reminders"}"#).get()
        let first = try request(service, #"["alert", "badge"]"#)
        let second = try request(service, #"["sound"]"#)
        #expect(first.value == nil && second.value == nil, "no one decided yet")
        let asked = events.events("authorization.requested")
        #expect(asked.count == 1, "one prompt while the app's requests wait")
        #expect(asked.first?["app"] == .string(Self.app) && asked.first?["name"] == .string("Reminders"))
        #expect(asked.first?["options"] == .array([.string("badge"), .string("alert")]))

        #expect(try decide(service, "allow") == .object([("app", .string(Self.app)), ("status", .string("authorized"))]))
        for answer in [first, second] {
            let granted = try #require(answer.wait()).get()
            #expect(granted["granted"] == .bool(true) && granted["status"] == .string("authorized"))
            #expect(granted["settings"]?["soundSetting"] == .string("enabled"), "the options of every waiting request granted")
            #expect(granted["timedOut"] == nil)
        }
        #expect(events.events("authorization.changed", withSeq: false) == [.object([("app", .string(Self.app)), ("status", .string("authorized"))])])

        // Asked again: the stored decision answers at once, with no prompt.
        let again = try #require(try request(service, #"["alert"]"#).value).get()
        #expect(again["granted"] == .bool(true) && again["status"] == .string("authorized"))
        #expect(events.events("authorization.requested").count == 1)
    }

    @Test func aDeniedAppShowsNothingSetsNoBadgeAndStillReceivesBackgroundNotifications() throws {
        let events = EventRecorder()
        let service = try service(events: events)
        let asked = try request(service, #"["alert", "sound", "badge"]"#)
        _ = try decide(service, "deny")
        let denied = try #require(asked.wait()).get()
        #expect(denied["granted"] == .bool(false) && denied["status"] == .string("denied"))
        #expect(denied["settings"]?["alertSetting"] == .string("disabled"))

        let delivered = try deliverAlert(service, "stand-up")
        #expect(delivered["display"] == .string("denied") && delivered["badge"] == nil && delivered["presentation"] == nil)
        #expect(events.events("notification.delivered").isEmpty && events.events("app.badge-changed").isEmpty)
        #expect(try call(service, "notifications.list", "{}").get()["notifications"] == .array([]))
        let listed = try call(service, "apps.list", #"{"app": "\#(Self.app)"}"#).get()["apps"]?.arrayValue?.first
        #expect(listed?["badge"] == .integer(0) && listed?["authorizationStatus"] == .string("denied"))

        let background = try call(service, "notifications.deliver", #"{"app": "\#(Self.app)", "payload": {"aps": {"content-available": 1}, "sync": true}}"#).get()
        #expect(background["display"] == .string("background") && background["inbox"] != nil)
        #expect(events.events("notification.background").count == 1)
    }

    @Test func provisionalIsGrantedAtOnceAndListedQuietly() throws {
        let events = EventRecorder()
        let service = try service(events: events)
        let granted = try #require(try request(service, #"["alert", "provisional"]"#).value).get()
        #expect(granted["granted"] == .bool(true) && granted["status"] == .string("provisional"))
        #expect(granted["settings"]?["notificationCenterSetting"] == .string("enabled")
            && granted["settings"]?["alertSetting"] == .string("disabled")
            && granted["settings"]?["alertStyle"] == .string("none"))
        #expect(events.events("authorization.requested").isEmpty)
        #expect(events.events("authorization.changed").first?["status"] == .string("provisional"))

        let delivered = try deliverAlert(service, "quiet-one")
        #expect(delivered["display"] == .string("presented") && delivered["presentation"]?["quiet"] == .bool(true))
        let listed = try call(service, "notifications.presentation", #"{"identifier": "quiet-one"}"#).get()
        #expect(listed["quiet"] == .bool(true))

        // Asking without "provisional" asks the user for the full authorization.
        let full = try request(service, #"["alert"]"#)
        #expect(full.value == nil && events.events("authorization.requested").count == 1)
        _ = try decide(service, "allow")
        #expect(try #require(full.wait()).get()["status"] == .string("authorized"))
        #expect(try deliverAlert(service, "loud-one")["presentation"]?["quiet"] == nil)
    }

    @Test func aRequestNoOneAnswersTimesOutNotDetermined() throws {
        let events = EventRecorder()
        let service = try service(events: events)
        let waiting = try request(service, #"["alert"]"#, timeout: 0.01)
        let answer = try #require(waiting.wait()).get()
        #expect(answer["granted"] == .bool(false) && answer["status"] == .string("notDetermined"))
        #expect(answer["timedOut"] == .bool(true))
        // A decision after the timeout still counts for the next request.
        _ = try decide(service, "deny")
        #expect(try #require(try request(service, #"["alert"]"#).value).get()["status"] == .string("denied"))
    }

    @Test func theDecisionSurvivesARestart() throws {
        do {
            let state = try JournaledState(directory: directory.file("state"))
            let service = try service(state: state, events: EventRecorder())
            _ = try decide(service, "deny")
            _ = try call(service, "badge.set", #"{"app": "\#(Self.app)", "count": 4}"#).get()
        }
        let state = try JournaledState(directory: directory.file("state"))
        let events = EventRecorder()
        let service = try service(state: state, events: events)
        let answer = try #require(try request(service, #"["alert"]"#).value).get()
        #expect(answer["status"] == .string("denied") && events.events("authorization.requested").isEmpty)
        #expect(try deliverAlert(service, "after-restart")["display"] == .string("denied"))
        let listed = try call(service, "apps.list", "{}").get()["apps"]?.arrayValue?.first
        #expect(listed?["badge"] == .integer(4) && listed?["badgeShown"] == .bool(false))

        _ = try decide(service, "reset")
        #expect(try request(service, #"["alert"]"#).value == nil, "reset: the next request asks again")
    }

    @Test func unaskedAppsAreDeliveredOrDeniedAsTheServerIsTold() throws {
        let delivering = try service(events: EventRecorder())
        #expect(try deliverAlert(delivering, "unasked")["display"] == .string("presented"))
        let settings = try call(delivering, "authorization.settings", #"{"app": "\#(Self.app)"}"#).get()
        #expect(settings == .object([
            ("authorizationStatus", .string("notDetermined")),
            ("alertSetting", .string("enabled")), ("soundSetting", .string("enabled")), ("badgeSetting", .string("enabled")),
            ("lockScreenSetting", .string("enabled")), ("notificationCenterSetting", .string("enabled")),
            ("criticalAlertSetting", .string("disabled")), ("announcementSetting", .string("notSupported")),
            ("timeSensitiveSetting", .string("enabled")), ("scheduledDeliverySetting", .string("notSupported")),
            ("directMessagesSetting", .string("notSupported")), ("alertStyle", .string("banner")),
            ("showPreviewsSetting", .string("always")), ("providesAppNotificationSettings", .bool(false)),
        ]))

        let denying = try service(unasked: .deny, events: EventRecorder())
        #expect(try deliverAlert(denying, "unasked")["display"] == .string("denied"))
        #expect(try call(denying, "authorization.settings", #"{"app": "\#(Self.app)"}"#).get()["alertSetting"] == .string("disabled"))
    }

    @Test func settingsSayWhatWasGranted() throws {
        let service = try service(events: EventRecorder())
        let asked = try request(service, #"["alert", "providesAppNotificationSettings"]"#)
        _ = try decide(service, "allow")
        let settings = try #require(asked.wait()).get()["settings"]
        #expect(settings?["authorizationStatus"] == .string("authorized"))
        #expect(settings?["alertSetting"] == .string("enabled") && settings?["alertStyle"] == .string("banner"))
        #expect(settings?["soundSetting"] == .string("disabled") && settings?["badgeSetting"] == .string("disabled"))
        #expect(settings?["providesAppNotificationSettings"] == .bool(true))
        #expect(try call(service, "authorization.request", #"{"app": "\#(Self.app)", "options": ["alrt"]}"#).rpcFailure?.code == -32602)
        #expect(try call(service, "authorization.decide", #"{"app": "\#(Self.app)", "decision": "maybe"}"#).rpcFailure?.code == -32602)
    }

    @Test func badgeSetKeepsTheCountAndSaysWhetherItShows() throws {
        let events = EventRecorder()
        let service = try service(events: events)
        let set = try call(service, "badge.set", #"{"app": "\#(Self.app)", "count": 3}"#).get()
        #expect(set == .object([("app", .string(Self.app)), ("badge", .integer(3)), ("shown", .bool(true))]))
        #expect(events.events("app.badge-changed", withSeq: false) == [.object([("app", .string(Self.app)), ("badge", .integer(3))])])
        let listed = try call(service, "apps.list", "{}").get()["apps"]?.arrayValue?.first
        #expect(listed?["app"] == .string(Self.app) && listed?["badge"] == .integer(3))

        let refused = try #require(try call(service, "badge.set", #"{"app": "\#(Self.app)", "count": -1}"#).rpcFailure)
        #expect(refused.code == -32008 && refused.data?["appleCode"] == .integer(1600))

        // Authorized without "badge": kept, not shown.
        let asked = try request(service, #"["alert"]"#)
        _ = try decide(service, "allow")
        _ = asked.wait()
        #expect(try call(service, "badge.set", #"{"app": "\#(Self.app)", "count": 0}"#).get()["shown"] == .bool(false))
        #expect(try call(service, "apps.list", "{}").get()["apps"]?.arrayValue?.first?["badge"] == .integer(0))
    }
}

/// The answer to a call made without waiting, once it comes.
final class LaterAnswer: Sendable {
    private let answer = Mutex<Result<JSON, RPCError>?>(nil)
    private let latch = Latch()

    /// Keeps `result` and wakes who waits for it.
    func give(_ result: Result<JSON, RPCError>) {
        answer.withLock { $0 = result }
        latch.open()
    }

    /// The answer, if it came.
    var value: Result<JSON, RPCError>? { answer.withLock { $0 } }

    /// Waits for the answer (at most the tests' patience).
    func wait() -> Result<JSON, RPCError>? {
        _ = latch.wait(until: MonotonicClock.now() &+ UInt64(patience * 1e9))
        return value
    }
}

extension Result {
    /// The error, when it failed.
    var rpcFailure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
