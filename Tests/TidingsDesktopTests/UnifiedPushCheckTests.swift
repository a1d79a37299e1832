import Testing
import TidingsDesktop

/// What the connector takes of a distributor's arguments, and how it reads
/// a distributor's answers: the specification's limits, without a bus.
@Suite struct UnifiedPushCheckTests {
    @Test func tokensEndpointsAndMessagesWithinTheLimitsAreTaken() throws {
        #expect(try UnifiedPushLimits.token("t-1") == "t-1")
        #expect(try UnifiedPushLimits.token(String(repeating: "a", count: 100)).utf8.count == 100)
        #expect(try UnifiedPushLimits.endpoint("https://push.example/up/abc") == "https://push.example/up/abc")
        #expect(try UnifiedPushLimits.endpoint("http://127.0.0.1:8080/push/x") == "http://127.0.0.1:8080/push/x")
        // Larger than Web Push allows: still taken, for the server to refuse with its diagnostic.
        #expect(try UnifiedPushLimits.message([UInt8](repeating: 1, count: 5_000)).count == 5_000)
        #expect(try UnifiedPushLimits.messageID("") == nil)
        #expect(try UnifiedPushLimits.messageID("m-1") == "m-1")
    }

    @Test func whatBreaksTheSpecificationIsRefused() {
        #expect(throws: UnifiedPushRefusal.self) { try UnifiedPushLimits.token(nil) }
        #expect(throws: UnifiedPushRefusal.self) { try UnifiedPushLimits.token("") }
        #expect(throws: UnifiedPushRefusal.self) { try UnifiedPushLimits.token(String(repeating: "a", count: 101)) }
        for endpoint in ["not_an_url", "ftp://x/y", "https://", "https:///path", "https://a b/", "https://x/\u{7}",
                         "https://x/" + String(repeating: "a", count: 1_000)] {
            #expect(throws: UnifiedPushRefusal.self, "\(endpoint)") { try UnifiedPushLimits.endpoint(endpoint) }
        }
        #expect(throws: UnifiedPushRefusal.self) { try UnifiedPushLimits.message(nil) }
        #expect(throws: UnifiedPushRefusal.self) { try UnifiedPushLimits.message([]) }
        #expect(throws: UnifiedPushRefusal.self) { try UnifiedPushLimits.message([UInt8](repeating: 0, count: 65_537)) }
        #expect(throws: UnifiedPushRefusal.self) { try UnifiedPushLimits.messageID(String(repeating: "i", count: 257)) }
    }

    @Test func registerAnswersAreRead() throws {
        #expect(try UnifiedPushDistributorClient.answer2(["success": .string("REGISTRATION_SUCCEEDED")]) == .succeeded)
        #expect(try UnifiedPushDistributorClient.answer2(["success": .string("REGISTRATION_FAILED"),
                                                          "reason": .string("ACTION_REQUIRED")]) == .failed(reason: "ACTION_REQUIRED"))
        #expect(try UnifiedPushDistributorClient.answer2(["success": .string("REGISTRATION_FAILED")])
                == .failed(reason: "INTERNAL_ERROR"))
        #expect(throws: BusError.self) { try UnifiedPushDistributorClient.answer2([:]) }
        #expect(throws: BusError.self) { try UnifiedPushDistributorClient.answer2(["success": .string("MAYBE")]) }
        #expect(throws: BusError.self) { try UnifiedPushDistributorClient.answer2(["success": .bool(true)]) }
        let long = try UnifiedPushDistributorClient.answer2(["success": .string("REGISTRATION_FAILED"),
                                                             "reason": .string(String(repeating: "é", count: 300))])
        guard case .failed(let reason) = long else { return #expect(Bool(false)) }
        #expect(reason.utf8.count <= 200)
        #expect(UnifiedPushDistributorClient.answer1("NEW_ENDPOINT", "") == .succeeded)
        #expect(UnifiedPushDistributorClient.answer1("REGISTRATION_REFUSED", "") == .failed(reason: "REGISTRATION_REFUSED"))
        #expect(UnifiedPushDistributorClient.answer1("REGISTRATION_FAILED", "NETWORK") == .failed(reason: "NETWORK"))
    }

    @Test func distributorNamesNeedThePrefixAndAName() {
        #expect(UnifiedPushDistributorClient.isDistributorName("org.unifiedpush.Distributor.kde"))
        #expect(!UnifiedPushDistributorClient.isDistributorName("org.unifiedpush.Distributor."))
        #expect(!UnifiedPushDistributorClient.isDistributorName("org.unifiedpush.Connector"))
    }

    @Test func aDescriptionIsCutToTheSpecificationsHundredBytes() {
        let registration = PushConnector.Registration(token: "t", app: "a", description: String(repeating: "ü", count: 80))
        #expect(registration.description.utf8.count == 100)
    }
}
