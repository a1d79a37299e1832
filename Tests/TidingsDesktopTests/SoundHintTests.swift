import Testing
import TidingsBase
import TidingsDesktop

/// A notification's sound as the desktop hears it: the system's, a file,
/// another name, and a critical alert's (critical urgency).
@Suite struct SoundHintTests {
    /// The plain presentation (time-sensitive, sound "default") with `sound` as its attributes' sound.
    func mapped(sound: JSON) throws -> DesktopPresentation {
        let plain = try captured(CapturedPresentation.plain)
        let attributes = try #require(plain["attributes"]).setting("sound", to: sound)
        return DesktopPresentation(presentation: plain.setting("attributes", to: attributes),
                                   app: AppDisplay(identifier: "com.example.plain"), capabilities: Servers.full)
    }

    @Test func aCriticalSoundIsCriticalUrgencyWithTheMessageSound() throws {
        let critical = try mapped(sound: .object([("name", .string("default")), ("critical", .bool(true)),
                                                  ("volume", .double(0.8))]))
        #expect(critical.notification.hints["urgency"] == .byte(2))
        #expect(critical.notification.hints["sound-name"] == .string("message-new-instant"))
        #expect(critical.notification.hints["suppress-sound"] == nil)
        #expect(critical.degradations.isEmpty)
    }

    @Test func theSameSoundNotCriticalKeepsTheLevelsUrgency() throws {
        let plain = try mapped(sound: .object([("name", .string("default")), ("critical", .bool(false))]))
        #expect(plain.notification.hints["urgency"] == .byte(1))
    }

    @Test func aSoundNamedByAnAbsolutePathPlaysThatFile() throws {
        let file = try mapped(sound: .object([("name", .string("/usr/share/sounds/pillbox/chime.oga")),
                                              ("critical", .bool(false))]))
        #expect(file.notification.hints["sound-file"] == .string("/usr/share/sounds/pillbox/chime.oga"))
        #expect(file.notification.hints["sound-name"] == nil)
        #expect(file.degradations.isEmpty)
    }

    @Test func aBundleSoundPlaysTheMessageSoundAndSaysSo() throws {
        let bundled = try mapped(sound: .object([("name", .string("chime.caf")), ("critical", .bool(false))]))
        #expect(bundled.notification.hints["sound-name"] == .string("message-new-instant"))
        #expect(bundled.notification.hints["sound-file"] == nil)
        #expect(bundled.degradations == ["the notification's own sound is not on this desktop: the desktop's message sound plays instead"])
    }
}

/// "Settings" for an app with its own notification settings: the response
/// `tidings.settings`, which the app library hands to `openSettingsFor`.
@Suite struct SettingsActionTests {
    @Test func anAppWithItsOwnSettingsOffersSettingsAsTheSettingsResponse() throws {
        let plain = try captured(CapturedPresentation.plain)
        let mapped = DesktopPresentation(presentation: plain, app: AppDisplay(identifier: "com.example.plain", providesSettings: true),
                                         capabilities: Servers.full)
        #expect(mapped.notification.actions.last == DesktopNotification.Action(key: "tidings.settings", label: "Settings"))
        #expect(mapped.actions["tidings.settings"] == .respond("tidings.settings"))
    }

    @Test func anAppWithoutOffersNoSettings() throws {
        let mapped = DesktopPresentation(presentation: try captured(CapturedPresentation.plain),
                                         app: AppDisplay(identifier: "com.example.plain"), capabilities: Servers.full)
        #expect(mapped.actions["tidings.settings"] == nil)
    }
}
