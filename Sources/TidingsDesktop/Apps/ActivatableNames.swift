import TidingsBase

/// The names D-Bus activation can start, as the bus last listed them
/// (`ListActivatableNames`). A name not among them has the bus list them
/// again, at most once per `refreshInterval` (an app installed since shows
/// up; a stream of responses to apps that have no service file does not
/// make a listing each), and only one listing at a time on a connection: the
/// questions asked while one is under way wait for it (unless its connection
/// went away, which cancelled it).
final class ActivatableNames {
    /// The shortest time between two listings, in seconds.
    let refreshInterval: Double
    private var names: Set<String> = []
    /// When the bus last listed them (MonotonicClock nanoseconds); nil before the first listing.
    private var listed: UInt64?
    /// The listing under way, if any.
    private var listing: Listing?

    /// A listing under way: the connection it was asked on, and the
    /// questions waiting for it.
    private final class Listing {
        /// Gone when the connection closed: the listing was cancelled with it, and never answers.
        weak var connection: BusConnection.Registrations?
        var questions: [(name: String, answer: (borrowing BusConnection, Result<Bool, BusError>) -> Void)]

        init(on connection: BusConnection.Registrations, name: String,
             answer: @escaping (borrowing BusConnection, Result<Bool, BusError>) -> Void) {
            self.connection = connection
            questions = [(name, answer)]
        }
    }

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
        if let listing, let connection = listing.connection, connection === bus.registrations {
            listing.questions.append((name, answer))
            return
        }
        if let listed, MonotonicClock.now() &- listed < UInt64(refreshInterval * 1e9) {
            return answer(bus, .success(false))
        }
        let started = Listing(on: bus.registrations, name: name, answer: answer)
        listing = started
        do throws(BusError) {
            try BusDaemonClient.activatableNames(on: bus) { [self] bus, result in
                if listing === started { listing = nil }
                if case .success(let names) = result {
                    self.names = Set(names)
                    listed = MonotonicClock.now()
                }
                for question in started.questions {
                    question.answer(bus, result.map { [names] _ in names.contains(question.name) })
                }
            }
        } catch {
            listing = nil
            answer(bus, .failure(error))
        }
    }
}
