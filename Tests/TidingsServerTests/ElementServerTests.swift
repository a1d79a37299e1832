import ServerTestSupport
import Testing
import TestSupport
import TidingsBase

/// A front end's taps, submissions and text-input answers through the real
/// `tidings serve` (`notifications.interact`, `notifications.input`), with
/// extensions in the server's process and in workers: the Swift sample takes
/// them; an extension without UNNotificationExtensionUserInteractionEnabled
/// gets none, and the front end learns why.
@Suite struct ElementServerTests {
    let fixture = ServerFixture()

    init() throws {
        try fixture.installSample("EventInvite")
        try fixture.installC("Interactive", identifier: "com.example.tests.interactive", categories: ["interactive"],
                             interface: """
                                 {"version": 1, "root": {"type": "stack", "children": [
                                   {"type": "label", "id": "status"}, {"type": "button", "id": "go", "title": "Go"}]}}
                                 """)
    }

    /// Delivers a notification of `category` to `app` as `identifier`, its expanded interface opened.
    func deliver(_ client: RPCClient, _ identifier: String, category: String, app: String) throws {
        _ = try client.call("notifications.deliver", .object([
            ("identifier", .string(identifier)), ("app", .string(app)), ("open", .bool(true)),
            ("payload", .object([("aps", .object([
                ("alert", .object([("title", .string("Team offsite")), ("body", .string("You are invited."))])),
                ("category", .string(category)),
            ]))])),
        ]))
    }

    /// The error the server answers `method` with `params`.
    func refusal(_ client: RPCClient, _ method: String, _ params: [(String, JSON)]) -> RPCErrorReply? {
        do {
            _ = try client.call(method, .object(params))
            return nil
        } catch {
            return error as? RPCErrorReply
        }
    }

    /// The text (or title) of the element `identifier` of a presentation's view.
    func text(of identifier: String, in presentation: JSON?) -> String? {
        presentation?["view"]?["children"]?.arrayValue?.first { $0["id"] == .string(identifier) }?["text"]?.stringValue
    }

    @Test(arguments: IsolationMode.allCases)
    func aFrontEndTapsAnswersAndSubmits(_ isolation: IsolationMode) throws {
        let server = try fixture.startProcess(isolation)
        defer { server.stop() }
        let client = try fixture.client()
        try deliver(client, "n", category: "event-invite", app: "com.example.events")
        let tapped = try client.call("notifications.interact", .object([
            ("identifier", .string("n")), ("element", .string("addComment")), ("event", .string("tap")),
        ]))
        #expect(tapped["event"] == .string("tap"))
        #expect(tapped["presentation"]?["textInput"]
            == .object([("buttonTitle", .string("Post")), ("placeholder", .string("Say something to the host"))]))
        let answered = try client.call("notifications.input", .object([("identifier", .string("n")), ("text", .string("Count me in"))]))
        #expect(text(of: "eventResponse", in: answered["presentation"]) == "Comment: Count me in")
        #expect(answered["presentation"]?["textInput"] == .null)
        let submitted = try client.call("notifications.interact", .object([
            ("identifier", .string("n")), ("element", .string("note")), ("event", .string("submit")),
            ("text", .string("Vegetarian")),
        ]))
        #expect(text(of: "eventResponse", in: submitted["presentation"]) == "Note: Vegetarian")
        #expect(text(of: "note", in: try client.call("notifications.presentation", .object([("identifier", .string("n"))])))
            == "Vegetarian")
    }

    @Test(arguments: IsolationMode.allCases)
    func refusedEventsSayWhy(_ isolation: IsolationMode) throws {
        let server = try fixture.startProcess(isolation)
        defer { server.stop() }
        let client = try fixture.client()
        try deliver(client, "m", category: "interactive", app: "com.example.tests")
        let tap: [(String, JSON)] = [("identifier", .string("m")), ("element", .string("go")), ("event", .string("tap"))]
        let disabled = refusal(client, "notifications.interact", tap)
        #expect(disabled?.code == -32007)
        #expect(disabled?.data?["cause"] == .string("element.interaction-disabled"))
        #expect(disabled?.message.contains("UNNotificationExtensionUserInteractionEnabled") == true)

        try deliver(client, "n", category: "event-invite", app: "com.example.events")
        let noInput = refusal(client, "notifications.input", [("identifier", .string("n")), ("text", .string("hi"))])
        #expect(noInput?.data?["cause"] == .string("element.input-not-requested"))
        let huge = refusal(client, "notifications.interact", [
            ("identifier", .string("n")), ("element", .string("note")), ("event", .string("submit")),
            ("text", .string(String(repeating: "x", count: 16_385))),
        ])
        #expect(huge?.data?["cause"] == .string("element.invalid"))
        let unknown = refusal(client, "notifications.interact", [
            ("identifier", .string("n")), ("element", .string("nowhere")), ("event", .string("tap")),
        ])
        #expect(unknown?.data?["cause"] == .string("element.no-such-element"))
        #expect(refusal(client, "notifications.interact", [
            ("identifier", .string("n")), ("element", .string("note")), ("event", .string("swipe")),
        ])?.code == -32602)
        #expect(refusal(client, "notifications.interact", [
            ("identifier", .string("n")), ("element", .string("addComment")), ("event", .string("tap")), ("text", .string("x")),
        ])?.code == -32602)
        #expect(refusal(client, "notifications.input", [("identifier", .string("gone")), ("text", .string("x"))])?.code == -32001)
        // Nothing refused changed the view.
        let presentation = try client.call("notifications.presentation", .object([("identifier", .string("n"))]))
        #expect(text(of: "note", in: presentation) == "")
    }
}
