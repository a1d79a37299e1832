import Testing
import TestSupport
import TidingsBase
@testable import TidingsServer

/// The call pool and the request order: what lets a waiting request hold no
/// thread, and a blocked call starve no other.
struct CallPoolTests {
    /// A request behind a conflicting one is held, not run, and handed back
    /// when that one finishes; one that conflicts with nothing runs at once.
    @Test func aConflictingRequestIsHeldAndHandedBackInTurn() {
        var order = RequestOrder<String>()
        let first = order.admit(RequestScope(writing: [.notification("n1")]), "deliver n1")
        let second = order.admit(RequestScope(writing: [.notification("n1")]), "respond n1")
        let other = order.admit(RequestScope(writing: [.notification("n2")]), "respond n2")
        let nothing = order.admit(.nothing, "describe")
        #expect(first.runNow == "deliver n1")
        #expect(second.runNow == nil, "held behind the deliver")
        #expect(other.runNow == "respond n2")
        #expect(nothing.place == nil && nothing.runNow == "describe")
        #expect(order.finish(other.place).isEmpty)
        #expect(order.finish(first.place).map(\.work) == ["respond n1"])
    }

    /// Work given while every thread of the pool is blocked still runs: a
    /// thread beyond the pool's size starts for it.
    @Test func workBehindABlockedCallStillRuns() {
        let pool = CallPool(limit: 1, overflowLimit: 2, slowCall: 1_000_000)
        defer { pool.stop() }
        let release = Latch()
        let ran = Latch()
        pool.run { _ = release.wait(until: .max) }
        pool.run { ran.open() }
        #expect(ran.wait(until: MonotonicClock.deadline(after: patience)), "the second call never ran")
        release.open()
    }

    /// A call the event loop answers inline and that blocks does not stall
    /// the loop: another thread takes it over, and what is posted to it
    /// still runs while the call is blocked.
    @Test func aBlockedInlineCallHandsTheLoopOver() throws {
        let pool = CallPool(limit: 1, overflowLimit: 2, slowCall: 1_000_000)
        defer { pool.stop() }
        let loop = try EventLoop(spin: 0, slowCall: 1_000_000, blockedLimit: 2, pool: pool)
        defer { loop.end() }
        expectTheLoopRunsBeside(loop) { blockingCall in
            loop.post { loop.answerInline(blockingCall) }
        }
    }

    /// The overseer's alarm is set by the first call after it rang, not by
    /// each: a call that blocks while the alarm is set for an earlier one
    /// (here, half a slow-call time after it) still loses the loop once it
    /// has run its own slow-call time — the overseer, finding it young when
    /// the alarm rings, sets it again for the rest.
    @Test func aCallBlockedWhileTheAlarmIsSetForAnEarlierOneStillHandsTheLoopOver() throws {
        let slowCall: UInt64 = 20_000_000
        let pool = CallPool(limit: 1, overflowLimit: 2, slowCall: slowCall)
        defer { pool.stop() }
        let loop = try EventLoop(spin: 0, slowCall: slowCall, blockedLimit: 2, pool: pool)
        defer { loop.end() }
        expectTheLoopRunsBeside(loop) { blockingCall in
            // A short inline call sets the alarm a slow-call time ahead; the blocking one begins halfway there.
            loop.post {
                loop.answerInline {
                    let halfway = MonotonicClock.now() + slowCall / 2
                    // Posted again from the timer: a call admitted by a timer alone would wait for the loop's next event.
                    loop.post { loop.schedule(at: halfway) { loop.post { loop.answerInline(blockingCall) } } }
                }
            }
        }
    }

    /// Has `admit` admit an inline call to `loop` that blocks until the
    /// end, then checks that the call ran and that what is posted to the
    /// loop meanwhile still runs.
    private func expectTheLoopRunsBeside(_ loop: EventLoop,
                                         blockingCallAdmittedBy admit: (@escaping LoopBaton.Call) -> Void) {
        let release = Latch()
        let blocked = Latch()
        let ran = Latch()
        admit {
            blocked.open()
            _ = release.wait(until: .max)
        }
        #expect(blocked.wait(until: MonotonicClock.deadline(after: patience)), "the blocking inline call never ran")
        loop.post { ran.open() }
        #expect(ran.wait(until: MonotonicClock.deadline(after: patience)), "the loop stalled behind the call")
        release.open()
    }
}
