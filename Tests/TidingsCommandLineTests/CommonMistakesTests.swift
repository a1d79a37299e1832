import Foundation
import TestSupport
import Testing

/// The five mistakes authors make most, each on a real built extension (the
/// Faulty C fixture): every tool that can see it gives the same verdict —
/// the same codes at the same severities, the same failure — and names the fix.
@Suite struct CommonMistakesTests {
    let tidings = Tidings()
    let scratch = TemporaryDirectory("mistakes")

    /// The files of an extension to install: manifest, library, interface file.
    struct Files {
        var manifest: String
        var library: String
        var interface: String
        var all: [String] { [manifest, library, interface] }
    }

    static let app = "com.example.mistake"
    static let goodInterface = """
        {"version": 1, "root": {"type": "stack", "children": [{"type": "label", "id": "state"}, {"type": "label", "id": "count"}]}}
        """

    /// The Faulty fixture built with `flags`, a manifest serving `category`, and `interface`.
    func make(_ name: String, flags: [String] = [], category: String = "chat", categoryKey: String = "UNNotificationExtensionCategory",
              interface: String = goodInterface, identifier: String? = nil) throws -> Files {
        let directory = scratch.file("inputs-\(name)")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let library = try CCompiler.fixture("Faulty", into: directory, output: "libMistake.so", extraFlags: flags)
        let manifest = BundleMaker.contentManifest(identifier: identifier ?? "\(Self.app).\(name.lowercased())", executable: "libMistake.so",
                                                   categories: [category], interface: "MainInterface")
            .replacing("<key>UNNotificationExtensionCategory</key>", with: "<key>\(categoryKey)</key>")
        let manifestPath = try scratch.write(manifest, to: "inputs-\(name)/Mistake.plist")
        let interfacePath = try scratch.write(interface, to: "inputs-\(name)/MainInterface.json")
        return Files(manifest: manifestPath, library: library, interface: interfacePath)
    }

    /// "severity code" of every diagnostic in text output ("…: error: … [code]").
    static func verdicts(inText text: String) -> Set<String> {
        var found: Set<String> = []
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasSuffix("]"), let open = trimmed.lastIndex(of: "[") else { continue }
            let code = trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)]
            let severities = ["error", "warning", "note"].compactMap { word in line.firstRange(of: "\(word): ").map { (word, $0.lowerBound) } }
            guard code.contains("."), let severity = severities.min(by: { $0.1 < $1.1 })?.0 else { continue }
            found.insert("\(severity) \(code)")
        }
        return found
    }

    /// "severity code" of every diagnostic in JSON output, wherever it sits.
    static func verdicts(inJSON text: String) throws -> Set<String> {
        var found: Set<String> = []
        func visit(_ value: Any) {
            if let object = value as? [String: Any] {
                if let code = object["code"] as? String, let severity = object["severity"] as? String { found.insert("\(severity) \(code)") }
                object.values.forEach(visit)
            } else if let array = value as? [Any] {
                array.forEach(visit)
            }
        }
        visit(try JSONSerialization.jsonObject(with: Data(text.utf8)))
        return found
    }

    /// The verdicts on files a bundle on disk holds (not what running it showed).
    static func fileVerdicts(_ verdicts: Set<String>) -> Set<String> {
        verdicts.filter { ["manifest.", "interface.", "bundle.", "load.", "plist.", "json.", "strings.", "registry."].contains(where: $0.split(separator: " ")[1].hasPrefix) }
    }

    /// Installs (forced), then asks every tool: the verdicts of install, list, manifest lint, validate's file checks
    /// and deliver --explain, and their exit statuses.
    func everyVerdict(_ files: Files, name: String, payload: String? = nil) throws -> [String: (status: Int32, verdicts: Set<String>, output: String)] {
        let extensions = scratch.file("extensions-\(name)")
        var results: [String: (Int32, Set<String>, String)] = [:]
        let refused = try tidings.run(["install"] + files.all + ["--into", extensions, "--json"])
        results["install"] = (refused.status, Self.verdicts(inText: refused.standardError).union(
            (try? Self.verdicts(inJSON: refused.standardOutput)) ?? []), refused.standardError + refused.standardOutput)
        if refused.status != 0 { #expect(try tidings.run(["install"] + files.all + ["--into", extensions, "--force"]).status == 0) }
        let bundle = extensions + "/Mistake.appex"
        let list = try tidings.run("list", "--extensions", extensions, "--json")
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(list.standardOutput.utf8)) as? [String: Any])
        let ours = (listed["bundles"] as? [[String: Any]])?.first { ($0["path"] as? String)?.hasSuffix("/Mistake.appex") == true }
        let listText = String(data: try JSONSerialization.data(withJSONObject: ours ?? [:]), encoding: .utf8)!
        results["list"] = (list.status, try Self.verdicts(inJSON: listText), listText)
        let lint = try tidings.run("manifest", "lint", bundle, "--json")
        results["manifest lint"] = (lint.status, try Self.verdicts(inJSON: lint.standardOutput), lint.standardOutput)
        let validate = try tidings.run("validate", bundle, "--json", "--check", "manifest,interface,library,registry")
        results["validate"] = (validate.status, try Self.verdicts(inJSON: validate.standardOutput), validate.standardOutput)
        let sent = try payload ?? scratch.write(#"{"aps": {"alert": {"title": "t", "body": "b"}, "category": "chat"}}"#,
                                                to: "payload-\(name).json")
        let explained = try tidings.run("deliver", sent, "--app", Self.app, "--extensions", extensions, "--explain",
                                        "--isolation", "in-process")
        // Only the Bundles section: the delivery's own notes are about the notification, not the bundle.
        let section = explained.standardOutput.components(separatedBy: "Bundles").dropFirst().joined().split(separator: "\n")
        let block = section.drop { !$0.hasPrefix("    Mistake.appex") }.dropFirst().prefix { $0.hasPrefix("      ") }
        results["deliver --explain"] = (explained.status, Self.verdicts(inText: block.joined(separator: "\n")), explained.standardOutput)
        return results
    }

    /// Every tool gave `expected` (file verdicts), and each names `fix`.
    func expectAgreement(_ results: [String: (status: Int32, verdicts: Set<String>, output: String)], _ expected: Set<String>,
                         fix: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for (tool, result) in results.sorted(by: { $0.key < $1.key }) {
            #expect(Self.fileVerdicts(result.verdicts) == expected, "\(tool): \(result.output)", sourceLocation: sourceLocation)
            #expect(result.output.contains(fix), "\(tool) names no fix: \(result.output)", sourceLocation: sourceLocation)
        }
    }

    @Test func aMisspeltCategoryKey() throws {
        let files = try make("Key", categoryKey: "UNNotificationExtensionCategroy")
        let results = try everyVerdict(files, name: "key")
        expectAgreement(results, ["error manifest.category-missing", "warning manifest.unknown-attribute"],
                        fix: "did you mean UNNotificationExtensionCategory?")
        // Refused by install, failed by lint and validate: one verdict, one failure.
        for tool in ["install", "manifest lint", "validate"] { #expect(results[tool]?.status == 65, "\(tool)") }
    }

    @Test func aWrongEntrySymbol() throws {
        let files = try make("Entry", flags: ["-Dtidings_extension_entry=tidings_extention_entry"])
        let results = try everyVerdict(files, name: "entry")
        // The fix: the library's exported tidings_ symbol, and the name it should have.
        expectAgreement(results, ["error load.entry-missing"], fix: "it exports tidings_extention_entry. Did you mean tidings_extension_entry?")
        for tool in ["install", "manifest lint", "validate"] { #expect(results[tool]?.status == 65, "\(tool)") }
    }

    @Test func anOlderBundleOfTheSameCategoryShadowsTheNewOne() throws {
        // The older one, installed first under a name that sorts first, serves; the new one is shadowed.
        let older = try make("Older", identifier: "\(Self.app).older")
        let extensions = scratch.file("extensions-shadowing")
        #expect(try tidings.run(["install"] + older.all + ["--into", extensions, "--name", "Aardvark"]).status == 0)
        let results = try everyVerdict(try make("Newer"), name: "shadowing")
        expectAgreement(results, ["warning registry.category-conflict"], fix: "the first serves it")
        // Warnings fail nothing: install installs, lint and validate pass, but each says which serves.
        for tool in ["install", "manifest lint", "validate"] { #expect(results[tool]?.status == 0, "\(tool)") }
        // The one that serves is told what it shadows, by every tool too.
        let lint = try tidings.run("manifest", "lint", extensions + "/Aardvark.appex", "--json")
        #expect(try Self.verdicts(inJSON: lint.standardOutput) == ["note registry.category-conflict"])
        #expect(lint.standardOutput.contains("claims it too and is shadowed"))
        let validate = try tidings.run("validate", extensions + "/Aardvark.appex", "--json", "--check", "registry")
        #expect(try Self.verdicts(inJSON: validate.standardOutput) == ["note registry.category-conflict"])
        let list = try tidings.run("list", "--extensions", extensions)
        #expect(list.standardOutput.contains("claims it too and is shadowed"))
    }

    @Test func aCategoryInAnotherCaseThanThePayloads() throws {
        let files = try make("Case", category: "chat")
        let extensions = scratch.file("extensions-case")
        #expect(try tidings.run(["install"] + files.all + ["--into", extensions]).status == 0)
        let bundle = extensions + "/Mistake.appex"
        let payload = try scratch.write(#"{"aps": {"alert": {"title": "t", "body": "b"}, "category": "Chat"}}"#, to: "payload-case.json")
        let categories = try scratch.write(#"{"app": "com.example.mistake", "categories": [{"identifier": "Chat"}]}"#,
                                           to: "categories-case.json")
        // deliver says so, with its did-you-mean ...
        let delivered = try tidings.run("deliver", payload, "--app", Self.app, "--extensions", extensions, "--explain",
                                        "--isolation", "in-process")
        #expect(delivered.standardOutput.contains("did you mean \"chat\""), "\(delivered.standardOutput)")
        // ... and so does validate, from the payload or the categories file, naming the file, the key path and the fix.
        for given in [["--payload", payload], ["--categories", categories]] {
            let validate = try tidings.run(["validate", bundle, "--json", "--check", "categories"] + given)
            #expect(validate.status == 65, "\(validate.standardOutput)")
            #expect(try Self.verdicts(inJSON: validate.standardOutput) == ["error route.no-extension"])
            #expect(validate.standardOutput.contains("did you mean \\\"chat\\\"? (Categories match exactly, case included.)"),
                    "\(validate.standardOutput)")
            #expect(validate.standardOutput.contains(given[1]))
        }
        // What reads the bundle alone cannot know the payload: they agree that the bundle itself is sound.
        let results = try everyVerdict(files, name: "case", payload: payload)
        for (tool, result) in results { #expect(Self.fileVerdicts(result.verdicts).isEmpty, "\(tool): \(result.output)") }
    }

    @Test func aMissingCompletion() throws {
        let files = try make("Completion", flags: ["-DFAULT_COMPLETION_NEVER"])
        let extensions = scratch.file("extensions-completion")
        #expect(try tidings.run(["install"] + files.all + ["--into", extensions]).status == 0)
        let bundle = extensions + "/Mistake.appex"
        let validate = try tidings.run("validate", bundle, "--json", "--check", "responses", "--deadline", "1")
        #expect(validate.status == 65)
        #expect(try Self.verdicts(inJSON: validate.standardOutput).contains("error response.completion-timeout"))
        let payload = try scratch.write(#"{"content": {"title": "t", "body": "b", "categoryIdentifier": "chat"}}"#,
                                        to: "payload-completion.json")
        let categories = try scratch.write(#"{"app": "com.example.mistake", "categories": [{"identifier": "chat", "actions": [{"identifier": "reply", "title": "Reply"}]}]}"#,
                                           to: "categories-completion.json")
        // deliver says what it waits for while it waits: the extension, the call, the deadline and the option.
        let log = scratch.file("deliver-completion.log")
        let deliver = try BackgroundProcess(Locations.product("tidings"), [
            "deliver", payload, "--categories", categories, "--extensions", extensions, "--respond", "reply", "--verbose",
        ], environment: ["HOME": tidings.home.path, "XDG_DATA_HOME": tidings.home.file("data"),
                         "XDG_DATA_DIRS": tidings.home.file("system"), "NO_COLOR": "1"], log: log)
        #expect(BackgroundProcess.wait(for: "not called when its didReceive returned", inFile: log))
        #expect(BackgroundProcess.wait(for: "(--deadline SECONDS changes it)…\n", inFile: log))
        let said = try String(contentsOfFile: log, encoding: .utf8)
        #expect(said.contains("Waiting for com.example.mistake.completion: didReceive of response \"reply\", 10 s until the deadline"), "\(said)")
        #expect(said.contains("Waiting for com.example.mistake.completion: its completion of response \"reply\" (complete_response), not called when its didReceive returned, "),
                "\(said)")
        // Then it fails on its own, within deliver's deadline, with the diagnostic validate gave.
        #expect(deliver.waitUntilExit())
        let ended = try String(contentsOfFile: log, encoding: .utf8)
        #expect(ended.contains("did not complete the response within 10 s (--deadline)"), "\(ended)")
        #expect(ended.contains("[response.completion-timeout]"), "\(ended)")
    }

    /// On a terminal (a pseudo-terminal made by util-linux's script), deliver says what it waits for without --verbose.
    @Test func aMissingCompletionOnATerminal() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            Issue.record("SKIPPED: /usr/bin/script (util-linux) is missing, so no terminal can be given to tidings deliver")
            return
        }
        let files = try make("Terminal", flags: ["-DFAULT_COMPLETION_NEVER"])
        let extensions = scratch.file("extensions-terminal")
        #expect(try tidings.run(["install"] + files.all + ["--into", extensions]).status == 0)
        let payload = try scratch.write(#"{"content": {"title": "t", "body": "b", "categoryIdentifier": "chat"}}"#,
                                        to: "payload-terminal.json")
        let categories = try scratch.write(#"{"app": "com.example.mistake", "categories": [{"identifier": "chat", "actions": [{"identifier": "reply", "title": "Reply"}]}]}"#,
                                           to: "categories-terminal.json")
        let command = [Locations.product("tidings"), "deliver", payload, "--categories", categories, "--extensions", extensions,
                       "--respond", "reply"].map { "'\($0)'" }.joined(separator: " ")
        let log = scratch.file("deliver-terminal.log")
        let deliver = try BackgroundProcess("/usr/bin/script", ["-qfec", command, "/dev/null"],
                                            environment: ["HOME": tidings.home.path, "XDG_DATA_HOME": tidings.home.file("data"),
                                                          "XDG_DATA_DIRS": tidings.home.file("system"), "NO_COLOR": "1",
                                                          "TERM": "xterm"], log: log)
        #expect(BackgroundProcess.wait(for: "not called when its didReceive returned", inFile: log),
                "\((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        #expect(try String(contentsOfFile: log, encoding: .utf8).contains("(--deadline SECONDS changes it)"))
        deliver.stop(with: SIGKILL)
    }

    @Test func aViewElementThatLostItsIdentifier() throws {
        let lost = """
            {"version": 1, "root": {"type": "stack", "children": [{"type": "label", "text": "Waiting"}, {"type": "label", "id": "count"}]}}
            """
        let files = try make("Identifier", interface: lost)
        let extensions = scratch.file("extensions-identifier")
        #expect(try tidings.run(["install"] + files.all + ["--into", extensions]).status == 0)
        let bundle = extensions + "/Mistake.appex"
        let validate = try tidings.run("validate", bundle, "--json", "--check", "notifications")
        #expect(validate.status == 0)
        #expect(try Self.verdicts(inJSON: validate.standardOutput) == ["warning view.no-such-element"])
        // It names the interface file, the element without an id, and the fix.
        for part in ["MainInterface.json", "root.children.0 (a label, text \\\"Waiting\\\")", "Add \\\"id\\\": \\\"state\\\" to it"] {
            #expect(validate.standardOutput.contains(part), "\(part): \(validate.standardOutput)")
        }
        // --strict fails on it.
        let strict = try tidings.run("validate", bundle, "--json", "--check", "notifications", "--strict")
        #expect(strict.status == 65)
        // deliver, opening the view, sees the same warning.
        let payload = try scratch.write(#"{"content": {"title": "t", "body": "b", "categoryIdentifier": "chat"}}"#,
                                        to: "payload-identifier.json")
        let opened = try tidings.run("deliver", payload, "--app", Self.app, "--extensions", extensions, "--open", "--json")
        #expect(opened.standardOutput.contains("view.no-such-element"))
    }
}
