import RuntimeTestSupport
import Testing
import TestSupport
import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// The one way from a payload to a delivery, which `tidings deliver` and
/// `tidings serve` both take: each step that can refuse says which it was,
/// and what passes is addressed, localized, recorded and shown.
@Suite struct PayloadDeliveryTests {
    let fixture = Fixture()
    static let app = "com.example.tests"

    /// A host serving the Echo fixture for category "echo" of com.example.tests.
    func host() throws -> NotificationHost {
        let library = try CCompiler.fixture("Echo", into: fixture.directory.path)
        let manifest = BundleMaker.contentManifest(identifier: "com.example.tests.echo", executable: "libEcho.so",
                                                   categories: ["echo"])
        try BundleMaker.make("Echo", in: fixture.directory.path, manifest: manifest, library: library)
        return fixture.host()
    }

    static func submission(_ json: String, app: String? = nil) throws -> PayloadSubmission {
        var submission = PayloadSubmission(payload: try JSON.parse(Array(json.utf8)),
                                           appOption: "--app")
        submission.app = app
        return submission
    }

    /// The step that refused `submission`, nil when it was delivered.
    static func refusal(_ host: NotificationHost, _ submission: PayloadSubmission) -> PayloadRefusal? {
        do throws(PayloadRefusal) {
            _ = try host.deliver(submission)
            return nil
        } catch {
            return error
        }
    }

    /// An APNs payload of `size` bytes as sent (compact), laid out with whitespace that makes its text longer.
    static func spacedPayload(size: Int) -> String {
        let compact = #"{"aps":{"alert":"Hi","category":"echo"},"pad":""}"#
        let pad = String(repeating: "x", count: size - compact.utf8.count)
        return "{\n    \"aps\": {\"alert\": \"Hi\", \"category\": \"echo\"},\n    \"pad\": \"\(pad)\"\n}\n"
    }

    @Test func anAPNsPayloadIsMeasuredAsSentAndRefusedOverTheLimitBeforeAnythingElse() throws {
        let host = try host()
        let fitting = Self.spacedPayload(size: 4_096)
        #expect(fitting.utf8.count > 4_096)  // the whitespace does not count
        let submission = try Self.submission(fitting)
        #expect(submission.size == 4_096)
        #expect(Self.refusal(host, submission).map { "\($0)" } == nil)
        let over = try Self.submission(Self.spacedPayload(size: 4_097))
        guard case .payload(let problems) = Self.refusal(host, over) else { Issue.record("not refused"); return }
        #expect(problems.map(\.code) == [.payloadTooLarge])
        #expect(problems.first?.message.contains("4097 bytes as sent (its compact JSON); APNs accepts at most 4096") == true)
    }

    @Test func aPayloadThatIsNoNotificationIsRefusedWithWhy() throws {
        guard case .payload(let problems) = Self.refusal(try host(), try Self.submission(#"{"aps": 3}"#)) else {
            Issue.record("not refused")
            return
        }
        #expect(problems.containsError)
    }

    @Test func theAppComesFromTheCategoriesRegisteredWhenNoneIsGiven() throws {
        let host = try host()
        let submission = try Self.submission(#"{"aps": {"alert": "Hi", "category": "unknown"}}"#)
        guard case .addressing(let problem) = Self.refusal(host, submission) else { Issue.record("not refused"); return }
        #expect(problem.message.contains("--app"))

        host.register([NotificationCategory(identifier: "unknown", actions: [])], for: "com.example.registered")
        let made = try host.deliver(submission)
        #expect(made.delivery?.presentation.app == "com.example.registered")
    }

    @Test func whatIOSDoesNotShowIsNeitherShownNorRecordedNorSeenByTheExtension() throws {
        let host = try host()
        var recorded = 0
        func deliver(_ json: String) throws -> PayloadDelivery {
            try host.deliver(try Self.submission(json, app: Self.app)) { (_: UserNotification, _: String, _: Double, _: [NotificationKey]) throws(Diagnostic) in
                recorded += 1
            }
        }
        // Content-available with no alert, sound or badge: a background notification; its attachment is not even taken in.
        let background = try deliver(#"{"aps": {"content-available": 1, "category": "echo"}, "sync": 1, "attachments": [{"identifier": "a", "path": "/nonexistent.png"}]}"#)
        #expect(background.display == .background && background.delivery == nil && background.admitted.isEmpty)
        #expect(background.notification.content.userInfo.contains { $0.0 == "sync" })
        let badge = try deliver(#"{"aps": {"badge": 2, "category": "echo"}}"#)
        #expect(badge.display == .badge && badge.badge == 2 && badge.delivery == nil)
        #expect(recorded == 0 && host.presentedIdentifiers.isEmpty)
        // An alert, or a sound, is shown, whatever else the payload holds; a badge with it is set too.
        let alerted = try deliver(#"{"aps": {"alert": "Hi", "badge": 4, "content-available": 1, "category": "echo"}}"#)
        #expect(alerted.display == .presented && alerted.badge == 4)
        #expect(alerted.delivery?.presentation.extensionIdentifier == "com.example.tests.echo")
        #expect(try deliver(#"{"aps": {"sound": "ping.caf", "badge": 1, "category": "echo"}}"#).display == .presented)
        #expect(recorded == 2)
    }

    @Test func attachmentsWithoutAStoreAreRefusedAsTheStoresFault() throws {
        let host = try host()
        #expect(host.attachments == nil)
        let submission = try Self.submission(
            #"{"identifier": "n", "content": {"title": "Hi", "categoryIdentifier": "echo", "attachments": [{"path": "/etc/hostname"}]}}"#, app: Self.app)
        guard case .attachmentStore(let problem) = Self.refusal(host, submission) else { Issue.record("not refused"); return }
        #expect(problem.code == .attachmentMoveIntoDataStoreFailed)
    }

    @Test func aRecordThatCannotBeWrittenShowsNothing() throws {
        let host = try host()
        let submission = try Self.submission(#"{"aps": {"alert": "Hi", "category": "echo"}}"#, app: Self.app)
        var recorded: [(String, String)] = []
        do throws(PayloadRefusal) {
            _ = try host.deliver(submission) { (notification: UserNotification, app: String, _: Double, _: [NotificationKey]) throws(Diagnostic) in
                recorded.append((notification.identifier, app))
                throw .error(.fileNoSpace, "No space left.")
            }
            Issue.record("delivered although not recorded")
        } catch {
            guard case .notRecorded(let problem) = error else { Issue.record("refused as \(error)"); return }
            #expect(problem.code == .fileNoSpace)
        }
        #expect(recorded.map(\.1) == [Self.app])
        #expect(host.delivered().isEmpty)
    }

    @Test func theDeliveryJSONNamesTheAttachmentsTakenIn() throws {
        let made = try host().deliver(try Self.submission(#"{"aps": {"alert": "Hi", "category": "echo"}}"#, app: Self.app))
        #expect(made.json["attachments"]?.arrayValue?.isEmpty == true)
        #expect(made.json.objectMembers?.prefix(4).map(\.0) == ["display", "app", "notification", "attachments"])
        #expect(made.delivery?.presentation.extensionIdentifier == "com.example.tests.echo")
    }

    @Test func frontEndsNameAppleActionsShortlyUnlessTheCategoryUsesTheName() {
        #expect(ActionIdentifier.named("default", offered: []) == ActionIdentifier.default)
        #expect(ActionIdentifier.named("open", offered: []) == ActionIdentifier.default)
        #expect(ActionIdentifier.named("dismiss", offered: []) == ActionIdentifier.dismiss)
        #expect(ActionIdentifier.named("dismiss", offered: ["dismiss"]) == "dismiss")
        #expect(ActionIdentifier.named("accept", offered: []) == "accept")
    }
}
