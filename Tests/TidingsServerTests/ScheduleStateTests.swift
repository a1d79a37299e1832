import Testing
import TestSupport
import TidingsBase
import TidingsProtocol
import TidingsRuntime
@testable import TidingsServer

/// Pending requests in the server's journal: what is scheduled, removed and
/// fired comes back as it was, through folds into snapshots.
@Suite struct ScheduleStateTests {
    let directory = TemporaryDirectory("schedule-state")

    func open(threshold: Int = 4 << 20) throws -> JournaledState {
        try JournaledState(directory: directory.file("state"), foldThreshold: threshold)
    }

    func record(_ identifier: String, app: String = "com.example.a", trigger: NotificationTrigger) -> ScheduledRecord {
        ScheduledRecord(app: app, identifier: identifier, added: 1_800_000_000, trigger: trigger,
                        request: .object([("identifier", .string(identifier)),
                                          ("content", .object([("title", .string("T \(identifier)"))])),
                                          ("trigger", .null)]))
    }

    @Test func scheduledRemovedAndFiredComeBackThroughFolds() throws {
        let daily = NotificationTrigger.calendar({ var matching = DateMatching(); matching.hour = 8; return matching }(), repeats: true)
        do {
            let state = try open(threshold: 3_000)
            for number in 0..<100 {
                try state.recordScheduled(record("r\(number)", trigger: .timeInterval(seconds: Double(60 + number), repeats: false)))
            }
            try state.recordScheduled(record("daily", app: "com.example.b", trigger: daily))
            try state.recordFired("daily", of: "com.example.b", at: 1_800_010_000)
            try state.recordUnscheduled((0..<90).map { "r\($0)" }, of: "com.example.a")
            // Added again: it starts afresh, its earlier fire forgotten.
            try state.recordScheduled(record("again", app: "com.example.b", trigger: daily))
            try state.recordFired("again", of: "com.example.b", at: 1_800_020_000)
            try state.recordScheduled(record("again", app: "com.example.b", trigger: daily))
            #expect(eventually { state.folds.count > 0 })
        }
        let state = try open()
        let kept = state.kept.pending.take()
        #expect(state.kept.diagnostics.isEmpty)
        #expect(Set(kept.map(\.record.identifier)) == Set((90..<100).map { "r\($0)" } + ["daily", "again"]))
        let byIdentifier = Dictionary(uniqueKeysWithValues: kept.map { ($0.record.identifier, $0) })
        #expect(byIdentifier["daily"]?.lastFired == 1_800_010_000)
        #expect(byIdentifier["daily"]?.trigger == daily)
        #expect(byIdentifier["again"]?.lastFired == nil)
        #expect(byIdentifier["r95"]?.trigger == .timeInterval(seconds: 155, repeats: false))
        #expect(byIdentifier["r95"]?.added == 1_800_000_000)
        let r95 = try #require(byIdentifier["r95"])
        let contents = try #require(ScheduledRecord.contents(ofBytes: r95.record.bytes, identifier: "r95"))
        #expect(contents.request == .object([("identifier", .string("r95")), ("content", .object([("title", .string("T r95"))]))]))
        // Taken once.
        #expect(state.kept.pending.take().isEmpty)
    }
}
