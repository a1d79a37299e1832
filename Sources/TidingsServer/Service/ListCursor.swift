/// Pages of `notifications.list`: how many notifications a page holds, and
/// the cursor, the opaque string an answer gives as `next` and the next
/// call gives back as `cursor`.
///
/// A cursor names a place in the order of deliveries, valid in the run of
/// the server that gave it: places start again after a restart, so a
/// cursor of another run is refused rather than read as another place.
struct ListCursor: Sendable {
    /// Notifications a page holds when the call gives no `limit`.
    static let defaultLimit = 100
    /// The most notifications a page holds: about half a megabyte of JSON.
    static let maximumLimit = 1_000

    /// This run's mark, at the head of its cursors.
    private let run = String(UInt32.random(in: .min ... .max), radix: 36)

    /// The cursor for the place `position`.
    func cursor(for position: UInt64) -> String {
        "\(run).\(String(position, radix: 36))"
    }

    /// The place `cursor` names.
    /// - Throws: invalid params when it is not a cursor of this run.
    func position(of cursor: String) throws(RPCError) -> UInt64 {
        // Read in place (no array of parts): every page but the first reads one.
        guard let dot = cursor.utf8.firstIndex(of: UInt8(ascii: ".")),
              let position = UInt64(cursor[cursor.index(after: dot)...], radix: 36) else {
            throw .invalidParams("\"cursor\" must be the \"next\" of an earlier answer; \"\(cursor)\" is not one.")
        }
        guard cursor[..<dot] == run else {
            throw .invalidParams("The cursor \"\(cursor)\" comes from an earlier run of the server, which has restarted since; list again without a cursor.")
        }
        return position
    }
}
