import Glibc
import ServerTestSupport
import Testing
import TestSupport
import TidingsBase

/// What subscribers hear when an extension changes its view, over the real
/// `tidings serve` in both isolation modes: a change made while answering
/// an action reaches every subscriber as `presentation.changed` (the
/// BuildStatus sample's "Mute" answers `doNotDismiss` with a new label);
/// changes come at most once a frame however fast the extension makes them,
/// the last one always (the Flood fixture's set_text loop); and a sustained
/// flood is fault `abuse`.
///
/// Frames are not timed: a count of events is bounded by the frames that
/// fit into the time the test measured it over (the server's frame is
/// 1/60 s), and by the calls made, never by how long anything took.
@Suite struct ViewChangeServerTests {
    let fixture = ServerFixture()
    static let app = "com.example.tests"
    static let interface = """
        {"version": 1, "root": {"type": "stack", "children": [{"type": "label", "id": "text"}]}}
        """
    /// How many events a notification gets a second at most: the server's frame rate.
    static let framesPerSecond = 60.0

    /// Now, in seconds of the monotonic clock.
    func seconds() -> Double { Double(MonotonicClock.now()) / 1e9 }

    init() throws {
        try fixture.installSample("BuildStatus")
        try fixture.installC("Flood", identifier: "com.example.tests.flood", categories: ["flood"], interface: Self.interface)
    }

    /// Two subscribers: one of the app, one of every app.
    func subscribers(of app: String) throws -> [RPCClient] {
        let following = try fixture.client()
        _ = try following.call("events.subscribe", .object([("apps", .array([.string(app)]))]))
        let everything = try fixture.client()
        _ = try everything.call("events.subscribe")
        return [following, everything]
    }

    /// The text of the label `identifier` of a presentation's view.
    func label(_ identifier: String, in presentation: JSON?) -> String? {
        func find(_ node: JSON?) -> String? {
            guard let node else { return nil }
            if node["id"]?.stringValue == identifier { return node["text"]?.stringValue }
            return node["children"]?.arrayValue?.lazy.compactMap(find).first
        }
        return find(presentation?["view"])
    }

    /// The presentations of `identifier` in the `presentation.changed` events `client` has heard by now.
    func changes(of identifier: String, heardBy client: RPCClient) throws -> [JSON] {
        try heard(of: identifier, by: client).filter { $0.event == "presentation.changed" }.map(\.presentation)
    }

    /// The presentations of `identifier` in the events `client` has heard
    /// by now, in order, each with its event's name: its delivery
    /// (`notification.delivered`, which shows the interface it opened as
    /// drawn then), then its changes (`presentation.changed`).
    func heard(of identifier: String, by client: RPCClient) throws -> [(event: String, presentation: JSON)] {
        // Events a call causes are pushed before the call is answered: by the answer, they are all in.
        _ = try client.call("server.ping")
        return client.events.compactMap { event in
            guard let name = event["method"]?.stringValue,
                  name == "notification.delivered" || name == "presentation.changed",
                  let presentation = event["params"]?["presentation"],
                  presentation["notification"]?.stringValue == identifier else { return nil }
            return (name, presentation)
        }
    }

    /// The most events `seconds` can hold at the server's frame rate: one per
    /// frame begun, and the first at once; two more for the calls of the
    /// test's own (the opening) that are told as they happen, and the delivery's.
    func mostEvents(within seconds: Double) -> Int {
        Int((seconds * Self.framesPerSecond).rounded(.up)) + 4
    }

    // MARK: A change while answering an action (issue 34)

    @Test(arguments: IsolationMode.allCases)
    func aChangeMadeWhileAnsweringAnActionReachesEverySubscriber(_ isolation: IsolationMode) throws {
        let server = try fixture.startProcess(isolation)
        defer { server.stop(with: SIGKILL) }
        let client = try fixture.client()
        let app = "com.example.ci"
        _ = try client.call("categories.register", try JSON.parse(Array(#"{"app": "com.example.ci", "categories": [{"identifier": "build-status", "actions": [{"identifier": "retry", "title": "Retry"}]}]}"#.utf8)))
        let payload = try JSON.parse(FileSystem.readFile(Locations.repositoryFile("Plugins/BuildStatus/Payloads/build-failed.json"),
                                                         limit: 1 << 16))
        let delivered = try client.call("notifications.deliver", .object([
            ("app", .string(app)), ("identifier", .string("build")), ("payload", payload), ("open", .bool(true)),
        ]))
        #expect(label("details", in: delivered["presentation"]) == "Took 4 min 12 s", "\(delivered)")
        let listeners = try subscribers(of: app)

        // "Mute" sets the details and answers doNotDismiss during the extension's call.
        let outcome = try client.call("notifications.respond", .object([("identifier", .string("build")), ("action", .string("mute"))]))
        let muted = "Muted: no more notifications for this branch today."
        #expect(outcome["option"] == .string("doNotDismiss"), "\(outcome)")
        #expect(label("details", in: outcome["presentation"]) == muted)
        for listener in listeners {
            let heard = try changes(of: "build", heardBy: listener)
            #expect(heard.count == 1, "\(heard)")
            #expect(label("details", in: heard.last) == muted, "\(heard)")
            #expect(heard.last?["expanded"] == .bool(true) && heard.last?["dismissed"] == .bool(false))
        }
        #expect(label("details", in: try client.call("notifications.presentation", .object([("identifier", .string("build"))])))
                == muted)
    }

    // MARK: A flood of changes (issue 33)

    /// Delivers the Flood fixture opened, setting `calls` texts (0: until refused).
    func deliverFlood(_ identifier: String, calls: Int, through client: RPCClient) throws -> JSON {
        try client.call("notifications.deliver", .object([
            ("app", .string(Self.app)), ("open", .bool(true)),
            ("payload", .object([
                ("identifier", .string(identifier)),
                ("content", .object([("title", .string("Flood")), ("categoryIdentifier", .string("flood")),
                                     ("userInfo", .object([("calls", .string(String(calls)))]))])),
            ])),
        ]))
    }

    @Test(arguments: IsolationMode.allCases)
    func changesComeAtMostOnceAFrameAndTheLastAlways(_ isolation: IsolationMode) throws {
        let server = try fixture.startProcess(isolation)
        defer { server.stop(with: SIGKILL) }
        let listeners = try subscribers(of: Self.app)
        let client = try fixture.client()
        // Within the budget of changes (1,000 at once): no flood, only fast — eight changes a
        // millisecond, each eight far apart enough to be looked at on its own were looks not held to frames.
        let calls = 800
        let started = seconds()
        _ = try deliverFlood("burst", calls: calls, through: client)
        try expectFewEvents(of: "burst", heardBy: listeners, since: started, last: calls)
        let shown = try client.call("notifications.presentation", .object([("identifier", .string("burst"))]))
        #expect(label("text", in: shown) == String(calls))
        // No fault: the extension stayed within its budget.
        #expect(!listeners[1].events.contains { $0["method"] == .string("extension.failed") }, "\(listeners[1].events)")
    }

    @Test(arguments: IsolationMode.allCases)
    func aSustainedFloodIsFaultAbuse(_ isolation: IsolationMode) throws {
        let server = try fixture.startProcess(isolation)
        defer { server.stop(with: SIGKILL) }
        let listeners = try subscribers(of: Self.app)
        let client = try fixture.client()
        let started = seconds()
        _ = try deliverFlood("flood", calls: 0, through: client)
        // The fault: in a worker, the worker ends (`worker.abuse`, counted toward the quarantine); in
        // process, the instance takes no more calls (`extension.view-flood`, which says it is fault abuse).
        let expected = isolation == .worker ? "worker.abuse" : "extension.view-flood"
        var reported: [JSON] = []
        while !reported.contains(where: { $0["diagnostic"]?["code"] == .string(expected) }),
              let next = try listeners[0].event("extension.failed") {
            reported.append(next)
        }
        let fault = try #require(reported.first { $0["diagnostic"]?["code"] == .string(expected) }, "\(reported)")
        if isolation == .worker {
            // A call the worker's end failed may be heard before the worker's end is recorded.
            let ledger = { try? String(contentsOfFile: fixture.directory.file(".local/state/tidings/faults.json"),
                                       encoding: .utf8) }
            #expect(eventually { ledger()?.contains("\"abuse\"") == true }, "\(ledger() ?? "no ledger")")
        } else {
            #expect(fault["diagnostic"]?["message"]?.stringValue?.contains("fault abuse") == true, "\(fault)")
        }
        // The flood took two budgets' worth of changes (1,000 at once, then 1,000 owed, but for the
        // refused one that made the flood): far more than front ends heard.
        let shown = try client.call("notifications.presentation", .object([("identifier", .string("flood"))]))
        let last = try #require(label("text", in: shown).flatMap { Int($0) }, "\(shown)")
        #expect(last >= 1_999)
        try expectFewEvents(of: "flood", heardBy: listeners, since: started, last: last)
    }

    /// Expects each of `listeners` to hear, last of `identifier`, the Flood
    /// fixture's text `last` (nothing is lost) — in a `presentation.changed`,
    /// or in the delivery itself when the extension made every change before
    /// its interface's first drawing — and to have heard few such events, in
    /// order: the delivery first, at most one a frame since `started`
    /// (seconds), and at most a quarter as many as the `last` changes made.
    func expectFewEvents(of identifier: String, heardBy listeners: [RPCClient], since started: Double,
                         last: Int) throws {
        for listener in listeners {
            #expect(try eventually { label("text", in: try heard(of: identifier, by: listener).last?.presentation) == String(last) },
                    "the last change was never heard")
        }
        let elapsed = seconds() - started
        for listener in listeners {
            let heard = try heard(of: identifier, by: listener)
            #expect(heard.map(\.event).firstIndex(of: "notification.delivered") == 0, "\(heard.map(\.event))")
            #expect(heard.count <= mostEvents(within: elapsed), "\(heard.count) events in \(elapsed) s")
            #expect(heard.count * 4 <= last, "\(heard.count) events for \(last) changes")
            // In order: the texts only grow.
            let texts = heard.compactMap { label("text", in: $0.presentation).flatMap { Int($0) } }
            #expect(texts == texts.sorted(), "\(texts)")
        }
    }
}
