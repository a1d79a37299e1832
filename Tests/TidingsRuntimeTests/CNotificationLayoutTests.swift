import RuntimeTestSupport
import Testing
import TidingsABI
import TidingsBase
@testable import TidingsRuntime

/// The C layout a notification value keeps: made once, shared by its copies,
/// never by a changed value, and made safely by threads that race to it.
@Suite struct CNotificationLayoutTests {
    /// The address of the value's `tidings_notification` and the title and
    /// first userInfo JSON it points to.
    static func read(_ note: UserNotification) -> (address: UInt, title: String, json: String) {
        CNotification.with(note) { cNotification in
            let content = cNotification.pointee.content!.pointee
            return (UInt(bitPattern: cNotification), String(cString: content.title),
                    String(cString: content.user_info![0]!.pointee.json))
        }
    }

    @Test func copiesShareOneLayout() {
        let note = notification("n", category: "c", userInfo: [("k", .string("v"))])
        let copy = note
        let first = Self.read(note)
        #expect(Self.read(note).address == first.address)
        #expect(Self.read(copy).address == first.address)
        #expect(first.title == "Title" && first.json == #""v""#)
    }

    @Test func aChangedValueGetsALayoutOfItsOwn() {
        let note = notification("n", category: "c", userInfo: [("k", .string("v"))])
        let before = Self.read(note)
        var changed = note
        changed.content.title = "New"
        changed.content.userInfo = [("k", .integer(2))]
        let after = Self.read(changed)
        #expect(after.address != before.address)
        #expect(after.title == "New" && after.json == "2")
        #expect(Self.read(note).address == before.address)
        #expect(Self.read(note).title == "Title")
        var renamed = changed
        renamed.identifier = "m"
        #expect(Self.read(renamed).address != after.address)
        #expect(CNotification.with(renamed) { String(cString: $0.pointee.identifier) } == "m")
    }

    @Test func concurrentFirstUsesAgreeOnOneLayout() async {
        for round in 0..<200 {
            let note = notification("n-\(round)", category: "c", title: "T\(round)", userInfo: [("k", .integer(Int64(round)))])
            let seen = await withTaskGroup(of: (address: UInt, title: String, json: String).self) { group in
                for _ in 0..<8 { group.addTask { Self.read(note) } }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(seen.map(\.address)).count == 1)
            #expect(seen.allSatisfy { $0.title == "T\(round)" && $0.json == "\(round)" })
            #expect(Self.read(note).address == seen[0].address)
        }
    }

    /// A layout's structs and strings stay where they are, and readable, as
    /// long as the layout lives, wherever the references to it go: the value
    /// that made it gone, other layouts made after it, the array that holds
    /// it grown (its references moved) and reordered.
    @Test func pointersLiveAsLongAsTheLayout() {
        var note: UserNotification? = notification("first", category: "c", title: "First", userInfo: [("k", .string("v"))])
        var layouts = [note!.cLayout]
        let address = layouts[0].withNotification { UInt(bitPattern: $0) }
        note = nil
        for index in 0..<64 {
            layouts.append(notification("n\(index)", category: "c", title: "T\(index)", userInfo: [("k", .integer(Int64(index)))]).cLayout)
        }
        layouts.swapAt(0, 40)
        let first = layouts.remove(at: 40)
        layouts.removeAll()
        first.withNotification { cNotification in
            #expect(UInt(bitPattern: cNotification) == address)
            let content = cNotification.pointee.content!.pointee
            #expect(String(cString: cNotification.pointee.identifier) == "first")
            #expect(String(cString: content.title) == "First")
            #expect(content.user_info_count == 1)
            #expect(String(cString: content.user_info![0]!.pointee.key) == "k")
            #expect(String(cString: content.user_info![0]!.pointee.json) == #""v""#)
        }
    }
}
