import Foundation
import Testing
import TestSupport
import TidingsBase
import TidingsRuntime

/// The attachment store's quota: per notification, bundle and app, refused
/// with Apple's 104 and a code of its own before anything is copied, counted
/// back when files leave, and a bundle that keeps trying told so.
@Suite struct AttachmentQuotaTests {
    let directory = TemporaryDirectory("quota")
    static let png = Locations.repositoryFile("Plugins/EventInvite/Payloads/lighthouse.png")
    static let pngSize = UInt64((try? FileManager.default.attributesOfItem(atPath: png)[.size] as? Int) ?? 0)

    /// A store whose quota `change` sets.
    func store(_ change: (inout AttachmentQuota) -> Void) -> AttachmentStore {
        var quota = AttachmentQuota()
        change(&quota)
        return AttachmentStore(directory: directory.file("store"), quota: quota)
    }

    /// A new copy of the sample PNG.
    func picture(_ name: String) throws -> AttachmentRequest {
        let path = directory.file(name)
        try FileManager.default.copyItem(atPath: Self.png, toPath: path)
        return AttachmentRequest(url: path)
    }

    func owner(_ notification: String, app: String = "com.example.app", bundle: String? = "com.example.app.service")
        -> AttachmentStore.Owner {
        AttachmentStore.Owner(app: app, notification: notification, bundle: bundle)
    }

    @Test func aNotificationKeepsNoMoreFilesThanItsQuota() throws {
        let store = store { $0.notificationFiles = 2 }
        for number in 0..<2 {
            _ = try store.admit(try picture("\(number).png"), as: .copy, for: owner("n")).get()
        }
        guard case .failure(let failure) = store.admit(try picture("2.png"), as: .copy, for: owner("n")) else {
            Issue.record("a third file was admitted")
            return
        }
        #expect(failure.appleCode == 104)
        #expect(failure.diagnostic.code == .attachmentStoreQuota)
        #expect(failure.diagnostic.message.contains("notification \"n\""))
        #expect(store.fileNames().count == 2, "nothing of the refused file is in the store")
        // Another notification has a quota of its own.
        _ = try store.admit(try picture("3.png"), as: .copy, for: owner("m")).get()
    }

    /// A later host (a restarted server) counts the files its restored
    /// notifications carry: the app's quota is not new again after a restart.
    @Test func filesOfRestoredNotificationsCountForTheirApp() throws {
        let first = store { $0.appFiles = 2 }
        let kept = try first.admit(all: [try picture("0.png"), try picture("1.png")], as: .copy, for: owner("n")).get()
        let later = store { $0.appFiles = 2 }
        later.adopt(kept.map(\.attachment), for: owner("n", bundle: nil))
        later.adopt(kept.map(\.attachment), for: owner("n", bundle: nil))  // counted once
        #expect(throws: AttachmentFailure.self) { try later.admit(try picture("2.png"), as: .copy, for: owner("m")).get() }
        later.remove([kept[0].attachment])
        _ = try later.admit(try picture("3.png"), as: .copy, for: owner("m")).get()
    }

    @Test func bytesPerNotificationAreCountedAndFreedWhenFilesLeave() throws {
        let store = store { $0.notificationBytes = Self.pngSize * 2 }
        let first = try store.admit(try picture("0.png"), as: .copy, for: owner("n")).get()
        _ = try store.admit(try picture("1.png"), as: .copy, for: owner("n")).get()
        #expect(throws: AttachmentFailure.self) { try store.admit(try picture("2.png"), as: .copy, for: owner("n")).get() }
        store.remove([first.attachment])
        _ = try store.admit(try picture("3.png"), as: .copy, for: owner("n")).get()
        #expect(store.fileNames().count == 2)
    }

    @Test func aBundleAndAnAppHaveQuotasOverTheirNotifications() throws {
        let bundled = store { $0.bundleFiles = 1 }
        _ = try bundled.admit(try picture("0.png"), as: .copy, for: owner("a")).get()
        let refused = bundled.admit(try picture("1.png"), as: .copy, for: owner("b"))
        #expect(throws: AttachmentFailure.self) { try refused.get() }
        // A payload's file belongs to no bundle: the app's quota alone counts it.
        _ = try bundled.admit(try picture("2.png"), as: .copy, for: owner("b", bundle: nil)).get()

        let perApp = store { $0.appFiles = 1 }
        _ = try perApp.admit(try picture("3.png"), as: .copy, for: owner("c", bundle: nil)).get()
        #expect(throws: AttachmentFailure.self) {
            try perApp.admit(try picture("4.png"), as: .copy, for: owner("d", bundle: nil)).get()
        }
        _ = try perApp.admit(try picture("5.png"), as: .copy, for: owner("d", app: "com.example.other", bundle: nil)).get()
    }

    @Test func aBundleThatKeepsTryingIsToldSoOncePerRound() throws {
        let store = store {
            $0.notificationFiles = 0
            $0.abuseRefusals = 3
        }
        var abuses: [Bool] = []
        for number in 0..<6 {
            guard case .failure(let failure) = store.admit(try picture("\(number).png"), as: .copy, for: owner("n")) else {
                Issue.record("admitted past a quota of none")
                return
            }
            abuses.append(failure.abuse != nil)
            if let abuse = failure.abuse { #expect(abuse.code == .attachmentStoreAbuse) }
        }
        #expect(abuses == [false, false, true, false, false, true])
        // A payload's files (no bundle) are refused, never called abuse.
        for number in 6..<10 {
            guard case .failure(let failure) = store.admit(try picture("\(number).png"), as: .copy,
                                                           for: owner("n", bundle: nil)) else { return }
            #expect(failure.abuse == nil)
        }
    }
}
