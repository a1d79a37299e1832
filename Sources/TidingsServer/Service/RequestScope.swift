import TidingsBase

/// What a request reads and what it changes of the server's state, so that
/// a connection applies the requests that touch the same state in the order
/// they were sent, and lets the others run at once.
///
/// Two requests are ordered when one changes a part the other reads or
/// changes: a respond after the deliver of its notification, a list after
/// a deliver, a deliver after a `categories.register`. Two that only read
/// (two presentations of one notification) are not.
package struct RequestScope: Sendable, Equatable {
    /// A part of the state a request may touch.
    package enum Part: Hashable, Sendable {
        /// The notifications with this identifier, of every app: a call may
        /// name one by its identifier alone (its app found when it runs), so
        /// two calls about one identifier of two apps are ordered too — a
        /// wait at most, never a call run out of order.
        case notification(String)
        /// A notification whose identifier the server makes up (a delivery naming none).
        case newNotification
        /// Every notification: what a list shows, or a removal by app takes.
        case allNotifications
        /// The registered categories.
        case categories
        /// The connection's event subscription, which the events a call causes go by.
        case subscription
        /// The expanded interface open (one at a time): what opening and
        /// closing change, and a delivery that does not open reads (it may
        /// be a thread-mate of the one open).
        case interface
        /// An entry a call may add to an app's inbox or a badge it may set
        /// (a delivery, a response); such calls are not ordered among themselves.
        case inboxEntry
        /// The apps' inboxes and badges as a whole: what a list shows, what a take removes.
        case inbox
        /// The requests pending (`requests.*`, and `location.update`, which fires some).
        case pendingRequests
        /// The connection's identity: what `server.hello` changes, and every
        /// other call reads (it is confined by it), so that a call sent after
        /// a hello runs as the role the hello gave.
        case identity
        /// The push registrations and what the front ends said of the
        /// distributor: what `push.*` changes and `push.receive` reads.
        case pushRegistrations

        /// True for the parts that are notifications (`allNotifications` aside).
        fileprivate var isNotification: Bool {
            switch self {
            case .notification, .newNotification: true
            default: false
            }
        }

        /// True when this part and some part of `parts` can be the same state.
        fileprivate func overlaps(any parts: Set<Part>) -> Bool {
            switch self {
            case .notification: parts.contains(.allNotifications) || parts.contains(self)
            case .newNotification: parts.contains(.allNotifications)
            case .allNotifications: parts.contains { $0.isNotification || $0 == .allNotifications }
            case .inboxEntry: parts.contains(.inbox)
            case .inbox: parts.contains(.inbox) || parts.contains(.inboxEntry)
            default: parts.contains(self)
            }
        }
    }

    /// The parts the request reads.
    package var reads: Set<Part>
    /// The parts the request changes.
    package var writes: Set<Part>

    /// A scope reading `reads` and changing `writes`.
    package init(reading reads: Set<Part> = [], writing writes: Set<Part> = []) {
        self.reads = reads
        self.writes = writes
    }

    /// Touching nothing: such a request is ordered with no other.
    package static let nothing = RequestScope()

    /// True when the request touches nothing.
    package var isEmpty: Bool { reads.isEmpty && writes.isEmpty }

    /// True when one of the two requests changes what the other reads or changes.
    package func conflicts(with other: RequestScope) -> Bool {
        Self.overlap(writes, other.writes) || Self.overlap(writes, other.reads) || Self.overlap(reads, other.writes)
    }

    /// What the two requests touch together (the members of a batch).
    package func union(_ other: RequestScope) -> RequestScope {
        RequestScope(reading: reads.union(other.reads), writing: writes.union(other.writes))
    }

    /// True when a part of `parts` and a part of `others` can be the same
    /// state; it goes through the smaller set (a removal may name thousands).
    private static func overlap(_ parts: Set<Part>, _ others: Set<Part>) -> Bool {
        let (small, large) = parts.count <= others.count ? (parts, others) : (others, parts)
        return small.contains { $0.overlaps(any: large) }
    }
}
