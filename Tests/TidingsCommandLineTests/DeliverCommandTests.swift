import Foundation
import TestSupport
import Testing

/// `tidings deliver` on the shipped samples and payloads, as the README shows it.
@Suite struct DeliverCommandTests {
    let tidings = Tidings()
    let extensions = TemporaryDirectory("cli-extensions")
    let invite = Locations.repositoryFile("Plugins/EventInvite/Payloads/invite.json")
    let categories = Locations.repositoryFile("Plugins/EventInvite/Payloads/categories.json")

    init() throws {
        try tidings.installSamples(into: extensions.path)
    }

    @Test func inviteShowsHiddenDefaultContentAndInitialHeightFromTheRatio() throws {
        let result = try tidings.run("deliver", invite, "--categories", categories, "--extensions", extensions.path, "--open")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("hidden (UNNotificationExtensionDefaultContentHidden)"))
        #expect(result.standardOutput.contains("360 × 270 while loading"))  // 360 × 0.75
        #expect(result.standardOutput.contains("image eventImage → event-image (public.png)"))
    }

    @Test func jsonPresentationCarriesSizeAndView() throws {
        let (status, value) = try tidings.json("deliver", invite, "--categories", categories, "--extensions", extensions.path, "--open",
                                                "--width", "400", "--json")
        let output = try #require(value as? [String: Any])
        #expect(status == 0)
        #expect(output[path: "presentation", "defaultContentHidden"] as? Bool == true)
        #expect(output[path: "presentation", "defaultContent"] == nil)
        #expect(output[path: "presentation", "contentSize", "initialHeight"] as? Double == 300)
        #expect(output[path: "presentation", "extension"] as? String == "com.example.events.invite")
        let actions = try #require(output[path: "presentation", "actions"] as? [[String: Any]])
        #expect(actions.compactMap { $0["identifier"] as? String } == ["accept", "decline", "comment"])
    }

    @Test func acceptShowsGoingAndDismisses() throws {
        let result = try tidings.run("deliver", invite, "--categories", categories, "--extensions", extensions.path, "--open",
                                     "--respond", "accept")
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("label eventResponse \"Going!\" #34C759"))
        #expect(result.standardOutput.contains("Answer        dismiss"))
        #expect(result.standardOutput.contains("Notification  dismissed"))
    }

    @Test(arguments: IsolationMode.allCases)
    func commentTextReachesTheExtensionAndTheAppGetsTheWholeResponse(_ isolation: IsolationMode) throws {
        let (status, value) = try tidings.json("deliver", invite, "--categories", categories, "--extensions", extensions.path,
                                                "--respond", "comment", "--text", "Count me in", "--isolation",
                                                isolation.option, "--json")
        let response = try #require((value as? [String: Any])?["response"] as? [String: Any])
        #expect(status == 0)
        #expect(response["option"] as? String == "dismissAndForwardAction")
        let forwarded = try #require((response["forwarded"] as? [[String: Any]])?.first)
        #expect(forwarded["app"] as? String == "com.example.events" && forwarded["actionIdentifier"] as? String == "comment")
        #expect(forwarded["userText"] as? String == "Count me in")
        // The whole notification, as UNNotificationResponse carries it.
        #expect(forwarded[path: "notification", "identifier"] as? String == "invite-offsite-2026")
        #expect(forwarded[path: "notification", "date"] as? String == "2026-11-21T09:30:00Z")
        #expect(forwarded[path: "notification", "categoryIdentifier"] as? String == "event-invite")
        #expect(forwarded[path: "notification", "threadIdentifier"] as? String == "offsite")
        #expect(forwarded[path: "notification", "userInfo", "location"] as? String == "Lighthouse, Pier 3")
        let log = try #require(response["log"] as? [[String: String]])
        #expect(log.first?["message"] == "forwarding a comment of 11 characters to the app")
    }

    @Test(arguments: IsolationMode.allCases)
    func aBackgroundNotificationIsHandedToTheAppNotShown(_ isolation: IsolationMode) throws {
        let payload = try extensions.write(#"{"aps": {"content-available": 1, "category": "event-invite"}, "sync": "calendar"}"#,
                                           to: "background.json")
        let arguments = ["deliver", payload, "--categories", categories, "--extensions", extensions.path,
                         "--isolation", isolation.option]
        let text = try tidings.run(arguments)
        #expect(text.status == 0, "\(text.standardError)")
        #expect(text.standardOutput.contains("Shown         no: a background notification"))
        #expect(text.standardOutput.contains(#""sync":"calendar"}"#), "\(text.standardOutput)")
        #expect(!text.standardOutput.contains("Presentation"))
        let json = try tidings.run(arguments + ["--json"])
        let output = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(output["display"] as? String == "background" && output["presentation"] == nil)
        #expect(output[path: "notification", "userInfo", "sync"] as? String == "calendar")
        let responding = try tidings.run(arguments + ["--respond", "default"])
        #expect(responding.status != 0 && responding.standardError.contains("not shown"))
    }

    @Test(arguments: IsolationMode.allCases)
    func aBadgeOnlyNotificationSetsTheBadgeAndAnAlertWithABadgeShowsToo(_ isolation: IsolationMode) throws {
        let badgeOnly = try extensions.write(#"{"aps": {"badge": 3, "category": "event-invite"}}"#, to: "badge.json")
        let (status, value) = try tidings.json("deliver", badgeOnly, "--categories", categories, "--extensions", extensions.path,
                                                "--isolation", isolation.option, "--json")
        let output = try #require(value as? [String: Any])
        #expect(status == 0)
        #expect(output["display"] as? String == "badge" && output["badge"] as? Int == 3 && output["presentation"] == nil)
        let text = try tidings.run("deliver", badgeOnly, "--categories", categories, "--extensions", extensions.path,
                                   "--isolation", isolation.option)
        #expect(text.standardOutput.contains("Badge         set to 3") && text.standardOutput.contains("badge-only"))

        let both = try extensions.write(#"{"aps": {"alert": {"title": "Offsite", "body": "Come"}, "badge": 4, "category": "event-invite"}, "title": "Offsite"}"#,
                                        to: "alert-badge.json")
        let (shownStatus, shownValue) = try tidings.json("deliver", both, "--categories", categories, "--extensions",
                                                          extensions.path, "--isolation", isolation.option, "--json")
        let shown = try #require(shownValue as? [String: Any])
        #expect(shownStatus == 0)
        #expect(shown["display"] as? String == "presented" && shown["badge"] as? Int == 4)
        #expect(shown[path: "presentation", "extension"] as? String == "com.example.events.invite")
    }

    @Test func apnsPayloadIsAccepted() throws {
        let payload = Locations.repositoryFile("Plugins/EventInvite/Payloads/invite-apns.json")
        let (status, value) = try tidings.json("deliver", payload, "--extensions", extensions.path, "--json", "--id", "book")
        let output = try #require(value as? [String: Any])
        #expect(status == 0)
        #expect(output[path: "notification", "identifier"] as? String == "book")
        #expect(output[path: "notification", "threadIdentifier"] as? String == "book-club")
        #expect(output[path: "notification", "userInfo", "location"] as? String == "Library, room 2")
        #expect(output[path: "presentation", "app"] as? String == "com.example.events")  // the only app serving the category
    }

    @Test func unknownActionIsAnInputError() throws {
        let result = try tidings.run("deliver", invite, "--categories", categories, "--extensions", extensions.path,
                                     "--respond", "acept")
        #expect(result.status == 65)
        #expect(result.standardError.contains("did you mean \"accept\"?"))
        #expect(result.standardError.contains("[response.unknown-action]"))
    }

    @Test func missingPayloadIsNoInput() throws {
        let result = try tidings.run("deliver", "/nonexistent/payload.json", "--extensions", extensions.path)
        #expect(result.status == 66)
        #expect(result.standardError.contains("[file.not-found]"))
    }

    @Test func anUnreadableAlertLeavingNothingIsRefusedAsEmptyWithItsPlace() throws {
        let directory = TemporaryDirectory("payloads")
        let payload = try directory.write("{\"aps\": {\"alert\": 5, \"mutable_content\": 1}}", to: "bad.json")
        let result = try tidings.run("deliver", payload, "--extensions", extensions.path, "--app", "com.example.events")
        #expect(result.status == 65)
        #expect(result.standardError.contains("bad.json /aps/alert: warning: \"alert\" must be a string (the body) or a dictionary"))
        #expect(result.standardError.contains("bad.json /aps: error: The payload's \"aps\" has no alert, sound, badge or content-available"))
    }

    @Test func brokenExtensionExitsWithExtensionFailureAfterShowingDefaultContent() throws {
        try BrokenLibrary.notELF.make(in: extensions.path)
        try BundleMaker.make("Broken", in: extensions.path, manifest: BundleMaker.contentManifest(
            identifier: "com.example.events.broken", executable: "libnot-elf.so", categories: ["broken"]),
            library: extensions.file("libnot-elf.so"))
        let directory = TemporaryDirectory("payloads")
        let payload = try directory.write("{\"aps\": {\"alert\": {\"title\": \"T\", \"body\": \"Shown anyway\"}, \"category\": \"broken\"}}",
                                          to: "broken.json")
        let result = try tidings.run("deliver", payload, "--extensions", extensions.path, "--open")
        #expect(result.status == 69)
        #expect(result.standardOutput.contains("Body          Shown anyway"))
        #expect(result.standardOutput.contains("[load.not-elf]"))
    }

    @Test func usageErrors() throws {
        #expect(try tidings.run("deliver").status == 64)
        #expect(try tidings.run("deliver", invite, "--text", "x").status == 64)
        #expect(try tidings.run("deliver", invite, "--width", "-3").status == 64)
        let misspelt = try tidings.run("deliver", invite, "--respnd", "x")
        #expect(misspelt.status == 64)
        #expect(misspelt.standardError.contains("did you mean --respond?"))
    }

    /// `--deadline` of deliver and serve: seconds greater than 0, at most a
    /// day, 10 by default for deliver (a person waits at a terminal), 120 for serve; anything else is a usage error saying so.
    @Test func theResponseDeadlineIsValidated() throws {
        for command in [["deliver", invite], ["serve", "--stdio"]] {
            for (given, said) in [("0", "greater than 0"), ("-1", "greater than 0"), ("soon", "greater than 0"),
                                  ("inf", "greater than 0"), ("86401", "at most 86400 seconds")] {
                let result = try tidings.run(command + ["--deadline", given])
                #expect(result.status == 64, "\(command[0]) --deadline \(given)")
                #expect(result.standardError.contains("--deadline must be") && result.standardError.contains(said),
                        "\(command[0]) --deadline \(given): \(result.standardError)")
            }
            let help = try tidings.run([command[0], "--help"])
            #expect(help.standardOutput.contains("--deadline SECONDS"))
            #expect(help.standardOutput.contains(command[0] == "serve" ? "default 120" : "default 10,"), "\(help.standardOutput)")
            #expect(help.standardOutput.contains("no fault"))
        }
    }

    /// The counts that 0 turns off (`--spin`, `--warm-workers`) take 0, as
    /// their help calls it the default or "off"; below 0 is a usage error.
    @Test func countsThatZeroTurnsOffTakeZero() throws {
        let served = try tidings.run(["serve", "--stdio", "--isolation", "in-process", "--spin", "0", "--warm-workers", "0"],
                                     environment: ["XDG_STATE_HOME": tidings.home.file("state"),
                                                   "XDG_CACHE_HOME": tidings.home.file("cache")], deadline: 60)
        #expect(served.status == 0, "\(served.standardError)")
        let negative = try tidings.run(["serve", "--stdio", "--spin", "-1"])
        #expect(negative.status == 64 && negative.standardError.contains("--spin must be"), "\(negative.standardError)")
    }
}
