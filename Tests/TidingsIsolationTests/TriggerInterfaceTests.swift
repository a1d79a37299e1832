import RuntimeTestSupport
import Testing
import TestSupport
import TidingsBase
import TidingsIsolation
import TidingsProtocol
import TidingsRuntime

/// A notification's trigger reaches extensions through the host's
/// `tidings.trigger/1`, in a worker as in this process: the C fixture
/// Triggers reads it from the header's struct, the Swift fixture
/// TriggerReport as `notification.request.trigger`; both log it in the same
/// words. A fired request carries its trigger and fire time on its
/// submission; an APNs payload has the push trigger; a request delivered at
/// once has none.
@Suite(.serialized) struct TriggerInterfaceTests {
    let fixture = Fixture()

    /// The two fixtures, one per language.
    enum Language: String, CaseIterable, CustomStringConvertible {
        case c = "C", swift = "Swift"
        var description: String { rawValue }
    }

    /// Installs the fixture in `language` for category "triggers" of com.example.tests.
    func install(_ language: Language) throws {
        let library = switch language {
        case .c: try CCompiler.fixture("Triggers", into: fixture.directory.path)
        case .swift: Locations.product("libTriggerReport.so")
        }
        let executable = language == .c ? "libTriggers.so" : "libTriggerReport.so"
        try BundleMaker.make("Triggers", in: fixture.directory.path, manifest: BundleMaker.contentManifest(
            identifier: "com.example.tests.triggers", executable: executable, categories: ["triggers"]), library: library)
    }

    /// A request payload of category "triggers".
    static let request = JSON.object([("identifier", .string("reminder")),
                                      ("content", .object([("title", .string("Stand-up")), ("categoryIdentifier", .string("triggers"))]))])
    /// An APNs payload of category "triggers".
    static let remote = JSON.object([("aps", .object([("alert", .string("Build broke")), ("category", .string("triggers"))]))])

    /// At 08:30 in Paris every day.
    static let calendar = NotificationTrigger.calendar(
        { var matching = DateMatching(); matching.hour = 8; matching.minute = 30; matching.timeZone = "Europe/Paris"; return matching }(),
        repeats: true)
    /// 90 seconds after it was added.
    static let interval = NotificationTrigger.timeInterval(seconds: 90, repeats: false)
    /// On entering the office.
    static let location = NotificationTrigger.location(
        CircularRegion(identifier: "office", latitude: 48.85, longitude: 2.35, radius: 100, notifyOnExit: false), repeats: false)

    /// Delivers `payload`, opened, as a request that fired at `firedAt` by `trigger` when one is given.
    func deliver(_ payload: JSON, by trigger: NotificationTrigger? = nil, firedAt: Double? = nil,
                 host: NotificationHost) throws -> PayloadDelivery {
        var submission = PayloadSubmission(payload: payload, appOption: "--app")
        submission.app = "com.example.tests"
        submission.opening = true
        submission.trigger = trigger
        submission.firedAt = firedAt
        return try host.deliver(submission)
    }

    /// What the extension logged of the trigger of `delivery`, its own
    /// notification's check aside (which the C fixture makes, and which must be unknown).
    static func reported(_ delivery: PayloadDelivery) -> [String] {
        let lines = delivery.delivery?.log.map(\.message) ?? []
        #expect(!lines.contains("own=known"))
        return lines.filter { $0 != "own=unknown" }
    }

    @Test(arguments: IsolationMode.allCases, Language.allCases)
    func anExtensionSeesTheTriggerThatDeliveredItsNotification(_ mode: IsolationMode, _ language: Language) throws {
        try install(language)
        let host = fixture.host(configuration: NotificationHost.Configuration(), launcher: mode.launcher())

        let fired = 1_795_000_000.0
        let calendar = try deliver(Self.request, by: Self.calendar, firedAt: fired, host: host)
        #expect(calendar.diagnostics.isEmpty, "\(calendar.diagnostics)")
        #expect(calendar.notification.trigger == Self.calendar && calendar.notification.date == fired)
        #expect(Self.reported(calendar) == ["trigger=calendar hour=8 minute=30 zone=Europe/Paris repeats=1"])

        let every = try deliver(Self.request, by: .calendar(TriggerProtocolTests.everyComponent, repeats: false), host: host)
        #expect(Self.reported(every) == [
            "trigger=calendar era=1 year=2027 month=3 day=4 hour=5 minute=6 second=7 weekday=2 weekdayOrdinal=1 "
                + "weekOfMonth=2 weekOfYear=10 zone=Asia/Tokyo repeats=0",
        ])

        let interval = try deliver(Self.request, by: Self.interval, firedAt: fired, host: host)
        #expect(Self.reported(interval) == ["trigger=interval seconds=90 repeats=0"])

        let location = try deliver(Self.request, by: Self.location, host: host)
        #expect(Self.reported(location) == ["trigger=location id=office lat=48.85 lon=2.35 radius=100 entry=1 exit=0 repeats=0"])

        let remote = try deliver(Self.remote, host: host)
        #expect(remote.notification.trigger == .push)
        #expect(Self.reported(remote) == ["trigger=push"])

        let now = try deliver(Self.request, host: host)
        #expect(now.notification.trigger == nil)
        #expect(Self.reported(now) == ["trigger=none"])
    }

    @Test(arguments: IsolationMode.allCases)
    func theCExtensionAsksAboutANotificationOfItsOwnAndTheHostDoesNotKnowIt(_ mode: IsolationMode) throws {
        try install(.c)
        let host = fixture.host(configuration: NotificationHost.Configuration(), launcher: mode.launcher())
        let delivery = try deliver(Self.remote, host: host)
        #expect(delivery.delivery?.log.map(\.message) == ["own=unknown", "trigger=push"])
    }

    @Test(arguments: IsolationMode.allCases)
    func aResponseCarriesTheTriggerOfTheNotificationItAnswers(_ mode: IsolationMode) throws {
        try install(.c)
        let host = fixture.host(configuration: NotificationHost.Configuration(), launcher: mode.launcher())
        host.register([NotificationCategory(identifier: "triggers", actions: [NotificationAction(identifier: "snooze", title: "Snooze")])],
                      for: "com.example.tests")
        _ = try deliver(Self.request, by: Self.interval, firedAt: 1_795_000_000, host: host)
        let answered = try host.respond(to: "reminder", with: ResponseRequest(actionIdentifier: "snooze"))
        #expect(answered.log.map(\.message) == ["response trigger=interval seconds=90 repeats=0"])
        #expect(answered.forwarded.first?.notification.trigger == Self.interval)
        #expect(answered.forwarded.first?.json["notification"]?["trigger"] == Self.interval.json)
    }

    @Test func aHostBeforeVersion3OffersNoTriggerAndTheSDKSaysNone() throws {
        try install(.swift)
        var configuration = NotificationHost.Configuration()
        configuration.abiVersion = 2
        let host = fixture.host(configuration: configuration, launcher: IsolationMode.worker.launcher())
        let delivery = try deliver(Self.remote, host: host)
        #expect(delivery.notification.trigger == .push)
        #expect(Self.reported(delivery) == ["trigger=none"])
    }
}

/// The worker protocol carries a notification's trigger whole, of every kind.
@Suite struct TriggerProtocolTests {
    /// Every component given, in a named zone.
    static let everyComponent: DateMatching = {
        var matching = DateMatching()
        let values = [1, 2027, 3, 4, 5, 6, 7, 2, 1, 2, 10]
        for (name, value) in zip(DateMatching.componentNames, values) { matching[component: name] = value }
        matching.timeZone = "Asia/Tokyo"
        return matching
    }()

    @Test(arguments: [nil, .push, TriggerInterfaceTests.interval, TriggerInterfaceTests.calendar,
                      .calendar(everyComponent, repeats: false), TriggerInterfaceTests.location] as [NotificationTrigger?])
    func aNotificationComesThroughWithItsTrigger(_ trigger: NotificationTrigger?) throws {
        let notification = UserNotification(identifier: "n-1", date: 1_795_000_000.5, content: NotificationContent(), trigger: trigger)
        let message = WorkerMessage.receiveNotification(call: 1, instance: 2, notification: notification, categoryActions: [])
        let decoded = try WorkerMessage(decoding: message.encoded)
        #expect(decoded == message)
        guard case .receiveNotification(_, _, let received, _) = decoded else { return }
        #expect(received.trigger == trigger)
    }
}
