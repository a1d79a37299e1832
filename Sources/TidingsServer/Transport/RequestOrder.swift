import Synchronization
import TidingsBase

/// The order of one connection's requests under way: each is admitted as it
/// is read, and waits for every request admitted before it whose scope
/// conflicts with its own (`RequestScope`) to finish; the others go at once.
///
/// A request waits only for earlier ones, so no two ever wait for each
/// other, and the earliest always runs. A request that touches nothing is
/// not admitted at all.
final class RequestOrder: Sendable {
    /// A request's place in the order, until it finishes.
    struct Place: Sendable {
        /// Its number, in the order of reading.
        fileprivate let number: UInt64
        /// Where it waits for its turn; nil when its turn came as it was admitted.
        fileprivate let turn: Latch?
    }

    /// A request admitted and not finished.
    private struct Entry {
        let number: UInt64
        let scope: RequestScope
        /// Opened when no earlier conflicting request is left; nil once its turn came.
        var turn: Latch?
    }

    /// The requests admitted and not finished, in the order they were read.
    private let entries = Mutex<(admitted: [Entry], next: UInt64)>(([], 0))

    /// Admits a request of `scope` after every request admitted so far; nil
    /// when it touches nothing. Called in the order requests are read.
    func admit(_ scope: RequestScope) -> Place? {
        guard !scope.isEmpty else { return nil }
        return entries.withLock { entries in
            entries.next += 1
            let waits = entries.admitted.contains { $0.scope.conflicts(with: scope) }
            let entry = Entry(number: entries.next, scope: scope, turn: waits ? Latch() : nil)
            entries.admitted.append(entry)
            return Place(number: entry.number, turn: entry.turn)
        }
    }

    /// Waits until the request at `place` may run.
    func waitForTurn(of place: Place?) {
        _ = place?.turn?.wait(until: .max)
    }

    /// The request at `place` finished: the requests it held back whose turn
    /// has now come may run.
    func finish(_ place: Place?) {
        guard let place else { return }
        let ready = entries.withLock { entries -> [Latch] in
            entries.admitted.removeAll { $0.number == place.number }
            var ready: [Latch] = []
            for position in entries.admitted.indices {
                guard let turn = entries.admitted[position].turn else { continue }
                let scope = entries.admitted[position].scope
                if !entries.admitted[..<position].contains(where: { $0.scope.conflicts(with: scope) }) {
                    ready.append(turn)
                    entries.admitted[position].turn = nil
                }
            }
            return ready
        }
        for turn in ready { turn.open() }
    }
}
