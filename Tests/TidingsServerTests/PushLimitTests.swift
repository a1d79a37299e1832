import Synchronization
import Testing
import TidingsServer

/// The bounds of push: the message ids a registration remembers, and each app's token bucket.
@Suite struct PushLimitTests {
    @Test func theLast1024IdsAreRememberedAndTheOldestForgotten() {
        var seen = PushMessageIDs()
        #expect(seen.limit == 1_024)
        var inserted = 0
        for number in 0..<1_100 where seen.insert("m-\(number)") { inserted += 1 }
        #expect(inserted == 1_100)
        #expect(seen.ids.count == 1_024)
        #expect(!seen.contains("m-75") && seen.contains("m-76") && seen.contains("m-1099"))
        let again = seen.insert("m-1099")
        #expect(!again)
        // Read back as the file keeps them: the same ids, the bound kept.
        let kept = PushMessageIDs(seen.ids + ["m-1100"])
        #expect(kept.ids.count == 1_024 && !kept.contains("m-76") && kept.contains("m-1100"))
    }

    @Test func aBucketHoldsTheBurstAndRefillsAtTheRate() {
        let now = Mutex(0.0)
        let limiter = PushRateLimiter(burst: 2, rate: 0.5) { now.withLock { $0 } }
        #expect(limiter.take(for: "a") == .allowed)
        #expect(limiter.take(for: "a") == .allowed)
        #expect(limiter.take(for: "a") == .limited(startsStretch: true))
        #expect(limiter.take(for: "a") == .limited(startsStretch: false))
        // Another app has its own bucket.
        #expect(limiter.take(for: "b") == .allowed)
        // Half a token a second: one more after two seconds, never more than the burst.
        now.withLock { $0 += 1 }
        #expect(limiter.take(for: "a") == .limited(startsStretch: false))
        now.withLock { $0 += 1 }
        #expect(limiter.take(for: "a") == .allowed)
        #expect(limiter.take(for: "a") == .limited(startsStretch: true))
        now.withLock { $0 += 1_000 }
        #expect(limiter.take(for: "a") == .allowed)
        #expect(limiter.take(for: "a") == .allowed)
        #expect(limiter.take(for: "a") == .limited(startsStretch: true))
    }
}
