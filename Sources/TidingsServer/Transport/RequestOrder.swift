import TidingsBase

/// The order of one connection's requests under way: each is admitted as it
/// is read, and waits for every request admitted before it whose scope
/// conflicts with its own (`RequestScope`) to finish; the others go at once.
/// A request that waits holds no thread: its work is kept here and handed
/// back when its turn comes.
///
/// A request waits only for earlier ones, so no two ever wait for each
/// other, and the earliest always runs. A request that touches nothing is
/// not admitted at all. Not thread-safe: its owner guards it.
struct RequestOrder<Work> {
    /// A request's place in the order, until it finishes.
    struct Place: Sendable {
        /// Its number, in the order of reading.
        fileprivate let number: UInt64
    }

    /// A request admitted and not finished.
    private struct Entry {
        let number: UInt64
        let scope: RequestScope
        /// Its work while it waits for its turn; nil once its turn came.
        var waiting: Work?
    }

    /// The requests admitted and not finished, in the order they were read.
    private var admitted: [Entry] = []
    private var next: UInt64 = 0

    /// Admits a request of `scope` after every request admitted so far:
    /// its place (nil when it touches nothing), and its work when it may run
    /// now (nil: `finish` hands it back when its turn comes). Called in the
    /// order requests are read.
    mutating func admit(_ scope: RequestScope, _ work: Work) -> (place: Place?, runNow: Work?) {
        guard !scope.isEmpty else { return (nil, work) }
        next += 1
        let waits = admitted.contains { $0.scope.conflicts(with: scope) }
        admitted.append(Entry(number: next, scope: scope, waiting: waits ? work : nil))
        return (Place(number: next), waits ? nil : work)
    }

    /// The request at `place` finished: the places and work of the
    /// requests it held back whose turn has now come, in the order they were read.
    mutating func finish(_ place: Place?) -> [(place: Place, work: Work)] {
        guard let place else { return [] }
        admitted.removeAll { $0.number == place.number }
        var ready: [(place: Place, work: Work)] = []
        for position in admitted.indices {
            guard let work = admitted[position].waiting else { continue }
            let scope = admitted[position].scope
            if !admitted[..<position].contains(where: { $0.scope.conflicts(with: scope) }) {
                ready.append((Place(number: admitted[position].number), work))
                admitted[position].waiting = nil
            }
        }
        return ready
    }
}
