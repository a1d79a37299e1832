import Testing
import TestSupport
import TidingsBase
import TidingsProtocol
import TidingsRuntime
@testable import TidingsServer

/// When the writer seals a segment for folding: once it outgrows both the
/// threshold and the last snapshot, so that rewriting the whole state costs
/// each change the same however much is kept; and early once removals
/// halved the state, and only then. (No keeper runs here: sealing is the
/// writer's, during the write that makes it due.)
@Suite struct FoldScheduleTests {
    let directory = TemporaryDirectory("fold-schedule")

    /// A writer to a loaded store whose last snapshot's records took `snapshotBytes` and kept `kept` notifications.
    func writer(threshold: Int, snapshotBytes: Int, kept: Int) throws -> StateWriter {
        let store = RecordStore(directory: directory.path, name: "server")
        _ = try store.load()
        return StateWriter(store: store, foldThreshold: threshold, snapshotBytes: snapshotBytes, kept: kept)
    }

    func delivery(_ number: Int) -> StateRecord {
        var content = NotificationContent()
        content.title = "Dose \(number)"
        content.body = String(repeating: "x", count: 200)
        return StateRecord(delivery: UserNotification(identifier: "n\(number)", date: 1_800_000_000, content: content),
                           to: "org.example.pillbox", width: 360)
    }

    func removal(_ numbers: Range<Int>) -> StateRecord {
        StateRecord(removal: numbers.map { NotificationKey(app: "org.example.pillbox", identifier: "n\($0)") })
    }

    @Test func aSegmentIsSealedOnceItOutgrowsTheThresholdAndTheLastSnapshot() throws {
        let writer = try writer(threshold: 2_000, snapshotBytes: 40_000, kept: 100)
        var written = 0
        var number = 0
        while written + 2 * delivery(number).bytes.count < 40_000 {
            try writer.write(delivery(number))
            written += delivery(number).bytes.count
            number += 1
        }
        #expect(written > 10 * 2_000, "the threshold alone was passed many times over")
        #expect(writer.pendingBatch == nil, "sealed at \(writer.store.journalSize) bytes, under the snapshot's 40,000")
        while writer.pendingBatch == nil {
            try writer.write(delivery(number))
            written += delivery(number).bytes.count
            number += 1
        }
        #expect(writer.pendingBatch?.records.count == number)
        #expect(written + 2 * delivery(number).bytes.count >= 40_000)
        #expect(written < 40_000 + 2 * delivery(number).bytes.count)
    }

    @Test func aSmallStateIsSealedAtTheThreshold() throws {
        let writer = try writer(threshold: 2_000, snapshotBytes: 500, kept: 1)
        var written = 0
        var number = 0
        while writer.pendingBatch == nil {
            try writer.write(delivery(number))
            written += delivery(number).bytes.count
            number += 1
        }
        #expect(written + 2 * delivery(number).bytes.count >= 2_000)
        #expect(written < 2_000 + 2 * delivery(number).bytes.count)
    }

    @Test func removalsSealEarlyOnlyOnceTheyHalvedTheState() throws {
        let writer = try writer(threshold: 4 << 20, snapshotBytes: 1_000_000, kept: 4_000)
        // 1,999 of the 4,000 kept: fewer than half, no early fold.
        try writer.write(removal(0..<1_999))
        try writer.store.prepareSegment()
        writer.sealIfShrunk()
        #expect(writer.pendingBatch == nil)
        // The 2,000th: half, and at least `shrinkingRemovals`.
        try writer.write(removal(1_999..<2_000))
        try writer.store.prepareSegment()
        writer.sealIfShrunk()
        #expect(writer.pendingBatch?.records.count == 2)
    }

    @Test func deliveriesSinceTheFoldCountTowardTheHalf() throws {
        let writer = try writer(threshold: 4 << 20, snapshotBytes: 1_000_000, kept: 1_000)
        for number in 0..<1_000 { try writer.write(delivery(number)) }
        // 1,000 removed of the 2,000 there were: half.
        try writer.write(removal(0..<999))
        try writer.store.prepareSegment()
        writer.sealIfShrunk()
        #expect(writer.pendingBatch == nil)
        try writer.write(removal(999..<1_000))
        try writer.store.prepareSegment()
        writer.sealIfShrunk()
        #expect(writer.pendingBatch != nil)
    }
}
