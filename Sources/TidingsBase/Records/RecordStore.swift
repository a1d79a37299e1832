import Glibc
import Synchronization

/// A crash-safe store of records on disk: a snapshot of a whole state and
/// journal segments of the records appended since, for state that must
/// outlive the process, `kill -9` included.
///
/// The store named `NAME` in `directory` is these files (format in
/// `RecordFraming`):
///
/// - `NAME.snapshot`: the state as of a fold, replaced atomically (written
///   beside, flushed, renamed over, directory flushed).
/// - `NAME.snapshot.previous`: the snapshot before that one, the fallback
///   when `NAME.snapshot` cannot be read at all.
/// - `NAME.journal.G`: the journal segment of generation G. Records are
///   appended to the newest segment, each with one `write` call.
///   (`NAME.journal`, without a generation, is a segment an older version
///   wrote; it is read like the others and folded away.)
/// - `*.corrupt`: what recovery set aside (a damaged file, or the bytes cut
///   off a segment's end), kept for inspection and never read back.
/// - `*.tmp`: a replacement being written; overwritten by the next one.
///
/// Durability. A record `append` returned for is in the kernel's page cache,
/// so it survives the process being killed (`kill -9`, a crash), though not
/// the machine losing power; `synchronize()` flushes the newest segment
/// (and, the first time, its name in the directory) to disk, and
/// `writeSnapshot` flushes the snapshot. A write a crash cuts short leaves a
/// torn last record, which `load()` detects by its length or checksum and
/// cuts off.
///
/// Folding without stopping appends. `startSegment()` seals the newest
/// segment and starts the next generation's, at once: the segment
/// `prepareSegment()` made ahead of time (else a file created and a header
/// written). The caller then builds the state as of the end of the
/// sealed segments — on another thread, while records go on being appended
/// to the new segment — and hands it to `writeSnapshot(generation:records:)`,
/// which writes the snapshot of that generation and removes the segments it
/// holds. The snapshot of generation G holds everything in the segments
/// older than G; `load()` replays the segments of generation G and newer
/// after it, so a crash at any step loses nothing: before the rename the old
/// snapshot and every segment are there, after it the segments the new
/// snapshot holds are stale and dropped.
///
/// Damage. A damaged record is skipped and reading goes on at the next whole
/// record; a segment or snapshot whose header is damaged is read all the
/// same. What was lost is reported (`Loaded.losses`), and when anything was
/// skipped `load()` writes what it kept to a new snapshot so that the damage
/// is reported once.
///
/// Threads may share a store: `append`, `synchronize` and `startSegment` are
/// serialized by one lock, `writeSnapshot` by another, so that appends go on
/// while a snapshot is written. One store object must own the files: two
/// stores on the same directory and name, in one process or two, are not
/// coordinated.
package final class RecordStore: Sendable {
    /// What `load()` read: the snapshot, the records appended after it, and
    /// what was repaired and lost on the way.
    package struct Loaded: Sendable, Equatable {
        /// The records of the snapshot loaded, nil when there is none.
        package var snapshot: [[UInt8]]?
        /// The payloads appended after that snapshot, in the order they were appended.
        package var entries: [[UInt8]]
        /// Each repair or fallback `load()` made, empty when the files were
        /// whole: torn or damaged records cut off or skipped, a damaged
        /// snapshot set aside, a stale segment dropped.
        package var recovered: [Diagnostic]
        /// What damage took: the bytes that held no whole record, file by file.
        package var losses: [Loss]

        /// A result with these parts.
        package init(snapshot: [[UInt8]]?, entries: [[UInt8]], recovered: [Diagnostic], losses: [Loss] = []) {
            self.snapshot = snapshot
            self.entries = entries
            self.recovered = recovered
            self.losses = losses
        }
    }

    /// Damage found in one file: where, and how many records it took.
    package struct Loss: Sendable, Equatable {
        /// The file, as it was named when it was read.
        package var file: String
        /// The byte ranges that held no whole record.
        package var ranges: [Range<Int>]
        /// How many records were lost, when the file says how many it held (a
        /// snapshot); nil when that is unknown (a journal: at least one per range).
        package var records: Int?
        /// What was wrong, in words.
        package var problem: String

        /// The loss as JSON: `{"file", "ranges": [[start, end]], "recordsLost", "problem"}`.
        package var json: JSON {
            .object([
                ("file", .string(file)),
                ("ranges", .array(ranges.map { .array([.integer(Int64($0.lowerBound)), .integer(Int64($0.upperBound))]) })),
                ("recordsLost", records.map { .integer(Int64($0)) } ?? .null),
                ("problem", .string(problem)),
            ])
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

    /// The segments, nil until `load()` succeeds.
    let segments = Mutex<Segments?>(nil)
    /// Whether `NAME.snapshot` holds a valid snapshot (to keep as the
    /// previous one); held while a snapshot is written.
    let snapshots = Mutex<Bool>(false)

    /// A store for the files named `name` in `directory`. Nothing is touched
    /// until `load()`. `name` is a file name: not empty, without a slash.
    package init(directory: String, name: String) {
        precondition(!name.isEmpty && !name.contains("/"), "a record store's name is a file name")
        self.directory = directory
        self.name = name
        snapshotPath = Path.join(directory, "\(name).snapshot")
        previousSnapshotPath = snapshotPath + ".previous"
    }

    /// `directory/NAME.journal.G`, the segment of generation `generation`.
    package func journalPath(generation: UInt64) -> String {
        Path.join(directory, "\(name).journal.\(generation)")
    }

    /// The path of the segment records are appended to; that of generation 0 before `load()`.
    package var journalPath: String {
        segments.withLock { $0?.live.path } ?? journalPath(generation: 0)
    }

    /// The size in bytes of the segment records are appended to, header
    /// included: what the next fold would take in. 0 before `load()`.
    package var journalSize: Int {
        segments.withLock { $0?.live.size ?? 0 }
    }

    // MARK: Appending

    /// Appends `payload` as one record to the newest segment, with one
    /// `write` call (more only when the kernel writes less than asked). Once
    /// this returns the record survives the process being killed.
    ///
    /// When the write fails part way (the disk is full), the part written is
    /// cut off again, so the segment still ends with a whole record. When
    /// even that fails, or after `synchronize()` failed, the segment takes no
    /// more records: the next `append` starts a new segment first.
    package func append(_ payload: [UInt8]) throws(Diagnostic) {
        try checkSize(of: payload)
        try append(frames: RecordFraming.frame(payload))
    }

    /// Appends `payloads` as records, in order, with one `write` call, as
    /// `append(_:)` does one: once this returns they all survive the process
    /// being killed; when it throws, none was appended. A crash during the
    /// write may leave the first of them whole and the rest torn off, which
    /// `load()` cuts off as it cuts a torn record.
    package func append(group payloads: [[UInt8]]) throws(Diagnostic) {
        var frames: [UInt8] = []
        frames.reserveCapacity(payloads.reduce(0) { $0 + RecordFraming.frameHeaderSize + $1.count })
        for payload in payloads {
            try checkSize(of: payload)
            RecordFraming.appendFrame(payload, to: &frames)
        }
        try append(frames: frames)
    }

    /// Throws unless `payload` fits in a record.
    private func checkSize(of payload: [UInt8]) throws(Diagnostic) {
        guard payload.count <= RecordFraming.maximumPayloadSize else {
            throw .error(.stateRecordTooLarge,
                         "A record of \(payload.count) bytes is larger than the \(RecordFraming.maximumPayloadSize) a journal holds.",
                         at: .init(file: journalPath))
        }
    }

    /// Appends `frame`, one or more framed records, to the newest segment.
    private func append(frames frame: [UInt8]) throws(Diagnostic) {
        try segments.withLock { (segments: inout Segments?) throws(Diagnostic) in
            guard segments != nil else { throw notLoaded }
            if segments!.live.failure != nil { try startSegment(&segments!) }
            try segments!.live.append(frame)
        }
    }

    /// Flushes the newest segment to disk, and the first time its name in
    /// the directory: every record appended before this call then survives
    /// the machine losing power. Appends from other threads go on while the
    /// disk works.
    ///
    /// A failed flush may have lost records the kernel had (Linux reports
    /// the loss once, then forgets it), so after one the segment takes no
    /// more records, and only a snapshot written since holds them for sure.
    package func synchronize() throws(Diagnostic) {
        let (descriptor, generation, path, directoryKnown) = try segments.withLock {
            (segments: inout Segments?) throws(Diagnostic) -> (Int32, UInt64, String, Bool) in
            guard segments != nil else { throw notLoaded }
            if let failure = segments!.live.failure { throw failure }
            // A second descriptor of the same open file, so that the flush
            // needs no lock and a new segment meanwhile cannot close it.
            let duplicate = segments!.live.duplicateDescriptor()
            guard duplicate >= 0 else {
                throw DurableFile.failure(.current(), "cannot duplicate the descriptor of", segments!.live.path)
            }
            return (duplicate, segments!.live.generation, segments!.live.path, segments!.live.isInDirectory)
        }
        do throws(Diagnostic) {
            do throws(SystemError) {
                try FileDescriptor(adopting: descriptor).synchronize()
            } catch {
                throw DurableFile.failure(error, "cannot flush", path)
            }
            if !directoryKnown { try DurableFile.synchronizeDirectory(of: path) }
        } catch {
            segments.withLock { segments in
                if segments?.live.generation == generation { segments!.live.failure = error }
            }
            throw error
        }
        if !directoryKnown {
            segments.withLock { segments in
                if segments?.live.generation == generation { segments!.live.isInDirectory = true }
            }
        }
    }

    // MARK: Folding

    /// Seals the newest segment and starts the next generation's, which
    /// takes every later `append`; returns its generation G. A snapshot of
    /// generation G (`writeSnapshot`) must then hold every record appended
    /// before this call. Quick: the segment `prepareSegment()` made is taken,
    /// else a file is created and its header written.
    package func startSegment() throws(Diagnostic) -> UInt64 {
        // Never nil: it may make the segment itself.
        try startSegment(makingOne: true)!
    }

    /// `startSegment()` when `prepareSegment()` has made the next segment,
    /// so that it touches no disk; nil, and nothing sealed, when none is made.
    package func startPreparedSegment() throws(Diagnostic) -> UInt64? {
        try startSegment(makingOne: false)
    }

    /// Seals the newest segment and starts the next, the one made ahead or,
    /// when `makingOne`, a new one; returns the new generation, nil when
    /// none was made ahead and it may not make one.
    private func startSegment(makingOne: Bool) throws(Diagnostic) -> UInt64? {
        try segments.withLock { (segments: inout Segments?) throws(Diagnostic) -> UInt64? in
            guard segments != nil else { throw notLoaded }
            guard makingOne || segments!.prepared != nil else { return nil }
            try startSegment(&segments!)
            return segments!.live.generation
        }
    }

    /// Makes the next generation's segment ahead of time — created under a
    /// name of its own (`NAME.journal.G.prepared`), its header written and
    /// flushed — for `startSegment()` to take without touching the disk.
    /// It gets its real name only under the lock, and only while it is
    /// still the next generation's: a seal that could not wait for it made
    /// that segment itself, and the two never share a file. Its name reaches
    /// the disk with the first `synchronize()` after it is taken. Does
    /// nothing when one is made already.
    package func prepareSegment() throws(Diagnostic) {
        guard let next = segments.withLock({ segments -> UInt64? in
            guard segments != nil, segments!.prepared == nil else { return nil }
            return segments!.live.generation + 1
        }) else { return }
        let final = journalPath(generation: next)
        let preparing = final + Self.preparedSuffix
        let created = try createSegment(generation: next, at: preparing)
        do throws(SystemError) {
            try created.descriptor.synchronize()
        } catch {
            unlink(preparing)
            throw DurableFile.failure(error, "cannot flush", preparing)
        }
        var made: OpenSegment? = consume created
        let kept = segments.withLock { segments -> Bool in
            guard segments != nil, segments!.prepared == nil, segments!.live.generation + 1 == next,
                  rename(preparing, final) == 0
            else { return false }
            made!.path = final
            segments!.prepared = made.take()
            return true
        }
        if !kept { unlink(preparing) }
    }

    /// What the name of a segment made ahead ends with until it is taken.
    static let preparedSuffix = ".prepared"

    /// Makes `records` the snapshot of `generation` — the state as of the
    /// end of every segment older than `generation` — and removes those
    /// segments. The current snapshot becomes `NAME.snapshot.previous`; the
    /// new one is written beside, flushed, renamed into place and its
    /// directory flushed. Appends go on meanwhile.
    ///
    /// After a crash at any point `load()` returns the same records: before
    /// the rename, the old snapshot and every segment; after it, the new
    /// snapshot and the segments that follow it. When this throws, nothing
    /// changed (but for a `.tmp` file removed again).
    package func writeSnapshot(generation: UInt64, records: [[UInt8]]) throws(Diagnostic) {
        try snapshots.withLock { (hasSnapshot: inout Bool) throws(Diagnostic) in
            guard segments.withLock({ $0 != nil }) else { throw notLoaded }
            try writeSnapshotFile(generation: generation, records: records,
                                  keepingCurrentAs: hasSnapshot ? previousSnapshotPath : nil)
            hasSnapshot = true
        }
        let folded = segments.withLock { segments -> [String] in
            guard segments != nil else { return [] }
            let older = segments!.sealed.filter { $0.key < generation }
            for key in older.keys { segments!.sealed[key] = nil }
            return older.values.flatMap { $0 }
        }
        // Left behind by a crash, a segment the snapshot holds is dropped by the next load.
        for path in folded { unlink(path) }
    }

    /// Writes the snapshot file of `generation` holding `records` in chunks,
    /// keeping the current one as `keepingCurrentAs` when given.
    func writeSnapshotFile(generation: UInt64, records: [[UInt8]], keepingCurrentAs kept: String?) throws(Diagnostic) {
        let chunk = 1 << 20
        let temporary = try DurableFile.prepare(snapshotPath, mode: 0o600) {
            (file: borrowing FileDescriptor) throws(SystemError) in
            var buffer = RecordFraming.snapshotPrefix(generation: generation, count: records.count)
            buffer.reserveCapacity(chunk + RecordFraming.frameHeaderSize + (records.lazy.map(\.count).max() ?? 0))
            for record in records {
                RecordFraming.appendFrame(record, to: &buffer)
                if buffer.count >= chunk {
                    try file.write(buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            try file.write(buffer)
        }
        do throws(Diagnostic) {
            if let kept { try DurableFile.link(snapshotPath, as: kept) }
            try DurableFile.move(temporary, to: snapshotPath)
        } catch {
            unlink(temporary)
            throw error
        }
        try DurableFile.synchronizeDirectory(of: snapshotPath)
    }

    // MARK: Segments

    /// The newest segment and the sealed ones not yet folded into a snapshot.
    struct Segments: ~Copyable {
        /// The segment records are appended to.
        var live: OpenSegment
        /// The next generation's segment, made ahead of time by `prepareSegment()`.
        var prepared: OpenSegment?
        /// The paths of the sealed segments, by generation.
        var sealed: [UInt64: [String]] = [:]
    }

    /// Seals `segments.live` and makes a new segment of the next generation the live one.
    private func startSegment(_ segments: inout Segments) throws(Diagnostic) {
        let next: OpenSegment
        if let prepared = segments.prepared.take() {
            next = prepared
        } else {
            next = try createSegment(generation: segments.live.generation + 1)
        }
        segments.sealed[segments.live.generation, default: []].append(segments.live.path)
        segments.live = next
    }

    /// A new, empty segment of `generation`, open for appending, at `path`
    /// (by default the generation's own).
    func createSegment(generation: UInt64, at path: String? = nil) throws(Diagnostic) -> OpenSegment {
        let path = path ?? journalPath(generation: generation)
        let descriptor = try FileDescriptor(openingOwn: path, as: .regularFile, O_RDWR | O_APPEND | O_CREAT | O_TRUNC)
        do throws(SystemError) {
            try descriptor.write(RecordFraming.header(.journal, generation: generation))
            return OpenSegment(descriptor: descriptor, path: path, size: RecordFraming.headerSize, generation: generation,
                               isInDirectory: false)
        } catch {
            unlink(path)
            throw DurableFile.failure(error, "cannot start the journal segment", path)
        }
    }

    /// `file`, its end repaired or left as it is, open for appending after its last byte.
    func openSegment(_ file: SegmentFile) throws(Diagnostic) -> OpenSegment {
        let descriptor = try FileDescriptor(openingOwn: file.path, as: .regularFile, O_RDWR | O_APPEND)
        return OpenSegment(descriptor: descriptor, path: file.path, size: file.bytes.count, generation: file.generation,
                           isInDirectory: true)
    }

    /// The error of a store used before `load()`.
    private var notLoaded: Diagnostic {
        .error(.stateNotLoaded, "The store \(name) in \(directory) is used before load().", at: .init(file: snapshotPath))
    }

    /// The error of a file from a newer format version.
    func unsupported(_ path: String, _ problem: RecordFraming.Problem) -> Diagnostic {
        .error(.stateUnsupportedFormat, "\(path) cannot be read: \(problem); the file was left as it is.", at: .init(file: path))
    }
}

extension Diagnostic.Code {
    /// A journal segment ended with a record cut short, as a crash during a
    /// write leaves it; the record was cut off.
    package static let stateTornJournal = Self("state.torn-journal")
    /// A journal record or header is damaged; what could be read around it was kept.
    package static let stateCorruptJournal = Self("state.corrupt-journal")
    /// A journal segment is older than the snapshot, which holds its records; it was dropped.
    package static let stateStaleJournal = Self("state.stale-journal")
    /// A journal segment follows a newer snapshot or segment than the one
    /// before it; records in between are lost.
    package static let stateJournalGap = Self("state.journal-gap")
    /// A snapshot exists but no journal segment follows it.
    package static let stateMissingJournal = Self("state.missing-journal")
    /// A snapshot file is damaged; what could be read of it was kept, or it was set aside.
    package static let stateCorruptSnapshot = Self("state.corrupt-snapshot")
    /// The snapshot is missing, though other files show there was one.
    package static let stateMissingSnapshot = Self("state.missing-snapshot")
    /// The previous snapshot was loaded in place of the current one.
    package static let statePreviousSnapshot = Self("state.previous-snapshot")
    /// No snapshot could be loaded where there had been one.
    package static let stateSnapshotLost = Self("state.snapshot-lost")
    /// What a damaged load kept was written to a new snapshot.
    package static let stateRewritten = Self("state.rewritten")
    /// What a damaged load kept could not be written to a new snapshot.
    package static let stateRewriteFailed = Self("state.rewrite-failed")
    /// A store file is from a newer format version.
    package static let stateUnsupportedFormat = Self("state.unsupported-format")
    /// A store was used before `load()`.
    package static let stateNotLoaded = Self("state.not-loaded")
    /// A record is larger than a store holds.
    package static let stateRecordTooLarge = Self("state.record-too-large")
}
