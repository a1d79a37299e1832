import Foundation
import TestSupport
import Testing

/// The docs build (Scripts/sdk-docs.sh) fails on a public declaration of
/// TidingsSDK or TidingsApp without a `///` summary: its check,
/// Scripts/check-doc-coverage.py, run here over the symbol graphs of the
/// modules this build made (`swift symbolgraph-extract`, a second each).
@Suite struct DocumentationCoverageTests {
    let work = TemporaryDirectory("doc-coverage")

    /// Runs the check over `directory`.
    func check(_ directory: String) throws -> ProcessResult {
        try ProcessRunner.run("/usr/bin/env", ["python3", Locations.repositoryFile("Scripts/check-doc-coverage.py"), directory])
    }

    @Test(arguments: ["TidingsSDK", "TidingsApp"])
    func everyPublicDeclarationIsDocumented(_ module: String) throws {
        let swift = try #require(ProcessRunner.which("swift"), "swift is not on PATH")
        let graphs = work.file(module)
        try FileManager.default.createDirectory(atPath: graphs, withIntermediateDirectories: true)
        let extracted = try ProcessRunner.run(swift, [
            "symbolgraph-extract", "-module-name", module, "-I", Locations.product("Modules"),
            "-Xcc", "-fmodule-map-file=" + Locations.product("TidingsABI.build/module.modulemap"),
            // As the compiler's own graphs (sdk-docs.sh's): a protocol requirement's comment is not the member's.
            "-target", "x86_64-unknown-linux-gnu", "-skip-inherited-docs", "-output-dir", graphs])
        try #require(extracted.status == 0, "\(extracted.standardError)")
        let checked = try check(graphs)
        #expect(checked.status == 0, "\(checked.standardOutput)")
        // The two the issue found undocumented are documented now.
        if module == "TidingsSDK" {
            let graph = try String(contentsOfFile: graphs + "/TidingsSDK.symbols.json", encoding: .utf8)
            #expect(graph.contains("The action the user chose") && graph.contains("The notification the user answered"))
        }
    }

    @Test func anUndocumentedDeclarationFailsAndIsNamed() throws {
        let symbol: (String, Bool) -> [String: Any] = { name, documented in
            var symbol: [String: Any] = [
                "kind": ["identifier": "swift.property"], "identifier": ["precise": "s:4Kit\(name)"],
                "pathComponents": ["Response", name], "accessLevel": "public",
                "location": ["uri": "file:///src/Response.swift", "position": ["line": 9, "character": 4]],
            ]
            if documented { symbol["docComment"] = ["lines": [["text": "Documented."]]] }
            return symbol
        }
        let synthesized: [String: Any] = [
            "kind": ["identifier": "swift.property"], "identifier": ["precise": "s:hashValue::SYNTHESIZED::s:4Kit"],
            "pathComponents": ["Response", "hashValue"], "accessLevel": "public",
        ]
        let graph: [String: Any] = ["symbols": [symbol("title", true), symbol("actionIdentifier", false), synthesized]]
        try FileManager.default.createDirectory(atPath: work.file("graphs"), withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: graph).write(to: URL(fileURLWithPath: work.file("graphs/Kit.symbols.json")))
        let checked = try check(work.file("graphs"))
        #expect(checked.status == 1)
        #expect(checked.standardOutput == "/src/Response.swift:10: Response.actionIdentifier (swift.property) is public and has no /// documentation\n")
    }
}
