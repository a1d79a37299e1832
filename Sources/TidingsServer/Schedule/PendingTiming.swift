import TidingsBase
import TidingsProtocol
import TidingsRuntime

/// When pending requests fire: arming them on the heaps, firing what is
/// due, re-arming calendar requests when the wall clock or the time zone
/// changes, and settling a fired request once its delivery ended.
extension PendingScheduler {
    /// Fires every request due now and returns the instants the thread's
    /// timers are to wake at next (nanoseconds on the wall and elapsed
    /// clocks; nil: nothing to wait for). A wall clock that moved against the
    /// elapsed one since the last look (set, or a missed jump) re-arms the
    /// calendar requests first.
    @discardableResult
    package func runDue() -> (wall: UInt64?, elapsed: UInt64?) {
        let (firings, next) = book.withLock { book in
            let wallNow = clock.wallNow(), elapsedNow = clock.elapsedNow()
            if abs(wallNow - elapsedNow - book.offset) > Self.jumpTolerance { rearmCalendars(&book, wallNow: wallNow) }
            book.offset = wallNow - elapsedNow
            var firings: [Firing] = []
            while let entry = book.wallHeap.popDue(at: CheckedNumbers.nanoseconds(wallNow)) {
                guard Self.isArmed(book.requests[entry: entry], at: entry.instant, onWall: true) else {
                    book.wallHeap.noteStaleTaken()
                    continue
                }
                if let firing = fire(book.requests.key(of: entry), in: &book, wallNow: wallNow, elapsedNow: elapsedNow) { firings.append(firing) }
            }
            while let entry = book.elapsedHeap.popDue(at: CheckedNumbers.nanoseconds(elapsedNow)) {
                guard Self.isArmed(book.requests[entry: entry], at: entry.instant, onWall: false) else {
                    book.elapsedHeap.noteStaleTaken()
                    continue
                }
                if let firing = fire(book.requests.key(of: entry), in: &book, wallNow: wallNow, elapsedNow: elapsedNow) { firings.append(firing) }
            }
            Self.tidy(&book)
            book.armedWall = book.wallHeap.earliest
            book.armedElapsed = book.elapsedHeap.earliest
            return (firings, (book.armedWall, book.armedElapsed))
        }
        deliver(firings)
        return next
    }

    /// The wall clock was set (a jump either way, a resume): re-arms the calendar requests.
    package func clockChanged() {
        let wakes = book.withLock { book in
            let wallNow = clock.wallNow()
            rearmCalendars(&book, wallNow: wallNow)
            book.offset = wallNow - clock.elapsedNow()
            return Self.armsEarlier(book)
        }
        if wakes { loop?.wake() }
    }

    /// The user's time zone changed: re-arms the calendar requests.
    package func timeZoneChanged() {
        clockChanged()
    }

    /// Re-arms every calendar request for the first date after `wallNow`,
    /// but one whose date passed already: it fires once, late (a forward jump
    /// past it); a repeating one then arms its next date after now. Each
    /// one's components are read back from its record (50,000 calendar
    /// requests: some 0.15 s, once per jump or change of zone).
    private func rearmCalendars(_ book: inout Book, wallNow: Double) {
        let zone = clock.timeZone()
        for (key, var request) in book.requests.all where !request.firing {
            guard case .calendar = request.trigger else { continue }
            if let due = request.due, due <= wallNow { continue }
            let next = Self.calendarMatching(of: request).flatMap { $0.nextDate(after: wallNow, in: zone) }
            // A repeating request that fired keeps a later date than the clock set back finds: what
            // matches before it matched at or before the last fire, which does not fire again.
            if case .calendar(_, true) = request.trigger, let due = request.due, let next, next < due { continue }
            if request.due != nil { book.wallHeap.noteStale() }
            request.due = next
            Self.arm(key, request, in: &book)
        }
        Self.tidy(&book)
    }

    /// The components of a calendar request, read back from its record;
    /// nil when it is not one, or the record cannot be read (it never fires then).
    static func calendarMatching(of request: PendingRequest) -> DateMatching? {
        guard case .calendar(let matching, _) = request.trigger.trigger(record: request.record) else { return nil }
        return matching
    }

    /// Fires the request `key`, popped from its heap: a repeating one is
    /// armed for its next time, a one-shot one waits for its delivery to
    /// end (`settle`). Nil when it is no longer pending.
    private func fire(_ key: PendingKey, in book: inout Book, wallNow: Double, elapsedNow: Double) -> Firing? {
        // A calendar trigger whose record cannot be read back (this server wrote it) fires no more.
        guard var request = book.requests[key], let due = request.due, let trigger = request.trigger.trigger(record: request.record)
        else { return nil }
        let late: Bool
        switch trigger {
        case .timeInterval(let seconds, let repeats):
            late = elapsedNow - due > Self.lateness
            if repeats {
                // The next time after now, in step with the first: none made up for.
                request.due = due + seconds * ((elapsedNow - due) / seconds + 1).rounded(.down)
            }
        case .calendar(let matching, let repeats):
            late = wallNow - due > Self.lateness
            if repeats {
                request.due = matching.nextDate(after: max(due, wallNow), in: clock.timeZone())
                request.trigger = .calendar(repeats: true, fired: true)
            }
        case .location, .push:
            return nil
        }
        if trigger.repeats {
            Self.arm(key, request, in: &book)
        } else {
            request.firing = true
            book.requests[key] = request
        }
        return Firing(key: key, number: request.number, record: request.record, trigger: trigger, date: wallNow, late: late,
                      crossing: nil)
    }

    /// Hands each of `firings` to the deliverer, outside the lock.
    func deliver(_ firings: [Firing]) {
        guard !firings.isEmpty, let deliver = deliverer.withLock({ $0 }) else { return }
        for firing in firings { deliver(firing) }
    }

    /// The delivery of `firing` ended as `outcome`: a one-shot request is
    /// removed (recorded after its delivery: a crash between delivers it
    /// again under its identifier), a repeating one's fire recorded, and
    /// `request.fired` and `request.removed` published. A request added again
    /// or removed meanwhile is left as it is.
    func settle(_ firing: Firing, _ outcome: FiringOutcome) {
        let wakes = book.withLock { book -> Bool in
            guard var request = book.requests[firing.key], request.number == firing.number else { return false }
            let app = firing.key.app, identifier = firing.key.identifier
            switch outcome {
            case .delivered:
                publish("request.fired", firing.event, app: app)
                if firing.trigger.repeats {
                    do throws(Diagnostic) {
                        try state?.recordFired(identifier, of: app, at: firing.date)
                    } catch {
                        log(.warning(error.code, "The fire of request \(identifier) of \(app) could not be recorded: \(error.message)"))
                    }
                } else {
                    unschedule(firing.key, from: &book, reason: "fired")
                }
            case .refused(let problem):
                log(.warning(problem.code, "Request \(identifier) of \(app) fired and could not be delivered: \(problem.message)"))
                if !firing.trigger.repeats { unschedule(firing.key, from: &book, reason: "undeliverable") }
            case .notRecorded(let problem):
                log(.warning(problem.code, "Request \(identifier) of \(app) fired and its delivery could not be recorded; it is tried again: \(problem.message)"))
                if let crossing = firing.crossing {
                    // The side it was on before the crossing, so that the next position fires it again.
                    request.inside = crossing == "exit"
                }
                guard !firing.trigger.repeats else {
                    if firing.crossing != nil { book.requests[firing.key] = request }
                    return false
                }
                request.firing = false
                switch firing.trigger {
                case .calendar: request.due = clock.wallNow() + Self.retryDelay
                case .timeInterval: request.due = clock.elapsedNow() + Self.retryDelay
                case .location, .push: break
                }
                Self.arm(firing.key, request, in: &book)
            }
            Self.tidy(&book)
            return Self.armsEarlier(book)
        }
        if wakes { loop?.wake() }
    }

    /// Removes the one-shot request `key` that fired: recorded, then
    /// removed and `request.removed` published for `reason`. When the record
    /// cannot be written it is removed all the same and logged: a restart
    /// then delivers it once more, under its identifier.
    private func unschedule(_ key: PendingKey, from book: inout Book, reason: String) {
        do throws(Diagnostic) {
            try state?.recordUnscheduled([key.identifier], of: key.app)
        } catch {
            log(.warning(error.code, "The removal of request \(key.identifier) of \(key.app), which fired, could not be recorded: \(error.message)"))
        }
        Self.take(key, from: &book)
        publishRemoval(of: [key.identifier], of: key.app, reason: reason)
    }

    // MARK: Arming

    /// Makes `request` pending under `key` and arms it on its heap, when it has a time.
    static func arm(_ key: PendingKey, _ request: PendingRequest, in book: inout Book) {
        book.requests[key] = request
        switch request.trigger {
        case .interval:
            if let due = request.due { book.elapsedHeap.insert(key.identifier, of: book.requests.number(of: key.app), at: CheckedNumbers.nanoseconds(due)) }
        case .calendar:
            if let due = request.due { book.wallHeap.insert(key.identifier, of: book.requests.number(of: key.app), at: CheckedNumbers.nanoseconds(due)) }
        case .boxed(let box):
            if case .location = box.trigger { book.regions.insert(key) }
        }
    }

    /// Takes the request `key` out of the pending ones (its heap entry left
    /// stale); the request, if it was pending.
    @discardableResult
    static func take(_ key: PendingKey, from book: inout Book) -> PendingRequest? {
        guard let request = book.requests[key] else { return nil }
        book.requests[key] = nil
        book.regions.remove(key)
        if request.due != nil && !request.firing {
            if case .interval = request.trigger { book.elapsedHeap.noteStale() } else { book.wallHeap.noteStale() }
        }
        return request
    }

    /// True when `request` is armed at `instant` on the wall heap (`onWall`)
    /// or the elapsed one: the heap's entry is its, not a stale one.
    static func isArmed(_ request: PendingRequest?, at instant: UInt64, onWall: Bool) -> Bool {
        guard let request, !request.firing, let due = request.due, CheckedNumbers.nanoseconds(due) == instant else { return false }
        if case .interval = request.trigger { return !onWall }
        return onWall
    }

    /// Takes stale entries off the top of both heaps, so that each heap's
    /// earliest is a request's, and sweeps a heap whose stale entries outnumber its live ones.
    static func tidy(_ book: inout Book) {
        while let top = book.wallHeap.top, !isArmed(book.requests[entry: top], at: top.instant, onWall: true) {
            book.wallHeap.popTop()
            book.wallHeap.noteStaleTaken()
        }
        while let top = book.elapsedHeap.top, !isArmed(book.requests[entry: top], at: top.instant, onWall: false) {
            book.elapsedHeap.popTop()
            book.elapsedHeap.noteStaleTaken()
        }
        if book.wallHeap.needsSweep {
            let live = book.wallHeap.entries.filter { isArmed(book.requests[entry: $0], at: $0.instant, onWall: true) }
            book.wallHeap.rebuild(keeping: live)
        }
        if book.elapsedHeap.needsSweep {
            let live = book.elapsedHeap.entries.filter { isArmed(book.requests[entry: $0], at: $0.instant, onWall: false) }
            book.elapsedHeap.rebuild(keeping: live)
        }
    }

    /// True when a heap's earliest instant is earlier than what the thread's timer is armed for.
    static func armsEarlier(_ book: Book) -> Bool {
        func earlier(_ instant: UInt64?, _ armed: UInt64?) -> Bool {
            guard let instant else { return false }
            return armed.map { instant < $0 } ?? true
        }
        return earlier(book.wallHeap.earliest, book.armedWall) || earlier(book.elapsedHeap.earliest, book.armedElapsed)
    }

    /// When a request of `trigger`, added at `added` (wall seconds) and last
    /// fired at `lastFired`, fires first from now on: elapsed seconds for a
    /// time interval (a one-shot's wall date kept across restarts, however
    /// long; a repeating one's next step after now, none made up for), wall
    /// seconds for a calendar trigger (a one-shot's first date after it was
    /// added, passed or not; a repeating one's next date after now); nil
    /// for a location trigger or a date that never comes.
    static func firstDue(of trigger: NotificationTrigger, added: Double, lastFired: Double?, wallNow: Double,
                         elapsedNow: Double, zone: TimeZoneRules) -> Double? {
        switch trigger {
        case .timeInterval(let seconds, let repeats):
            var date = (lastFired ?? added) + seconds
            if repeats && date <= wallNow { date += seconds * ((wallNow - date) / seconds + 1).rounded(.down) }
            return elapsedNow + (date - wallNow)
        case .calendar(let matching, let repeats):
            return matching.nextDate(after: repeats ? max(wallNow, lastFired ?? added) : added, in: zone)
        case .location, .push:
            return nil
        }
    }

    /// The wall date `request` fires next at; nil when it has none.
    static func wallDate(of request: PendingRequest, wallNow: Double, elapsedNow: Double) -> Double? {
        guard let due = request.due else { return nil }
        if case .interval = request.trigger { return wallNow + (due - elapsedNow) }
        return due
    }
}
