import ServerTestSupport
import Synchronization
import Testing
import TestSupport
import TidingsBase

/// Two front ends on one chat thread through the real `tidings serve`: a new
/// message arriving while the user answers the last. Before the host held a
/// thread's instance for each call, 55–245 of 600 responses went astray
/// (`extension.create-failed: The instance … was already destroyed`) and
/// some deliveries fell back to default content.
@Suite struct SharedInstanceServerTests {
    let fixture = ServerFixture()

    init() throws {
        try fixture.installC("Ledger", identifier: LedgerFixture.identifier, categories: [LedgerFixture.category],
                             interface: LedgerFixture.interface)
    }

    /// Two clients, 300 deliver/respond pairs each on thread "chat": every
    /// delivery shows the extension's view, every response reaches the
    /// instance that received its notification (the Ledger forwards one it
    /// never saw, which its answer's option tells).
    @Test(arguments: IsolationMode.allCases)
    func twoClientsOnOneThreadNeverMisrouteAResponse(_ isolation: IsolationMode) throws {
        let server = try fixture.startProcess(isolation)
        defer { server.stop() }
        let registering = try fixture.client()
        registering.send(LedgerRequests.register)
        _ = try registering.result(of: .string("register"))
        let problems = Mutex<[String]>([])
        let fixture = self.fixture
        onThreads(2) { number in
            do {
                let client = try fixture.client()
                for pair in 0..<300 {
                    let identifier = "c\(number)-\(pair)"
                    client.send(LedgerRequests.deliver(identifier, thread: "chat"))
                    let delivered = try client.result(of: .string("deliver \(identifier)"))
                    if delivered["presentation"]?["extension"] != .string(LedgerFixture.identifier) {
                        problems.withLock { $0.append("\(identifier) fell back: \(delivered["diagnostics"] ?? .null)") }
                    }
                    client.send(LedgerRequests.respond(identifier))
                    let outcome = try client.result(of: .string("respond \(identifier)"))
                    if outcome["receiver"] != .string("extension") || outcome["option"] != .string("dismiss") {
                        problems.withLock {
                            $0.append("\(identifier) misrouted: \(outcome["option"] ?? .null) \(outcome["diagnostics"] ?? .null)")
                        }
                    }
                }
            } catch {
                problems.withLock { $0.append("client \(number): \(error)") }
            }
        }
        let found = problems.withLock { $0 }
        #expect(found.isEmpty, "\(found.count) problems of 600 pairs: \(found.prefix(3)) \(fixture.serveLog)")
    }
}
