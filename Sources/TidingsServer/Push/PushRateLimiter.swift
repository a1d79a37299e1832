import Synchronization
import TidingsBase

/// How many pushes each app may receive: a token bucket per app, `burst`
/// deep (60 by default), refilled at `rate` a second (1 by default). A push
/// the bucket has no token for is refused (`push.rate-limited`), and the
/// app is told once per stretch of refusals (the first refusal after an
/// accepted push).
///
/// The clock is given (seconds on a monotonic scale), so that a test drives it.
package final class PushRateLimiter: Sendable {
    /// What `take(for:)` decided.
    package enum Verdict: Equatable, Sendable {
        /// A token was taken: the push may go on.
        case allowed
        /// No token: refused. `startsStretch` for the first refusal since the last push allowed.
        case limited(startsStretch: Bool)
    }

    /// One app's bucket.
    private struct Bucket {
        /// Tokens left (fractions while refilling).
        var tokens: Double
        /// When `tokens` was last brought up to date.
        var updated: Double
        /// Whether the last push was refused.
        var limited = false
    }

    /// The deepest a bucket gets, in pushes.
    package let burst: Int
    /// Tokens added per second.
    package let rate: Double
    /// Now, in seconds on a monotonic scale.
    private let clock: @Sendable () -> Double
    /// Each app's bucket, made full on its first push.
    private let buckets = Mutex<[String: Bucket]>([:])

    /// A limiter of `burst` pushes at once and `rate` a second sustained, timed by `clock`.
    package init(burst: Int, rate: Double, clock: @escaping @Sendable () -> Double) {
        self.burst = max(1, burst)
        self.rate = max(0, rate)
        self.clock = clock
    }

    /// Takes a token from the bucket of `app`, if it has one.
    package func take(for app: String) -> Verdict {
        let now = clock()
        return buckets.withLock { buckets in
            var bucket = buckets[app] ?? Bucket(tokens: Double(burst), updated: now)
            bucket.tokens = min(Double(burst), bucket.tokens + max(0, now - bucket.updated) * rate)
            bucket.updated = now
            let verdict: Verdict
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                bucket.limited = false
                verdict = .allowed
            } else {
                verdict = .limited(startsStretch: !bucket.limited)
                bucket.limited = true
            }
            buckets[app] = bucket
            return verdict
        }
    }

    /// Forgets the bucket of `app` (its registration went away).
    package func forget(_ app: String) {
        _ = buckets.withLock { $0.removeValue(forKey: app) }
    }

    /// The monotonic clock in seconds, the limiter's unless a test gives its own.
    package static let systemClock: @Sendable () -> Double = { Double(MonotonicClock.now()) / 1e9 }
}
