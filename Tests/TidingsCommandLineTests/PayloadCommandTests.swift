import Foundation
import TestSupport
import Testing

/// `tidings deliver` reading payload files: the APNs size limit, malformed
/// payloads, `*-loc-key` text from the app's bundles, and attachment files
/// taken into the store.
@Suite struct PayloadCommandTests {
    let tidings = Tidings()
    let payloads = TemporaryDirectory("cli-payloads")
    let extensions = TemporaryDirectory("cli-extensions")
    /// The app the payloads are addressed to; no extension serves it.
    let app = "com.example.payloads"

    /// The attachment store under the test's HOME ($XDG_STATE_HOME is not set).
    var store: String { tidings.home.file(".local/state/tidings/attachments") }

    /// Runs `tidings deliver PAYLOAD` for the app, over the test's extensions, with `options`.
    func deliver(_ payload: String, _ options: String...) throws -> ProcessResult {
        try tidings.run(["deliver", payload, "--app", app, "--extensions", extensions.path] + options)
    }

    /// An APNs payload of exactly `size` bytes as sent (compact), padded
    /// with a custom key, laid out with whitespace (which does not count).
    func apnsText(size: Int) -> String {
        let compact = #"{"aps":{"alert":"Big"},"padding":""}"#
        let padding = String(repeating: "x", count: size - compact.utf8.count)
        return "{\"aps\": {\"alert\": \"Big\"},\n \"padding\": \"\(padding)\"}\n"
    }

    /// Writes `apnsText(size:)` to a file, longer than `size` bytes by its whitespace.
    func apnsPayload(size: Int) throws -> String {
        let path = try payloads.write(apnsText(size: size), to: "apns-\(size).json")
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0 > size)
        return path
    }

    /// The files in the attachment store.
    func stored() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: store)) ?? []).sorted()
    }

    /// Copies the sample PNG beside the payloads as `name` and returns its path.
    @discardableResult
    func png(named name: String = "lighthouse.png") throws -> String {
        let destination = payloads.file(name)
        try FileManager.default.copyItem(atPath: Locations.repositoryFile("Plugins/EventInvite/Payloads/lighthouse.png"),
                                         toPath: destination)
        return destination
    }

    /// Writes a request attaching `path` (relative to the payload) as "photo".
    func attaching(_ path: String, to name: String = "photo.json") throws -> String {
        try payloads.write(#"""
            {"identifier": "with-photo", "content": {"title": "Photo",
              "attachments": [{"identifier": "photo", "path": "\#(path)"}]}}
            """#, to: name)
    }

    // MARK: Size

    @Test func apnsPayloadOverTheLimitIsRefused() throws {
        let result = try deliver(try apnsPayload(size: 4097))
        #expect(result.status == 65)
        #expect(result.standardError.contains("[payload.too-large]"))
        #expect(result.standardError.contains("The payload is 4097 bytes as sent (its compact JSON); APNs accepts at most 4096"))
        #expect(result.standardError.contains("--max-payload-size"))
        #expect(result.standardOutput.isEmpty)
    }

    @Test func apnsPayloadAtTheLimitIsAccepted() throws {
        let result = try deliver(try apnsPayload(size: 4096))
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("Body          Big"))
    }

    /// The one measure: `tidings deliver` (the file, with its whitespace)
    /// and `tidings serve` (the same payload in a JSON-RPC message) accept
    /// the payload of 4096 bytes as sent and refuse the one of 4097.
    @Test func theCommandLineAndTheServerAcceptAndRefuseAlike() throws {
        let state = TemporaryDirectory("cli-state")
        for (size, accepted) in [(4096, true), (4097, false)] {
            let cli = try deliver(try apnsPayload(size: size))
            #expect((cli.status == 0) == accepted, "deliver, \(size) bytes: \(cli.standardError)")
            let call = #"{"jsonrpc": "2.0", "id": 1, "method": "notifications.deliver", "params": {"app": "\#(app)", "payload": "#
                + apnsText(size: size).replacingOccurrences(of: "\n", with: " ") + "}}\n"
            let input = try payloads.write(call, to: "call-\(size).jsonl")
            let command = ([Locations.product("tidings"), "serve", "--stdio", "--isolation", "in-process",
                            "--state", state.path, "--extensions", extensions.path]).map { "'\($0)'" }.joined(separator: " ")
            let server = try ProcessRunner.run("/bin/sh", ["-c", "\(command) < '\(input)'"],
                                               environment: ["HOME": tidings.home.path, "NO_COLOR": "1"])
            let answer = try JSONSerialization.jsonObject(with: Data(server.standardOutput.utf8)) as? [String: Any]
            #expect((answer?["result"] != nil) == accepted, "serve, \(size) bytes: \(server.standardOutput)")
            if !accepted {
                #expect(server.standardOutput.contains("payload.too-large"), "\(server.standardOutput)")
            }
        }
    }

    @Test func maxPayloadSizeRaisesTheLimit() throws {
        let accepted = try deliver(try apnsPayload(size: 4097), "--max-payload-size", "5120")
        #expect(accepted.status == 0, "\(accepted.standardError)")
        let refused = try deliver(try apnsPayload(size: 5121), "--max-payload-size", "5120")
        #expect(refused.status == 65)
        #expect(refused.standardError.contains("The payload is 5121 bytes as sent (its compact JSON); APNs accepts at most 5120"))
    }

    @Test func maxPayloadSizeCanAlsoLowerTheLimit() throws {
        let result = try deliver(try apnsPayload(size: 200), "--max-payload-size", "199")
        #expect(result.status == 65)
        #expect(result.standardError.contains("[payload.too-large]"))
    }

    @Test(arguments: ["0", "-1", "0.5", "4096.5", "lots", "nan", "inf"])
    func maxPayloadSizeMustBeAWholeNumberOfBytes(size: String) throws {
        let result = try deliver(try apnsPayload(size: 100), "--max-payload-size", size)
        #expect(result.status == 64, "\(result.standardError)")
        #expect(result.standardError.contains("--max-payload-size must be"))
    }

    @Test func hugeMaxPayloadSizeMeansAnyPayloadThatCanBeRead() throws {
        let result = try deliver(try apnsPayload(size: 6000), "--max-payload-size", "1e300")
        #expect(result.status == 0, "\(result.standardError)")
    }

    @Test func requestPayloadIsNotSubjectToTheAPNsLimit() throws {
        let body = String(repeating: "y", count: 6000)
        let payload = try payloads.write(#"{"identifier": "long", "content": {"body": "\#(body)"}}"#, to: "long.json")
        let result = try deliver(payload, "--max-payload-size", "100", "--json")
        #expect(result.status == 0, "\(result.standardError)")
        let output = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        #expect((output?[path: "notification", "body"] as? String)?.count == 6000)
    }

    // MARK: Malformed payloads

    @Test func unreadableApsFieldsAreIgnoredWithAWarningEachAndTheAlertShown() throws {
        let payload = try payloads.write(#"{"aps": {"badge": "3", "alert": {"title": 5, "body": "Lunch?"}, "interruption-level": "loud"}}"#,
                                         to: "malformed.json")
        let result = try deliver(payload)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("Lunch?"))
        #expect(result.standardOutput.contains(
            "malformed.json /aps/alert/title: warning: \"title\" must be a string; it is a number. A device ignores the field and delivers the rest of the notification, and so does Tidings."))
        #expect(result.standardOutput.contains("malformed.json /aps/badge: warning: \"badge\" must be an integer"))
        #expect(result.standardOutput.contains("malformed.json /aps/interruption-level: warning:"))
        #expect(result.standardOutput.contains("[payload.field-ignored]"))
        #expect(!result.standardOutput.contains("error:"))
    }

    @Test func aStringBadgeShowsTheAlertWithAWarningLine() throws {
        let result = try deliver(try payloads.write(#"{"aps": {"alert": "Hi", "badge": "3"}}"#, to: "badge.json"), "--json")
        #expect(result.status == 0, "\(result.standardError)")
        let output = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        #expect(output?["display"] as? String == "presented")
        #expect(output?["badge"] == nil)
        #expect((output?[path: "notification", "body"] as? String) == "Hi")
        let diagnostics = output?["diagnostics"] as? [[String: Any]] ?? []
        #expect(diagnostics.contains { $0["code"] as? String == "payload.field-ignored" && $0["path"] as? String == "/aps/badge"
            && $0["severity"] as? String == "warning" }, "\(diagnostics)")
    }

    @Test(arguments: [#"{"aps": {}}"#, #"{"aps": {"badge": "3"}}"#, #"{"content": {"title": ""}}"#])
    func anEmptyNotificationIsRefusedWithApplesNoContentError(payload: String) throws {
        let result = try deliver(try payloads.write(payload, to: "empty.json"))
        #expect(result.status == 65)
        #expect(result.standardError.contains("Apple's error 1401, UNErrorCodeNotificationInvalidNoContent"))
        #expect(result.standardError.contains("[notification.no-content]"))
        #expect(result.standardOutput.isEmpty)
    }

    @Test func aForegroundActionOpensTheAppAndAllowAnnouncementIsWarnedAsDeprecated() throws {
        let categories = try payloads.write(#"""
            {"app": "com.example.payloads", "categories": [{"identifier": "chat", "options": ["allowAnnouncement"],
              "actions": [{"identifier": "open", "title": "Open", "options": ["foreground"]}, {"identifier": "mute", "title": "Mute"}]}]}
            """#, to: "categories.json")
        let payload = try payloads.write(#"{"aps": {"alert": "Hi", "category": "chat"}}"#, to: "chat.json")
        let opened = try deliver(payload, "--categories", categories, "--respond", "open")
        #expect(opened.status == 0, "\(opened.standardError)")
        #expect(opened.standardOutput.contains("received open on"))
        #expect(opened.standardOutput.contains(", brought to the foreground"))
        #expect((opened.standardOutput + opened.standardError).contains("[categories.deprecated-option]"))
        let muted = try deliver(payload, "--categories", categories, "--respond", "mute")
        #expect(muted.status == 0, "\(muted.standardError)")
        #expect(muted.standardOutput.contains("received mute on"))
        #expect(!muted.standardOutput.contains("brought to the foreground"))
    }

    @Test func apsThatIsNotAnObjectIsAnInputError() throws {
        let result = try deliver(try payloads.write(#"{"aps": ["alert"]}"#, to: "array.json"))
        #expect(result.status == 65)
        #expect(result.standardError.contains("array.json /aps: error: \"aps\" must be an object; it is an array."))
    }

    @Test func payloadOfNeitherFormIsAnInputError() throws {
        let result = try deliver(try payloads.write(#"{"alert": "Hello"}"#, to: "neither.json"))
        #expect(result.status == 65)
        #expect(result.standardError.contains("[payload.unrecognized]"))
    }

    @Test func payloadThatIsNotJSONIsAnInputError() throws {
        let result = try deliver(try payloads.write(#"{"aps": {"alert": "unfinished"#, to: "broken.json"))
        #expect(result.status == 65)
        #expect(result.standardError.contains("broken.json"))
        #expect(!result.standardError.contains("Fatal error"))
    }

    @Test func misspeltKeyIsDeliveredWithAWarning() throws {
        let payload = try payloads.write(#"{"aps": {"alert": "Hi", "categroy": "x"}}"#, to: "misspelt.json")
        let result = try deliver(payload)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("did you mean \"category\"?"))
    }

    // MARK: Localization

    /// Installs a content extension of com.example.greeter for category
    /// "greeting" whose bundle carries `strings` as Localizable.strings.
    func installGreeter(strings: String) throws {
        let file = try payloads.write(strings, to: "strings/Localizable.strings")
        try BundleMaker.make("Greeter", in: extensions.path, manifest: BundleMaker.contentManifest(
            identifier: "com.example.greeter.content", executable: "libNoOp.so", categories: ["greeting"]),
            library: Locations.product("libNoOp.so"), resources: [file])
    }

    /// A greeting payload whose alert is all localization keys.
    func greeting() throws -> String {
        try payloads.write(#"""
            {"aps": {"category": "greeting", "alert": {
              "title-loc-key": "GREETING_TITLE", "subtitle-loc-key": "NOT_IN_THE_TABLE",
              "loc-key": "GREETING_BODY", "loc-args": ["Ann", "Pier 3"]}}}
            """#, to: "greeting.json")
    }

    @Test func locKeysAreLookedUpInTheAppsBundleStrings() throws {
        try installGreeter(strings: """
            /* The greeting's title. */
            "GREETING_TITLE" = "Hello";
            "GREETING_BODY" = "%1$@ waits for you at %2$@ (100%%)";
            """)
        let (status, value) = try tidings.json("deliver", try greeting(), "--extensions", extensions.path, "--json")
        let output = try #require(value as? [String: Any])
        #expect(status == 0)
        #expect(output[path: "presentation", "app"] as? String == "com.example.greeter")
        #expect(output[path: "notification", "title"] as? String == "Hello")
        #expect(output[path: "notification", "subtitle"] as? String == "NOT_IN_THE_TABLE")
        #expect(output[path: "notification", "body"] as? String == "Ann waits for you at Pier 3 (100%)")
    }

    @Test func locKeysStandForThemselvesForAnAppWithoutStrings() throws {
        let (status, value) = try tidings.json("deliver", try greeting(), "--app", app, "--extensions", extensions.path,
                                                "--json")
        let output = try #require(value as? [String: Any])
        #expect(status == 0)
        #expect(output[path: "notification", "title"] as? String == "GREETING_TITLE")
        #expect(output[path: "notification", "body"] as? String == "GREETING_BODY")
    }

    @Test func brokenStringsFileIsNotedAndTheKeysStandForThemselves() throws {
        try installGreeter(strings: "\"GREETING_TITLE\" = \"Hello\"\n\"GREETING_BODY\" = \"x\";\n")
        let result = try tidings.run("deliver", try greeting(), "--extensions", extensions.path)
        // The notification is shown untranslated; a broken table is a warning, not a failure.
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("Title         GREETING_TITLE"))
        #expect(result.standardOutput.contains(
            "Localizable.strings:1: warning: Expected ';' after the value of \"GREETING_TITLE\". Its keys stand for themselves. [strings.syntax]"))
    }

    // MARK: Attachments

    @Test func attachmentIsCopiedIntoTheStoreLeavingTheSource() throws {
        let source = try png()
        let result = try deliver(try attaching("lighthouse.png"))
        #expect(result.status == 0, "\(result.standardError)")
        #expect(FileManager.default.fileExists(atPath: source))
        let files = stored()
        #expect(files.count == 1)
        #expect(files.first?.hasSuffix(".png") == true)
        let copy = FileManager.default.contents(atPath: store + "/" + (files.first ?? ""))
        #expect(copy != nil && copy == FileManager.default.contents(atPath: source))
        #expect(result.standardOutput.contains("Attachment    photo  PNG image"))
    }

    @Test func moveAttachmentsTakesTheSourceAway() throws {
        let source = try png()
        let original = FileManager.default.contents(atPath: source)
        let result = try deliver(try attaching("lighthouse.png"), "--move-attachments")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: source))
        let files = stored()
        #expect(files.count == 1)
        #expect(original != nil && FileManager.default.contents(atPath: store + "/" + (files.first ?? "")) == original)
    }

    @Test func textFileNamedLikeAnImageIsRefusedWithAppleError101() throws {
        let source = try payloads.write("Not a picture at all.\n", to: "photo.png")
        let result = try deliver(try attaching("photo.png"))
        #expect(result.status == 65)
        #expect(result.standardError.contains("photo.json /content/attachments/0: error:"))
        #expect(result.standardError.contains("101"))
        #expect(result.standardError.contains("[attachment.unrecognized-type]"))
        #expect(FileManager.default.fileExists(atPath: source))
        #expect(stored().isEmpty)
    }

    @Test func pathLeavingThePayloadsDirectoryIsRefusedWithAppleError100() throws {
        let outside = try png(named: "x.png")
        let payload = try attaching("../x.png", to: "inner/photo.json")
        let result = try deliver(payload)
        #expect(result.status == 65)
        #expect(result.standardError.contains("../x.png leaves the directory"))
        #expect(result.standardError.contains("100"))
        #expect(result.standardError.contains("[attachment.invalid-url]"))
        #expect(FileManager.default.fileExists(atPath: outside))
        #expect(stored().isEmpty)
    }

    @Test func oneBadAttachmentRefusesThemAll() throws {
        try png()
        try payloads.write("text", to: "notes.png")
        let payload = try payloads.write(#"""
            {"identifier": "two", "content": {"attachments": [
              {"identifier": "good", "path": "lighthouse.png"}, {"identifier": "bad", "path": "notes.png"}]}}
            """#, to: "two.json")
        let result = try deliver(payload, "--move-attachments")
        #expect(result.status == 65)
        #expect(result.standardError.contains("/content/attachments/1"))
        #expect(FileManager.default.fileExists(atPath: payloads.file("lighthouse.png")))
        #expect(stored().isEmpty)
    }

    @Test func httpAttachmentIsRefusedBeforeAnyFileIsTouched() throws {
        let payload = try payloads.write(#"""
            {"identifier": "remote", "content": {"attachments": [{"url": "https://example.com/a.png"}]}}
            """#, to: "remote.json")
        let result = try deliver(payload)
        #expect(result.status == 65)
        #expect(result.standardError.contains("remote.json /content/attachments/0/url: error:"))
        #expect(stored().isEmpty)
    }

    @Test func explainListsTheAttachmentStage() throws {
        let source = try png()
        let result = try deliver(try attaching("lighthouse.png"), "--explain")
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.components(separatedBy: "\n")
        let stage = try #require(lines.firstIndex { $0.trimmingCharacters(in: .whitespaces) == "Attachments" })
        let line = lines[stage + 1]
        #expect(line.hasPrefix("    photo: PNG image by its content, 192 bytes of at most 10 MB; copied from "))
        let from = try #require(line.range(of: "copied from "))
        let end = try #require(line.range(of: ", which stays there", options: .backwards))
        #expect(standardized(String(line[from.upperBound..<end.lowerBound])) == standardized(source))
        #expect(lines[stage + 2].trimmingCharacters(in: .whitespaces).hasPrefix("Service"))
    }

    @Test func explainSaysAMovedAttachmentWasCopiedInThenRemoved() throws {
        let source = try png()
        let result = try deliver(try attaching("lighthouse.png"), "--move-attachments", "--explain")
        #expect(result.status == 0, "\(result.standardError)")
        let line = result.standardOutput.components(separatedBy: "\n").first { $0.contains("photo: PNG image by its content") }
        #expect(line?.hasSuffix(" (copied in, then removed there)") == true, "\(line ?? result.standardOutput)")
        #expect(!FileManager.default.fileExists(atPath: source))
    }

    @Test func explainWithoutAttachmentsSaysSo() throws {
        let payload = try payloads.write(#"{"aps": {"alert": "Hi"}}"#, to: "plain.json")
        let result = try deliver(payload, "--explain")
        #expect(result.status == 0, "\(result.standardError)")
        let stage = result.standardOutput.components(separatedBy: "\n").first { $0.hasPrefix("  Attachments") }
        #expect(stage?.hasSuffix("The payload attaches no files.") == true)
    }

    @Test func jsonListsTheAdmittedAttachmentsWithSourceAndTransfer() throws {
        let source = try png()
        let (status, value) = try tidings.json("deliver", try attaching("lighthouse.png"), "--app", app,
                                                "--extensions", extensions.path, "--json")
        let output = try #require(value as? [String: Any])
        #expect(status == 0)
        let attachments = try #require(output["attachments"] as? [[String: Any]])
        #expect(attachments.count == 1)
        let attachment = try #require(attachments.first)
        #expect(attachment["identifier"] as? String == "photo")
        #expect(attachment["type"] as? String == "public.png")
        #expect(attachment["size"] as? Int == 192)
        #expect(attachment["transfer"] as? String == "copied")
        #expect(standardized(try #require(attachment["source"] as? String)) == standardized(source))
        let url = try #require(attachment["url"] as? String)
        #expect(standardized(String(url.dropFirst("file://".count))).hasPrefix(standardized(store) + "/"))
        // The notification carries the stored file, not the source.
        let carried = try #require(output[path: "notification", "attachments"] as? [[String: Any]])
        #expect(carried.first?["url"] as? String == url)
    }
}

/// `path` without `//`, `.` or `..` components, for comparing paths written differently.
private func standardized(_ path: String) -> String {
    URL(fileURLWithPath: path).standardizedFileURL.path
}
