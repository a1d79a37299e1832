import Foundation
import Testing
import TestSupport
import TidingsBase
import TidingsProtocol
import TidingsRegistry
import TidingsRuntime
@testable import TidingsServer

/// A journal written before notifications were keyed by app — its removal
/// records name bare identifiers, unique across apps then — loads
/// unchanged, and the server goes on from it with records that name the app.
@Suite struct EarlierJournalTests {
    let directory = TemporaryDirectory("earlier-state")

    /// A delivered record as earlier versions wrote it.
    static func delivered(_ identifier: String, to app: String, title: String) -> String {
        #"{"delivered": "\#(app)", "width": 360, "notification": {"identifier": "\#(identifier)", "date": 1800000000.5, "content": {"title": "\#(title)", "subtitle": "", "body": "", "threadIdentifier": "", "categoryIdentifier": "story", "interruptionLevel": 1, "relevanceScore": 0, "mutableContent": false, "userInfo": {}, "attachments": []}}}"#
    }

    /// The records of an earlier version's journal, one JSON object each, written by hand.
    static let records = [
        #"{"categories": "com.example.news", "list": [{"identifier": "story", "actions": [{"identifier": "read", "title": "Read"}]}]}"#,
        delivered("a", to: "com.example.news", title: "A"),
        delivered("b", to: "com.example.other", title: "B"),
        delivered("c", to: "com.example.news", title: "C"),
        #"{"removed": ["a"]}"#,
        delivered("d", to: "com.example.other", title: "D"),
        #"{"badge": "com.example.news", "count": 3}"#,
        #"{"removed": ["d", "never-delivered"]}"#,
    ]

    /// Writes `records` as the journal segment an earlier server left in the state directory.
    func writeJournal(_ records: [String]) throws {
        let state = directory.file("tidings")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        var bytes = RecordFraming.header(.journal, generation: 0)
        for record in records { RecordFraming.appendFrame(Array(record.utf8), to: &bytes) }
        try Data(bytes).write(to: URL(fileURLWithPath: Path.join(state, "server.journal.0")))
    }

    func open() throws -> JournaledState {
        try JournaledState(directory: directory.file("tidings"))
    }

    @Test func anEarlierJournalLoadsUnchangedAndRecordsGoOnByApp() throws {
        try writeJournal(Self.records)
        do {
            let state = try open()
            let kept = state.kept
            #expect(kept.diagnostics.isEmpty, "\(kept.diagnostics)")
            #expect(kept.categories.map(\.app) == ["com.example.news"])
            #expect(kept.categories.first?.categories.first?.actions.map(\.identifier) == ["read"])
            #expect(kept.delivered.map { "\($0.app)/\($0.notification.identifier)" } == ["com.example.other/b", "com.example.news/c"])
            #expect(kept.delivered.map(\.notification.content.title) == ["B", "C"])
            #expect(kept.delivered.map(\.width) == [360, 360])
            #expect(kept.badges.map(\.app) == ["com.example.news"] && kept.badges.first?.count == 3)

            // The server built on it shows them, each its app's; what it records now names the app.
            let index = Discovery.scan(SearchPath(directories: [directory.file("extensions")], origin: .option))
            let service = HostService(index: index, state: state)
            #expect(service.host.delivered().map { "\($0.app)/\($0.notification.identifier)" }
                == ["com.example.other/b", "com.example.news/c"])
            _ = try service.host.remove([NotificationKey(app: "com.example.news", identifier: "c")]) {
                (keys: [NotificationKey]) throws(Diagnostic) in try state.recordRemoval(of: keys)
            }
        }
        let reopened = try open().kept
        #expect(reopened.diagnostics.isEmpty, "\(reopened.diagnostics)")
        // The new removal record names its app: only b stays, of the other app.
        #expect(reopened.delivered.map { "\($0.app)/\($0.notification.identifier)" } == ["com.example.other/b"])
    }

    @Test func aRemovalNamingTheAppRemovesOnlyThatAppsNotification() throws {
        do {
            let state = try open()
            try state.recordDelivery(of: notification("dose-1", title: "Medicine"), to: "com.example.medicine", width: 360)
            try state.recordDelivery(of: notification("dose-1", title: "Other"), to: "com.example.other", width: 360)
            try state.recordRemoval(of: [NotificationKey(app: "com.example.other", identifier: "dose-1")])
        }
        let kept = try open().kept
        #expect(kept.delivered.map { "\($0.app)/\($0.notification.content.title)" } == ["com.example.medicine/Medicine"])
    }

    /// A notification of category story titled `title`.
    func notification(_ identifier: String, title: String) -> UserNotification {
        var content = NotificationContent()
        content.title = title
        content.categoryIdentifier = "story"
        return UserNotification(identifier: identifier, date: 1_800_000_000, content: content)
    }
}
