import Testing
import TidingsABI
import TidingsBase
import TidingsManifest
@testable import TidingsRuntime

/// The second bucket of an instance's call budget, for changes of what it
/// shows: none is refused for it, a flood (a whole burst owed beyond it) is,
/// and the instance is abusive from then on; and when the host looks at
/// changes made outside calls: at most once a frame, the first at once.
/// With no refill (`perSecond` 0) and instants given, nothing here depends on time.
@Suite struct ViewChangeBudgetTests {
    let endpoint = HostEndpoint(table: HostFunctions.table(callRate: nil))

    /// A context with a label "text" whose changes are counted at `rate`.
    func context(rate: CallRate?) throws -> InstanceContext {
        let reading = Interface.read(Array("""
            {"version": 1, "root": {"type": "stack", "children": [{"type": "label", "id": "text"}]}}
            """.utf8))
        return InstanceContext(extensionIdentifier: "com.example.flood", mayOverrideTitle: false,
                               interface: try #require(reading.interface), callRate: nil, viewChangeRate: rate,
                               in: endpoint.contexts)
    }

    @Test func changesBeyondTheBucketAreOwedAndOwingABurstIsAFlood() throws {
        let context = try context(rate: CallRate(perSecond: 0, burst: 10))
        // The bucket's 10, then 9 owed: all applied; log lines cost nothing of it.
        for number in 1...19 {
            #expect(context.perform(.setText(element: "text", text: "\(number)")) == TIDINGS_STATUS_OK)
            #expect(context.perform(.log(.info, "line")) == TIDINGS_STATUS_OK)
        }
        #expect(!context.isAbusive && context.snapshot().diagnostics.isEmpty)
        // The 20th owes the whole burst: refused, and the instance takes no more calls.
        #expect(context.perform(.setText(element: "text", text: "20")) == TIDINGS_STATUS_RATE_LIMITED)
        #expect(context.isAbusive)
        #expect(context.perform(.setText(element: "text", text: "21")) == TIDINGS_STATUS_INVALID_CONTEXT)
        #expect(context.perform(.log(.info, "after")) == TIDINGS_STATUS_INVALID_CONTEXT)
        let state = context.snapshot()
        #expect(state.view.node("text")?.content == .label(text: "19", textColor: nil, style: .body))
        #expect(state.diagnostics.map(\.code) == [.viewFlood])
        #expect(state.diagnostics.first?.severity == .error)
        #expect(state.diagnostics.first?.message.contains("fault abuse") == true)
    }

    @Test func theBucketRefillsAtItsRate() {
        let rate = CallRate(perSecond: 100, burst: 2)
        var allowance = CallAllowance(rate, now: 0)
        /// Whether each of `count` changes at `now` goes on.
        func take(_ count: Int, at now: UInt64) -> [Bool] {
            (0..<count).map { _ in allowance.takeOnCredit(rate, now: now) }
        }
        // 2 at once and 1 owed, the 4th would owe the whole burst…
        #expect(take(3, at: 0) == [true, true, true])
        // …but 50 ms later 5 came back: the bucket is full again (2), and owes nothing.
        #expect(take(4, at: 50_000_000) == [true, true, true, false])
    }

    @Test func aWorkersCopyCountsNoChanges() throws {
        let context = try context(rate: nil)
        for number in 1...5_000 {
            #expect(context.perform(.setText(element: "text", text: "\(number)")) == TIDINGS_STATUS_OK)
        }
        #expect(!context.isAbusive)
    }

    @Test func looksComeAtMostOnceAFrameTheFirstAtOnce() {
        let frame: UInt64 = 1_000
        var looks = LookSchedule()
        // The first change: a look now; more before it begins are seen by it.
        #expect(looks.plan(now: 5_000, frame: frame) == .now)
        #expect(looks.plan(now: 5_010, frame: frame) == .coming)
        looks.begin(now: 5_020)
        // A change within the frame after a look: one look at its end, for all the changes until then.
        #expect(looks.plan(now: 5_500, frame: frame) == .at(6_020))
        #expect(looks.plan(now: 5_900, frame: frame) == .coming)
        looks.begin(now: 6_030)
        // A change after a quiet frame: a look now again.
        #expect(looks.plan(now: 9_000, frame: frame) == .now)
    }
}
