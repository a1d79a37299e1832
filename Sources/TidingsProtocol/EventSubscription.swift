import TidingsBase

/// Following the server's events across connections: the `events.subscribe`
/// params (resuming with `after` the last `seq` the subscriber handled) and
/// what the server answered about resuming.
package struct EventSubscription: Sendable {
    /// `"all"`, or the apps' identifiers.
    package var apps: JSON
    /// The events wanted; every one when nil (`events.lagging` comes anyway).
    package var events: [EventName]?
    /// Whether the apps' inboxes are replayed on subscribing.
    package var replay: Bool
    /// The `seq` of the last event handled; where a new connection resumes.
    package var lastSeq: Int64?

    /// A subscription to `events` (every one when nil) of `apps`.
    package init(apps: JSON, events: [EventName]? = nil, replay: Bool = false, lastSeq: Int64? = nil) {
        self.apps = apps
        self.events = events
        self.replay = replay
        self.lastSeq = lastSeq
    }

    /// The `events.subscribe` params: after the last event handled, when there is one.
    package var params: JSON {
        var members: [(String, JSON)] = [("apps", apps)]
        if let events { members.append(("events", .array(events.map { .string($0.rawValue) }))) }
        members.append(("replay", .bool(replay)))
        if let lastSeq { members.append(("after", .integer(lastSeq))) }
        return .object(members)
    }

    /// What `events.subscribe` answered.
    package struct Answer: Sendable, Hashable {
        /// Whether the events missed since `after` were sent again (else the subscriber re-lists).
        package var resumed: Bool
        /// The server's last `seq`: the events to come follow it.
        package var seq: Int64?
        /// How many events were missed and sent again.
        package var missed: Int64
        /// How many inbox entries were replayed.
        package var replayed: Int64

        /// Reads the answer `result`.
        package init(_ result: JSON) {
            resumed = result["resumed"]?.boolValue ?? false
            seq = result["seq"]?.integerValue
            missed = result["missed"]?.integerValue ?? 0
            replayed = result["replayed"]?.integerValue ?? 0
        }
    }

    /// Takes in the answer to a subscription: not resumed, the events to come
    /// follow the server's `seq` (a server with fresh state numbers from 1 again).
    /// - Returns: what it said.
    package mutating func subscribed(_ result: JSON) -> Answer {
        let answer = Answer(result)
        if let seq = answer.seq, !answer.resumed || seq < lastSeq ?? 0 { lastSeq = seq }
        return answer
    }
}
