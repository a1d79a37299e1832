import TestSupport
import Testing
import TidingsBase
import TidingsRegistry

/// Routing by (app, category), shadowed identifiers and category conflicts.
@Suite struct ExtensionIndexTests {
    @Test func contentExtensionIsFoundByAppAndCategoryExactly() throws {
        let tree = ExtensionTree()
        let directory = try tree.directory()
        let mail = try tree.content("Mail", in: directory, identifier: "com.example.mail.preview",
                                    categories: ["MESSAGE", "THREAD"])
        let index = tree.scan([directory])
        #expect(index.contentExtension(forApp: "com.example.mail", category: "MESSAGE")?.path == mail)
        #expect(index.contentExtension(forApp: "com.example.mail", category: "THREAD")?.path == mail)
        // Categories are case-sensitive; other apps never see the extension.
        #expect(index.contentExtension(forApp: "com.example.mail", category: "message") == nil)
        #expect(index.contentExtension(forApp: "com.example.chat", category: "MESSAGE") == nil)
        #expect(index.contentExtension(forApp: "com.example", category: "MESSAGE") == nil)
        #expect(index.contentExtension(forApp: "com.example.mail.preview", category: "MESSAGE") == nil)
    }

    @Test func serviceExtensionIsListedButRoutesNoCategory() throws {
        let tree = ExtensionTree()
        let directory = try tree.directory()
        try tree.service("Service", in: directory, identifier: "com.example.mail.service", categories: ["MESSAGE"])
        let index = tree.scan([directory])
        #expect(index.bundles.map(\.name) == ["Service.appex"])
        #expect(index.bundles.first?.isUsable == true)
        #expect(index.contentExtension(forApp: "com.example.mail", category: "MESSAGE") == nil)
        #expect(index.categories(ofApp: "com.example.mail").isEmpty)
    }

    @Test func aServiceExtensionServesTheCategoriesItDeclaresBeforeOneServingAll() throws {
        let tree = ExtensionTree()
        let directory = try tree.directory()
        try tree.service("All", in: directory, identifier: "com.example.mail.all")
        try tree.service("Messages", in: directory, identifier: "com.example.mail.messages", categories: ["MESSAGE"])
        let index = tree.scan([directory])
        #expect(index.serviceExtension(forApp: "com.example.mail", category: "MESSAGE")?.manifest?.bundleIdentifier
            == "com.example.mail.messages")
        #expect(index.serviceExtension(forApp: "com.example.mail", category: "OTHER")?.manifest?.bundleIdentifier
            == "com.example.mail.all")
        #expect(index.serviceExtension(forApp: "com.example.mail", category: "")?.manifest?.bundleIdentifier
            == "com.example.mail.all")
        #expect(index.serviceExtension(forApp: "com.example.other", category: "MESSAGE") == nil)
    }

    @Test func twoServiceExtensionsServingAllOfOneAppAreWarnedAndTheFirstServes() throws {
        let tree = ExtensionTree()
        let first = try tree.directory("first")
        let second = try tree.directory("second")
        try tree.service("First", in: first, identifier: "com.example.mail.first")
        try tree.service("Second", in: second, identifier: "com.example.mail.second")
        let index = tree.scan([first, second])
        #expect(index.serviceExtension(forApp: "com.example.mail", category: "X")?.manifest?.bundleIdentifier
            == "com.example.mail.first")
        let warning = try #require(index.bundles.last?.diagnostics.first)
        #expect(warning.code == .categoryConflict)
        #expect(warning.message.contains("are both service extensions claiming all notifications"))
    }

    @Test func appsServingACategoryAreSorted() throws {
        let tree = ExtensionTree()
        let directory = try tree.directory()
        try tree.content("Zulu", in: directory, identifier: "com.zulu.app.ext", categories: ["INVITE"])
        try tree.content("Alpha", in: directory, identifier: "com.alpha.app.ext", categories: ["INVITE", "OTHER"])
        try tree.content("Mike", in: directory, identifier: "com.mike.app.ext", categories: ["OTHER"])
        let index = tree.scan([directory])
        #expect(index.apps(servingCategory: "INVITE") == ["com.alpha.app", "com.zulu.app"])
        #expect(index.apps(servingCategory: "OTHER") == ["com.alpha.app", "com.mike.app"])
        #expect(index.apps(servingCategory: "NONE").isEmpty)
        // One category in two apps is no conflict.
        #expect(index.bundles.allSatisfy { $0.diagnostics.isEmpty })
    }

    @Test func categoriesOfAnAppJoinItsExtensionsSorted() throws {
        let tree = ExtensionTree()
        let directory = try tree.directory()
        try tree.content("One", in: directory, identifier: "com.example.mail.one", categories: ["THREAD", "DRAFT"])
        try tree.content("Two", in: directory, identifier: "com.example.mail.two", categories: ["MESSAGE"])
        try tree.content("Other", in: directory, identifier: "com.example.chat.other", categories: ["CHAT"])
        let index = tree.scan([directory])
        #expect(index.categories(ofApp: "com.example.mail") == ["DRAFT", "MESSAGE", "THREAD"])
        #expect(index.categories(ofApp: "com.example.chat") == ["CHAT"])
        #expect(index.categories(ofApp: "com.example.none").isEmpty)
    }

    @Test func bundleIsFoundByDirectoryNameOrIdentifier() throws {
        let tree = ExtensionTree()
        let directory = try tree.directory()
        let invite = try tree.content("Invite", in: directory, identifier: "com.example.events.invite",
                                      categories: ["INVITE"])
        let broken = try tree.directory("extensions/Broken.appex")
        let index = tree.scan([directory])
        #expect(index.bundle(named: "Invite")?.path == invite)
        #expect(index.bundle(named: "Invite.appex")?.path == invite)
        #expect(index.bundle(named: "com.example.events.invite")?.path == invite)
        #expect(index.bundle(named: "Broken")?.path == broken)
        #expect(index.bundle(named: "invite") == nil)
        #expect(index.bundle(named: "com.example.events") == nil)
    }

    // MARK: Identical identifiers

    @Test func firstDirectoryShadowsAnIdenticalIdentifierWithANote() throws {
        let tree = ExtensionTree()
        let user = try tree.directory("user"), system = try tree.directory("system")
        let mine = try tree.content("Zed", in: user, identifier: "com.example.mail.preview", categories: ["MESSAGE"])
        let theirs = try tree.content("Alpha", in: system, identifier: "com.example.mail.preview",
                                      categories: ["MESSAGE", "EXTRA"])
        let index = tree.scan([user, system])
        #expect(index.bundles.map(\.path) == [mine, theirs])
        #expect(index.contentExtension(forApp: "com.example.mail", category: "MESSAGE")?.path == mine)
        // The shadowed bundle serves nothing, not even categories only it declares.
        #expect(index.contentExtension(forApp: "com.example.mail", category: "EXTRA") == nil)
        let shadowed = try #require(index.bundle(named: "Alpha"))
        #expect(findings(shadowed.diagnostics) == [.note("registry.identifier-shadowed", at: "CFBundleIdentifier")])
        #expect(shadowed.diagnostics.first?.location.file == theirs + "/Info.plist")
        #expect(shadowed.diagnostics.first?.message.contains(mine) == true)
        #expect(shadowed.diagnostics.first?.message.contains("com.example.mail.preview") == true)
        // The one that serves is told what it shadows, so every tool judging it says so.
        let serving = try #require(index.bundle(named: "Zed"))
        #expect(findings(serving.diagnostics) == [.note("registry.identifier-shadowed", at: "CFBundleIdentifier")])
        #expect(serving.diagnostics.first?.message.contains(theirs) == true)
    }

    @Test func identicalIdentifierInOneDirectoryIsAWarningAndTheFirstByNameServes() throws {
        let tree = ExtensionTree()
        let directory = try tree.directory()
        let copy = try tree.content("Preview2", in: directory, identifier: "com.example.mail.preview",
                                    categories: ["MESSAGE"])
        let original = try tree.content("Preview", in: directory, identifier: "com.example.mail.preview",
                                        categories: ["MESSAGE"])
        let index = tree.scan([directory])
        #expect(index.bundles.map(\.path) == [original, copy])
        #expect(index.contentExtension(forApp: "com.example.mail", category: "MESSAGE")?.path == original)
        let shadowed = try #require(index.bundle(named: "Preview2"))
        #expect(findings(shadowed.diagnostics) == [.warning("registry.identifier-shadowed", at: "CFBundleIdentifier")])
        #expect(shadowed.diagnostics.first?.message.contains(original) == true)
    }

    @Test func brokenBundleWithTheSameIdentifierShadowsNothing() throws {
        let tree = ExtensionTree()
        let user = try tree.directory("user"), system = try tree.directory("system")
        let broken = try tree.content("Preview", in: user, identifier: "com.example.mail.preview", categories: ["MESSAGE"])
        try tree.write(BundleMaker.contentManifest(identifier: "com.example.mail.preview", executable: "lib.so",
                                                   categories: [""]), to: broken + "/Info.plist")
        let good = try tree.content("Preview", in: system, identifier: "com.example.mail.preview", categories: ["MESSAGE"])
        let index = tree.scan([user, system])
        #expect(index.contentExtension(forApp: "com.example.mail", category: "MESSAGE")?.path == good)
        #expect(index.bundles.last?.diagnostics.isEmpty == true)
    }

    // MARK: Category conflicts

    @Test func conflictInOneDirectoryGoesToTheFirstByName() throws {
        let tree = ExtensionTree()
        let directory = try tree.directory()
        // Name order and identifier order disagree: the name decides.
        let aardvark = try tree.content("Aardvark", in: directory, identifier: "com.example.mail.zzz",
                                        categories: ["MESSAGE"])
        let zebra = try tree.content("Zebra", in: directory, identifier: "com.example.mail.aaa",
                                     categories: ["MESSAGE", "DRAFT"])
        let index = tree.scan([directory])
        #expect(index.contentExtension(forApp: "com.example.mail", category: "MESSAGE")?.path == aardvark)
        #expect(index.contentExtension(forApp: "com.example.mail", category: "DRAFT")?.path == zebra)
        // The one that serves is told which one it shadows.
        let winner = try #require(index.bundle(named: "Aardvark"))
        #expect(findings(winner.diagnostics) == [.note("registry.category-conflict", at: categoryPath)])
        #expect(winner.diagnostics.first?.message.contains("com.example.mail.aaa (\(zebra)) claims it too") == true)
        let loser = try #require(index.bundle(named: "Zebra"))
        #expect(findings(loser.diagnostics) == [.warning("registry.category-conflict", at: categoryPath)])
        let message = try #require(loser.diagnostics.first?.message)
        #expect(message.contains("com.example.mail.zzz (\(aardvark))"))
        #expect(message.contains("com.example.mail.aaa (\(zebra))"))
        #expect(message.contains("category \"MESSAGE\" of app com.example.mail"))
        #expect(loser.diagnostics.first?.location.file == zebra + "/Info.plist")
        #expect(loser.isUsable)
    }

    @Test func conflictAcrossDirectoriesGoesToTheFirstDirectory() throws {
        let tree = ExtensionTree()
        let user = try tree.directory("user"), system = try tree.directory("system")
        let zulu = try tree.content("Zulu", in: user, identifier: "com.example.mail.zulu", categories: ["MESSAGE"])
        let alpha = try tree.content("Alpha", in: system, identifier: "com.example.mail.alpha", categories: ["MESSAGE"])
        let index = tree.scan([user, system])
        #expect(index.contentExtension(forApp: "com.example.mail", category: "MESSAGE")?.path == zulu)
        let loser = try #require(index.bundle(named: "Alpha"))
        #expect(loser.path == alpha)
        #expect(findings(loser.diagnostics) == [.warning("registry.category-conflict", at: categoryPath)])
        #expect(findings(index.bundle(named: "Zulu")?.diagnostics ?? []) == [.note("registry.category-conflict", at: categoryPath)])
    }

    @Test func eachConflictingCategoryIsReported() throws {
        let tree = ExtensionTree()
        let directory = try tree.directory()
        try tree.content("A", in: directory, identifier: "com.example.mail.a", categories: ["ONE", "TWO"])
        try tree.content("B", in: directory, identifier: "com.example.mail.b", categories: ["TWO", "ONE", "THREE"])
        let index = tree.scan([directory])
        let loser = try #require(index.bundle(named: "B"))
        #expect(loser.diagnostics.map(\.code.rawValue) == ["registry.category-conflict", "registry.category-conflict"])
        #expect(loser.diagnostics[0].message.contains("\"TWO\""))
        #expect(loser.diagnostics[1].message.contains("\"ONE\""))
        #expect(index.contentExtension(forApp: "com.example.mail", category: "THREE")?.name == "B.appex")
    }

    @Test func conflictWinnerDoesNotDependOnTheOrderFilesWereCreated() throws {
        var winners: Set<String> = []
        for order in [["Beta", "Alpha"], ["Alpha", "Beta"]] {
            let tree = ExtensionTree()
            let directory = try tree.directory()
            for name in order {
                try tree.content(name, in: directory, identifier: "com.example.mail.\(name.lowercased())",
                                 categories: ["MESSAGE"])
            }
            let index = tree.scan([directory])
            winners.insert(index.contentExtension(forApp: "com.example.mail", category: "MESSAGE")?.name ?? "none")
        }
        #expect(winners == ["Alpha.appex"])
    }
}
