import Foundation
import Testing
import TestSupport
import TidingsBase
import TidingsRuntime
@testable import TidingsServer

/// The server's state on disk: what is recorded comes back, in order and
/// whole, through compactions; two servers cannot share one state.
@Suite struct JournaledStateTests {
    let directory = TemporaryDirectory("state")

    func open(threshold: Int = 4 << 20) throws -> JournaledState {
        try JournaledState(directory: directory.file("tidings"), compactionThreshold: threshold) { failure in
            Issue.record("write failed: \(failure)")
        }
    }

    func delivered(_ identifier: String, attachment: Bool = false) -> UserNotification {
        var content = NotificationContent()
        content.title = "Title \(identifier)"
        content.categoryIdentifier = "story"
        content.badge = 3
        content.sound = "default"
        content.mutableContent = true
        content.interruptionLevel = .timeSensitive
        content.userInfo = [("aps", .object([("alert", .string("x"))])), ("n", .integer(7))]
        if attachment {
            content.attachments = [NotificationAttachment(
                identifier: "photo", type: "public.png", path: "/state/attachments/a b.png", size: 192,
                thumbnail: ThumbnailOptions(hidden: true, clippingRect: .init(x: 0, y: 0, width: 0.5, height: 0.5), time: 1))]
        }
        return UserNotification(identifier: identifier, date: 1_800_000_000.25, content: content)
    }

    @Test func whatIsRecordedComesBackInOrder() throws {
        do {
            let state = try open()
            state.recordCategories([NotificationCategory(identifier: "story", actions: [.init(identifier: "read", title: "Read")])],
                                   of: "com.example.news")
            state.recordDelivery(of: delivered("a", attachment: true), to: "com.example.news", width: 400)
            state.recordDelivery(of: delivered("b"), to: "com.example.news", width: 360)
            state.recordDelivery(of: delivered("c"), to: "com.example.other", width: 360)
            state.recordRemoval(of: ["b"])
        }
        let kept = try open().kept
        #expect(kept.diagnostics.isEmpty)
        #expect(kept.categories.map(\.app) == ["com.example.news"])
        #expect(kept.categories.first?.categories.first?.actions.map(\.identifier) == ["read"])
        #expect(kept.delivered.map(\.notification.identifier) == ["a", "c"])
        #expect(kept.delivered.first?.notification == delivered("a", attachment: true))
        #expect(kept.delivered.first?.width == 400)
        #expect(kept.delivered.last?.app == "com.example.other")
    }

    @Test func aCompactedStateKeepsEverything() throws {
        do {
            let state = try open(threshold: 2_000)
            for number in 0..<200 { state.recordDelivery(of: delivered("n\(number)"), to: "com.example.news", width: 360) }
            state.recordRemoval(of: (0..<100).map { "n\($0)" })
        }
        #expect(FileManager.default.fileExists(atPath: directory.file("tidings/server.snapshot")))
        let kept = try open().kept
        #expect(kept.delivered.map(\.notification.identifier) == (100..<200).map { "n\($0)" })
    }

    @Test func aSecondServerCannotOpenTheSameState() throws {
        let first = try open()
        #expect(throws: Diagnostic.self) { try open() }
        _ = first
    }

    @Test func aRecordThatIsNotOursIsSkippedAndSaidSo() throws {
        do {
            let store = RecordStore(directory: directory.file("tidings"), name: "server")
            _ = try store.load()
            try store.append(Array(#"{"unexpected": true}"#.utf8))
            try store.append(Array("not json".utf8))
        }
        let state = try open()
        #expect(state.kept.diagnostics.count == 2)
        #expect(state.kept.delivered.isEmpty)
    }
}
