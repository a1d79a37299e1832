import Glibc
import RuntimeTestSupport
import Testing
import TestSupport
import TidingsBase
import TidingsIsolation
import TidingsProtocol
import TidingsRuntime
import TidingsSystemShims

/// A call waiting on a worker sleeps on the worker's channel and end until
/// something comes: it is woken by the answer, not by a clock. It used to
/// look again every millisecond (2,105 context switches during one 3 s
/// open, about 10,000 for a call that hung until its timeout).
@Suite struct CallWaitTests {
    let fixture = Fixture()

    init() throws {
        try fixture.installLedger()
    }

    /// The voluntary context switches of this thread so far (`/proc/self/task/TID/status`); nil when unknown.
    func wakeUps() -> UInt64? {
        ProcessStatus(of: "self/task/\(tidings_gettid())")?.numbers("voluntary_ctxt_switches").first
    }

    @Test func aCallToASlowExtensionWakesItsThreadAFewTimesNotEveryMillisecond() throws {
        let host = fixture.host(configuration: NotificationHost.Configuration(),
                                launcher: WorkerLauncher(settings: IsolationMode.workerSettings))
        host.register([NotificationCategory(identifier: LedgerFixture.category, actions: [])], for: LedgerFixture.app)
        // The first open starts the worker (its start waits in other ways); the second one is measured.
        _ = host.deliver(notification("warm", category: LedgerFixture.category, thread: "warm"), to: LedgerFixture.app)
        _ = try host.open("warm")
        _ = try host.close("warm")
        _ = host.deliver(notification("slow", category: LedgerFixture.category, thread: "slow",
                                      userInfo: [("milliseconds", .string("1500"))]), to: LedgerFixture.app)
        let before = try #require(wakeUps())
        // did_receive_notification sleeps 1.5 s in the worker: this thread waits for its answer.
        let opened = try host.open("slow")
        let woken = try #require(wakeUps()) - before
        #expect(opened.presentation.view?.text(of: "received") == "slow", "\(opened.diagnostics)")
        #expect(woken < 50, "the waiting thread was woken \(woken) times during one call")
    }
}
