import Foundation
import TestSupport
import Testing

/// A notification's trigger on the command line: `tidings deliver --json`
/// shows it (the push trigger of an APNs payload, none for a request
/// delivered at once), and refuses a request that has a trigger of its own,
/// saying where scheduling lives.
@Suite struct TriggerCommandTests {
    let tidings = Tidings()
    let extensions = TemporaryDirectory("cli-extensions")
    let payloads = TemporaryDirectory("payloads")
    let invite = Locations.repositoryFile("Plugins/EventInvite/Payloads/invite.json")
    let remote = Locations.repositoryFile("Plugins/EventInvite/Payloads/invite-apns.json")
    let categories = Locations.repositoryFile("Plugins/EventInvite/Payloads/categories.json")

    init() throws {
        try tidings.installSamples(into: extensions.path)
    }

    @Test func anAPNsPayloadIsDeliveredByThePushTriggerAndARequestByNone() throws {
        let (pushed, remoteOutput) = try tidings.json("deliver", remote, "--categories", categories,
                                                      "--extensions", extensions.path, "--json")
        #expect(pushed == 0)
        #expect((remoteOutput as? [String: Any])?[path: "notification", "trigger"] as? [String: Bool] == ["push": true])
        let (delivered, requestOutput) = try tidings.json("deliver", invite, "--categories", categories,
                                                          "--extensions", extensions.path, "--json")
        #expect(delivered == 0)
        let notification = try #require((requestOutput as? [String: Any])?["notification"] as? [String: Any])
        #expect(notification["trigger"] == nil)
    }

    @Test func aRequestWithATriggerIsRefusedInOneLineSayingWhereSchedulingLives() throws {
        let request = #"{"identifier": "standup", "content": {"title": "Stand-up", "categoryIdentifier": "event-invite"}, "#
            + #""trigger": {"dateMatching": {"hour": 9, "minute": 30}, "repeats": true}}"#
        let payload = try payloads.write(request, to: "standup.json")
        let result = try tidings.run("deliver", payload, "--extensions", extensions.path, "--categories", categories)
        #expect(result.status == 65)
        #expect(result.standardOutput.isEmpty)
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.count == 1, "\(result.standardError)")
        #expect(lines.first?.contains("standup.json /trigger: error: ") == true)
        #expect(lines.first?.contains("schedule it with tidings schedule (the server's requests.add)") == true)
        #expect(lines.first?.hasSuffix("[payload.scheduled]") == true)
    }
}
