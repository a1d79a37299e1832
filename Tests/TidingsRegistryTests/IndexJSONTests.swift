import Testing
import TidingsBase
import TidingsRegistry

@Suite struct IndexJSONTests {
    @Test func usableContentExtensionHasEveryManifestMember() throws {
        let tree = ExtensionTree()
        let directory = try tree.directory()
        let bundle = try tree.content("Invite", in: directory, identifier: "com.example.events.invite",
                                      categories: ["INVITE", "UPDATE"], interface: "MainInterface")
        let json = try #require(tree.scan([directory]).bundles.first).json
        #expect(json.objectMembers?.map(\.0) == [
            "name", "path", "usable", "identifier", "app", "point", "executable", "categories",
            "initialContentSizeRatio", "defaultContentHidden", "overridesDefaultTitle", "userInteractionEnabled",
            "interface", "diagnostics",
        ])
        #expect(json["name"] == .string("Invite.appex"))
        #expect(json["path"] == .string(bundle))
        #expect(json["usable"] == .bool(true))
        #expect(json["identifier"] == .string("com.example.events.invite"))
        #expect(json["app"] == .string("com.example.events"))
        #expect(json["point"] == .string("com.apple.usernotifications.content-extension"))
        #expect(json["executable"] == .string("libInvite.so"))
        #expect(json["categories"] == .array([.string("INVITE"), .string("UPDATE")]))
        #expect(json["initialContentSizeRatio"] == .double(0.5))
        #expect(json["defaultContentHidden"] == .bool(false))
        #expect(json["overridesDefaultTitle"] == .bool(false))
        #expect(json["userInteractionEnabled"] == .bool(false))
        #expect(json["interface"] == .string("MainInterface"))
        // The interface file is missing: its warning is in the list.
        let diagnostics = try #require(json["diagnostics"]?.arrayValue)
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?["severity"] == .string("warning"))
        #expect(diagnostics.first?["code"] == .string("bundle.interface-missing"))
        #expect(diagnostics.first?["file"] == .string(bundle + "/Info.plist"))
        #expect(diagnostics.first?["path"] == .string("NSExtension.NSExtensionMainStoryboard"))
    }

    @Test func serviceExtensionHasNullRatioAndInterface() throws {
        let tree = ExtensionTree()
        let directory = try tree.directory()
        try tree.service("Service", in: directory, identifier: "com.example.events.service")
        let json = try #require(tree.scan([directory]).bundles.first).json
        #expect(json["point"] == .string("com.apple.usernotifications.service"))
        #expect(json["categories"] == .array([]))
        #expect(json["initialContentSizeRatio"] == .null)
        #expect(json["interface"] == .null)
        #expect(json["diagnostics"] == .array([]))
    }

    @Test func brokenBundleHasOnlyWhereItIsAndWhatIsWrong() throws {
        let tree = ExtensionTree()
        let directory = try tree.directory()
        let bundle = try tree.directory("extensions/Empty.appex")
        let json = try #require(tree.scan([directory]).bundles.first).json
        #expect(json.objectMembers?.map(\.0) == ["name", "path", "usable", "diagnostics"])
        #expect(json["path"] == .string(bundle))
        #expect(json["usable"] == .bool(false))
        let diagnostic = try #require(json["diagnostics"]?.arrayValue?.first)
        #expect(diagnostic["severity"] == .string("error"))
        #expect(diagnostic["code"] == .string("bundle.manifest-missing"))
        #expect(diagnostic["file"] == .string(bundle + "/Info.plist"))
        #expect(diagnostic["path"] == nil)
    }

    @Test func indexHasItsSearchPathBundlesAndDiagnostics() throws {
        let tree = ExtensionTree()
        let directory = try tree.directory()
        let missing = tree.temporary.file("missing")
        try tree.content("Invite", in: directory, identifier: "com.example.events.invite", categories: ["INVITE"])
        let json = tree.scan([directory, missing], origin: .environment).json
        #expect(json.objectMembers?.map(\.0) == ["searchPath", "bundles", "diagnostics"])
        #expect(json["searchPath"] == .object([
            ("origin", .string("environment")),
            ("directories", .array([.string(directory), .string(missing)])),
        ]))
        #expect(json["bundles"]?.arrayValue?.map { $0["name"] } == [.string("Invite.appex")])
        let diagnostics = try #require(json["diagnostics"]?.arrayValue)
        #expect(diagnostics.map { $0["code"] } == [.string("registry.directory-missing")])
    }

    @Test(arguments: [(SearchPath.Origin.option, "option"), (.environment, "environment"), (.xdg, "xdg")])
    func originIsSpelledStably(origin: SearchPath.Origin, spelling: String) {
        let json = ExtensionIndex(searchPath: SearchPath(directories: [], origin: origin), bundles: []).json
        #expect(json["searchPath"]?["origin"] == .string(spelling))
        #expect(json["bundles"] == .array([]))
    }
}
