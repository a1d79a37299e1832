import Foundation
import TestSupport
import Testing

// `tidings deliver --tap-element / --submit-element / --input` on the
// EventInvite sample, in this process and in a worker.
extension DeliverCommandTests {
    /// `tidings deliver` of the invite with `options`, its extensions run as `mode` says.
    func deliver(_ mode: IsolationMode, _ options: String...) throws -> ProcessResult {
        try tidings.run(["deliver", invite, "--categories", categories, "--extensions", extensions.path,
                         "--isolation", mode.option] + options)
    }

    @Test(arguments: IsolationMode.allCases)
    func elementEventsReachTheSampleInTheOrderGiven(_ mode: IsolationMode) throws {
        let result = try deliver(mode, "--tap-element", "addComment", "--input", "Count me in",
                                 "--submit-element", "note=Vegetarian", "--json")
        #expect(result.status == 0, "\(result.standardError)")
        let output = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        let interactions = try #require(output["interactions"] as? [[String: Any]])
        #expect(interactions.map { $0["event"] as? String } == ["tap", "input", "submit"])
        #expect(interactions[0][path: "presentation", "textInput", "buttonTitle"] as? String == "Post")
        #expect(interactions[0][path: "presentation", "textInput", "placeholder"] as? String == "Say something to the host")
        func text(_ element: String, after position: Int) -> String? {
            let children = interactions[position][path: "presentation", "view", "children"] as? [[String: Any]]
            return children?.first { $0["id"] as? String == element }?["text"] as? String
        }
        #expect(text("eventResponse", after: 1) == "Comment: Count me in")
        #expect(text("eventResponse", after: 2) == "Note: Vegetarian")
        #expect(text("note", after: 2) == "Vegetarian")
    }

    @Test func theTextSaysWhatEachEventChanged() throws {
        let result = try deliver(.inProcess, "--tap-element", "addComment", "--input", "Count me in")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("Text input    asked for: \"Say something to the host\" [Post]"))
        #expect(result.standardOutput.contains("label eventResponse \"Comment: Count me in\""))
        #expect(result.standardOutput.contains("button addComment [Edit the comment]"))
    }

    @Test(arguments: IsolationMode.allCases)
    func aRefusedEventStopsWithItsError(_ mode: IsolationMode) throws {
        let result = try deliver(mode, "--input", "nobody asked", "--respond", "accept")
        #expect(result.status == 65)
        #expect(result.standardError.contains("[element.input-not-requested]"))
        // The response after it was not sent.
        #expect(!result.standardOutput.contains("\nResponse  accept"))
        let usage = try deliver(mode, "--submit-element", "note")
        #expect(usage.status == 64 && usage.standardError.contains("ID=TEXT"))
    }

    @Test func withoutUserInteractionTheEventIsRefused() throws {
        let manifest = extensions.file("EventInvite.appex/Info.plist")
        let text = try String(contentsOfFile: manifest, encoding: .utf8)
        let enabled = "<key>UNNotificationExtensionUserInteractionEnabled</key>\n\t\t\t<true/>"
        try #require(text.contains(enabled))
        try text.replacingOccurrences(of: enabled, with: "<key>UNNotificationExtensionUserInteractionEnabled</key><false/>")
            .write(toFile: manifest, atomically: true, encoding: .utf8)
        let result = try deliver(.inProcess, "--tap-element", "addComment", "--no-cache")
        #expect(result.status == 65)
        #expect(result.standardError.contains("[element.interaction-disabled]"))
    }
}
