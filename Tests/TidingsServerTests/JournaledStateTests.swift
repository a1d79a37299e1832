import Foundation
import Testing
import TestSupport
import TidingsBase
import TidingsProtocol
import TidingsRuntime
@testable import TidingsServer

/// The server's state on disk: what is recorded comes back, in order and
/// whole, through compactions; two servers cannot share one state.
@Suite struct JournaledStateTests {
    let directory = TemporaryDirectory("state")

    func open(threshold: Int = 4 << 20) throws -> JournaledState {
        try JournaledState(directory: directory.file("tidings"), foldThreshold: threshold)
    }

    /// The keys of the news app's notifications `identifiers`.
    func news(_ identifiers: [String]) -> [NotificationKey] {
        identifiers.map { NotificationKey(app: "com.example.news", identifier: $0) }
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
            try state.recordCategories([NotificationCategory(identifier: "story", actions: [.init(identifier: "read", title: "Read")])],
                                   of: "com.example.news")
            try state.recordDelivery(of: delivered("a", attachment: true), to: "com.example.news", width: 400)
            try state.recordDelivery(of: delivered("b"), to: "com.example.news", width: 360)
            try state.recordDelivery(of: delivered("c"), to: "com.example.other", width: 360)
            try state.recordRemoval(of: news(["b"]))
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

    /// Folds run on the keeper's thread while changes go on; whatever was
    /// folded, sealed or still in the journal when the state closed comes back.
    @Test func aFoldedStateKeepsEverything() throws {
        do {
            let state = try open(threshold: 2_000)
            for number in 0..<200 {
                try state.recordDelivery(of: delivered("n\(number)"), to: "com.example.news", width: 360)
                if number % 3 == 0 { try state.recordRemoval(of: news(["n\(number - 1)"])) }
            }
            try state.recordRemoval(of: news((0..<100).map { "n\($0)" }))
            eventually { state.folds.count > 0 }
            #expect(state.folds.count > 0)
            #expect(state.folds.failure == nil)
            #expect(!state.health.isDegraded)
        }
        #expect(FileManager.default.fileExists(atPath: directory.file("tidings/server.snapshot")))
        let kept = try open().kept
        #expect(kept.diagnostics.isEmpty)
        #expect(kept.delivered.map(\.notification.identifier)
            == (100..<200).filter { !($0 + 1 < 200 && ($0 + 1) % 3 == 0) }.map { "n\($0)" })
    }

    /// Inbox entries (a whole response, a background notification) and
    /// badges come back whole, through folds, without what was taken.
    @Test func inboxEntriesAndBadgesSurviveFolds() throws {
        let response = InboxEntry(identifier: 10, received: 1_800_000_001, message: .response(ForwardedResponse(
            app: "com.example.news", notification: delivered("r", attachment: true), actionIdentifier: "comment",
            userText: "Count me in")))
        let background = InboxEntry(identifier: 11, received: 1_800_000_002,
                                    message: .background(app: "com.example.news", notification: delivered("bg")))
        do {
            let state = try open(threshold: 2_000)
            try state.recordBadge(4, of: "com.example.news")
            try state.recordBadge(9, of: "com.example.other")
            try state.recordInboxed(response)
            for number in 0..<40 {
                try state.recordInboxed(InboxEntry(identifier: UInt64(100 + number), received: 1_800_000_003,
                                                   message: .background(app: "com.example.other", notification: delivered("o\(number)"))))
            }
            try state.recordTaken((100..<140).map(UInt64.init), of: "com.example.other")
            try state.recordInboxed(background)
            try state.recordBadge(0, of: "com.example.other")
            eventually { state.folds.count > 0 }
            #expect(state.folds.count > 0)
        }
        let kept = try open().kept
        #expect(kept.diagnostics.isEmpty)
        #expect(kept.inbox == [response, background])
        #expect(kept.badges.map(\.app) == ["com.example.news", "com.example.other"])
        #expect(kept.badges.map(\.count) == [4, 0])
    }

    /// Removals that leave less than half of the state fold it without
    /// waiting for the journal to reach the threshold, so that the state the
    /// keeper holds for folding lets go of the notifications removed too.
    @Test func removingMostOfTheStateFoldsItEarly() throws {
        let state = try open()
        let identifiers = (0..<2_000).map { "n\($0)" }
        for identifier in identifiers {
            try state.recordDelivery(of: delivered(identifier), to: "com.example.news", width: 360)
        }
        try state.recordRemoval(of: news(Array(identifiers.dropFirst(10))))
        #expect(state.report["journalBytes"]?.integerValue ?? .max < 4 << 20, "the threshold was reached")
        eventually { state.folds.count > 0 }
        #expect(state.folds.count == 1)
        #expect(state.folds.records == 10)
    }

    /// A snapshot an earlier version wrote — one JSON object — and its journal still load.
    @Test func readsTheSnapshotOfAnEarlierVersion() throws {
        let record = #"{"delivered": "com.example.news", "width": 360, "notification": {"identifier": "old", "date": 1800000000, "content": {"title": "Old", "userInfo": {}, "interruptionLevel": 1, "attachments": []}}}"#
        let categories = #"[{"identifier": "story", "actions": [{"identifier": "read", "title": "Read"}]}]"#
        let snapshot = #"{"version": 1, "categories": [{"app": "com.example.news", "categories": \#(categories)}], "delivered": [\#(record)]}"#
        var bytes = RecordFraming.Kind.snapshot.magic + [1, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 0]
        withUnsafeBytes(of: CRC32.checksum(bytes).littleEndian) { bytes += $0 }
        bytes += RecordFraming.frame(Array(snapshot.utf8))
        try FileManager.default.createDirectory(atPath: directory.file("tidings"), withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: directory.file("tidings/server.snapshot"), contents: Data(bytes)))
        let journal = RecordFraming.header(.journal, generation: 0) + RecordFraming.frame(Array(#"{"removed": ["gone"]}"#.utf8))
        #expect(FileManager.default.createFile(atPath: directory.file("tidings/server.journal"), contents: Data(journal)))

        let kept = try open().kept
        #expect(kept.diagnostics.isEmpty)
        #expect(kept.categories.map(\.app) == ["com.example.news"])
        #expect(kept.delivered.map(\.notification.identifier) == ["old"])
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
