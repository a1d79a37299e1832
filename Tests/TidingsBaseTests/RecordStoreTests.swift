import Glibc
import Testing
import TestSupport
@testable import TidingsBase

@Suite("Record store")
struct RecordStoreTests {
    let scratch = ScratchDirectory()

    /// A store named "state" in the scratch directory.
    func store() -> RecordStore {
        RecordStore(directory: scratch.path, name: "state")
    }

    /// A loaded store holding `records` in its journal and nothing else.
    func storeHolding(_ records: [[UInt8]]) throws -> RecordStore {
        let store = store()
        _ = try store.load()
        for payload in records { try store.append(payload) }
        return store
    }

    // MARK: Round trips

    /// Records, empty and large ones included, load back as appended, from a new store object.
    @Test func readsBackWhatWasAppendedInOrder() throws {
        let records = (0..<200).map(record) + [[], Array(repeating: 0xAB, count: 100_000), []]
        let writer = try storeHolding(records)
        #expect(writer.journalSize == RecordFraming.headerSize + records.reduce(0) { $0 + 8 + $1.count })

        let loaded = try store().load()
        #expect(loaded == RecordStore.Loaded(snapshot: nil, entries: records, recovered: []))
    }

    /// A new store is empty; loading again reads the files afresh and appending goes on.
    @Test func startsEmptyAndCanLoadTwice() throws {
        let store = store()
        #expect(try store.load() == RecordStore.Loaded(snapshot: nil, entries: [], recovered: []))
        #expect(store.journalSize == RecordFraming.headerSize)
        try store.append(record(1))
        #expect(try store.load().entries == [record(1)])
        try store.append(record(2))
        #expect(try self.store().load().entries == [record(1), record(2)])
    }

    /// A fold seals the segment, writes the snapshot and removes the segments
    /// it holds; the snapshot before it is kept as `.previous`.
    @Test func foldKeepsOnlyLaterEntriesAndThePreviousSnapshot() throws {
        let store = try storeHolding([record(0), record(1)])
        try store.compact(into: [Array("first".utf8)])
        #expect(store.journalSize == RecordFraming.headerSize)
        try store.append(record(2))
        #expect(try self.store().load() == RecordStore.Loaded(snapshot: [Array("first".utf8)], entries: [record(2)], recovered: []))
        #expect(FileSystem.status(of: store.previousSnapshotPath) == nil)

        try store.compact(into: [Array("second".utf8), Array("and more".utf8)])
        try store.append(record(3))
        #expect(try self.store().load() == RecordStore.Loaded(
            snapshot: [Array("second".utf8), Array("and more".utf8)], entries: [record(3)], recovered: []))
        let previous = try RecordFraming.readSnapshot(contents(store.previousSnapshotPath)).get()
        #expect(previous.generation == 1)
        #expect(previous.records == [Array("first".utf8)])
        #expect(try RecordFraming.readSnapshot(contents(store.snapshotPath)).get().generation == 2)
        #expect(try RecordFraming.readHeader(contents(store.journalPath), .journal).get().generation == 2)
        #expect(try FileSystem.contentsOfDirectory(scratch.path) == ["state.journal.2", "state.snapshot", "state.snapshot.previous"])
        // An empty snapshot is a snapshot, not the absence of one.
        try store.compact(into: [])
        #expect(try self.store().load() == RecordStore.Loaded(snapshot: [], entries: [], recovered: []))
    }

    /// Records appended between sealing a segment and writing the snapshot
    /// go to the new segment and follow the snapshot.
    @Test func appendsGoOnWhileASnapshotIsWritten() throws {
        let store = try storeHolding([record(0), record(1)])
        let generation = try store.startSegment()
        try store.append(record(2))
        #expect(try self.store().load().entries == [record(0), record(1), record(2)])

        let reopened = self.store()
        _ = try reopened.load()
        try reopened.append(record(3))
        try reopened.writeSnapshot(generation: generation, records: [Array("0 and 1".utf8)])
        #expect(try self.store().load() == RecordStore.Loaded(
            snapshot: [Array("0 and 1".utf8)], entries: [record(2), record(3)], recovered: []))
    }

    /// A segment made ahead is the one the next seal starts; left behind by
    /// a crash, it is an empty segment that loads like any other.
    @Test func aSegmentMadeAheadIsTakenBySealingAndHarmlessAfterACrash() throws {
        let store = try storeHolding([record(0)])
        try store.prepareSegment()
        try store.prepareSegment()
        #expect(try FileSystem.contentsOfDirectory(scratch.path) == ["state.journal.0", "state.journal.1"])
        #expect(try self.store().load() == RecordStore.Loaded(snapshot: nil, entries: [record(0)], recovered: []))

        let reopened = self.store()
        _ = try reopened.load()
        try reopened.prepareSegment()
        try reopened.append(record(1))
        #expect(try reopened.startSegment() == 2)
        #expect(try FileSystem.contentsOfDirectory(scratch.path) == ["state.journal.0", "state.journal.1", "state.journal.2"])
        try reopened.append(record(2))
        try reopened.writeSnapshot(generation: 2, records: [Array("0 and 1".utf8)])
        #expect(try self.store().load() == RecordStore.Loaded(snapshot: [Array("0 and 1".utf8)], entries: [record(2)], recovered: []))
    }

    /// Appending, flushing or folding before `load()` throws and writes nothing.
    @Test func refusesUseBeforeLoad() throws {
        let store = store()
        #expect(store.journalSize == 0)
        for action in [{ try store.append([1]) }, { try store.synchronize() }, { _ = try store.startSegment() },
                       { try store.writeSnapshot(generation: 1, records: []) }] {
            let error = try #require(throws: Diagnostic.self) { try action() }
            #expect(error.code == .stateNotLoaded)
        }
        #expect(FileSystem.status(of: store.journalPath) == nil)
    }

    // MARK: Torn and damaged journals

    /// A crash can cut the last write anywhere: every cut inside the last
    /// record loses that record alone, is reported, and leaves a journal
    /// that takes new records cleanly.
    @Test func cutsATornLastRecordAtEveryOffset() throws {
        let records = [record(0), record(1), Array("the last one".utf8)]
        let path = try storeHolding(records).journalPath
        let whole = try contents(path)
        let lastStart = whole.count - RecordFraming.frameHeaderSize - records[2].count

        // A cut exactly between records is a clean end, not a tear.
        try overwrite(path, with: Array(whole[..<lastStart]))
        #expect(try store().load() == RecordStore.Loaded(snapshot: nil, entries: Array(records[..<2]), recovered: []))

        for cut in lastStart + 1..<whole.count {
            try overwrite(path, with: Array(whole[..<cut]))
            let store = store()
            let loaded = try store.load()
            #expect(loaded.entries == Array(records[..<2]), "cut at \(cut)")
            #expect(codes(loaded.recovered) == [.stateTornJournal], "cut at \(cut)")
            #expect(loaded.losses.isEmpty, "a record cut short was never acknowledged: nothing is lost")
            #expect(loaded.recovered.first?.message.contains("the \(cut - lastStart) bytes cut off") == true)
            #expect(try contents(path).count == lastStart)
            #expect(try contents(path + ".corrupt") == Array(whole[lastStart..<cut]))
            #expect(store.journalSize == lastStart)

            try store.append(Array("after".utf8))
            #expect(try self.store().load() == RecordStore.Loaded(
                snapshot: nil, entries: Array(records[..<2]) + [Array("after".utf8)], recovered: []))
        }
    }

    /// A group of records is one write: they load back as records of their
    /// own, in order; one too large refuses the group whole; a crash that
    /// tears the write keeps the records before the tear, as for records
    /// appended one by one.
    @Test func aGroupIsAppendedWholeAndTornLikeItsRecords() throws {
        let store = try storeHolding([record(0)])
        let group = [Array("delivered".utf8), Array("expired".utf8)]
        try store.append(group: group)
        #expect(try self.store().load().entries == [record(0)] + group)

        let before = try contents(store.journalPath)
        #expect(throws: Diagnostic.self) {
            try store.append(group: [record(1), Array(repeating: 0, count: RecordFraming.maximumPayloadSize + 1)])
        }
        #expect(try contents(store.journalPath) == before)

        let secondStart = before.count - RecordFraming.frameHeaderSize - group[1].count
        try overwrite(store.journalPath, with: Array(before[..<(secondStart + 3)]))
        let loaded = try self.store().load()
        #expect(loaded.entries == [record(0), group[0]])
        #expect(codes(loaded.recovered) == [.stateTornJournal])
    }

    /// Ways a record in the middle of a journal gets damaged.
    enum RecordDamage: CaseIterable, Sendable {
        case payloadByte, lengthByte, checksumByte, zeroedRecord

        /// `bytes` with the record whose frame is `frame` damaged this way.
        func apply(to bytes: [UInt8], frame: Range<Int>) -> [UInt8] {
            var bytes = bytes
            switch self {
            case .payloadByte: bytes[frame.lowerBound + RecordFraming.frameHeaderSize + 3] ^= 0x01
            case .lengthByte: bytes[frame.lowerBound] ^= 0x10
            case .checksumByte: bytes[frame.lowerBound + 5] ^= 0x80
            case .zeroedRecord: for index in frame { bytes[index] = 0 }
            }
            return bytes
        }
    }

    /// A damaged record is skipped and reading goes on at the next whole
    /// record: the damage costs that record alone. It is reported with its
    /// byte range, what was kept is written to a new snapshot, and the
    /// damaged segment is kept as `.corrupt`; the next load finds whole files.
    @Test(arguments: RecordDamage.allCases)
    func skipsADamagedRecordAndKeepsTheRest(damage: RecordDamage) throws {
        let records = (0..<5).map(record)
        let path = try storeHolding(records).journalPath
        let damagedStart = RecordFraming.headerSize + RecordFraming.frameHeaderSize + records[0].count
        let frame = damagedStart..<damagedStart + RecordFraming.frameHeaderSize + records[1].count
        let bytes = damage.apply(to: try contents(path), frame: frame)
        try overwrite(path, with: bytes)

        let store = store()
        let loaded = try store.load()
        #expect(loaded.entries == [record(0), record(2), record(3), record(4)])
        #expect(codes(loaded.recovered) == [.stateCorruptJournal, .stateRewritten])
        #expect(loaded.recovered[0].severity == .error)
        #expect(loaded.losses.map(\.ranges) == [[frame]])
        #expect(try contents(path + ".corrupt") == bytes)

        try store.append(record(5))
        #expect(try self.store().load() == RecordStore.Loaded(
            snapshot: [record(0), record(2), record(3), record(4)], entries: [record(5)], recovered: []))
    }

    /// Zeros where records should be (what a file system can leave after a
    /// power cut) are not empty records.
    @Test func zeroFilledTailIsNotRecords() throws {
        let path = try storeHolding([record(0)]).journalPath
        try overwrite(path, with: contents(path) + [UInt8](repeating: 0, count: 4096))
        let loaded = try store().load()
        #expect(loaded.entries == [record(0)])
        #expect(codes(loaded.recovered) == [.stateCorruptJournal])
    }

    /// A segment whose header is damaged is read all the same, as the
    /// generation its name gives: every record after the header is kept.
    @Test func keepsTheRecordsAfterADamagedHeader() throws {
        let path = try storeHolding([record(0), record(1)]).journalPath
        var bytes = try contents(path)
        bytes[9] ^= 0x40  // in the generation: the header checksum catches it
        try overwrite(path, with: bytes)

        let store = store()
        let loaded = try store.load()
        #expect(loaded.entries == [record(0), record(1)])
        #expect(codes(loaded.recovered) == [.stateCorruptJournal, .stateRewritten])
        #expect(loaded.losses == [RecordStore.Loss(file: path, ranges: [0..<RecordFraming.headerSize], records: 0,
                                                   problem: "the header is damaged (the header's checksum does not match)")])
        #expect(try contents(path + ".corrupt") == bytes)
        try store.append(record(2))
        #expect(try self.store().load() == RecordStore.Loaded(snapshot: [record(0), record(1)], entries: [record(2)], recovered: []))
    }

    /// A file from a newer format version stops the load and is not touched.
    @Test func refusesANewerFormatAndLeavesItAlone() throws {
        var header = RecordFraming.Kind.journal.magic + [2, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 0]
        withUnsafeBytes(of: CRC32.checksum(header).littleEndian) { header += $0 }
        let bytes = header + RecordFraming.frame(record(0))
        let path = scratch.file("state.journal")
        try overwrite(path, with: bytes)

        let error = try #require(throws: Diagnostic.self) { try store().load() }
        #expect(error.code == .stateUnsupportedFormat)
        #expect(try contents(path) == bytes)
    }

    /// What an earlier version left — `NAME.journal` and a snapshot of
    /// format version 1, one record — loads, and the next fold replaces both.
    @Test func readsWhatAnEarlierVersionWrote() throws {
        var snapshot = RecordFraming.Kind.snapshot.magic + [1, 0, 0, 0] + [3, 0, 0, 0, 0, 0, 0, 0]
        withUnsafeBytes(of: CRC32.checksum(snapshot).littleEndian) { snapshot += $0 }
        snapshot += RecordFraming.frame(Array("old".utf8))
        try overwrite(scratch.file("state.snapshot"), with: snapshot)
        let journal = RecordFraming.header(.journal, generation: 3) + RecordFraming.frame(record(0))
        try overwrite(scratch.file("state.journal"), with: journal)

        let store = store()
        #expect(try store.load() == RecordStore.Loaded(snapshot: [Array("old".utf8)], entries: [record(0)], recovered: []))
        try store.append(record(1))
        try store.compact(into: [Array("new".utf8)])
        #expect(try self.store().load() == RecordStore.Loaded(snapshot: [Array("new".utf8)], entries: [], recovered: []))
        #expect(try FileSystem.contentsOfDirectory(scratch.path) == ["state.journal.4", "state.snapshot", "state.snapshot.previous"])
    }

    // MARK: Damaged snapshots

    /// A store whose previous snapshot is "first" (generation 1), whose
    /// snapshot is "second" (generation 2), and whose journal holds record 9.
    func storeWithTwoSnapshots() throws -> RecordStore {
        let store = try storeHolding([record(0)])
        try store.compact(into: [Array("first".utf8)])
        try store.append(record(1))
        try store.compact(into: [Array("second".utf8)])
        try store.append(record(9))
        return store
    }

    /// Ways a snapshot file gets damaged.
    enum Damage: CaseIterable, Sendable {
        case flippedPayloadByte, flippedHeaderByte, cutShort, emptied, trailingGarbage

        /// `bytes` damaged this way.
        func apply(to bytes: [UInt8]) -> [UInt8] {
            var bytes = bytes
            switch self {
            case .flippedPayloadByte: bytes[bytes.count - 2] ^= 0x20
            case .flippedHeaderByte: bytes[1] ^= 0x20
            case .cutShort: bytes.removeLast(3)
            case .emptied: bytes = []
            case .trailingGarbage: bytes += [0]
            }
            return bytes
        }

        /// True when the damage leaves the snapshot's one record whole.
        var leavesTheRecord: Bool { self == .flippedHeaderByte || self == .trailingGarbage }
    }

    /// A damaged snapshot's damaged bytes are never returned. When its
    /// record survives the damage (in the header, after the end) it is kept;
    /// when nothing of it can be read, the previous snapshot is loaded.
    @Test(arguments: Damage.allCases)
    func keepsWhatADamagedSnapshotHoldsElseThePreviousOne(damage: Damage) throws {
        let path = try storeWithTwoSnapshots().snapshotPath
        let damaged = try damage.apply(to: contents(path))
        try overwrite(path, with: damaged)

        let store = store()
        let loaded = try store.load()
        if damage.leavesTheRecord {
            #expect(loaded.snapshot == [Array("second".utf8)])
            #expect(loaded.entries == [record(9)])
            #expect(codes(loaded.recovered) == [.stateCorruptSnapshot, .stateRewritten])
            #expect(loaded.losses.first?.records == 0)
            #expect(try contents(path + ".corrupt") == damaged)
            // Written anew: the next load finds whole files.
            #expect(try self.store().load() == RecordStore.Loaded(snapshot: [Array("second".utf8), record(9)], entries: [],
                                                                  recovered: []))
            return
        }
        #expect(loaded.snapshot == [Array("first".utf8)])
        // Record 1 went into the lost snapshot; record 9 followed it.
        #expect(loaded.entries == [record(9)])
        #expect(codes(loaded.recovered) == [.stateCorruptSnapshot, .statePreviousSnapshot, .stateJournalGap])
        #expect(FileSystem.status(of: path) == nil)
        #expect(try contents(path + ".corrupt") == damaged)

        // Until the next fold every load says the same.
        #expect(try self.store().load().snapshot == [Array("first".utf8)])
        // A fold heals the store and keeps the good previous snapshot.
        try store.compact(into: [Array("third".utf8)])
        #expect(try self.store().load() == RecordStore.Loaded(snapshot: [Array("third".utf8)], entries: [], recovered: []))
        #expect(try RecordFraming.readSnapshot(contents(store.previousSnapshotPath)).get().records == [Array("first".utf8)])
    }

    /// A snapshot of many records damaged in the middle loses the damaged
    /// record alone, and says how many of how many were lost.
    @Test func aDamagedSnapshotLosesOnlyTheDamagedRecord() throws {
        let store = try storeHolding([])
        let records = (0..<1_000).map(record)
        try store.compact(into: records)
        var bytes = try contents(store.snapshotPath)
        bytes[bytes.count / 2] ^= 0x04
        try overwrite(store.snapshotPath, with: bytes)

        let loaded = try self.store().load()
        let kept = try #require(loaded.snapshot)
        #expect(kept.count == 999)
        #expect(Set(kept).isSubset(of: Set(records)))
        #expect(codes(loaded.recovered) == [.stateCorruptSnapshot, .stateRewritten])
        #expect(loaded.losses.count == 1)
        #expect(loaded.losses.first?.records == 1)
        #expect(loaded.losses.first?.ranges.count == 1)
        #expect(loaded.recovered.first?.message.contains("999 of its 1000 records were kept and 1 were lost") == true)
    }

    /// With both snapshots unreadable the store loads with none, not with garbage.
    @Test func loadsNoSnapshotWhenBothAreDamaged() throws {
        let store = try storeWithTwoSnapshots()
        for path in [store.snapshotPath, store.previousSnapshotPath] {
            try overwrite(path, with: Damage.flippedPayloadByte.apply(to: contents(path)))
        }
        let loaded = try self.store().load()
        #expect(loaded.snapshot == nil)
        #expect(loaded.entries == [record(9)])
        #expect(codes(loaded.recovered) == [.stateCorruptSnapshot, .stateCorruptSnapshot, .stateSnapshotLost, .stateJournalGap])
        #expect(loaded.recovered.prefix(3).allSatisfy { $0.severity == .error })
    }

    /// Files that disappeared are reported, not silently taken for a new store.
    @Test func reportsAMissingSnapshotAndJournal() throws {
        let store = try storeWithTwoSnapshots()
        unlink(store.snapshotPath)
        let reopened = self.store()
        let loaded = try reopened.load()
        #expect(loaded.snapshot == [Array("first".utf8)])
        #expect(codes(loaded.recovered) == [.stateMissingSnapshot, .statePreviousSnapshot, .stateJournalGap])

        try reopened.compact(into: [Array("again".utf8)])
        unlink(reopened.journalPath)
        let reloaded = try self.store().load()
        #expect(codes(reloaded.recovered) == [.stateMissingJournal])
    }

    // MARK: Generations

    /// A crash after the new snapshot is renamed into place and before the
    /// segments it holds are removed leaves a segment older than the
    /// snapshot: its records must not be replayed.
    @Test func doesNotReplayASegmentTheSnapshotHolds() throws {
        let store = try storeHolding([record(0), record(1)])
        let sealed = store.journalPath
        let generation = try store.startSegment()
        try overwrite(store.snapshotPath, with: RecordFraming.snapshot(generation: generation, records: [Array("0 and 1".utf8)]))

        let loaded = try self.store().load()
        #expect(loaded.snapshot == [Array("0 and 1".utf8)])
        #expect(loaded.entries.isEmpty)
        #expect(codes(loaded.recovered) == [.stateStaleJournal])
        #expect(loaded.recovered[0].severity == .note)
        #expect(FileSystem.status(of: sealed) == nil)

        let again = self.store()
        _ = try again.load()
        try again.append(record(2))
        #expect(try self.store().load() == RecordStore.Loaded(snapshot: [Array("0 and 1".utf8)], entries: [record(2)], recovered: []))
    }

    /// A crash before the rename leaves the old snapshot and every segment,
    /// whole, and a temporary file that is never read.
    @Test func replaysEverySegmentWhenTheSnapshotWasNotRenamed() throws {
        let store = try storeHolding([record(0), record(1)])
        let generation = try store.startSegment()
        try store.append(record(2))
        try overwrite(store.snapshotPath + ".tmp", with: RecordFraming.snapshot(generation: generation, records: [Array("half".utf8)]))
        #expect(try self.store().load() == RecordStore.Loaded(snapshot: nil, entries: [record(0), record(1), record(2)], recovered: []))
        try store.writeSnapshot(generation: generation, records: [Array("whole".utf8)])
        #expect(try self.store().load() == RecordStore.Loaded(snapshot: [Array("whole".utf8)], entries: [record(2)], recovered: []))
    }

    /// A segment created just before a crash, its header never written, holds nothing and is removed.
    @Test func removesASegmentCutBeforeItsHeader() throws {
        let store = try storeHolding([record(0)])
        try overwrite(store.journalPath(generation: 1), with: Array(RecordFraming.header(.journal, generation: 1).prefix(7)))
        let loaded = try self.store().load()
        #expect(loaded.entries == [record(0)])
        #expect(codes(loaded.recovered) == [.stateTornJournal])
        #expect(FileSystem.status(of: store.journalPath(generation: 1)) == nil)
    }

    /// A directory where a segment should be is an error, not an empty store.
    @Test func refusesADirectoryWhereASegmentShouldBe() throws {
        _ = try storeHolding([record(0)])
        #expect(mkdir(scratch.file("state.journal.1"), 0o700) == 0)
        let error = try #require(throws: Diagnostic.self) { try store().load() }
        #expect(error.message.contains("state.journal.1"))
    }

    // MARK: Threads and permissions

    /// Appends from several threads at once each land whole, in each thread's order.
    @Test func keepsEveryRecordAppendedFromManyThreads() throws {
        let store = try storeHolding([])
        let threads = 4, perThread = 400
        onThreads(threads + 1) { thread in
            if thread == threads {
                // Flushes meanwhile do not get in the way.
                for _ in 0..<5 { try? store.synchronize() }
                return
            }
            for index in 0..<perThread {
                try? store.append(Array("\(thread) \(index) ".utf8) + record(index))
            }
        }
        let entries = try self.store().load().entries
        #expect(entries.count == threads * perThread)
        var next = [Int](repeating: 0, count: threads)
        for entry in entries {
            let fields = String(decoding: entry.prefix(20), as: UTF8.self).split(separator: " ")
            let (thread, index) = (Int(fields[0])!, Int(fields[1])!)
            #expect(index == next[thread], "thread \(thread) out of order")
            #expect(Array(entry.dropFirst("\(thread) \(index) ".utf8.count)) == record(index))
            next[thread] = index + 1
        }
        #expect(next == [Int](repeating: perThread, count: threads))
    }

    /// Segments made ahead on one thread while another seals without
    /// waiting for them: no record is lost and no generation is skipped
    /// (a segment made ahead once truncated, then removed, the one a seal
    /// had made meanwhile at the same name).
    @Test func sealingRacingSegmentsMadeAheadLosesNothing() throws {
        let store = try storeHolding([])
        let seals = 300
        onThreads(2) { thread in
            if thread == 0 {
                for _ in 0..<(seals * 4) { try? store.prepareSegment() }
                return
            }
            for index in 0..<seals {
                try? store.append(record(index))
                _ = try? store.startSegment()
            }
        }
        let loaded = try self.store().load()
        #expect(loaded.recovered.isEmpty)
        #expect(loaded.entries == (0..<seals).map(record))
        #expect(try FileSystem.contentsOfDirectory(scratch.path).allSatisfy { !$0.hasSuffix(".prepared") })
    }

    /// The directory is created 0700 and every file 0600.
    @Test func createsAPrivateDirectoryAndPrivateFiles() throws {
        let directory = scratch.file("server/state")
        let store = RecordStore(directory: directory, name: "deliveries")
        _ = try store.load()
        try store.append(record(0))
        try store.compact(into: [[1]])
        try store.compact(into: [[2]])
        #expect(permissions(scratch.file("server")) == 0o700)
        #expect(permissions(directory) == 0o700)
        for path in [store.journalPath, store.snapshotPath, store.previousSnapshotPath] {
            #expect(permissions(path) == 0o600, "\(path)")
        }
        #expect(try FileSystem.contentsOfDirectory(directory) == ["deliveries.journal.2", "deliveries.snapshot", "deliveries.snapshot.previous"])
    }
}

/// A writer in another process: this test binary run again, with
/// `childVariable` saying which test's writer to be and where it writes.
@Suite("Record store: crashes and full disks")
struct RecordStoreProcessTests {
    /// Set in the child to "MODE:DIRECTORY".
    static let childVariable = "TIDINGS_RECORD_STORE_CHILD"

    /// The directory to write in when this process is the child for `mode`.
    static func childDirectory(_ mode: String) -> String? {
        guard let value = getenv(childVariable).map({ String(cString: $0) }), value.hasPrefix(mode + ":") else { return nil }
        return String(value.dropFirst(mode.count + 1))
    }

    /// True in a child process: a test that is not the one it was started
    /// for then does nothing, so that a child never starts children.
    static var isChild: Bool { getenv(childVariable) != nil }

    /// Starts this test binary again running only `test`, as the child for `mode`.
    static func launch(_ test: String, mode: String, directory: String, log: String) throws -> ChildProcess {
        try ChildProcess(currentExecutable(), ["--testing-library", "swift-testing", "--filter", test],
                         environment: ["\(childVariable)=\(mode):\(directory)"], errorLog: log)
    }

    /// The numbers on the whole lines of `output`: a line being written when
    /// the child died is not an acknowledgement. nil for a line that is not a number.
    static func acknowledgements(_ output: [UInt8]) -> [Int?] {
        output.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast()
            .map { Int(String(decoding: $0, as: UTF8.self)) }
    }

    /// The child appends records 0, 1, 2, … as fast as it can, compacting
    /// every 250 into a snapshot that says how many records it holds, and
    /// prints each record's number once `append` returned. It is killed
    /// 100 ms or more into the burst, once it has acknowledged over 300
    /// records, often during a compaction. Every number it
    /// printed must load, in order, with nothing after them but whole records.
    @Test func keepsEveryAcknowledgedRecordAfterKillNine() throws {
        if let directory = Self.childDirectory("kill") { Self.appendUntilKilled(in: directory) }
        guard !Self.isChild else { return }

        let scratch = ScratchDirectory()
        let directory = scratch.file("store")
        let child = try Self.launch("keepsEveryAcknowledgedRecordAfterKillNine", mode: "kill", directory: directory,
                                    log: scratch.file("writer.log"))
        var output: [UInt8] = []
        let deadline = MonotonicClock.deadline(after: patience)
        // Killed once it acknowledged a few hundred records (however busy the
        // machine is), and at least 100 ms into the burst.
        var burstStarted: UInt64?
        while MonotonicClock.now() < deadline, let more = child.read(until: deadline) {
            if burstStarted == nil && !more.isEmpty { burstStarted = MonotonicClock.now() }
            output += more
            if let burstStarted, MonotonicClock.now() - burstStarted > 100_000_000,
               output.lazy.filter({ $0 == UInt8(ascii: "\n") }).count > 300 { break }
        }
        let status = child.kill(collectingInto: &output)
        let log = (try? contents(scratch.file("writer.log"))).map { String(decoding: $0, as: UTF8.self) } ?? ""
        #expect(status & 0x7F == SIGKILL, "the writer ended by itself: \(log)")

        let acknowledged = Self.acknowledgements(output)
        #expect(acknowledged == Array(0..<acknowledged.count), "\(log)")
        #expect(acknowledged.count > 100, "too few records in the burst to tell anything")

        let loaded = try RecordStore(directory: directory, name: "deliveries").load()
        let base = try loaded.snapshot.map { try #require(Int(String(decoding: $0.first ?? [], as: UTF8.self))) } ?? 0
        #expect(base + loaded.entries.count >= acknowledged.count)
        for (offset, entry) in loaded.entries.enumerated() where entry != record(base + offset) {
            Issue.record("entry \(offset) after the snapshot of \(base) is not record \(base + offset)")
            break
        }
        // A torn last record, a segment cut before its header or one older
        // than the snapshot are what a kill may leave; damage is not.
        #expect(loaded.recovered.allSatisfy { [.stateTornJournal, .stateStaleJournal].contains($0.code) },
                "\(loaded.recovered)")
    }

    /// The child's side of the kill: appends until killed (or 20 s pass).
    static func appendUntilKilled(in directory: String) -> Never {
        let store = RecordStore(directory: directory, name: "deliveries")
        do {
            _ = try store.load()
            let deadline = MonotonicClock.deadline(after: patience)
            var number = 0
            while MonotonicClock.now() < deadline {
                try store.append(record(number))
                try writeLine("\(number)")
                number += 1
                if number % 250 == 0 { try store.compact(into: [Array("\(number)".utf8)]) }
            }
        } catch {
            fail("writer: \(error)")
        }
        _exit(0)
    }

    /// The child's files may grow to 64 KiB only (`RLIMIT_FSIZE`), so its
    /// appends run out of room part way through a record, as on a full disk.
    /// A refused record leaves no trace, the journal still ends with a whole
    /// record, smaller records still fit, and every acknowledged one loads.
    @Test func refusesWhatDoesNotFitAndKeepsTheRest() throws {
        if let directory = Self.childDirectory("full") { Self.appendUntilFull(in: directory) }
        guard !Self.isChild else { return }

        let scratch = ScratchDirectory()
        let directory = scratch.file("store")
        let child = try Self.launch("refusesWhatDoesNotFitAndKeepsTheRest", mode: "full", directory: directory,
                                    log: scratch.file("writer.log"))
        var output: [UInt8] = []
        let deadline = MonotonicClock.deadline(after: patience)
        while MonotonicClock.now() < deadline, let more = child.read(until: deadline) { output += more }
        let status = child.kill(collectingInto: &output)
        let log = (try? contents(scratch.file("writer.log"))).map { String(decoding: $0, as: UTF8.self) } ?? ""
        #expect(status == 0, "\(log)")

        let lines = output.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
        let acknowledged = lines.compactMap { Int($0) }
        let refusals = lines.filter { $0.hasPrefix("refused") }
        #expect(refusals.count == 20, "\(lines.suffix(5)) \(log)")
        #expect(refusals.allSatisfy { $0.contains("file too large") }, "\(refusals)")
        #expect(acknowledged.count > 40)

        let loaded = try RecordStore(directory: directory, name: "deliveries").load()
        #expect(loaded == RecordStore.Loaded(snapshot: nil, entries: acknowledged.map(record), recovered: []))
    }

    /// The child's side of the full disk: appends records 0, 1, 2, … and
    /// prints each number once its record is in, or "refused N: why", until
    /// 20 records were refused.
    static func appendUntilFull(in directory: String) -> Never {
        signal(SIGXFSZ, SIG_IGN)
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit)
        limit.rlim_cur = 65_536
        setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit)
        let store = RecordStore(directory: directory, name: "deliveries")
        do {
            _ = try store.load()
            var refused = 0
            for number in 0... {
                if refused == 20 { break }
                do throws(Diagnostic) {
                    try store.append(record(number))
                } catch {
                    refused += 1
                    try writeLine("refused \(number): \(error.message)")
                    continue
                }
                try writeLine("\(number)")
            }
        } catch {
            fail("writer: \(error)")
        }
        _exit(0)
    }
}

/// Writes `message` to the standard error and exits with status 2.
private func fail(_ message: String) -> Never {
    let line = Array((message + "\n").utf8)
    _ = Glibc.write(2, line, line.count)
    _exit(2)
}

/// Writes `text` and a newline to the standard output with one `write`
/// call, unbuffered, so that what is printed is what was acknowledged.
private func writeLine(_ text: String) throws(SystemError) {
    let line = Array((text + "\n").utf8)
    var written = 0
    while written < line.count {
        let count = line.withUnsafeBytes { Glibc.write(1, $0.baseAddress! + written, $0.count - written) }
        if count < 0 && errno != EINTR { throw SystemError.current() }
        written += max(count, 0)
    }
}
