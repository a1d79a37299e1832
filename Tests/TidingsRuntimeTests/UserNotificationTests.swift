import RuntimeTestSupport
import Testing
import TidingsBase
import TidingsRuntime

/// `UserNotification` shares its fields between copies; it must still behave
/// as a value: changing a copy never changes the original.
@Suite struct UserNotificationTests {
    @Test func changingACopyLeavesTheOriginal() {
        let original = notification("n", category: "c", thread: "t", userInfo: [("k", .integer(1))])
        var copy = original
        copy.identifier = "m"
        copy.date = 5
        copy.content.title = "Other"
        copy.content.userInfo.append(("l", .null))
        #expect(original.identifier == "n")
        #expect(original.date == 1_800_000_000)
        #expect(original.content.title == "Title")
        #expect(original.content.userInfo.count == 1)
        #expect(copy.identifier == "m")
        #expect(copy.date == 5)
        #expect(copy.content.title == "Other")
        #expect(copy.content.threadIdentifier == "t")
        #expect(copy.content.userInfo.count == 2)
    }

    @Test func equalityComparesFields() {
        let one = notification("n", category: "c", userInfo: [("k", .string("v"))])
        var other = notification("n", category: "c", userInfo: [("k", .string("v"))])
        #expect(one == other)
        other.content.body = "Else"
        #expect(one != other)
        other.content.body = one.content.body
        #expect(one == other)
        other.date += 1
        #expect(one != other)
    }
}
