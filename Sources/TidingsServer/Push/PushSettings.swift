/// How the server takes remote notifications: where it keeps the
/// registrations, and how many pushes an app may receive.
package struct PushSettings: Sendable {
    /// The directory of `registrations.json` (`STATE/push`, 0700); nil keeps
    /// registrations in memory only (a server without state).
    package var directory: String?
    /// The pushes an app may receive at once (`serve --push-burst`, 60 by default).
    package var burst = 60
    /// The pushes an app may receive per second, sustained (`serve --push-rate`, 1 by default).
    package var rate = 1.0
    /// The ids remembered per registration to refuse replays.
    package var rememberedIDs = PushMessageIDs.defaultLimit
    /// The clock the rate limit counts by, in seconds; a test gives one it moves.
    package var clock: @Sendable () -> Double = PushRateLimiter.systemClock

    /// The defaults: in memory, 60 at once, 1 a second.
    package init() {}
}
