import Foundation
import Testing
import TestSupport
import TidingsBase
import TidingsDesktop

/// Responses handed to apps over org.freedesktop.Application on a private
/// bus: the sample app started by D-Bus activation, apps without a bus name
/// or without ActivateAction, entries that are not responses. Every outcome
/// comes from the loop (`processPending`), never from inside `forward`.
@Suite(.enabled(if: canStartBus, "needs libsystemd.so.0 and dbus-daemon"))
struct AppActivationTests {
    /// A `response.forwarded` event's params as the server sends them: the
    /// user commented on the EventInvite sample's invitation.
    static func response(app: String = "com.example.events", opensApp: Bool = false) -> JSON {
        let text = """
            {"id": 7, "app": "\(app)", "kind": "response", "received": "2026-11-27T10:00:00Z",
             "notification": {"identifier": "invite-offsite-2026", "date": "2026-11-21T09:30:00Z",
                              "title": "Team offsite", "subtitle": "", "body": "You are invited to the team offsite.",
                              "categoryIdentifier": "event-invite", "threadIdentifier": "offsite",
                              "interruptionLevel": "active", "relevanceScore": 0.0, "contentAvailable": false,
                              "mutableContent": false,
                              "userInfo": {"title": "Team offsite", "location": "Lighthouse, Pier 3"}, "attachments": []},
             "actionIdentifier": "comment", "userText": "Running late", "opensApp": \(opensApp), "seq": 42}
            """
        return try! JSON.parse(Array(text.utf8))
    }

    @Test func aResponseStartsTheSampleAppByDBusActivationAndReachesIt() throws {
        let scratch = TemporaryDirectory("tidings-apps")
        let record = scratch.file("calls.jsonl")
        let sample = Locations.product("tidings-events-app")
        #expect(FileManager.default.isExecutableFile(atPath: sample), "swift build builds tidings-events-app")
        let bus = try PrivateBus(services: ["com.example.events": "\(sample) --record \(record) --idle \(Int(patience))"])
        let client = try bus.connect()
        // The sample accepts responses from the desktop front end only: this connection plays it.
        try client.requestName("org.tidings.Desktop")
        let activation = AppActivation()
        var outcomes: [AppActivation.Outcome] = []
        activation.forward(Self.response(), on: client) { outcomes.append($0) }
        // Nothing happens inside `forward`: the app is being started, the loop goes on.
        #expect(outcomes.isEmpty)
        #expect(try client.run(until: { !outcomes.isEmpty }, seconds: patience))
        // The outcome names the connection that answered: the app D-Bus started from its service file.
        let started = try BusDaemonClient.nameOwner("com.example.events", on: client)
        #expect(outcomes == [.delivered(to: started, activatable: true)])

        // The app recorded the call before answering it.
        let lines = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1)
        let call = try JSON.parse(Array(lines[0].utf8))
        #expect(call["method"] == .string("ActivateAction"))
        #expect(call["action"] == .string("tidings.response"))
        let parameter = try #require(call["parameter"])
        #expect(parameter["notification"] == .string("invite-offsite-2026"))
        #expect(parameter["category"] == .string("event-invite"))
        #expect(parameter["action"] == .string("comment"))
        #expect(parameter["text"] == .string("Running late"))
        #expect(parameter["opensApp"] == .bool(false))
        #expect(parameter["entry"] == .integer(7))
        #expect(parameter["received"] == .string("2026-11-27T10:00:00Z"))
        let userInfo = try JSON.parse(Array(try #require(parameter["userInfo"]?.stringValue).utf8))
        #expect(userInfo["location"] == .string("Lighthouse, Pier 3"))

        // A second response finds the app running: no new start, one more line.
        var again: [AppActivation.Outcome] = []
        var plain = Self.response(opensApp: true)
        if case .object(let members) = plain {
            plain = .object(members.map { $0.0 == "userText" ? ($0.0, .null) : $0 })
        }
        activation.forward(plain, on: client) { again.append($0) }
        #expect(try client.run(until: { !again.isEmpty }, seconds: patience))
        #expect(again == [.delivered(to: started, activatable: true)])
        let second = try JSON.parse(Array(try String(contentsOfFile: record, encoding: .utf8)
            .split(separator: "\n").last!.utf8))
        #expect(second["parameter"]?["text"] == nil)
        #expect(second["parameter"]?["opensApp"] == .bool(true))
    }

    @Test func aNameOwnedWithoutAServiceFileIsSaidToBeSo() throws {
        let bus = try PrivateBus()
        let client = try bus.connect()
        // A running connection owns the app's name, and no service file names it.
        let squatter = try bus.connect()
        try squatter.requestName("com.example.events")
        try squatter.exportObject(at: "/com/example/events") { (call: borrowing MethodCall) throws(BusError) in
            if call.arguments.member == "ActivateAction" { try call.reply() }
        }
        let activation = AppActivation()
        var outcomes: [AppActivation.Outcome] = []
        activation.forward(Self.response(), on: client) { outcomes.append($0) }
        #expect(try pump(client, squatter, until: { !outcomes.isEmpty }))
        // The log can say whom it went to, and that the name was not the activatable one.
        let squatterName = try squatter.uniqueName
        #expect(outcomes == [.delivered(to: squatterName, activatable: false)])
    }

    @Test func anAppWithoutABusNameKeepsItsResponses() throws {
        let bus = try PrivateBus()
        let client = try bus.connect()
        let activation = AppActivation()
        var outcomes: [String: AppActivation.Outcome] = [:]
        // Not a bus name (one element); a name nobody owns and no service file names.
        for app in ["events", "com.example.nobody"] {
            activation.forward(Self.response(app: app), on: client) { outcomes[app] = $0 }
        }
        #expect(outcomes.isEmpty)
        #expect(try client.run(until: { outcomes.count == 2 }, seconds: patience))
        #expect(outcomes == ["events": .noBusName, "com.example.nobody": .noBusName])
    }

    @Test(arguments: [false, true])
    func aRunningAppWithoutActivateActionFailsAndIsActivatedWhenTheResponseOpensIt(opensApp: Bool) throws {
        let bus = try PrivateBus()
        let client = try bus.connect()
        let app = try bus.connect()
        var activations = 0
        try app.exportObject(at: ApplicationClient(busName: "org.example.Quiet").path) {
            (call: borrowing MethodCall) throws(BusError) in
            // Activate only: anything else is left unanswered, which sd-bus answers with UnknownMethod.
            guard call.arguments.member == "Activate" else { return }
            activations += 1
            try call.reply()
        }
        try app.requestName("org.example.Quiet")

        var outcomes: [AppActivation.Outcome] = []
        AppActivation().forward(Self.response(app: "org.example.Quiet", opensApp: opensApp), on: client) {
            outcomes.append($0)
        }
        #expect(outcomes.isEmpty)
        #expect(try pump(client, app, until: { !outcomes.isEmpty }))
        guard case .failed(let sentence)? = outcomes.first else {
            Issue.record("expected .failed, got \(outcomes)")
            return
        }
        #expect(sentence.contains("has no ActivateAction"))
        #expect(sentence.contains("stays in its inbox"))
        #expect(activations == (opensApp ? 1 : 0))
    }

    @Test func anAppThatRefusesTheResponseFailsWithItsReason() throws {
        let bus = try PrivateBus()
        let client = try bus.connect()
        let app = try bus.connect()
        try app.exportObject(at: ApplicationClient(busName: "org.example.Busy").path) {
            (call: borrowing MethodCall) throws(BusError) in
            throw BusError(BusError.callFailed, name: "org.example.Error.Busy", "saving another response")
        }
        try app.requestName("org.example.Busy")

        var outcomes: [AppActivation.Outcome] = []
        AppActivation().forward(Self.response(app: "org.example.Busy"), on: client) { outcomes.append($0) }
        #expect(try pump(client, app, until: { !outcomes.isEmpty }))
        guard case .failed(let sentence)? = outcomes.first else {
            Issue.record("expected .failed, got \(outcomes)")
            return
        }
        #expect(sentence.contains("org.example.Busy did not take the response"))
        #expect(sentence.contains("saving another response"))
    }

    @Test func anEntryThatIsNotAResponseFailsWithASentence() throws {
        let bus = try PrivateBus()
        let client = try bus.connect()
        let activation = AppActivation()
        func entry(_ change: (inout [(String, JSON)]) -> Void) -> JSON {
            guard case .object(var members) = Self.response() else { return .null }
            change(&members)
            return .object(members)
        }
        func replacing(_ name: String, with value: JSON) -> JSON {
            entry { members in members = members.map { $0.0 == name ? (name, value) : $0 } }
        }
        let malformed: [(JSON, String)] = [
            (.string("not an entry"), "a string, not an object"),
            (entry { $0.removeAll { $0.0 == "app" } }, "no app"),
            (replacing("app", with: .integer(3)), "app is a number"),
            (replacing("kind", with: .string("background")), "of kind \"background\""),
            (replacing("id", with: .string("7")), "id is a string"),
            (replacing("notification", with: .array([])), "notification is an array"),
            (replacing("notification", with: .object([("title", .string("x"))])), "no notification.identifier"),
            (replacing("actionIdentifier", with: .null), "actionIdentifier is null"),
            (replacing("userText", with: .bool(true)), "userText is a Boolean"),
            (replacing("opensApp", with: .string("yes")), "opensApp is a string"),
            (entry { $0.removeAll { $0.0 == "received" } }, "no received"),
        ]
        var outcomes: [Int: AppActivation.Outcome] = [:]
        for (index, (value, _)) in malformed.enumerated() {
            activation.forward(value, on: client) { outcomes[index] = $0 }
        }
        #expect(outcomes.isEmpty)
        #expect(try client.run(until: { outcomes.count == malformed.count }, seconds: patience))
        for (index, (_, words)) in malformed.enumerated() {
            guard case .failed(let sentence)? = outcomes[index] else {
                Issue.record("entry \(index): expected .failed, got \(String(describing: outcomes[index]))")
                continue
            }
            #expect(sentence.contains(words), "\(sentence)")
        }
    }
}

/// Processes two connections of this thread (a client and the app it
/// calls) until `condition` holds, waiting on their sockets in between.
/// - Returns: false when it did not hold within the tests' patience.
func pump(_ first: borrowing BusConnection, _ second: borrowing BusConnection,
          until condition: () -> Bool) throws -> Bool {
    let deadline = Date().addingTimeInterval(patience)
    while true {
        try first.processPending()
        try second.processPending()
        if condition() { return true }
        if Date() > deadline { return false }
        var sockets = [pollfd(fd: first.descriptor, events: first.events, revents: 0),
                       pollfd(fd: second.descriptor, events: second.events, revents: 0)]
        // A wait for either socket; the bound only brings the deadline check round.
        _ = poll(&sockets, 2, 1_000)
    }
}
