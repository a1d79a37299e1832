import RuntimeTestSupport
import Synchronization
import Testing
import TestSupport
import TidingsBase
import TidingsProtocol
import TidingsRegistry
import TidingsRuntime

/// The host's presentation decider: asked after the service stage, before
/// anything shows; its options reach the presentation (and stay with the
/// notification shown); options without a banner or the list withhold the
/// notification — nothing shown, recorded or announced; the badge applies
/// only with "badge"; a host without a decider presents with every option.
@Suite struct PresentationDeciderTests {
    let fixture = Fixture()
    static let app = "com.example.chat"

    /// What a decider was asked: each app and notification identifier.
    final class Asked: Sendable {
        let names = Mutex<[String]>([])
    }

    /// A host whose decider answers `options` (withholding as `foreground`), telling `asked` what it was asked.
    func host(answering options: PresentationOptions, asked: Asked? = nil) -> NotificationHost {
        let events = fixture.events
        return NotificationHost(index: Discovery.scan(SearchPath(directories: [fixture.directory.path], origin: .option)),
                                onEvent: { events.append($0) }, decider: { app, notification, answer in
            asked?.names.withLock { $0.append("\(app) \(notification.identifier)") }
            answer(PresentationDecision(options: options))
        })
    }

    static func submission(_ identifier: String) throws -> PayloadSubmission {
        var submission = PayloadSubmission(payload: try JSON.parse(Array(
            #"{"aps": {"alert": {"title": "Ann", "body": "Lunch?"}, "badge": 4, "sound": "default"}}"#.utf8)),
                                           appOption: "--app")
        submission.app = app
        submission.identifier = identifier
        return submission
    }

    var delivered: [Presentation] {
        fixture.events.all.compactMap { if case .delivered(let presentation) = $0 { presentation } else { nil } }
    }

    @Test func theDecidersOptionsReachThePresentationAndStayWithTheNotification() throws {
        let asked = Asked()
        let host = host(answering: [.list, .sound], asked: asked)
        let made = try host.deliver(Self.submission("m1"))
        #expect(asked.names.withLock { $0 } == ["\(Self.app) m1"])
        #expect(made.display == .presented && made.options == [.list, .sound])
        #expect(made.delivery?.presentation.presentationOptions == [.list, .sound])
        #expect(made.badge == nil, "no badge without \"badge\"")
        #expect(delivered.map(\.presentationOptions) == [[.list, .sound]])
        #expect(host.presentation(of: "m1")?.presentationOptions == [.list, .sound])
        #expect(host.presentation(of: "m1")?.json["presentationOptions"] == .array([.string("list"), .string("sound")]))
    }

    @Test func optionsWithoutBannerOrListWithholdTheNotification() throws {
        let host = host(answering: [.badge])
        let recorded = Asked()
        let made = try host.deliver(Self.submission("m2")) { (made: UserNotification, _: String, _: Double, _: [NotificationKey]) throws(Diagnostic) in
            recorded.names.withLock { $0.append(made.identifier) }
        }
        #expect(made.display == .foreground && made.delivery == nil)
        #expect(made.badge == 4, "the badge applies with \"badge\"")
        #expect(made.json["presentationOptions"] == .array([.string("badge")]))
        #expect(recorded.names.withLock { $0 }.isEmpty)
        #expect(host.presentedIdentifiers.isEmpty && delivered.isEmpty)
    }

    @Test func aDeciderAnsweringLaterFinishesTheDeliveryThen() throws {
        final class Waiting: Sendable {
            let answer = Mutex<(@Sendable (PresentationDecision) -> Void)?>(nil)
        }
        let waiting = Waiting()
        let host = NotificationHost(index: Discovery.scan(SearchPath(directories: [fixture.directory.path], origin: .option)),
                                    decider: { _, _, answer in waiting.answer.withLock { $0 = answer } })
        let finished = Rendezvous<Result<PayloadDelivery, PayloadRefusal>>()
        host.deliver(try Self.submission("m3"), recordingWith: { (_: UserNotification, _: String, _: Double, _: [NotificationKey]) throws(Diagnostic) in },
                     then: { finished.give($0) })
        #expect(host.presentedIdentifiers.isEmpty, "nothing shows before the decider answers")
        let answer = try #require(waiting.answer.withLock { $0 })
        answer(PresentationDecision(options: .banner))
        let made = try finished.take().get()
        #expect(made.display == .presented && made.options == .banner)
        #expect(host.presentedIdentifiers == ["m3"])
    }

    @Test func aHostWithoutADeciderPresentsWithEveryOption() throws {
        let host = fixture.host()
        let made = try host.deliver(Self.submission("m4"))
        #expect(made.options == .all && made.badge == 4)
        #expect(made.delivery?.presentation.json["presentationOptions"]
            == .array(["banner", "list", "sound", "badge"].map(JSON.string)))
    }

    @Test func optionNamesAreReadAsApplesWithAlertForBannerAndList() {
        let (options, unknown) = PresentationOptions.named(["alert", "sound", "banners"])
        #expect(options == [.banner, .list, .sound] && unknown == ["banners"])
        #expect(!PresentationOptions([.sound, .badge]).isPresented && PresentationOptions.list.isPresented)
    }
}
