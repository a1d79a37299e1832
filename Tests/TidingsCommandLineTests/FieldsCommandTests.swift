import Foundation
import TestSupport
import Testing

/// `tidings deliver` shows every field a payload and its category carry, in
/// its JSON and its text; the app's name, icon and hidden previews; and the
/// small differences from iOS, fixed: a local request is skipped by the
/// service stage for what it is, an attachment without a filename extension
/// or type hint is refused with 101.
@Suite struct FieldsCommandTests {
    let tidings = Tidings()
    let extensions = TemporaryDirectory("cli-extensions")
    let payloads = TemporaryDirectory("cli-payloads")
    let categories = Locations.repositoryFile("Plugins/EventInvite/Payloads/categories.json")

    init() throws {
        try tidings.installSamples(into: extensions.path)
    }

    /// An invitation with every field APNs defines.
    func everyField() throws -> String {
        try payloads.write(#"""
            {"aps": {"alert": {"title": "Team offsite", "subtitle": "Pier 3", "body": "You are invited.",
                               "launch-image": "Splash", "summary-arg": "Ann", "summary-arg-count": 2},
                     "sound": {"critical": 1, "name": "alarm.caf", "volume": 0.5},
                     "category": "event-invite", "thread-id": "offsite", "filter-criteria": "work",
                     "content-available": 1},
             "title": "Team offsite"}
            """#, to: "every-field.json")
    }

    @Test func jsonCarriesEveryFieldAndTheAppsRegistration() throws {
        let (status, value) = try tidings.json("deliver", try everyField(), "--categories", categories,
                                                "--extensions", extensions.path, "--app-name", "Events",
                                                "--app-icon", "events.png", "--previews", "never", "--json")
        let output = try #require(value as? [String: Any])
        #expect(status == 0)
        let notification = try #require(output["notification"] as? [String: Any])
        #expect(notification["sound"] as? String == "alarm.caf")
        #expect(notification["criticalSound"] as? Bool == true)
        #expect(notification["soundVolume"] as? Double == 0.5)
        #expect(notification["launchImageName"] as? String == "Splash")
        #expect(notification["summaryArgument"] as? String == "Ann")
        #expect(notification["summaryArgumentCount"] as? Int == 2)
        #expect(notification["filterCriteria"] as? String == "work")
        #expect(notification["contentAvailable"] as? Bool == true)
        let presentation = try #require(output["presentation"] as? [String: Any])
        #expect(presentation["header"] as? String == "Events")
        #expect(presentation["icon"] as? String == "events.png")
        #expect(presentation["previewsHidden"] as? Bool == true)
        #expect(presentation["defaultContent"] as? [String: String] == [
            "title": "Team offsite", "subtitle": "", "body": "2 invitations",
        ])
        #expect(presentation[path: "group", "summary"] as? String == "2 invitations from Ann")
        let actions = try #require(presentation["actions"] as? [[String: Any]])
        #expect(actions.map { $0["icon"] as? [String: String] } == [
            ["systemImageName": "checkmark"], ["systemImageName": "xmark"], ["templateImageName": "comment-bubble"],
        ])
    }

    @Test func textShowsTheFieldsAndHiddenPreviews() throws {
        let result = try tidings.run("deliver", try everyField(), "--categories", categories, "--extensions", extensions.path,
                                     "--app-name", "Events", "--previews", "never")
        #expect(result.status == 0, "\(result.standardError)")
        for line in ["Sound         alarm.caf, critical, volume 0.5", "Launch image  Splash",
                     "Summary       \"Ann\", counts 2", "Filter        work", "Header        Events",
                     "Previews      hidden", "Body          2 invitations", "icon checkmark",
                     "template icon comment-bubble"] {
            #expect(result.standardOutput.contains(line), "\(line) in \(result.standardOutput)")
        }
        #expect(!result.standardOutput.contains("Pier 3"))
        #expect(!result.standardOutput.contains("You are invited."))
    }

    @Test func previewsTakeOnlyAlwaysOrNever() throws {
        let result = try tidings.run("deliver", try everyField(), "--categories", categories, "--extensions", extensions.path,
                                     "--previews", "hidden")
        #expect(result.status == 64)
        #expect(result.standardError.contains("--previews takes always or never"))
    }

    @Test func aLocalRequestIsSkippedByTheServiceStageForWhatItIs() throws {
        let request = try payloads.write(#"{"identifier": "local", "content": {"title": "Hi", "categoryIdentifier": "event-invite"}}"#,
                                         to: "local.json")
        let result = try tidings.run("deliver", request, "--app", "com.example.events", "--extensions", extensions.path,
                                     "--explain")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("the notification is a local request, and only remote notifications go through service extensions"))
        #expect(!result.standardOutput.contains("mutable-content"))
    }

    @Test func anAttachmentWithoutAFilenameExtensionOrTypeHintIsRefusedWith101() throws {
        try FileManager.default.copyItem(atPath: Locations.repositoryFile("Plugins/EventInvite/Payloads/lighthouse.png"),
                                         toPath: payloads.file("lighthouse"))
        let unnamed = try payloads.write(#"""
            {"identifier": "unnamed", "content": {"title": "Photo", "attachments": [{"identifier": "photo", "path": "lighthouse"}]}}
            """#, to: "unnamed.json")
        let refused = try tidings.run("deliver", unnamed, "--app", "com.example.events", "--extensions", extensions.path)
        #expect(refused.status == 65)
        #expect(refused.standardError.contains("attachment.unrecognized-type"), "\(refused.standardError)")
        #expect(refused.standardError.contains("no filename extension and no type hint"))
        let hinted = try payloads.write(#"""
            {"identifier": "hinted", "content": {"title": "Photo",
              "attachments": [{"identifier": "photo", "path": "lighthouse", "typeHint": "public.png"}]}}
            """#, to: "hinted.json")
        let accepted = try tidings.run("deliver", hinted, "--app", "com.example.events", "--extensions", extensions.path)
        #expect(accepted.status == 0, "\(accepted.standardError)")
    }
}
