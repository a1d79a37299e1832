import TidingsBase

/// The names D-Bus activation can start, as the bus last listed them
/// (`ListActivatableNames`). A name not among them has the bus list them
/// again, at most once per `refreshInterval` (an app installed since shows
/// up; a stream of responses to apps that have no service file does not
/// make a listing each), and only one listing at a time: the questions asked
/// while one is under way wait for it.
final class ActivatableNames {
    /// The shortest time between two listings, in seconds.
    let refreshInterval: Double
    private var names: Set<String> = []
    /// When the bus last listed them (MonotonicClock nanoseconds); nil before the first listing.
    private var listed: UInt64?
    /// The questions waiting for the listing under way; nil when none is.
    private var waiting: [(name: String, answer: (borrowing BusConnection, Result<Bool, BusError>) -> Void)]?

    /// An empty cache, listed on the first question.
    init(refreshInterval: Double = 2) {
        self.refreshInterval = refreshInterval
    }

    /// Answers whether `name` is activatable: at once when the cache knows it
    /// or is fresh, else once the bus listed the names again (inside
    /// `processPending`). Call it on the connection's thread, from a reply
    /// handler: `answer` may run before this returns.
    func contains(_ name: String, on bus: borrowing BusConnection,
                  answer: @escaping (borrowing BusConnection, Result<Bool, BusError>) -> Void) {
        if names.contains(name) { return answer(bus, .success(true)) }
        if waiting != nil {
            waiting?.append((name, answer))
            return
        }
        if let listed, MonotonicClock.now() &- listed < UInt64(refreshInterval * 1e9) {
            return answer(bus, .success(false))
        }
        waiting = [(name, answer)]
        do throws(BusError) {
            try BusDaemonClient.activatableNames(on: bus) { [self] bus, result in
                let questions = waiting ?? []
                waiting = nil
                if case .success(let listing) = result {
                    names = Set(listing)
                    listed = MonotonicClock.now()
                }
                for question in questions {
                    question.answer(bus, result.map { [names] _ in names.contains(question.name) })
                }
            }
        } catch {
            waiting = nil
            answer(bus, .failure(error))
        }
    }
}
