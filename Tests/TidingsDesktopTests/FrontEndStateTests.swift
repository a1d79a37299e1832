import Foundation
import Testing
import TestSupport
import TidingsBase
import TidingsDesktop
import TidingsProtocol

/// What the front end keeps across its restarts (`desktop.json`): the last
/// `seq` and the desktop id of each notification on screen.
@Suite struct FrontEndStateTests {
    let directory = TemporaryDirectory("desktop-state")

    private func presentation(_ title: String) -> DesktopPresentation {
        DesktopPresentation(presentation: .object([("notification", .string("n")), ("app", .string("com.example.app")),
                                                   ("defaultContent", .object([("title", .string(title)), ("body", .string("")),
                                                                               ("subtitle", .string(""))])),
                                                   ("actions", .array([])), ("expanded", .bool(false)), ("dismissed", .bool(false))]),
                            app: AppDisplay(identifier: "com.example.app"), capabilities: ServerCapabilities(["actions", "body"]))
    }

    private let a = NotificationKey(app: "com.example.app", identifier: "a")
    private let b = NotificationKey(app: "com.example.app", identifier: "b")

    @Test func aRestartFindsWhatWasShownAndTheLastSeq() throws {
        let path = directory.file("desktop.json")
        var state = ShownNotifications(path: path)
        let first = state.handle(seq: 7)
        #expect(first)
        state.show(a, as: 12, presentation("A"))
        state.show(b, as: 13, presentation("B"))
        state.retire(b)
        state.persist()

        var again = ShownNotifications(path: path)
        #expect(again.lastSeq == 7)
        let twice = again.handle(seq: 7)
        #expect(!twice, "an event handled before the restart is handled again")
        #expect(again.key(of: 12) == a)
        #expect(again.entries[a]?.fingerprint == ShownNotifications.fingerprint(of: presentation("A").notification))
        #expect(again.entries[b]?.desktopID == 0, "a notification the desktop closed is shown again")
        #expect(again.key(of: 0) == nil)
        // Another notification server: what was on screen is forgotten, what it closed stays closed.
        again.forgetShown()
        #expect(again.entries[a] == nil && again.entries[b] != nil)
    }

    @Test func idsOfAnotherBusOrNotificationServerAreForgotten() throws {
        let path = directory.file("desktop.json")
        var state = ShownNotifications(path: path)
        let first = state.showing(onBus: "bus-1", server: ":1.4")
        #expect(first)
        state.show(a, as: 1, presentation("A"))
        state.show(b, as: 2, presentation("B"))
        state.retire(b)
        state.persist()

        // The same bus and server after a restart of the front end: the ids hold.
        var again = ShownNotifications(path: path)
        let same = again.showing(onBus: "bus-1", server: ":1.4")
        #expect(!same)
        #expect(again.key(of: 1) == a)
        // Another notification server on the bus, or the next login's bus: they do not.
        var replaced = again
        let otherServer = replaced.showing(onBus: "bus-1", server: ":1.9")
        #expect(otherServer && replaced.key(of: 1) == nil && replaced.entries[b]?.desktopID == 0)
        let otherBus = again.showing(onBus: "bus-2", server: ":1.4")
        #expect(otherBus && again.key(of: 1) == nil)
        again.persist()
        let kept = try #require(ShownNotifications(path: path).notificationServer)
        #expect(kept.bus == "bus-2" && kept.owner == ":1.4")
    }

    @Test func aFingerprintChangesWithWhatIsShownOnly() {
        let shown = presentation("A").notification
        var replaced = shown
        replaced.replacesID = 99
        #expect(ShownNotifications.fingerprint(of: shown) == ShownNotifications.fingerprint(of: replaced))
        #expect(ShownNotifications.fingerprint(of: shown) != ShownNotifications.fingerprint(of: presentation("B").notification))
    }

    @Test func aDamagedFileIsStartedAfresh() throws {
        let path = try directory.write("{not json", to: "desktop.json")
        let state = ShownNotifications(path: path)
        #expect(state.lastSeq == nil && state.entries.isEmpty)
    }

    @Test func twoAppsKeepOneIdentifierApart() throws {
        let path = directory.file("desktop.json")
        var state = ShownNotifications(path: path)
        let pillbox = NotificationKey(app: "org.example.pillbox", identifier: "dose-1")
        let clinic = NotificationKey(app: "org.example.clinic", identifier: "dose-1")
        state.show(pillbox, as: 4, presentation("A"))
        state.show(clinic, as: 5, presentation("B"))
        state.persist()
        let again = ShownNotifications(path: path)
        #expect(again.key(of: 4) == pillbox && again.key(of: 5) == clinic)
        #expect(again.entries.count == 2)
    }

    @Test func anOlderFileWithoutAppsIsReadAndItsEntriesAdopted() throws {
        // What a front end before (app, identifier) keys wrote: `shown` by identifier alone.
        let path = try directory.write("""
            {"lastSeq":9,"bus":"bus-1","notificationServer":":1.4","shown":{"dose-1":{"id":3,"fingerprint":"f"}}}
            """, to: "desktop.json")
        var state = ShownNotifications(path: path)
        #expect(state.lastSeq == 9)
        let legacy = NotificationKey(app: "", identifier: "dose-1")
        #expect(state.key(of: 3) == legacy)
        // The first delivery or re-list naming the identifier says whose it was.
        let pillbox = NotificationKey(app: "org.example.pillbox", identifier: "dose-1")
        let adopted = state.adopt(pillbox)
        #expect(adopted && state.key(of: 3) == pillbox && state.entries[legacy] == nil)
        let twice = state.adopt(NotificationKey(app: "org.example.clinic", identifier: "dose-1"))
        #expect(!twice, "one kept entry was given to two apps")
        state.persist()
        #expect(ShownNotifications(path: path).key(of: 3) == pillbox)
    }
}
