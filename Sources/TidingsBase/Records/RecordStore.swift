import Glibc
import Synchronization

/// A crash-safe store of records on disk: a snapshot of a whole state and a
/// journal of the records appended since, for state that must outlive the
/// process, `kill -9` included.
///
/// The store named `NAME` in `directory` is these files (format in
/// `RecordFraming`):
///
/// - `NAME.snapshot`: the state as of a compaction, replaced atomically
///   (written beside, flushed, renamed over, directory flushed).
/// - `NAME.snapshot.previous`: the snapshot before that one, the fallback
///   when `NAME.snapshot` is damaged.
/// - `NAME.journal`: the records appended since the snapshot, each written
///   with one `write` call.
/// - `*.corrupt`: what recovery set aside (a damaged file, or the bytes cut
///   off a journal's end), kept for inspection and never read back.
/// - `*.tmp`: a replacement being written; overwritten by the next one.
///
/// Durability. A record `append` returned for is in the kernel's page cache,
/// so it survives the process being killed (`kill -9`, a crash), though not
/// the machine losing power; `synchronize()` and `compact(into:)` flush to
/// disk, for that. A write a crash cuts short leaves a torn last record,
/// which `load()` detects by its length or checksum and cuts off.
///
/// Generations. Each compaction starts a new generation, written in the
/// snapshot's header and the new journal's header: the journal of
/// generation G holds the records that follow the snapshot of generation G.
/// A crash between renaming a new snapshot into place and starting its
/// journal leaves a journal older than the snapshot, whose records are
/// already in the snapshot; `load()` drops it instead of replaying it twice.
///
/// Threads may share a store: `append`, `synchronize` and `compact` are
/// serialized by a lock. One store object must own the files: two stores on
/// the same directory and name, in one process or two, are not coordinated.
package final class RecordStore: Sendable {
    /// What `load()` read: the snapshot, the records appended after it, and
    /// what was repaired on the way.
    package struct Loaded: Sendable, Equatable {
        /// The payload of the last compaction, nil when there is none.
        package var snapshot: [UInt8]?
        /// The payloads appended after that snapshot, in the order they were appended.
        package var entries: [[UInt8]]
        /// Each repair or fallback `load()` made, empty when the files were
        /// whole: torn or damaged records cut off, a damaged snapshot set
        /// aside, a stale journal dropped.
        package var recovered: [Diagnostic]

        /// A result with these parts.
        package init(snapshot: [UInt8]?, entries: [[UInt8]], recovered: [Diagnostic]) {
            self.snapshot = snapshot
            self.entries = entries
            self.recovered = recovered
        }
    }

    /// The directory holding the files, created by `load()` when missing.
    package let directory: String
    /// The name the files begin with.
    package let name: String
    /// `directory/NAME.snapshot`.
    package let snapshotPath: String
    /// `directory/NAME.snapshot.previous`.
    package let previousSnapshotPath: String
    /// `directory/NAME.journal`.
    package let journalPath: String

    /// The open journal, nil until `load()` succeeds.
    private let journal = Mutex<OpenJournal?>(nil)

    /// A store for the files named `name` in `directory`. Nothing is touched
    /// until `load()`. `name` is a file name: not empty, without a slash.
    package init(directory: String, name: String) {
        precondition(!name.isEmpty && !name.contains("/"), "a record store's name is a file name")
        self.directory = directory
        self.name = name
        snapshotPath = Path.join(directory, "\(name).snapshot")
        previousSnapshotPath = snapshotPath + ".previous"
        journalPath = Path.join(directory, "\(name).journal")
    }

    /// Reads the store, repairing what a crash left, and opens the journal
    /// for `append`. Creates the directory (mode 0700) and the journal (mode
    /// 0600) when missing. Calling it again reads the files afresh. The
    /// directory and every file are opened as what they must be (see
    /// `FileDescriptor(openingPrivateDirectory:)` and
    /// `FileDescriptor(openingOwn:as:)`): a link, a FIFO, a directory in a
    /// file's place, or another user's file is an error, never followed or
    /// waited on.
    ///
    /// Recovery, each step reported in `Loaded.recovered`:
    /// - a damaged snapshot (short, wrong magic, bad checksum) is moved to
    ///   `NAME.snapshot.corrupt` and `NAME.snapshot.previous` is loaded in its
    ///   place; when that is damaged or missing too, the store loads with no
    ///   snapshot. A damaged snapshot's bytes are never returned.
    /// - a journal older than the snapshot is dropped and a new one started:
    ///   its records are in the snapshot already.
    /// - a journal ending in a torn record, or holding a damaged one, is cut
    ///   just before it; the bytes cut off go to `NAME.journal.corrupt`.
    /// - a journal without a valid header is moved to `NAME.journal.corrupt`
    ///   and a new one started.
    ///
    /// Throws when a file is from a newer format version (nothing is changed
    /// then), or when a file cannot be read or repaired.
    package func load() throws(Diagnostic) -> Loaded {
        try journal.withLock { (journal: inout OpenJournal?) throws(Diagnostic) -> Loaded in
            journal = nil
            _ = try FileDescriptor(openingPrivateDirectory: directory)
            var recovered: [Diagnostic] = []
            let base = try loadSnapshot(&recovered)
            var entries: [[UInt8]] = []
            journal = try openJournal(after: base, entries: &entries, &recovered)
            return Loaded(snapshot: base.payload, entries: entries, recovered: recovered)
        }
    }

    /// Appends `payload` as one record to the journal, with one `write` call
    /// (more only when the kernel writes less than asked). Once this returns
    /// the record survives the process being killed.
    ///
    /// When the write fails part way (the disk is full), the part written is
    /// cut off again, so the journal still ends with a whole record. When even
    /// that fails, or after `synchronize()` failed, every later `append` and
    /// `synchronize` throws until `load()` or `compact(into:)` succeeds.
    package func append(_ payload: [UInt8]) throws(Diagnostic) {
        guard payload.count <= RecordFraming.maximumPayloadSize else {
            throw .error(.stateRecordTooLarge,
                         "A record of \(payload.count) bytes is larger than the \(RecordFraming.maximumPayloadSize) a journal holds.",
                         at: .init(file: journalPath))
        }
        let frame = RecordFraming.frame(payload)
        try journal.withLock { (journal: inout OpenJournal?) throws(Diagnostic) in
            guard journal != nil else { throw notLoaded }
            try journal!.append(frame, path: journalPath)
        }
    }

    /// Flushes the journal to disk: every record appended before this call
    /// then survives the machine losing power. Appends from other threads go
    /// on while the disk works.
    ///
    /// A failed flush may have lost records the kernel had (Linux reports
    /// the loss once, then forgets it), so after one `append` and
    /// `synchronize` throw until `load()` or `compact(into:)` succeeds.
    package func synchronize() throws(Diagnostic) {
        let (descriptor, generation) = try journal.withLock {
            (journal: inout OpenJournal?) throws(Diagnostic) -> (Int32, UInt64) in
            guard journal != nil else { throw notLoaded }
            if let failure = journal!.failure { throw failure }
            // A second descriptor of the same open file, so that the flush
            // needs no lock and a compaction meanwhile cannot close it.
            let duplicate = journal!.duplicateDescriptor()
            guard duplicate >= 0 else { throw DurableFile.failure(.current(), "cannot duplicate the descriptor of", journalPath) }
            return (duplicate, journal!.generation)
        }
        do throws(SystemError) {
            try FileDescriptor(adopting: descriptor).synchronize()
        } catch {
            let failure = DurableFile.failure(error, "cannot flush", journalPath)
            journal.withLock { journal in
                if journal?.generation == generation { journal!.failure = failure }
            }
            throw failure
        }
    }

    /// Makes `snapshot` the store's state and starts an empty journal: the
    /// current snapshot becomes `NAME.snapshot.previous`, `snapshot` is
    /// written to `NAME.snapshot` atomically and flushed, then a new journal
    /// of the next generation replaces the old one.
    ///
    /// `snapshot` must hold every record appended so far: a record another
    /// thread appends between the caller building `snapshot` and this call
    /// is lost. Callers serialize their appends with their compactions.
    ///
    /// After a crash at any point `load()` returns either the old snapshot
    /// and journal or the new snapshot alone. When this throws before the
    /// new snapshot is in place nothing changed; when it throws after,
    /// `append` throws until `load()` or another `compact` succeeds.
    package func compact(into snapshot: [UInt8]) throws(Diagnostic) {
        guard snapshot.count <= RecordFraming.maximumPayloadSize else {
            throw .error(.stateRecordTooLarge,
                         "A snapshot of \(snapshot.count) bytes is larger than the \(RecordFraming.maximumPayloadSize) a store holds.",
                         at: .init(file: snapshotPath))
        }
        try journal.withLock { (journal: inout OpenJournal?) throws(Diagnostic) in
            guard journal != nil else { throw notLoaded }
            let generation = journal!.generation + 1
            if journal!.hasSnapshot { try DurableFile.link(snapshotPath, as: previousSnapshotPath) }
            let temporary = try DurableFile.prepare(snapshotPath,
                                                    with: RecordFraming.snapshot(generation: generation, payload: snapshot))
            do throws(Diagnostic) {
                try DurableFile.move(temporary, to: snapshotPath)
            } catch {
                unlink(temporary)
                throw error
            }
            // The new snapshot is in place: the open journal is now stale,
            // and nothing may be appended to it.
            journal!.generation = generation
            journal!.hasSnapshot = true
            do throws(Diagnostic) {
                // Flushed before the journal is replaced: a new, empty journal
                // must never reach the disk beside the old snapshot.
                try DurableFile.synchronizeDirectory(of: snapshotPath)
                journal = try startJournal(generation: generation, hasSnapshot: true)
            } catch {
                let failure = Diagnostic.error(
                    error.code,
                    "The snapshot of generation \(generation) is in place but no journal could be started after it (\(error.message)); load or compact the store again before appending.",
                    at: error.location)
                journal!.failure = failure
                throw failure
            }
        }
    }

    /// The journal's size in bytes, header included: what a compaction would
    /// reclaim. 0 before `load()`.
    package var journalSize: Int {
        journal.withLock { journal in journal?.size ?? 0 }
    }

    // MARK: Loading

    /// What a load builds on: the snapshot it found, if any.
    private struct Base {
        /// The snapshot's payload.
        var payload: [UInt8]?
        /// The snapshot's generation; nil when none was loaded.
        var generation: UInt64?
        /// True when the payload came from `NAME.snapshot` itself, which the
        /// next compaction then keeps as the previous snapshot.
        var isCurrent: Bool
    }

    /// What a snapshot file holds.
    private enum SnapshotFile {
        /// There is no file at the path.
        case missing
        /// The file is a whole snapshot.
        case valid(generation: UInt64, payload: [UInt8])
        /// The file is there but is not a whole snapshot.
        case damaged(RecordFraming.Problem)
    }

    /// The snapshot to load: `NAME.snapshot`, else `NAME.snapshot.previous`, else none.
    private func loadSnapshot(_ recovered: inout [Diagnostic]) throws(Diagnostic) -> Base {
        switch try readSnapshot(snapshotPath) {
        case .valid(let generation, let payload):
            return Base(payload: payload, generation: generation, isCurrent: true)
        case .damaged(let problem):
            try setAside(snapshotPath, problem, &recovered)
        case .missing:
            guard FileSystem.status(of: previousSnapshotPath) != nil else {
                return Base(payload: nil, generation: nil, isCurrent: false)
            }
            recovered.append(.warning(.stateMissingSnapshot,
                                      "\(snapshotPath) is missing, though a previous snapshot is there.",
                                      at: .init(file: snapshotPath)))
        }
        switch try readSnapshot(previousSnapshotPath) {
        case .valid(let generation, let payload):
            recovered.append(.warning(.statePreviousSnapshot,
                                      "Loaded the previous snapshot, of generation \(generation), in place of \(snapshotPath).",
                                      at: .init(file: previousSnapshotPath)))
            return Base(payload: payload, generation: generation, isCurrent: false)
        case .damaged(let problem):
            try setAside(previousSnapshotPath, problem, &recovered)
        case .missing:
            break
        }
        recovered.append(.error(.stateSnapshotLost,
                                "No snapshot could be loaded: the store holds only what its journal holds.",
                                at: .init(file: snapshotPath)))
        return Base(payload: nil, generation: nil, isCurrent: false)
    }

    /// The snapshot file at `path`, checked whole.
    private func readSnapshot(_ path: String) throws(Diagnostic) -> SnapshotFile {
        let bytes: [UInt8]
        do throws(Diagnostic) {
            bytes = try FileSystem.readFile(
                path, limit: RecordFraming.headerSize + RecordFraming.frameHeaderSize + RecordFraming.maximumPayloadSize,
                own: true)
        } catch where error.code == .fileNotFound {
            return .missing
        }
        switch RecordFraming.decodeSnapshot(bytes) {
        case .success(let snapshot):
            return .valid(generation: snapshot.generation, payload: snapshot.payload)
        case .failure(.unsupportedVersion(let version)):
            throw unsupported(path, version)
        case .failure(let problem):
            return .damaged(problem)
        }
    }

    /// Moves the damaged snapshot at `path` to `path.corrupt`, so that it is
    /// neither loaded nor kept as the previous snapshot by the next compaction.
    private func setAside(_ path: String, _ problem: RecordFraming.Problem, _ recovered: inout [Diagnostic]) throws(Diagnostic) {
        try DurableFile.move(path, to: path + ".corrupt")
        recovered.append(.error(.stateCorruptSnapshot,
                                "\(path) is damaged (\(problem)); it was moved to \(Path.lastComponent(of: path)).corrupt and not loaded.",
                                at: .init(file: path)))
    }

    /// Opens the journal that follows `base`, repairing it, and sets `entries`
    /// to its records.
    private func openJournal(after base: Base, entries: inout [[UInt8]],
                             _ recovered: inout [Diagnostic]) throws(Diagnostic) -> OpenJournal {
        let baseGeneration = base.generation ?? 0
        let descriptor: FileDescriptor
        do throws(Diagnostic) {
            descriptor = try FileDescriptor(openingOwn: journalPath, as: .regularFile, O_RDWR | O_APPEND)
        } catch where error.code == .fileNotFound {
            if let generation = base.generation {
                recovered.append(.warning(.stateMissingJournal,
                                          "\(journalPath) is missing: records appended after the snapshot of generation \(generation) are lost.",
                                          at: .init(file: journalPath)))
            }
            return try startJournal(generation: baseGeneration, hasSnapshot: base.isCurrent)
        }
        let bytes: [UInt8]
        do throws(SystemError) {
            bytes = try descriptor.read(at: 0, count: Int(descriptor.status().st_size))
        } catch {
            throw DurableFile.failure(error, "cannot read", journalPath)
        }

        let generation: UInt64
        switch RecordFraming.generation(inHeaderOf: bytes, .journal) {
        case .success(let value):
            generation = value
        case .failure(.unsupportedVersion(let version)):
            throw unsupported(journalPath, version)
        case .failure(let problem):
            try DurableFile.move(journalPath, to: journalPath + ".corrupt")
            recovered.append(.error(.stateCorruptJournal,
                                    "\(journalPath) has no valid header (\(problem)); it was moved to \(name).journal.corrupt unread and a new journal started.",
                                    at: .init(file: journalPath)))
            return try startJournal(generation: baseGeneration, hasSnapshot: base.isCurrent)
        }

        if generation < baseGeneration {
            let records = RecordFraming.scan(bytes, from: RecordFraming.headerSize).payloads.count
            recovered.append(.note(.stateStaleJournal,
                                   "\(journalPath) is of generation \(generation), older than the snapshot's \(baseGeneration): its \(records) records are in the snapshot already (a crash came between the two), so they were not replayed and a new journal was started.",
                                   at: .init(file: journalPath)))
            return try startJournal(generation: baseGeneration, hasSnapshot: base.isCurrent)
        }
        if generation > baseGeneration {
            let loaded = base.generation.map { "the snapshot loaded is of generation \($0)" } ?? "no snapshot was loaded"
            recovered.append(.warning(.stateJournalGap,
                                      "\(journalPath) follows the snapshot of generation \(generation), but \(loaded): what was recorded in between is lost. Its records are loaded all the same.",
                                      at: .init(file: journalPath)))
        }

        let scan = RecordFraming.scan(bytes, from: RecordFraming.headerSize)
        if let problem = scan.problem {
            let dropped = Array(bytes[scan.end...])
            // Kept for inspection when the disk has room; cut off either way,
            // so that a full disk cannot keep the store from loading.
            let kept: String
            do throws(Diagnostic) {
                try DurableFile.replace(journalPath + ".corrupt", with: dropped)
                kept = "are in \(name).journal.corrupt"
            } catch {
                kept = "could not be kept (\(error.message))"
            }
            do throws(SystemError) {
                try descriptor.truncate(to: scan.end)
                try descriptor.synchronize()
            } catch {
                throw DurableFile.failure(error, "cannot cut the damaged end off", journalPath)
            }
            let outcome = "\(scan.payloads.count) records before it were loaded; the \(dropped.count) bytes cut off \(kept)."
            recovered.append(problem.isTorn
                ? .warning(.stateTornJournal,
                           "\(journalPath) ends with a record cut short (\(problem)), as a crash during a write leaves it: it was cut off. \(outcome)",
                           at: .init(file: journalPath))
                : .error(.stateCorruptJournal,
                         "Record \(scan.payloads.count + 1) of \(journalPath) is damaged (\(problem)): it and everything after it were cut off, since a journal is trusted only up to its first bad record. \(outcome)",
                         at: .init(file: journalPath)))
        }
        entries = scan.payloads
        return OpenJournal(descriptor: descriptor, size: scan.end, generation: generation, hasSnapshot: base.isCurrent)
    }

    /// Replaces the journal with an empty one of `generation` and opens it.
    private func startJournal(generation: UInt64, hasSnapshot: Bool) throws(Diagnostic) -> OpenJournal {
        try DurableFile.replace(journalPath, with: RecordFraming.header(.journal, generation: generation))
        let descriptor = try FileDescriptor(openingOwn: journalPath, as: .regularFile, O_RDWR | O_APPEND)
        return OpenJournal(descriptor: descriptor, size: RecordFraming.headerSize, generation: generation,
                           hasSnapshot: hasSnapshot)
    }

    /// The error of a store used before `load()`.
    private var notLoaded: Diagnostic {
        .error(.stateNotLoaded, "The store \(name) in \(directory) is used before load().", at: .init(file: journalPath))
    }

    /// The error of a file from a newer format version.
    private func unsupported(_ path: String, _ version: UInt32) -> Diagnostic {
        .error(.stateUnsupportedFormat,
               "\(path) is of format version \(version); this build reads version \(RecordFraming.formatVersion) and left the file as it is.",
               at: .init(file: path))
    }
}

/// The journal a loaded store appends to, and what the store knows about it.
private struct OpenJournal: ~Copyable {
    /// Opened with `O_APPEND`, so that every write lands at the end.
    let descriptor: FileDescriptor
    /// The file's size: where the next record begins.
    var size: Int
    /// The generation of the journal, or of the snapshot written after it
    /// when a compaction failed half way.
    var generation: UInt64
    /// True when `NAME.snapshot` holds a valid snapshot, for the next
    /// compaction to keep as the previous one.
    var hasSnapshot: Bool
    /// Why the journal takes no more records, when it does not.
    var failure: Diagnostic?

    /// An open journal that takes records.
    init(descriptor: consuming FileDescriptor, size: Int, generation: UInt64, hasSnapshot: Bool) {
        self.descriptor = descriptor
        self.size = size
        self.generation = generation
        self.hasSnapshot = hasSnapshot
        failure = nil
    }

    /// A new descriptor of the same open file, or -1 with `errno` set.
    /// The corresponding C function is `fcntl(F_DUPFD_CLOEXEC)`.
    func duplicateDescriptor() -> Int32 {
        fcntl(descriptor.rawValue, F_DUPFD_CLOEXEC, 0)
    }

    /// Writes `frame` at the end; on failure cuts off what was written of it.
    mutating func append(_ frame: [UInt8], path: String) throws(Diagnostic) {
        if let failure { throw failure }
        do throws(SystemError) {
            try descriptor.write(frame)
        } catch {
            let diagnostic = DurableFile.failure(error, "cannot append a record to", path)
            do throws(SystemError) {
                try descriptor.truncate(to: size)
            } catch {
                failure = .error(
                    diagnostic.code,
                    "\(path) may end with part of a record: after a failed append (\(diagnostic.message)) it could not be cut back to \(size) bytes (\(error)). Load or compact the store again before appending.",
                    at: .init(file: path))
                throw failure!
            }
            throw diagnostic
        }
        size += frame.count
    }
}

extension Diagnostic.Code {
    /// The journal ended with a record cut short, as a crash during a write
    /// leaves it; the record was cut off.
    package static let stateTornJournal = Self("state.torn-journal")
    /// A journal record or header is damaged; it and what followed were set aside.
    package static let stateCorruptJournal = Self("state.corrupt-journal")
    /// The journal is older than the snapshot, which holds its records; it was dropped.
    package static let stateStaleJournal = Self("state.stale-journal")
    /// The journal follows a newer snapshot than the one loaded; records in between are lost.
    package static let stateJournalGap = Self("state.journal-gap")
    /// A snapshot exists but its journal does not.
    package static let stateMissingJournal = Self("state.missing-journal")
    /// A snapshot file is damaged; it was set aside and not loaded.
    package static let stateCorruptSnapshot = Self("state.corrupt-snapshot")
    /// The snapshot is missing, though other files show there was one.
    package static let stateMissingSnapshot = Self("state.missing-snapshot")
    /// The previous snapshot was loaded in place of the current one.
    package static let statePreviousSnapshot = Self("state.previous-snapshot")
    /// No snapshot could be loaded where there had been one.
    package static let stateSnapshotLost = Self("state.snapshot-lost")
    /// A store file is from a newer format version.
    package static let stateUnsupportedFormat = Self("state.unsupported-format")
    /// A store was used before `load()`.
    package static let stateNotLoaded = Self("state.not-loaded")
    /// A record or snapshot is larger than a store holds.
    package static let stateRecordTooLarge = Self("state.record-too-large")
}
