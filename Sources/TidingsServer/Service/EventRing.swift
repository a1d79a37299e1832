import TidingsBase

/// The events published lately, each with its sequence number, for
/// subscribers that resume after one (`events.subscribe` with `after`).
///
/// Sequence numbers grow by one an event, across restarts too: the ring
/// reserves them in blocks of `block`, recording the end of each block in
/// the state before the first number of it is used, and a restarted server
/// starts past the last block reserved. So a number is never given twice,
/// and the numbers of a block left unused at a restart are skipped.
struct EventRing {
    /// One event as it was pushed.
    struct Event {
        /// Its sequence number.
        let seq: UInt64
        /// The app it is about; nil for none known.
        let app: String?
        /// True for an event about the server itself, which every subscriber hears.
        let aboutServer: Bool
        /// Its method (the event's name).
        let method: String
        /// The JSON-RPC notification, `seq` included, made when first pushed.
        let line: EventLine
    }

    /// How many sequence numbers are reserved at once.
    static let block: UInt64 = 1_000

    /// The most events kept.
    let limit: Int
    /// The events kept, oldest first, from `start` on (a circular buffer).
    private var events: [Event] = []
    private var start = 0
    /// The number the next event takes.
    private(set) var next: UInt64
    /// The last number reserved (recorded).
    private var reserved: UInt64
    /// The last number of the events no longer kept (or of those before this run).
    private(set) var forgotten: UInt64
    /// The last number reserved before this run: the events up to it, if
    /// any were given, went with the restart.
    let began: UInt64

    /// A ring keeping `limit` events, numbering past `reserved`, the last number reserved before.
    init(limit: Int, after reserved: UInt64) {
        self.limit = max(0, limit)
        self.reserved = reserved
        next = reserved + 1
        forgotten = reserved
        began = reserved
    }

    /// The next sequence number; `reserve` is told of the end of a new
    /// block, to record, when the last is used up.
    mutating func take(reserving reserve: (UInt64) -> Void) -> UInt64 {
        if next > reserved {
            reserved = next - 1 + Self.block
            reserve(reserved)
        }
        defer { next += 1 }
        return next
    }

    /// Makes the last number given the last reserved, telling `reserve`: a
    /// server started next numbers from just past it (the rest of the block
    /// is not skipped), and a front end that heard the last event resumes
    /// across the restart. The next event reserves a new block.
    mutating func settle(reserving reserve: (UInt64) -> Void) {
        guard reserved > next - 1 else { return }
        reserved = next - 1
        reserve(reserved)
    }

    /// Keeps `event`, forgetting the oldest beyond the limit.
    mutating func keep(_ event: Event) {
        guard limit > 0 else {
            forgotten = event.seq
            return
        }
        if events.count < limit {
            events.append(event)
        } else {
            forgotten = events[start].seq
            events[start] = event
            start = (start + 1) % limit
        }
    }

    /// The events kept after `seq`, oldest first; nil when some after it are
    /// no longer kept (or `seq` is none this server gave).
    func events(after seq: UInt64) -> [Event]? {
        guard seq >= forgotten, seq < next else { return nil }
        let ordered = events[start...] + events[..<start]
        return ordered.filter { $0.seq > seq }
    }
}

/// An event's JSON-RPC notification, made the first time a subscriber
/// hears it (live or resuming) and kept: an event nobody hears — most, on a
/// server whose front end follows other apps or has not connected — costs
/// its number, not its presentation turned into JSON and written out.
///
/// `@unchecked Sendable`: read and made only under the lock of the
/// `Subscribers` that keeps it.
final class EventLine: @unchecked Sendable {
    /// Makes the line.
    private var make: (() -> [UInt8])?
    /// The line, once made.
    private var made: [UInt8]?

    /// A line `make` makes when it is first asked for.
    init(_ make: @escaping () -> [UInt8]) {
        self.make = make
    }

    /// The line, made now if it was not yet.
    var bytes: [UInt8] {
        if let made { return made }
        let line = make?() ?? []
        made = line
        make = nil
        return line
    }
}
