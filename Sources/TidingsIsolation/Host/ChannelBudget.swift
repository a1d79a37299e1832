import TidingsBase
import TidingsRuntime

/// What a worker's channel may cost the host beyond its instances' own
/// budgets: the messages that name nothing of the worker's (an instance it
/// does not have, a call not in flight, a token not given, a report) are
/// charged to a bucket of the connection's at the host's call rate, as a
/// host call would be; the attachment requests refused because its queue
/// was full are counted. Either, gone on with, is a flood: fault `abuse`.
///
/// Kept under the connection's lock; the reader alone charges it.
struct ChannelBudget {
    /// Attachment requests refused for a full queue within `refusalWindow`
    /// that make a flood: far beyond what a worker whose threads wait for
    /// their answers ever sends.
    static let refusalLimit = 1_000
    /// The seconds over which those refusals are counted.
    static let refusalWindow = 10.0

    /// What a charge came to.
    enum Verdict: Equatable {
        case allowed
        /// Over the rate: the message is dropped.
        case refused
        /// Gone on through the refusals: the worker floods the host.
        case flood
    }

    private let rate: CallRate
    private var allowance: CallAllowance
    private var refusals = 0
    private var refusalsSince: UInt64

    /// A budget at `rate` (the host's call rate; `CallRate.standard` when it sets none).
    init(rate: CallRate?, now: UInt64) {
        self.rate = rate ?? .standard
        allowance = CallAllowance(self.rate, now: now)
        refusalsSince = now
    }

    /// Charges one message that names nothing of the worker's.
    mutating func charge(now: UInt64) -> Verdict {
        if allowance.take(rate, now: now) { return .allowed }
        return Double(allowance.refusedRecently) >= rate.burst ? .flood : .refused
    }

    /// Counts an attachment request refused for a full queue; `.flood` once they reach the limit.
    mutating func refuseQueued(now: UInt64) -> Verdict {
        if now > refusalsSince && Double(now - refusalsSince) / 1e9 >= Self.refusalWindow {
            refusalsSince = now
            refusals = 0
        }
        refusals += 1
        return refusals >= Self.refusalLimit ? .flood : .refused
    }
}
