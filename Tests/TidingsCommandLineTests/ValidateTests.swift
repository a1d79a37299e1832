import Foundation
import TestSupport
import Testing

/// `tidings validate`: every sample passes; every fault fixture fails, naming the check that caught it.
@Suite struct ValidateTests {
    let tidings = Tidings()
    let scratch = TemporaryDirectory("validate")

    /// The checks' verdicts by name, from `--json`, and the exit status.
    func validate(_ bundle: String, _ options: [String] = []) throws -> (status: Int32, verdicts: [String: String]) {
        let result = try tidings.run(["validate", bundle, "--json", "--deadline", "1", "--call-timeout", "2",
                                      "--service-deadline", "2"] + options)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any],
                                "\(result.standardError)")
        let checks = try #require(((json["bundles"] as? [[String: Any]])?.first?["checks"]) as? [[String: Any]])
        var verdicts: [String: String] = [:]
        for check in checks { verdicts[check["check"] as! String] = check["verdict"] as? String }
        return (result.status, verdicts)
    }

    @Test(arguments: ["EventInvite", "BuildStatus", "NoOp", "InviteService"])
    func everySamplePasses(_ sample: String) throws {
        let bundle = try BundleMaker.installSample(sample, in: scratch.file("samples-\(sample)"))
        let categories = sample == "EventInvite" ? ["--categories", Locations.repositoryFile("Plugins/EventInvite/Payloads/categories.json")] : []
        let (status, verdicts) = try validate(bundle, categories)
        #expect(status == 0)
        #expect(!verdicts.values.contains("fail"), "\(verdicts)")
        #expect(verdicts["load"] == "pass" && verdicts["output"] == "pass")
        // Cost only ever warns, and how long a call takes depends on the machine's load: its figures are no test.
        #expect(verdicts["cost"] == "pass" || verdicts["cost"] == "warn")
        #expect(verdicts[sample == "InviteService" ? "service" : "responses"] == "pass")
    }

    /// A fault fixture and the check that must catch it.
    struct Fault: CustomTestStringConvertible, Sendable {
        var fixture: String
        var flag: String
        var check: String
        var testDescription: String { "\(fixture) \(flag) → \(check)" }
    }

    static let faults: [Fault] = [
        Fault(fixture: "Broken", flag: "NO_ENTRY", check: "library"),
        Fault(fixture: "Broken", flag: "UNRESOLVED", check: "library"),
        Fault(fixture: "Broken", flag: "NULL_DESCRIPTOR", check: "load"),
        Fault(fixture: "Broken", flag: "UNDERSIZED", check: "load"),
        Fault(fixture: "Broken", flag: "ABI_VERSION=99", check: "load"),
        Fault(fixture: "Broken", flag: "INCOMPLETE", check: "load"),
        Fault(fixture: "Broken", flag: "CREATE_FAILS", check: "load"),
    ] + ["SEGV", "ABORT", "EXIT", "STACK_OVERFLOW", "LOOP", "MEMORY", "STOP_READING", "HANG"].map {
        Fault(fixture: "Faulty", flag: "FAULT_\($0)", check: "notifications")
    } + [Fault(fixture: "Faulty", flag: "FAULT_STDOUT", check: "output")]
      + ["NEVER", "TWICE", "INVALID"].map { Fault(fixture: "Faulty", flag: "FAULT_COMPLETION_\($0)", check: "responses") }

    @Test(arguments: faults)
    func everyFaultFixtureFailsItsCheck(_ fault: Fault) throws {
        let name = fault.flag.filter { $0.isLetter || $0.isNumber }
        let build = scratch.file("build-\(name)")
        try FileManager.default.createDirectory(atPath: build, withIntermediateDirectories: true)
        let library = try CCompiler.fixture(fault.fixture, into: build, output: "libFixture.so", extraFlags: ["-D\(fault.flag)"])
        let interface = try scratch.write("""
            {"version": 1, "root": {"type": "stack", "children": [{"type": "label", "id": "state"}, {"type": "label", "id": "count"}]}}
            """, to: "build-\(name)/MainInterface.json")
        let manifest = BundleMaker.contentManifest(identifier: "com.example.validate.\(name.lowercased())", executable: "libFixture.so",
                                                   categories: ["faulty"], interface: "MainInterface")
        let bundle = try BundleMaker.make(name, in: scratch.file("bundles"), manifest: manifest, library: library,
                                          resources: [interface])
        let (status, verdicts) = try validate(bundle)
        #expect(status == 65)
        #expect(verdicts[fault.check] == "fail", "\(verdicts)")
        // Checks before the one that catches it pass: the fault is named where it is.
        let order = ["manifest", "interface", "library", "load", "notifications"]
        for earlier in order.prefix { $0 != fault.check } where order.contains(fault.check) {
            #expect(verdicts[earlier] == "pass", "\(earlier): \(verdicts)")
        }
    }

    @Test func theSeedRepeatsTheRandomNotifications() throws {
        let bundle = try BundleMaker.installSample("NoOp", in: scratch.file("seeded"))
        let first = try tidings.run("validate", bundle, "--seed", "42", "--json")
        let second = try tidings.run("validate", bundle, "--seed", "42", "--json")
        #expect(first.standardOutput.contains("\"seed\": 42"))
        func details(_ output: String) -> [String] {
            output.split(separator: "\n").filter { $0.contains("notifications (seed") }.map(String.init)
        }
        #expect(details(first.standardOutput) == details(second.standardOutput) && !details(first.standardOutput).isEmpty)
        #expect(try tidings.run("validate", bundle, "--seed", "-1").status == 64)
    }

    /// The elements check uses every input the view allows: each enabled button, each text field, each text input asked for.
    @Test func everyElementEventTheViewAllowsIsMade() throws {
        let build = scratch.file("build-interactive")
        try FileManager.default.createDirectory(atPath: build, withIntermediateDirectories: true)
        let library = try CCompiler.fixture("Interactive", into: build, output: "libInteractive.so")
        let interface = try scratch.write("""
            {"version": 1, "root": {"type": "stack", "children": [
              {"type": "label", "id": "status"}, {"type": "button", "id": "go", "title": "Go"},
              {"type": "button", "id": "ask", "title": "Ask"}, {"type": "button", "id": "off", "title": "Off", "enabled": false},
              {"type": "textField", "id": "note", "placeholder": "A note"}]}}
            """, to: "build-interactive/MainInterface.json")
        let manifest = BundleMaker.contentManifest(identifier: "com.example.validate.interactive", executable: "libInteractive.so",
                                                   categories: ["interactive"], interface: "MainInterface", userInteraction: true)
        let bundle = try BundleMaker.make("Interactive", in: scratch.file("bundles"), manifest: manifest, library: library,
                                          resources: [interface])
        let result = try tidings.run("validate", bundle, "--check", "elements", "--verbose")
        #expect(result.status == 0, "\(result.standardOutput)")
        // tap go, tap ask, the text input it asked for, submit note; the disabled button is left alone.
        #expect(result.standardOutput.contains("pass  elements"), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("4 element events"), "\(result.standardOutput)")
        // Only the checks named were reported; --verbose said what it waited for.
        #expect(!result.standardOutput.contains("responses"))
        #expect(result.standardError.contains("Waiting for com.example.validate.interactive: didReceive"))
        #expect(result.standardError.contains("Waiting for com.example.validate.interactive: the element event tap on \"go\""))
    }

    /// `--check` never hides a failed prerequisite: an unbuilt C project's library check is reported beside the
    /// check named, with its fix, the skip says why, and the run fails as the full one does (with --strict too).
    @Test func aFailedPrerequisiteOfTheChecksNamedIsReportedAndFails() throws {
        #expect(try tidings.run("new", "Unmade", "--language", "c", "--into", scratch.path).status == 0)
        let project = scratch.file("Unmade")
        let full = try tidings.run(["validate", "."], directory: project)
        #expect(full.status == 65, "\(full.standardOutput)")
        for strict in [[], ["--strict"]] {
            let text = try tidings.run(["validate", ".", "--check", "responses"] + strict, directory: project)
            #expect(text.status == full.status, "\(text.standardOutput)")
            #expect(text.standardOutput.contains("FAIL  library"), "\(text.standardOutput)")
            #expect(text.standardOutput.contains("build it (make"), "\(text.standardOutput)")
            #expect(text.standardOutput.contains("skip  responses      the library check failed"), "\(text.standardOutput)")
            // Only the failed check it needed joins it: not the manifest's pass, not the other checks.
            #expect(text.standardOutput.contains("\n  1 skip, 1 fail\n"), "\(text.standardOutput)")
        }
        let json = try tidings.run(["validate", ".", "--check", "responses", "--json"], directory: project)
        #expect(json.status == 65)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let checks = try #require(((report["bundles"] as? [[String: Any]])?.first?["checks"]) as? [[String: Any]])
        #expect(checks.map { $0["check"] as? String } == ["library", "responses"])
        #expect(checks.map { $0["verdict"] as? String } == ["fail", "skip"])
        #expect(report["passed"] as? Bool == false)
        // A check the failed one does not gate is reported alone: the registry check needs nothing.
        let registry = try tidings.run(["validate", ".", "--check", "registry"], directory: project)
        #expect(registry.status == 0 && !registry.standardOutput.contains("library"), "\(registry.standardOutput)")
    }

    @Test func aCheckNameIsOneOfTheChecks() throws {
        let bundle = try BundleMaker.installSample("NoOp", in: scratch.file("checked"))
        let misspelt = try tidings.run("validate", bundle, "--check", "respones")
        #expect(misspelt.status == 64 && misspelt.standardError.contains("Did you mean responses?"))
        let help = try tidings.run("validate", "--help").standardOutput
        for name in ["manifest", "registry", "categories", "elements", "responses", "cost"] { #expect(help.contains(name)) }
    }
}
