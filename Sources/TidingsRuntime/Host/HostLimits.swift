import Glibc
import TidingsBase

/// How much an extension may pass to the host: every string has a length
/// cap (in UTF-8 bytes, as `tidings.h` documents them as
/// `TIDINGS_MAX_*_BYTES`), read without trusting its terminator to come,
/// and every instance's host calls are rate-limited.
package enum HostLimits {
    /// Element, action, attachment and category identifiers.
    package static let identifierBytes = 256
    /// A label's text (`set_text`), a notification's body.
    package static let textBytes = 16_384
    /// Titles: `set_title`, a notification's title and subtitle, an action's
    /// title, a text-input action's button title and placeholder, a sound's name.
    package static let titleBytes = 1_024
    /// A log message; longer ones are cut (at a character's end) with "…".
    package static let logBytes = 4_096
    /// An attachment's URL or path.
    package static let urlBytes = 4_096
    /// One userInfo value's JSON, handed back by a service extension.
    package static let userInfoValueBytes = 65_536
    /// Entries of a userInfo, attachments of a content handed back.
    package static let entries = 256
    /// Actions `set_actions` takes.
    package static let actions = 64

    /// A string an extension passed, read without trusting it.
    package enum Text: Equatable {
        /// NULL.
        case absent
        /// Longer than the cap: never read past it.
        case tooLong
        /// Not UTF-8.
        case invalid
        case text(String)

        /// The string, when it was one within its cap.
        package var value: String? {
            if case .text(let text) = self { return text }
            return nil
        }
    }

    /// The string at `pointer`, read at most `limit` bytes (and one more, to
    /// see whether it ends there).
    package static func text(_ pointer: UnsafePointer<CChar>?, limit: Int) -> Text {
        guard let pointer else { return .absent }
        let length = strnlen(pointer, limit + 1)
        guard length <= limit else { return .tooLong }
        let bytes = UnsafeRawBufferPointer(start: pointer, count: length)
        guard let text = ValidUTF8.string(bytes) else { return .invalid }
        return .text(text)
    }

    /// `text` cut to at most `limit` UTF-8 bytes, at a character's end, with "…" when cut.
    package static func cut(_ text: String, to limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var kept = ""
        var bytes = 0
        for character in text {
            let size = character.utf8.count
            if bytes + size > limit - 3 { break }
            kept.append(character)
            bytes += size
        }
        return kept + "…"
    }
}

/// How fast an instance may call host functions: a bucket of `burst` calls
/// that refills at `perSecond`. A call finding it empty is refused with
/// TIDINGS_STATUS_RATE_LIMITED; an extension whose calls are refused
/// `burst` times within a second is abusive (a call storm): its context
/// takes no more calls, and one run elsewhere is ended.
package struct CallRate: Sendable, Equatable {
    /// Calls a second, over time.
    package var perSecond: Double
    /// Calls at once.
    package var burst: Double

    package init(perSecond: Double, burst: Double) {
        self.perSecond = perSecond
        self.burst = burst
    }

    /// 10,000 calls a second, 20,000 at once: far beyond what filling a view takes.
    package static let standard = CallRate(perSecond: 10_000, burst: 20_000)

    /// Changes of what an instance shows (every host call but `log`), a
    /// second bucket of its call budget: 300 a second (five a frame), 1,000
    /// at once. None is refused for it — front ends hear at most a frame's
    /// worth, 60 a second, however many come (`OutOfCallChanges`) — but
    /// changes beyond it are owed (`CallAllowance.takeOnCredit`), and owing
    /// a whole burst is a flood: changing what shows faster than this for
    /// as long as the burst lasts (4 s at 800 a second, 0.2 s at 10,000).
    package static let viewChanges = CallRate(perSecond: 300, burst: 1_000)
}

/// One instance's bucket, and the refusals of the last second.
package struct CallAllowance: Sendable {
    private var tokens: Double
    private var refilled: UInt64
    /// When the second whose refusals are counted began (monotonic nanoseconds).
    private var windowStart: UInt64
    /// Calls refused within that second.
    package private(set) var refusedRecently = 0

    package init(_ rate: CallRate, now: UInt64) {
        tokens = rate.burst
        refilled = now
        windowStart = now
    }

    /// Takes one call at `now`; false when the bucket is empty.
    package mutating func take(_ rate: CallRate, now: UInt64) -> Bool {
        refill(rate, now: now)
        if tokens >= 1 {
            tokens -= 1
            return true
        }
        if now > windowStart && now - windowStart >= 1_000_000_000 {
            windowStart = now
            refusedRecently = 0
        }
        refusedRecently += 1
        return false
    }

    /// Takes one call at `now` even from an empty bucket, owing it (what
    /// comes in later pays the debt first); false once it owes a whole
    /// `burst`. A bucket taken from so is never taken from with `take`.
    package mutating func takeOnCredit(_ rate: CallRate, now: UInt64) -> Bool {
        refill(rate, now: now)
        tokens -= 1
        return tokens > -rate.burst
    }

    /// Adds what `rate` gave since the last refill, up to its burst.
    private mutating func refill(_ rate: CallRate, now: UInt64) {
        guard now > refilled else { return }
        tokens = min(rate.burst, tokens + Double(now - refilled) / 1e9 * rate.perSecond)
        refilled = now
    }
}
