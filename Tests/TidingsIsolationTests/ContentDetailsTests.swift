import RuntimeTestSupport
import Testing
import TestSupport
import TidingsBase
import TidingsRuntime

/// What a content holds beyond `tidings_content` (a critical sound and its
/// volume, the launch image, the summary argument and count, the filter
/// criteria) reaches extensions through the host's `tidings.content/1`, in a
/// worker as in this process: the C fixture Details reads it back, the
/// Swift sample InviteService names the inviter from the summary argument.
@Suite(.serialized) struct ContentDetailsTests {
    let fixture = Fixture()

    /// An APNs payload carrying every detail.
    static let payload = JSON.object([("aps", .object([
        ("alert", .object([("title", .string("Team offsite")), ("body", .string("You are invited.")),
                           ("launch-image", .string("Splash")), ("summary-arg", .string("Ann")),
                           ("summary-arg-count", .integer(3))])),
        ("sound", .object([("critical", .integer(1)), ("name", .string("alarm.caf")), ("volume", .double(0.5))])),
        ("filter-criteria", .string("work")), ("category", .string("details")), ("mutable-content", .integer(1)),
    ]))])

    /// The payload as a notification.
    static func notification() throws -> UserNotification {
        let reading = Payload.decode(payload, identifier: "n-1")
        #expect(reading.diagnostics.isEmpty, "\(reading.diagnostics)")
        return try #require(reading.notification)
    }

    @Test(arguments: IsolationMode.allCases)
    func aCExtensionReadsTheContentDetails(_ mode: IsolationMode) throws {
        let library = try CCompiler.fixture("Details", into: fixture.directory.path)
        try BundleMaker.make("Details", in: fixture.directory.path, manifest: BundleMaker.contentManifest(
            identifier: "com.example.tests.details", executable: "libDetails.so", categories: ["details"]),
            library: library)
        let host = fixture.host(configuration: NotificationHost.Configuration(), launcher: mode.launcher())
        let delivery = host.deliverOpened(try Self.notification(), to: "com.example.tests")
        #expect(delivery.diagnostics.isEmpty, "\(delivery.diagnostics)")
        #expect(delivery.log.map(\.message) == [
            "own=unknown", "critical=1 volume=0.5 launch=Splash summary=Ann count=3 filter=work",
        ])
    }

    /// Installs the InviteService sample.
    func installInviteService() throws {
        let manifest = try String(contentsOfFile: Locations.repositoryFile("Manifests/InviteService.plist"), encoding: .utf8)
        try BundleMaker.make("InviteService", in: fixture.directory.path, manifest: manifest,
                             library: Locations.product("libInviteService.so"))
    }

    @Test func aHostBeforeVersion3OffersNoDetailsAndTheSDKKeepsItsDefaults() throws {
        try installInviteService()
        var configuration = NotificationHost.Configuration()
        configuration.abiVersion = 2
        let delivery = fixture.host(configuration: configuration).deliverOpened(try Self.notification(), to: "com.example.events")
        #expect(delivery.presentation.notification.content.title == "Invitation: Team offsite")
    }

    @Test(arguments: IsolationMode.allCases)
    func aSwiftServiceExtensionReadsTheSummaryArgument(_ mode: IsolationMode) throws {
        try installInviteService()
        let host = fixture.host(configuration: NotificationHost.Configuration(), launcher: mode.launcher())
        let delivery = host.deliverOpened(try Self.notification(), to: "com.example.events")
        let content = delivery.presentation.notification.content
        #expect(content.title == "Invitation from Ann: Team offsite")
        // What tidings_content does not carry stays as the request had it.
        #expect(content.criticalSound && content.soundVolume == 0.5 && content.launchImageName == "Splash")
        #expect(content.summaryArgumentCount == 3 && content.filterCriteria == "work")
    }
}
