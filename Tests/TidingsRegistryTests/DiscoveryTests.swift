import Glibc
import TestSupport
import Testing
import TidingsBase
import TidingsRegistry

@Suite struct DiscoveryTests {
    @Test func goodBundlesAreListedInNameOrder() throws {
        let tree = ExtensionTree()
        let directory = try tree.directory()
        let zeta = try tree.content("Zeta", in: directory, identifier: "com.example.mail.zeta", categories: ["MAIL"])
        let alpha = try tree.content("Alpha", in: directory, identifier: "com.example.chat.alpha",
                                     categories: ["CHAT", "CALL"])
        let index = tree.scan([directory])
        #expect(index.bundles.map(\.path) == [alpha, zeta])
        #expect(index.bundles.map(\.name) == ["Alpha.appex", "Zeta.appex"])
        #expect(index.bundles.allSatisfy { $0.isUsable && $0.diagnostics.isEmpty && $0.searchRank == 0 })
        #expect(index.diagnostics.isEmpty)
        let first = try #require(index.bundles.first)
        #expect(first.manifest?.categories == ["CHAT", "CALL"])
        #expect(first.libraryPath == alpha + "/libAlpha.so")
    }

    @Test func searchRankIsTheDirectoryPosition() throws {
        let tree = ExtensionTree()
        let first = try tree.directory("first"), second = try tree.directory("second")
        try tree.content("B", in: first, identifier: "com.example.one.b", categories: ["B"])
        try tree.content("A", in: second, identifier: "com.example.two.a", categories: ["A"])
        let index = tree.scan([first, second])
        #expect(index.bundles.map(\.name) == ["B.appex", "A.appex"])
        #expect(index.bundles.map(\.searchRank) == [0, 1])
    }

    @Test func bundleWithoutInfoPlistIsListedAsBroken() throws {
        let tree = ExtensionTree()
        let directory = try tree.directory()
        let empty = try tree.directory("extensions/Empty.appex")
        try tree.content("Good", in: directory, identifier: "com.example.mail.good", categories: ["MAIL"])
        let index = tree.scan([directory])
        #expect(index.bundles.map(\.name) == ["Empty.appex", "Good.appex"])
        let broken = try #require(index.bundle(named: "Empty"))
        #expect(findings(broken.diagnostics) == [.error("bundle.manifest-missing", at: nil)])
        #expect(broken.diagnostics.first?.location.file == empty + "/Info.plist")
        #expect(!broken.isUsable)
        #expect(broken.manifest == nil)
        #expect(broken.libraryPath == nil)
        #expect(index.contentExtension(forApp: "com.example.mail", category: "MAIL")?.name == "Good.appex")
    }

    @Test func bundleWithAnInvalidManifestIsListedWithItsErrorAndHidesNothing() throws {
        let tree = ExtensionTree()
        let directory = try tree.directory()
        // Sorted first, same app and category as the good one: it must not take the route.
        let broken = try tree.content("Broken", in: directory, identifier: "com.example.mail.broken",
                                      categories: ["MAIL"])
        try tree.write(BundleMaker.contentManifest(identifier: "com.example.mail.broken", executable: "libBroken.so",
                                                   categories: ["MAIL"], ratio: "<real>0</real>"),
                       to: broken + "/Info.plist")
        try tree.content("Good", in: directory, identifier: "com.example.mail.good", categories: ["MAIL"])
        let index = tree.scan([directory])
        let bundle = try #require(index.bundle(named: "Broken"))
        #expect(findings(bundle.diagnostics) == [
            .error("manifest.ratio-invalid", at: "NSExtension.NSExtensionAttributes.UNNotificationExtensionInitialContentSizeRatio"),
        ])
        #expect(bundle.diagnostics.first?.location.file == broken + "/Info.plist")
        #expect(!bundle.isUsable)
        #expect(index.contentExtension(forApp: "com.example.mail", category: "MAIL")?.name == "Good.appex")
        #expect(index.bundle(named: "Good")?.diagnostics.isEmpty == true)
    }

    @Test func undecodableManifestIsListedWithItsError() throws {
        let tree = ExtensionTree()
        let directory = try tree.directory()
        let bundle = try BundleMaker.make("Garbage", in: directory, manifest: "not a property list")
        let index = tree.scan([directory])
        let garbage = try #require(index.bundles.first)
        #expect(findings(garbage.diagnostics).map(\.code) == ["plist.unknown-format"])
        #expect(garbage.diagnostics.first?.location.file == bundle + "/Info.plist")
        #expect(!garbage.isUsable)
    }

    @Test func entriesThatAreNotAppexDirectoriesAreIgnored() throws {
        let tree = ExtensionTree()
        let directory = try tree.directory()
        let manifest = BundleMaker.contentManifest(identifier: "com.example.x.y", executable: "libY.so",
                                                   categories: ["Y"])
        try tree.content("Real", in: directory, identifier: "com.example.mail.real", categories: ["MAIL"])
        try tree.write(manifest, to: directory + "/File.appex")
        try tree.write("notes", to: directory + "/README.txt")
        try tree.write(manifest, to: try tree.directory("extensions/Other") + "/Info.plist")
        try tree.write(manifest, to: try tree.directory("extensions/Old.appex.bak") + "/Info.plist")
        let index = tree.scan([directory])
        #expect(index.bundles.map(\.name) == ["Real.appex"])
        #expect(index.diagnostics.isEmpty)
    }

    @Test func symbolicLinkToABundleIsFollowed() throws {
        let tree = ExtensionTree()
        let store = try tree.directory("store")
        let directory = try tree.directory()
        let target = try tree.content("Linked", in: store, identifier: "com.example.mail.linked", categories: ["MAIL"])
        #expect(symlink(target, directory + "/Linked.appex") == 0)
        let index = tree.scan([directory])
        #expect(index.bundles.map(\.path) == [directory + "/Linked.appex"])
        #expect(index.bundles.first?.isUsable == true)
    }

    // MARK: Interface files

    @Test(arguments: ["MainInterface", "MainInterface.json"])
    func interfaceFileIsRead(name: String) throws {
        let tree = ExtensionTree()
        let directory = try tree.directory()
        let bundle = try tree.content("Invite", in: directory, identifier: "com.example.events.invite",
                                      categories: ["INVITE"], interface: name)
        try tree.write(#"{"version": 1, "root": {"type": "label", "id": "title"}}"#, to: bundle + "/MainInterface.json")
        let found = try #require(tree.scan([directory]).bundles.first)
        #expect(found.diagnostics.isEmpty)
        #expect(found.interface?.root.identifier == "title")
    }

    @Test(arguments: [("MainInterface", "MainInterface.json"), ("Custom.json", "Custom.json"), ("../Elsewhere", "../Elsewhere.json")])
    func missingInterfaceFileIsAWarning(name: String, file: String) throws {
        let tree = ExtensionTree()
        let directory = try tree.directory()
        // A file outside the bundle must not count as its interface.
        try tree.write(#"{"root": {"type": "label"}}"#, to: directory + "/Elsewhere.json")
        let bundle = try tree.content("Invite", in: directory, identifier: "com.example.events.invite",
                                      categories: ["INVITE"], interface: name)
        let index = tree.scan([directory])
        let found = try #require(index.bundles.first)
        #expect(findings(found.diagnostics) == [
            .warning("bundle.interface-missing", at: "NSExtension.NSExtensionMainStoryboard"),
        ])
        #expect(found.diagnostics.first?.location.file == bundle + "/Info.plist")
        #expect(found.diagnostics.first?.message.contains("has no \(file);") == true)
        #expect(found.isUsable)
        #expect(found.interface == nil)
        #expect(index.contentExtension(forApp: "com.example.events", category: "INVITE") != nil)
    }

    @Test func buttonsWithoutUserInteractionAreAWarning() throws {
        let tree = ExtensionTree()
        let directory = try tree.directory()
        let bundle = try tree.content("Invite", in: directory, identifier: "com.example.events.invite",
                                      categories: ["INVITE"], interface: "MainInterface")
        try tree.write(#"{"version": 1, "root": {"type": "button", "id": "go", "title": "Go"}}"#,
                       to: bundle + "/MainInterface.json")
        let found = try #require(tree.scan([directory]).bundles.first)
        #expect(findings(found.diagnostics) == [.warning("bundle.interaction-disabled", at: nil)])
        #expect(found.diagnostics.first?.message.contains("UNNotificationExtensionUserInteractionEnabled") == true)
        #expect(found.isUsable && found.interface != nil)
    }

    @Test func brokenInterfaceFileIsAnErrorButTheBundleStillServes() throws {
        let tree = ExtensionTree()
        let directory = try tree.directory()
        let bundle = try tree.content("Invite", in: directory, identifier: "com.example.events.invite",
                                      categories: ["INVITE"], interface: "MainInterface")
        try tree.write(#"{"version": 1, "root": {"type": "slider"}}"#, to: bundle + "/MainInterface.json")
        let index = tree.scan([directory])
        let found = try #require(index.bundles.first)
        #expect(findings(found.diagnostics) == [.error("interface.unknown-type", at: "/root/type")])
        #expect(found.diagnostics.first?.location.file == bundle + "/MainInterface.json")
        #expect(found.isUsable)
        #expect(found.interface == nil)
        #expect(index.contentExtension(forApp: "com.example.events", category: "INVITE")?.path == bundle)
    }

    @Test func serviceExtensionInterfaceIsNotLookedFor() throws {
        let tree = ExtensionTree()
        let directory = try tree.directory()
        try tree.service("Service", in: directory, identifier: "com.example.events.service")
        let found = try #require(tree.scan([directory]).bundles.first)
        #expect(found.diagnostics.isEmpty)
        #expect(found.manifest?.point == .service)
    }

    // MARK: Search-path directories

    @Test func missingDirectoryIsWarnedWhenNamedButNotForXDG() throws {
        let tree = ExtensionTree()
        let missing = tree.temporary.file("missing")
        for origin in [SearchPath.Origin.option, .environment] {
            let index = tree.scan([missing], origin: origin)
            #expect(findings(index.diagnostics) == [.warning("registry.directory-missing", at: nil)])
            #expect(index.diagnostics.first?.location.file == missing)
        }
        #expect(tree.scan([missing], origin: .xdg).diagnostics.isEmpty)
    }

    @Test func unreadableDirectoryIsWarnedAndTheRestStillScanned() throws {
        let tree = ExtensionTree()
        let notADirectory = tree.temporary.file("file")
        try tree.write("", to: notADirectory)
        let directory = try tree.directory()
        try tree.content("Good", in: directory, identifier: "com.example.mail.good", categories: ["MAIL"])
        let index = tree.scan([notADirectory, directory], origin: .xdg)
        #expect(findings(index.diagnostics) == [.warning("registry.directory-unreadable", at: nil)])
        #expect(index.diagnostics.first?.location.file == notADirectory)
        #expect(index.bundles.map(\.name) == ["Good.appex"])
        #expect(index.bundles.first?.searchRank == 1)
    }

    @Test func emptySearchPathFindsNothing() {
        let index = ExtensionTree().scan([])
        #expect(index.bundles.isEmpty)
        #expect(index.diagnostics.isEmpty)
    }
}
