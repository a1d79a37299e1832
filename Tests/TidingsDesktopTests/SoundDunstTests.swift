import Foundation
import Testing
import TestSupport
import TidingsBase
import TidingsDesktop

/// A notification's sound and a critical alert's urgency as they reach the
/// real dunst: the hints of Notify read off the private bus by
/// `dbus-monitor` (dunst plays no sound itself, and keeps no sound hint),
/// and the urgency dunst took, from its history (which keeps no urgency:
/// the timeout each urgency is given in its dunstrc tells which it took).
@Suite(.enabled(if: canRunDunst && ProcessRunner.which("dbus-monitor") != nil, "needs dunst, dunstctl, Xvfb and dbus-monitor"))
struct SoundDunstTests {
    /// The plain presentation with `sound` as its attributes' sound, mapped for dunst.
    func mapped(sound: JSON, summary: String) throws -> DesktopNotification {
        let plain = try captured(CapturedPresentation.plain)
        let attributes = try #require(plain["attributes"]).setting("sound", to: sound)
        let defaults = try #require(plain["defaultContent"]).setting("title", to: .string(summary))
        return DesktopPresentation(presentation: plain.setting("attributes", to: attributes)
                                       .setting("defaultContent", to: defaults),
                                   app: AppDisplay(identifier: "com.example.plain"), capabilities: Servers.dunst).notification
    }

    /// `text` with each run of white space one space, as the hints are compared.
    func squeezed(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    @Test func theSoundHintsAndCriticalUrgencyReachDunst() throws {
        let session = try DunstTests.Session(configuration: """
            [urgency_low]
                timeout = 300
            [urgency_normal]
                timeout = 400
            [urgency_critical]
                timeout = 500
            """)
        let log = session.bus.directory.file("monitor.log")
        let monitor = try BackgroundProcess(ProcessRunner.which("dbus-monitor")!, ["--address", session.bus.address],
                                            environment: [:], log: log)
        defer { monitor.stop(with: SIGKILL) }
        let client = try session.bus.connect()
        let notifications = NotificationsClient()
        #expect(eventually { (try? notifications.serverInformation(on: client)) != nil })
        // The monitor sees the bus from when it is a monitor on: a probe, sent
        // until it shows, says it is.
        #expect(eventually {
            _ = try? notifications.notify(DesktopNotification(appName: "probe", summary: "probe", expireTimeout: 1), on: client)
            return (try? String(contentsOfFile: log, encoding: .utf8))?.contains(#"string "probe""#) == true
        })

        let critical = try notifications.notify(
            mapped(sound: .object([("name", .string("default")), ("critical", .bool(true))]), summary: "Missed dose"),
            on: client)
        let file = try notifications.notify(
            mapped(sound: .object([("name", .string("/usr/share/sounds/pillbox/chime.oga")), ("critical", .bool(false))]),
                   summary: "Chime"),
            on: client)
        #expect(eventually { (try? String(contentsOfFile: log, encoding: .utf8))?.contains(#"string "Chime""#) == true })
        let seen = squeezed(try String(contentsOfFile: log, encoding: .utf8))
        #expect(seen.contains(#"string "sound-name" variant string "message-new-instant""#))
        #expect(seen.contains(#"string "sound-file" variant string "/usr/share/sounds/pillbox/chime.oga""#))
        #expect(seen.contains(#"string "urgency" variant byte 2"#))

        // dunst took the critical one as critical, the other as normal (the
        // history's timeouts are in microseconds).
        for id in [critical, file] { try notifications.closeNotification(id, on: client) }
        var timeouts: [String: Int] = [:]
        var history = ""
        #expect(eventually {
            history = (try? session.dunstctl("history")) ?? ""
            let json = try? JSONSerialization.jsonObject(with: Data(history.utf8)) as? [String: Any]
            for entry in ((json?["data"] as? [[Any]])?.first as? [[String: Any]]) ?? [] {
                if let summary = (entry["summary"] as? [String: Any])?["data"] as? String,
                   let timeout = (entry["timeout"] as? [String: Any])?["data"] as? Int {
                    timeouts[summary] = timeout
                }
            }
            return timeouts["Missed dose"] != nil && timeouts["Chime"] != nil
        })
        #expect(timeouts["Missed dose"] == 500_000_000, "\(history)")
        #expect(timeouts["Chime"] == 400_000_000)
    }
}
