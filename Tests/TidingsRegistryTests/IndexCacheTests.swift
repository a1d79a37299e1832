import Foundation
import TestSupport
import Testing
import TidingsBase
import TidingsRegistry

@Suite struct IndexCacheTests {
    /// Two content extensions (one with an interface file) and a service extension, settled.
    private func threeBundles(_ fixture: CacheFixture) throws {
        let invite = try fixture.tree.content("Invite", in: fixture.directory, identifier: "com.example.events.invite",
                                              categories: ["INVITE"], interface: "MainInterface")
        try fixture.tree.write(#"{"version": 1, "root": {"type": "label", "id": "title", "text": "Invite"}}"#,
                               to: invite + "/MainInterface.json")
        try fixture.tree.content("Mail", in: fixture.directory, identifier: "com.example.mail.alpha", categories: ["MAIL"])
        try fixture.tree.service("Rewrite", in: fixture.directory, identifier: "com.example.mail.rewrite")
        try fixture.settle()
    }

    // MARK: Reuse

    @Test func theSecondScanTakesEveryBundleFromTheCacheAndEqualsAColdScan() throws {
        let fixture = try CacheFixture()
        try threeBundles(fixture)
        let first = fixture.scan()
        #expect(first.counts == DiscoveryCounts(fromCache: 0, read: 3))
        let second = fixture.scan()
        #expect(second.counts == DiscoveryCounts(fromCache: 3, read: 0))
        #expect(second.diagnostics.isEmpty)
        #expect(second.text == fixture.coldScan().text)
        #expect(second.bundle(named: "Invite")?.interface?.root.identifier == "title")
        #expect(second.contentExtension(forApp: "com.example.mail", category: "MAIL")?.name == "Mail.appex")
        #expect(second.serviceExtension(forApp: "com.example.mail", category: "ANY")?.name == "Rewrite.appex")
    }

    /// Every part of what the reader found comes back from the cache as it
    /// was: manifests with every field, interface trees, and diagnostics with
    /// lines, columns and key paths.
    @Test func theCacheKeepsEverythingTheReaderFound() throws {
        let fixture = try CacheFixture()
        try BundleMaker.make("EventInvite", in: fixture.directory,
                             manifest: try String(contentsOfFile: Locations.repositoryFile("Manifests/EventInvite.plist"), encoding: .utf8),
                             resources: [Locations.repositoryFile("Plugins/EventInvite/MainInterface.json")])
        try BundleMaker.make("BuildStatus", in: fixture.directory,
                             manifest: try String(contentsOfFile: Locations.repositoryFile("Manifests/BuildStatus.plist"), encoding: .utf8),
                             resources: [Locations.repositoryFile("Plugins/BuildStatus/MainInterface.json")])
        try BundleMaker.make("Syntax", in: fixture.directory, manifest: "<?xml version=\"1.0\"?>\n<plist><dict><key>a</key></plist>")
        let broken = try fixture.tree.content("Broken", in: fixture.directory, identifier: "com.example.broken.view",
                                              categories: ["B"], interface: "MainInterface")
        try fixture.tree.write(#"{"version": 1, "root": {"type": "label", "id": "a", "textColor": "red", "extra": 1}}"#,
                               to: broken + "/MainInterface.json")
        try fixture.settle()
        fixture.scan()
        let cached = fixture.scan()
        let cold = fixture.coldScan()
        #expect(cached.counts == DiscoveryCounts(fromCache: 4, read: 0))
        #expect(cached.bundles.map(\.manifest) == cold.bundles.map(\.manifest))
        #expect(cached.bundles.map(\.interface) == cold.bundles.map(\.interface))
        #expect(cached.bundles.map(\.diagnostics) == cold.bundles.map(\.diagnostics))
        #expect(cached.bundles.map(\.path) == cold.bundles.map(\.path))
        // What the comparison covers.
        #expect(cached.bundles.compactMap(\.interface).count == 2)
        #expect(cached.bundles.contains { $0.diagnostics.contains { $0.location.line != nil } })
        #expect(cached.bundles.contains { $0.diagnostics.contains { $0.location.path?.hasPrefix("/root") == true } })
        #expect(cached.bundle(named: "EventInvite")?.manifest?.displayName == "Event Invite")
    }

    /// Timing-independent evidence that a cached bundle's manifest is not
    /// read: a manifest changed behind the cache's back, keeping its size and
    /// modification time, is still seen as it was.
    @Test func aManifestWhoseStampIsUnchangedIsNotRead() throws {
        let fixture = try CacheFixture()
        try threeBundles(fixture)
        fixture.scan()
        let manifest = fixture.directory + "/Mail.appex/Info.plist"
        let original = try String(contentsOfFile: manifest, encoding: .utf8)
        try fixture.overwriteKeepingStamp(manifest, with: original.replacing("mail.alpha", with: "mail.omega"))
        let cached = fixture.scan()
        #expect(cached.counts == DiscoveryCounts(fromCache: 3, read: 0))
        #expect(cached.bundle(named: "Mail")?.manifest?.bundleIdentifier == "com.example.mail.alpha")
        #expect(fixture.coldScan().bundle(named: "Mail")?.manifest?.bundleIdentifier == "com.example.mail.omega")
    }

    @Test func aScanThatChangesNothingLeavesTheFileAlone() throws {
        let fixture = try CacheFixture()
        try threeBundles(fixture)
        fixture.scan()
        let written = fixture.cacheFileIdentity()
        #expect(!written.isEmpty)
        fixture.scan()
        fixture.scan()
        #expect(fixture.cacheFileIdentity() == written)
    }

    // MARK: Invalidation

    @Test func anEditedManifestOfTheSameSizeIsReadAgainAndOnlyIt() throws {
        let fixture = try CacheFixture()
        try threeBundles(fixture)
        fixture.scan()
        let manifest = fixture.directory + "/Mail.appex/Info.plist"
        let original = try String(contentsOfFile: manifest, encoding: .utf8)
        let before = try #require(fixture.modificationTime(manifest))
        try fixture.overwriteKeepingStamp(manifest, with: original.replacing("mail.alpha", with: "mail.omega"))
        try fixture.stamp(manifest, secondsFromNow: -1800)
        #expect(fixture.modificationTime(manifest) != before)
        #expect(FileSystem.status(of: manifest)?.size == Int64(original.utf8.count))
        let index = fixture.scan()
        #expect(index.counts == DiscoveryCounts(fromCache: 2, read: 1))
        #expect(index.bundle(named: "Mail")?.manifest?.bundleIdentifier == "com.example.mail.omega")
        #expect(index.text == fixture.coldScan().text)
        #expect(fixture.scan().counts == DiscoveryCounts(fromCache: 3, read: 0))
    }

    @Test func anAddedBundleIsReadAndTheOthersAreNot() throws {
        let fixture = try CacheFixture()
        try threeBundles(fixture)
        fixture.scan()
        try fixture.tree.content("Chat", in: fixture.directory, identifier: "com.example.chat.chat", categories: ["CHAT"])
        try fixture.settle(fixture.directory + "/Chat.appex")
        let index = fixture.scan()
        #expect(index.counts == DiscoveryCounts(fromCache: 3, read: 1))
        #expect(index.contentExtension(forApp: "com.example.chat", category: "CHAT")?.name == "Chat.appex")
        #expect(index.text == fixture.coldScan().text)
        #expect(try fixture.cachedNames() == ["Chat.appex", "Invite.appex", "Mail.appex", "Rewrite.appex"])
    }

    @Test func aRemovedBundleLeavesTheIndexAndTheCache() throws {
        let fixture = try CacheFixture()
        try threeBundles(fixture)
        fixture.scan()
        try FileManager.default.removeItem(atPath: fixture.directory + "/Mail.appex")
        let index = fixture.scan()
        #expect(index.counts == DiscoveryCounts(fromCache: 2, read: 0))
        #expect(index.bundle(named: "Mail") == nil)
        #expect(index.contentExtension(forApp: "com.example.mail", category: "MAIL") == nil)
        #expect(try fixture.cachedNames() == ["Invite.appex", "Rewrite.appex"])
    }

    /// Overwritten in place, so that only the interface file's own stamp tells.
    @Test func aChangedInterfaceFileIsReadAgain() throws {
        let fixture = try CacheFixture()
        try threeBundles(fixture)
        fixture.scan()
        let interface = fixture.directory + "/Invite.appex/MainInterface.json"
        try fixture.overwriteKeepingStamp(interface, with: #"{"version": 1, "root": {"type": "label", "id": "title", "text": "Thanks"}}"#)
        #expect(fixture.scan().counts == DiscoveryCounts(fromCache: 3, read: 0))
        try fixture.stamp(interface, secondsFromNow: -1800)
        let index = fixture.scan()
        #expect(index.counts == DiscoveryCounts(fromCache: 2, read: 1))
        guard case .label(let text, _, _) = index.bundle(named: "Invite")?.interface?.root.kind else {
            Issue.record("The interface has no label at its root.")
            return
        }
        #expect(text == "Thanks")
        #expect(index.text == fixture.coldScan().text)
    }

    /// A file added to or removed from a bundle changes the bundle directory,
    /// even when the manifest does not change.
    @Test func aFileAddedToOrRemovedFromABundleIsNoticed() throws {
        let fixture = try CacheFixture()
        let bundle = try fixture.tree.content("Invite", in: fixture.directory, identifier: "com.example.events.invite",
                                              categories: ["INVITE"], interface: "MainInterface")
        try fixture.settle()
        let missing = fixture.scan()
        #expect(findings(missing.bundles.flatMap(\.diagnostics)) == [
            .warning("bundle.interface-missing", at: "NSExtension.NSExtensionMainStoryboard"),
        ])
        let interface = bundle + "/MainInterface.json"
        try fixture.tree.write(#"{"version": 1, "root": {"type": "image"}}"#, to: interface)
        try fixture.settle(secondsAgo: 1800)
        let added = fixture.scan()
        #expect(added.counts == DiscoveryCounts(fromCache: 0, read: 1))
        #expect(added.bundles.first?.diagnostics.isEmpty == true)
        #expect(added.bundles.first?.interface != nil)
        try FileManager.default.removeItem(atPath: interface)
        try fixture.settle(secondsAgo: 900)
        let removed = fixture.scan()
        #expect(removed.counts == DiscoveryCounts(fromCache: 0, read: 1))
        #expect(removed.text == missing.text)
    }

    @Test func aBundleChangedAfterTheScanBeganIsReadAgainNextTime() throws {
        let fixture = try CacheFixture()
        try threeBundles(fixture)
        // Stamped later than any scan start: it may change again within the same clock tick.
        try fixture.stamp(fixture.directory + "/Mail.appex/Info.plist", secondsFromNow: 3600)
        #expect(fixture.scan().counts == DiscoveryCounts(fromCache: 0, read: 3))
        #expect(fixture.scan().counts == DiscoveryCounts(fromCache: 2, read: 1))
        #expect(try fixture.cachedNames() == ["Invite.appex", "Rewrite.appex"])
    }

    @Test func aBundleWhoseManifestCannotBeReadIsNotCached() throws {
        let fixture = try CacheFixture()
        try threeBundles(fixture)
        let broken = fixture.directory + "/Broken.appex"
        try FileManager.default.createDirectory(atPath: broken + "/Info.plist", withIntermediateDirectories: true)
        try fixture.settle()
        let first = fixture.scan()
        #expect(findings(try #require(first.bundle(named: "Broken")).diagnostics).map(\.code) == ["file.unreadable"])
        #expect(fixture.scan().counts == DiscoveryCounts(fromCache: 3, read: 1))
    }

    @Test func isSettledAsksRoundedTimesToBeTwoSecondsOlder() {
        let start: Int64 = 1_800_000_000_500_000_000
        #expect(IndexCacheEntry.isSettled(start - 1, before: start))
        #expect(!IndexCacheEntry.isSettled(start, before: start))
        #expect(!IndexCacheEntry.isSettled(1_800_000_000_000_000_000, before: start))
        #expect(IndexCacheEntry.isSettled(1_799_999_998_000_000_000, before: start))
        #expect(!IndexCacheEntry.isSettled(1_799_999_998_510_000_000, before: start))
    }

    // MARK: Several directories

    @Test func otherDirectoriesKeepTheirEntriesUntilTheyVanish() throws {
        let fixture = try CacheFixture()
        try threeBundles(fixture)
        let other = try fixture.tree.directory("other")
        try fixture.tree.content("Other", in: other, identifier: "com.example.other.other", categories: ["OTHER"])
        try fixture.settle(other)
        fixture.scan()
        #expect(fixture.scan([other]).counts == DiscoveryCounts(fromCache: 0, read: 1))
        #expect(fixture.scan().counts == DiscoveryCounts(fromCache: 3, read: 0))
        #expect(fixture.scan([other]).counts == DiscoveryCounts(fromCache: 1, read: 0))
        try FileManager.default.removeItem(atPath: other)
        fixture.scan()
        #expect(try fixture.cachedNames(in: other).isEmpty)
        #expect(try fixture.cachedNames().count == 3)
    }

    // MARK: A damaged cache

    /// Ways a cache file can be damaged, each applied to a good file.
    enum Damage: String, CaseIterable, Sendable {
        case truncated, flippedByte, wrongVersion, garbage, empty, otherProducer

        func apply(to bytes: [UInt8]) -> [UInt8] {
            var bytes = bytes
            switch self {
            case .truncated: bytes.removeLast(7)
            case .flippedByte: bytes[bytes.count / 2] ^= 0x10
            case .wrongVersion: bytes[4] = UInt8(truncatingIfNeeded: IndexCache.formatVersion + 1)
            case .garbage: bytes = Array("not an index cache at all, and longer than a header".utf8)
            case .empty: bytes = []
            case .otherProducer: break
            }
            return bytes
        }
    }

    @Test(arguments: Damage.allCases)
    func aDamagedCacheIsIgnoredNotedAndRewritten(damage: Damage) throws {
        let fixture = try CacheFixture()
        try threeBundles(fixture)
        if damage == .otherProducer {
            let older = IndexCache(path: fixture.cache.path, producer: "tidings 0.0.1")
            _ = Discovery.scan(SearchPath(directories: [fixture.directory], origin: .option), cache: older)
        } else {
            fixture.scan()
            try fixture.writeCache(damage.apply(to: try fixture.cacheBytes()))
        }
        let rebuilt = fixture.scan()
        #expect(rebuilt.counts == DiscoveryCounts(fromCache: 0, read: 3))
        #expect(findings(rebuilt.diagnostics) == [.note("registry.cache-invalid", at: nil)])
        #expect(rebuilt.diagnostics.first?.location.file == fixture.cache.path)
        #expect(rebuilt.bundles.map(\.json) == fixture.coldScan().bundles.map(\.json))
        let next = fixture.scan()
        #expect(next.counts == DiscoveryCounts(fromCache: 3, read: 0))
        #expect(next.diagnostics.isEmpty)
    }

    @Test func aCacheThatCannotBeWrittenIsNotedAndTheScanGoesOn() throws {
        let fixture = try CacheFixture()
        try threeBundles(fixture)
        let blocker = fixture.tree.temporary.file("blocker")
        try fixture.tree.write("", to: blocker)
        let cache = IndexCache(path: blocker + "/tidings/index.v2", producer: "tidings test")
        let index = Discovery.scan(SearchPath(directories: [fixture.directory], origin: .option), cache: cache)
        #expect(findings(index.diagnostics) == [.note("registry.cache-unwritable", at: nil)])
        #expect(index.bundles.map(\.json) == fixture.coldScan().bundles.map(\.json))
    }

    // MARK: The file

    @Test func theFileIsPrivateToItsOwner() throws {
        let fixture = try CacheFixture()
        try threeBundles(fixture)
        fixture.scan()
        let file = try FileManager.default.attributesOfItem(atPath: fixture.cache.path)
        let directory = try FileManager.default.attributesOfItem(atPath: (fixture.cache.path as NSString).deletingLastPathComponent)
        #expect((file[.posixPermissions] as? Int) == 0o600)
        #expect((directory[.posixPermissions] as? Int) == 0o700)
    }

    @Test func theStandardCacheIsUnderTheXDGCacheDirectory() {
        let cache = IndexCache.standard(in: ["XDG_CACHE_HOME": "/c", "HOME": "/h"], version: "1.2.3")
        #expect(cache?.path == "/c/tidings/index.v2")
        #expect(cache?.producer == "tidings 1.2.3")
        #expect(IndexCache.standard(in: ["HOME": "/h"], version: "1.2.3")?.path == "/h/.cache/tidings/index.v2")
        #expect(IndexCache.standard(in: [:], version: "1.2.3")?.path == nil)
    }

    @Test func aScanWithoutACacheReadsEveryBundle() throws {
        let fixture = try CacheFixture()
        try threeBundles(fixture)
        #expect(fixture.coldScan().counts == DiscoveryCounts(fromCache: 0, read: 3))
        #expect(!FileManager.default.fileExists(atPath: fixture.cache.path))
    }
}
