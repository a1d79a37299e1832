import Testing
@testable import TidingsServer

/// `notifications.list`'s cursors: each names back the place it was made
/// for, in the run that made it; anything else is refused as invalid params.
@Suite struct ListCursorTests {
    /// The code `cursor` is refused with by `cursors`; nil when it is read.
    func refusal(_ cursor: String, by cursors: ListCursor) -> Int? {
        do throws(RPCError) {
            _ = try cursors.position(of: cursor)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func aCursorNamesItsPlaceInItsRunOnly() throws {
        let cursors = ListCursor()
        for position: UInt64 in [0, 1, 35, 36, 1_000_000, .max] {
            #expect(try cursors.position(of: cursors.cursor(for: position)) == position)
        }
        let made = cursors.cursor(for: 42)
        let run = String(made.prefix { $0 != "." })
        for cursor in ["", "page-2", "\(run).", "\(run).1.2", "\(run).!", ".1", "\(run)x.1"] {
            #expect(refusal(cursor, by: cursors) == -32602, "\(cursor)")
        }
        // Another run's cursor (each server run marks its own).
        let other = ListCursor()
        if other.cursor(for: 0) != cursors.cursor(for: 0) { #expect(refusal(made, by: other) == -32602) }
    }
}
