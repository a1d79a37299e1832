import RuntimeTestSupport
import Testing
import TestSupport
import TidingsBase
import TidingsIsolation
import TidingsRuntime

/// Buttons and text fields of an extension's view: their events reach the
/// extension through its `tidings.element-events/1` only when its manifest
/// sets UNNotificationExtensionUserInteractionEnabled, and its text-input
/// requests show in the presentation until the front end answers them —
/// with the C fixture Interactive and the Swift sample EventInvite, in this
/// process and in a worker.
@Suite(.serialized) struct ElementEventTests {
    let fixture = Fixture()

    /// A host serving what is installed, its extensions run as `mode` says.
    func host(_ mode: IsolationMode) -> NotificationHost {
        fixture.host(configuration: NotificationHost.Configuration(), launcher: mode.launcher())
    }

    /// The Interactive fixture installed (its manifest enabling user interaction as
    /// `userInteraction` says) and a notification delivered to it as "n".
    func deliverInteractive(_ mode: IsolationMode, userInteraction: Bool = true) throws -> NotificationHost {
        try fixture.installInteractive(userInteraction: userInteraction)
        let host = host(mode)
        let delivery = host.deliverOpened(notification("n", category: "interactive"), to: "com.example.tests")
        #expect(delivery.diagnostics.isEmpty, "\(delivery.diagnostics)")
        #expect(delivery.presentation.view?.text(of: "status") == "ready")
        return host
    }

    /// The code of the error `interact` throws for `event` on "n".
    func refusal(_ host: NotificationHost, _ event: ElementEvent) -> String? {
        do {
            _ = try host.interact(with: "n", event)
            return nil
        } catch {
            return error.code.rawValue
        }
    }

    @Test(arguments: IsolationMode.allCases)
    func aTapAndASubmittedTextReachTheCExtension(_ mode: IsolationMode) throws {
        let host = try deliverInteractive(mode)
        let tapped = try host.interact(with: "n", .tap(element: "go"))
        #expect(tapped.diagnostics.isEmpty, "\(tapped.diagnostics)")
        #expect(tapped.log.map(\.message) == ["event 1 go (null)"])
        let view = try #require(tapped.presentation.view)
        #expect(view.text(of: "status") == "tapped go")
        #expect(view.node("go")?.content == .button(title: "Gone", enabled: false))
        // Disabled by the extension, the button takes no more taps.
        #expect(refusal(host, .tap(element: "go")) == "element.disabled")

        let submitted = try host.interact(with: "n", .submit(element: "note", text: "Bring cake"))
        #expect(submitted.log.map(\.message) == ["event 2 note Bring cake"])
        #expect(submitted.presentation.view?.text(of: "status") == "note: Bring cake")
        #expect(submitted.presentation.view?.node("note")?.content
            == .textField(text: "Bring cake", placeholder: "A note", enabled: true))
        // The presentation a front end reads says the same.
        let json = try #require(host.presentation(of: "n")).json
        let children = try #require(json["view"]?["children"]?.arrayValue)
        #expect(children.first { $0["id"] == .string("go") }
            == .object([("type", .string("button")), ("id", .string("go")), ("hidden", .bool(false)),
                        ("title", .string("Gone")), ("enabled", .bool(false))]))
        #expect(children.first { $0["id"] == .string("note") }?["text"] == .string("Bring cake"))
    }

    @Test(arguments: IsolationMode.allCases)
    func theTextInputRequestShowsAndItsAnswerReachesTheExtension(_ mode: IsolationMode) throws {
        let host = try deliverInteractive(mode)
        #expect(refusal(host, .textInput(text: "too early")) == "element.input-not-requested")
        let asked = try host.interact(with: "n", .tap(element: "ask"))
        #expect(asked.presentation.view?.text(of: "status") == "asked")
        #expect(asked.presentation.textInput == TextInputRequest(buttonTitle: "Send", placeholder: "Your answer"))
        #expect(asked.presentation.json["textInput"]
            == .object([("buttonTitle", .string("Send")), ("placeholder", .string("Your answer"))]))

        let answered = try host.interact(with: "n", .textInput(text: "forty-two"))
        #expect(answered.log.map(\.message) == ["event 3 (null) forty-two"])
        #expect(answered.presentation.view?.text(of: "status") == "input: forty-two")
        #expect(answered.presentation.textInput == nil)
        #expect(answered.presentation.json["textInput"] == .null)
        // Cleared: a second answer has nothing to answer.
        #expect(refusal(host, .textInput(text: "again")) == "element.input-not-requested")

        // The extension may withdraw its request.
        _ = try host.interact(with: "n", .tap(element: "ask"))
        let stopped = try host.interact(with: "n", .tap(element: "stop"))
        #expect(stopped.presentation.textInput == nil)
        #expect(stopped.presentation.view?.text(of: "status") == "stopped")
    }

    @Test(arguments: IsolationMode.allCases)
    func withoutUserInteractionNoEventReachesTheExtension(_ mode: IsolationMode) throws {
        let host = try deliverInteractive(mode, userInteraction: false)
        for event: ElementEvent in [.tap(element: "go"), .submit(element: "note", text: "x"), .textInput(text: "x")] {
            do {
                _ = try host.interact(with: "n", event)
                Issue.record("\(event) was taken")
            } catch {
                #expect(error.code == .elementInteractionDisabled)
                #expect(error.message.contains("UNNotificationExtensionUserInteractionEnabled"))
            }
        }
        // Nothing reached the extension: its view is as it made it.
        let view = try #require(host.presentation(of: "n")?.view)
        #expect(view.text(of: "status") == "ready")
        #expect(view.text(of: "note") == "draft")
    }

    @Test(arguments: IsolationMode.allCases)
    func hostileAndMalformedEventsAreRefused(_ mode: IsolationMode) throws {
        let host = try deliverInteractive(mode)
        let huge = String(repeating: "x", count: HostLimits.textBytes + 1)
        #expect(refusal(host, .submit(element: "note", text: huge)) == "element.invalid")
        #expect(refusal(host, .submit(element: "note", text: "a\u{0}b")) == "element.invalid")
        #expect(refusal(host, .tap(element: String(repeating: "g", count: HostLimits.identifierBytes + 1))) == "element.invalid")
        #expect(refusal(host, .tap(element: "")) == "element.invalid")
        #expect(refusal(host, .tap(element: "og")) == "element.no-such-element")
        #expect(refusal(host, .tap(element: "status")) == "element.wrong-kind")
        #expect(refusal(host, .submit(element: "go", text: "x")) == "element.wrong-kind")
        #expect(refusal(host, .tap(element: "off")) == "element.disabled")
        do {
            _ = try host.interact(with: "n", .tap(element: "og"))
        } catch {
            #expect(error.message == "The view has no element \"og\"; did you mean \"go\"?")
        }
        // The largest text the ABI carries goes through whole.
        let largest = String(repeating: "y", count: HostLimits.textBytes - "note: ".utf8.count)
        let taken = try host.interact(with: "n", .submit(element: "note", text: largest))
        #expect(taken.presentation.view?.text(of: "status") == "note: " + largest)
        #expect(refusal(host, .tap(element: "go")) == nil)
    }

    @Test func aWorkerRefusesAnEventBeyondTheLimits() throws {
        let huge = WorkerMessage.elementEvent(call: 1, instance: 1, event: .textInput(text: String(repeating: "x", count: HostLimits.textBytes + 1)))
        #expect(throws: ByteReader.Malformed.self) { try WorkerMessage(decoding: huge.encoded) }
        let fine = WorkerMessage.elementEvent(call: 1, instance: 1, event: .submit(element: "note", text: "hi"))
        #expect(try WorkerMessage(decoding: fine.encoded) == fine)
        // A tap that carries text, or a text input that names an element, is malformed.
        var bytes = WorkerMessage.elementEvent(call: 1, instance: 1, event: .textInput(text: "hi")).encoded
        bytes[3] = 1  // the kind, after the tag, call and instance: TIDINGS_ELEMENT_EVENT_TAP
        #expect(throws: ByteReader.Malformed.self) { try WorkerMessage(decoding: bytes) }
    }

    @Test(arguments: IsolationMode.allCases)
    func theSwiftSampleTakesATapATextAndAnAnswer(_ mode: IsolationMode) throws {
        try fixture.installEventInvite()
        let host = host(mode)
        let delivery = host.deliverOpened(notification("n", category: "event-invite", userInfo: [("title", .string("Offsite"))]),
                                    to: "com.example.events")
        #expect(delivery.diagnostics.isEmpty, "\(delivery.diagnostics)")
        #expect(delivery.presentation.userInteractionEnabled)
        let asked = try host.interact(with: "n", .tap(element: "addComment"))
        #expect(asked.presentation.textInput == TextInputRequest(buttonTitle: "Post", placeholder: "Say something to the host"))
        let answered = try host.interact(with: "n", .textInput(text: "Count me in"))
        #expect(answered.presentation.view?.text(of: "eventResponse") == "Comment: Count me in")
        #expect(answered.presentation.view?.node("eventResponse")?.hidden == false)
        #expect(answered.presentation.view?.text(of: "addComment") == "Edit the comment")
        #expect(answered.presentation.textInput == nil)
        let noted = try host.interact(with: "n", .submit(element: "note", text: "Vegetarian"))
        #expect(noted.presentation.view?.text(of: "eventResponse") == "Note: Vegetarian")
        #expect(noted.presentation.view?.text(of: "note") == "Vegetarian")
    }

    @Test(arguments: IsolationMode.allCases)
    func theSwiftSampleWithoutUserInteractionGetsNoEvent(_ mode: IsolationMode) throws {
        try fixture.installEventInvite(userInteraction: false)
        let host = host(mode)
        _ = host.deliverOpened(notification("n", category: "event-invite"), to: "com.example.events")
        #expect(refusal(host, .tap(element: "addComment")) == "element.interaction-disabled")
        #expect(host.presentation(of: "n")?.view?.node("eventResponse")?.hidden == true)
        #expect(host.presentation(of: "n")?.textInput == nil)
    }
}
