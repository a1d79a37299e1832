import TidingsBase

/// What an extension changes outside any call (from a thread of its own,
/// say): looked at in order, off the extension's thread, its reports drained
/// and what it asked carried out, and front ends told of the interface as it
/// is then.
///
/// Looks are coalesced per instance, at most one a frame (60 a second): the
/// first change after a quiet frame is looked at at once, and the changes
/// that come within the frame after a look make one look at its end, which
/// sees them all. However fast an extension changes what shows, front ends
/// hear of it at most once a frame, and what they hear last is what it shows
/// last. (A flood of changes is the context's to judge: `CallRate.viewChanges`.)
final class OutOfCallChanges: Sendable {
    /// How many looks an instance gets a second at most.
    static let framesPerSecond = 60
    /// A frame, in nanoseconds of the monotonic clock.
    static let frame = 1_000_000_000 / UInt64(framesPerSecond)

    /// The screen the open interfaces are on.
    private let screen: Screen
    /// How reports are drained and carried out.
    private let reports: CallReports
    /// Where changes are looked at, in order.
    private let queue = SerialQueue()
    /// Wakes the look at the end of a frame within which changes came. On
    /// the system's monotonic clock, never a test's: a frame passes by itself.
    private let frameEnds = DeadlineTimer(clock: .monotonic)

    /// Looks at the changes of interfaces on `screen` through `reports`.
    init(reports: CallReports) {
        screen = reports.screen
        self.reports = reports
    }

    /// Has `instance` tell the host when the extension changes what shows
    /// outside a call.
    func watch(_ instance: InstanceRecord) {
        instance.context.observe { [weak self, weak instance] in
            guard let self, let instance, !instance.isInCall else { return }
            // Never from the extension's own call: closing may destroy the
            // instance, which must not happen under its feet.
            switch instance.looks.withLock({ $0.plan(now: MonotonicClock.now(), frame: Self.frame) }) {
            case .coming:
                break
            case .now:
                queue.async { [weak self, weak instance] in
                    guard let self, let instance else { return }
                    look(at: instance)
                }
            case .at(let instant):
                _ = frameEnds.schedule(at: instant) { [weak self, weak instance] in
                    // Off the timer's thread, in order with the other looks.
                    self?.queue.async { [weak self, weak instance] in
                        guard let self, let instance else { return }
                        look(at: instance)
                    }
                }
            }
        }
    }

    /// Looks at what `instance`'s extension changed: changes from now on
    /// plan the next look, a frame after this one.
    private func look(at instance: InstanceRecord) {
        instance.looks.withLock { $0.begin(now: MonotonicClock.now()) }
        instanceChanged(instance)
    }

    /// The extension of `instance` changed what shows outside any call:
    /// the open interface it serves goes to front ends as it is now, and a
    /// request to close it (or to open the app) is carried out. When a call
    /// is under way by now, the call collects the change instead.
    private func instanceChanged(_ instance: InstanceRecord) {
        var result = CallResult()
        // Between calls only: a call starting meanwhile waits, so what it reports stays its own.
        let drained = instance.whileIdle { () -> (DeliveredNotification, CallReports.Requested, Presentation)? in
            let served = screen.state.withLock { state in
                state.open.flatMap { open in
                    open.instance === instance ? (open.delivered, state.routes.registered(for: open.delivered)) : nil
                }
            }
            return served.map { entry, registered in
                let (requested, presentation) = reports.drain(from: instance, for: entry,
                                                              categoryActions: registered?.category.actions,
                                                              closing: false, into: &result)
                return (entry, requested, presentation)
            }
        } ?? nil
        if let (entry, requested, drawn) = drained {
            var presentation = drawn
            // Front ends hear of the change before the notification leaves, if it does.
            if requested.takeOff { screen.tell(presentation, of: instance, drawnAt: requested.revision, for: entry) }
            _ = reports.carryOut(requested, for: entry, servedBy: instance, drawnAs: &presentation,
                                 diagnostics: &result.diagnostics)
            if !requested.takeOff { screen.tell(presentation, of: instance, drawnAt: requested.revision, for: entry) }
        }
        for diagnostic in result.diagnostics {
            screen.onEvent?(.diagnostic(diagnostic, app: instance.manifest.appIdentifier))
        }
        screen.announce(forwarded: result.forwarded)
    }
}

/// When the host next looks at what an instance changed outside calls: at
/// most once a frame (`OutOfCallChanges`).
struct LookSchedule {
    /// When the last look began (monotonic nanoseconds); 0 before the first.
    private var last: UInt64 = 0
    /// A look is queued, or waits for the end of its frame.
    private var coming = false

    /// What a change at `now` makes.
    enum Plan: Equatable {
        /// Nothing: a look is coming, and will see it.
        case coming
        /// A look now: none was made within the last frame.
        case now
        /// A look at this instant, the end of the frame of the last one.
        case at(UInt64)
    }

    /// Plans the look a change at `now` needs, looks being `frame` apart at least.
    mutating func plan(now: UInt64, frame: UInt64) -> Plan {
        if coming { return .coming }
        coming = true
        let next = last &+ frame
        return last == 0 || next <= now ? .now : .at(next)
    }

    /// A look begins at `now`: changes from now on plan the next one.
    mutating func begin(now: UInt64) {
        coming = false
        last = now
    }
}
