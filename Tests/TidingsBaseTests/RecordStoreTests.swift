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

    /// A compaction folds the journal into the snapshot; the snapshot before it is kept as `.previous`.
    @Test func compactionKeepsOnlyLaterEntriesAndThePreviousSnapshot() throws {
        let store = try storeHolding([record(0), record(1)])
        try store.compact(into: Array("first".utf8))
        #expect(store.journalSize == RecordFraming.headerSize)
        try store.append(record(2))
        #expect(try self.store().load() == RecordStore.Loaded(snapshot: Array("first".utf8), entries: [record(2)], recovered: []))
        #expect(FileSystem.status(of: store.previousSnapshotPath) == nil)

        try store.compact(into: Array("second".utf8))
        try store.append(record(3))
        #expect(try self.store().load() == RecordStore.Loaded(snapshot: Array("second".utf8), entries: [record(3)], recovered: []))
        let previous = try RecordFraming.decodeSnapshot(contents(store.previousSnapshotPath)).get()
        #expect(previous.generation == 1)
        #expect(previous.payload == Array("first".utf8))
        #expect(try RecordFraming.decodeSnapshot(contents(store.snapshotPath)).get().generation == 2)
        #expect(try RecordFraming.generation(inHeaderOf: contents(store.journalPath), .journal).get() == 2)
        // An empty snapshot is a snapshot, not the absence of one.
        try store.compact(into: [])
        #expect(try self.store().load() == RecordStore.Loaded(snapshot: [], entries: [], recovered: []))
    }

    /// Appending, flushing or compacting before `load()` throws and writes nothing.
    @Test func refusesUseBeforeLoad() throws {
        let store = store()
        #expect(store.journalSize == 0)
        for action in [{ try store.append([1]) }, { try store.synchronize() }, { try store.compact(into: []) }] {
            let error = try #require(throws: Diagnostic.self) { try action() }
            #expect(error.code == .stateNotLoaded)
        }
        #expect(FileSystem.status(of: scratch.path + "/state.journal") == nil)
    }

    // MARK: Torn and damaged journals

    /// A crash can cut the last write anywhere: every cut inside the last
    /// record loses that record alone, is reported, and leaves a journal
    /// that takes new records cleanly.
    @Test func cutsATornLastRecordAtEveryOffset() throws {
        let records = [record(0), record(1), Array("the last one".utf8)]
        let whole = try contents(storeHolding(records).journalPath)
        let lastStart = whole.count - RecordFraming.frameHeaderSize - records[2].count
        let path = scratch.file("state.journal")

        // A cut exactly between records is a clean end, not a tear.
        try overwrite(path, with: Array(whole[..<lastStart]))
        #expect(try store().load() == RecordStore.Loaded(snapshot: nil, entries: Array(records[..<2]), recovered: []))

        for cut in lastStart + 1..<whole.count {
            try overwrite(path, with: Array(whole[..<cut]))
            let store = store()
            let loaded = try store.load()
            #expect(loaded.entries == Array(records[..<2]), "cut at \(cut)")
            #expect(codes(loaded.recovered) == [.stateTornJournal], "cut at \(cut)")
            #expect(loaded.recovered.first?.message.contains("the \(cut - lastStart) bytes cut off") == true)
            #expect(try contents(path).count == lastStart)
            #expect(try contents(path + ".corrupt") == Array(whole[lastStart..<cut]))
            #expect(store.journalSize == lastStart)

            try store.append(Array("after".utf8))
            #expect(try self.store().load() == RecordStore.Loaded(
                snapshot: nil, entries: Array(records[..<2]) + [Array("after".utf8)], recovered: []))
        }
    }

    /// A journal is trusted only up to its first bad record: past a wrong
    /// checksum, where the next record starts is a guess (the damage may be
    /// in a length), and a wrong guess would turn payload bytes into records.
    /// So the damaged record and every later one are dropped, reported, and
    /// kept in `state.journal.corrupt`.
    @Test func dropsADamagedRecordAndEverythingAfterIt() throws {
        let records = [record(0), record(1), record(2), record(3)]
        let path = try storeHolding(records).journalPath
        var bytes = try contents(path)
        let damagedStart = RecordFraming.headerSize + RecordFraming.frameHeaderSize + records[0].count
        bytes[damagedStart + RecordFraming.frameHeaderSize + 3] ^= 0x01
        try overwrite(path, with: bytes)

        let store = store()
        let loaded = try store.load()
        #expect(loaded.entries == [record(0)])
        #expect(codes(loaded.recovered) == [.stateCorruptJournal])
        #expect(loaded.recovered[0].severity == .error)
        #expect(loaded.recovered[0].message.contains("Record 2 of"))
        #expect(try contents(path + ".corrupt") == Array(bytes[damagedStart...]))

        try store.append(record(4))
        #expect(try self.store().load() == RecordStore.Loaded(snapshot: nil, entries: [record(0), record(4)], recovered: []))
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

    /// A journal whose header is damaged is not read: which snapshot it follows is unknown.
    @Test func setsAsideAJournalWithADamagedHeader() throws {
        let path = try storeHolding([record(0), record(1)]).journalPath
        var bytes = try contents(path)
        bytes[9] ^= 0x40  // in the generation: the header checksum catches it
        try overwrite(path, with: bytes)

        let store = store()
        let loaded = try store.load()
        #expect(loaded.entries.isEmpty)
        #expect(codes(loaded.recovered) == [.stateCorruptJournal])
        #expect(try contents(path + ".corrupt") == bytes)
        try store.append(record(2))
        #expect(try self.store().load() == RecordStore.Loaded(snapshot: nil, entries: [record(2)], recovered: []))
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

    // MARK: Damaged snapshots

    /// A store whose previous snapshot is "first" (generation 1), whose
    /// snapshot is "second" (generation 2), and whose journal holds record 9.
    func storeWithTwoSnapshots() throws -> RecordStore {
        let store = try storeHolding([record(0)])
        try store.compact(into: Array("first".utf8))
        try store.append(record(1))
        try store.compact(into: Array("second".utf8))
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
    }

    /// A damaged snapshot is never returned: the previous one is, and the damage is reported.
    @Test(arguments: Damage.allCases)
    func fallsBackToThePreviousSnapshot(damage: Damage) throws {
        let path = try storeWithTwoSnapshots().snapshotPath
        let damaged = try damage.apply(to: contents(path))
        try overwrite(path, with: damaged)

        let store = store()
        let loaded = try store.load()
        #expect(loaded.snapshot == Array("first".utf8))
        // Record 1 went into the lost snapshot; record 9 followed it.
        #expect(loaded.entries == [record(9)])
        #expect(codes(loaded.recovered) == [.stateCorruptSnapshot, .statePreviousSnapshot, .stateJournalGap])
        #expect(FileSystem.status(of: path) == nil)
        #expect(try contents(path + ".corrupt") == damaged)

        // Until the next compaction every load says the same.
        #expect(try self.store().load().snapshot == Array("first".utf8))
        // A compaction heals the store and keeps the good previous snapshot.
        try store.compact(into: Array("third".utf8))
        #expect(try self.store().load() == RecordStore.Loaded(snapshot: Array("third".utf8), entries: [], recovered: []))
        #expect(try RecordFraming.decodeSnapshot(contents(store.previousSnapshotPath)).get().payload == Array("first".utf8))
    }

    /// With both snapshots damaged the store loads with none, not with garbage.
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
        #expect(loaded.snapshot == Array("first".utf8))
        #expect(codes(loaded.recovered) == [.stateMissingSnapshot, .statePreviousSnapshot, .stateJournalGap])

        try reopened.compact(into: Array("again".utf8))
        unlink(store.journalPath)
        let reloaded = try self.store().load()
        #expect(codes(reloaded.recovered) == [.stateMissingJournal])
    }

    // MARK: Generations

    /// A crash after the new snapshot is renamed into place and before the
    /// new journal replaces the old one leaves an old journal whose records
    /// are in the snapshot: they must not be replayed.
    @Test func doesNotReplayAJournalTheSnapshotHolds() throws {
        let store = try storeHolding([record(0), record(1)])
        try overwrite(store.snapshotPath, with: RecordFraming.snapshot(generation: 1, payload: Array("0 and 1".utf8)))

        let loaded = try self.store().load()
        #expect(loaded.snapshot == Array("0 and 1".utf8))
        #expect(loaded.entries.isEmpty)
        #expect(codes(loaded.recovered) == [.stateStaleJournal])
        #expect(loaded.recovered[0].severity == .note)
        #expect(try contents(store.journalPath) == RecordFraming.header(.journal, generation: 1))

        let again = self.store()
        _ = try again.load()
        try again.append(record(2))
        #expect(try self.store().load() == RecordStore.Loaded(snapshot: Array("0 and 1".utf8), entries: [record(2)], recovered: []))
    }

    /// A crash before the rename leaves the old snapshot and journal, whole,
    /// and a temporary file that is never read.
    @Test func replaysTheJournalWhenTheSnapshotWasNotRenamed() throws {
        let store = try storeHolding([record(0), record(1)])
        try overwrite(store.snapshotPath + ".tmp", with: RecordFraming.snapshot(generation: 1, payload: Array("half".utf8)))
        #expect(try self.store().load() == RecordStore.Loaded(snapshot: nil, entries: [record(0), record(1)], recovered: []))
        try store.compact(into: Array("whole".utf8))
        #expect(try self.store().load() == RecordStore.Loaded(snapshot: Array("whole".utf8), entries: [], recovered: []))
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

    /// The directory is created 0700 and every file 0600.
    @Test func createsAPrivateDirectoryAndPrivateFiles() throws {
        let directory = scratch.file("server/state")
        let store = RecordStore(directory: directory, name: "deliveries")
        _ = try store.load()
        try store.append(record(0))
        try store.compact(into: [1])
        try store.compact(into: [2])
        #expect(permissions(scratch.file("server")) == 0o700)
        #expect(permissions(directory) == 0o700)
        for path in [store.journalPath, store.snapshotPath, store.previousSnapshotPath] {
            #expect(permissions(path) == 0o600, "\(path)")
        }
        #expect(try FileSystem.contentsOfDirectory(directory) == ["deliveries.journal", "deliveries.snapshot", "deliveries.snapshot.previous"])
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
        let deadline = MonotonicClock.deadline(after: 20)
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
        let base = try loaded.snapshot.map { try #require(Int(String(decoding: $0, as: UTF8.self))) } ?? 0
        #expect(base + loaded.entries.count >= acknowledged.count)
        for (offset, entry) in loaded.entries.enumerated() where entry != record(base + offset) {
            Issue.record("entry \(offset) after the snapshot of \(base) is not record \(base + offset)")
            break
        }
        // A torn last record or a journal older than the snapshot are what a
        // kill may leave; damage is not.
        #expect(loaded.recovered.allSatisfy { [.stateTornJournal, .stateStaleJournal].contains($0.code) },
                "\(loaded.recovered)")
    }

    /// The child's side of the kill: appends until killed (or 20 s pass).
    static func appendUntilKilled(in directory: String) -> Never {
        let store = RecordStore(directory: directory, name: "deliveries")
        do {
            _ = try store.load()
            let deadline = MonotonicClock.deadline(after: 20)
            var number = 0
            while MonotonicClock.now() < deadline {
                try store.append(record(number))
                try writeLine("\(number)")
                number += 1
                if number % 250 == 0 { try store.compact(into: Array("\(number)".utf8)) }
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
        let deadline = MonotonicClock.deadline(after: 20)
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
